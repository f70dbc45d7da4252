#include "support.h"

#include <catch2/catch.hpp>

#include <random>
#include <regex>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "executor.h"
#include "npy.h"
#include "plan.h"
#include "weights.h"

namespace mdfi::test {

std::string source_path(const std::string& rel) { return std::string(MDFI_SOURCE_DIR) + "/" + rel; }

std::string shared_path(const std::string& rel) {
  const std::string p = std::string(MDFI_SHARED_DIR) + "/" + rel;
  return exists(p) ? p : "";
}

bool have_shared_models() { return !shared_path("models/README.txt").empty(); }

std::string darknet_cfg(const std::string& name) { return "/usr/share/darknet/cfg/" + name; }

std::string tmp_dir(const std::string& name) {
  const std::string root = MDFI_TEST_TMP;
  ::mkdir(root.c_str(), 0755);
  const std::string d = root + "/" + name;
  std::system(("rm -rf '" + d + "' && mkdir -p '" + d + "'").c_str());
  return d;
}

#if defined(MDFI_EMULATOR)
// Cross builds: a script that runs the target's mdfi under qemu-user, like the tests themselves.
std::string mdfi_binary() { return MDFI_EMULATOR; }
#else
std::string mdfi_binary() { return MDFI_BINARY; }
#endif
std::string refdump_binary() { return MDFI_REFDUMP; }
std::string ab_refdump_binary() { return MDFI_AB_REFDUMP; }

CommandResult run_command(const std::string& cmd) {
  static int counter = 0;
  const std::string base = std::string(MDFI_TEST_TMP) + "/cmd" + std::to_string(::getpid()) + "_" + std::to_string(counter++);
  ::mkdir(MDFI_TEST_TMP, 0755);
  const std::string full = "(" + cmd + ") > '" + base + ".out' 2> '" + base + ".err' < /dev/null";
  int status = std::system(full.c_str());
  CommandResult r;
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  // A shell reports a child killed by a signal as 128+N.
  if (r.exit_code > 128 && r.exit_code < 160) r.signal = r.exit_code - 128;
  r.out = slurp(base + ".out");
  r.err = slurp(base + ".err");
  std::remove((base + ".out").c_str());
  std::remove((base + ".err").c_str());
  return r;
}

Result<Network> network_from_text(const std::string& cfg_text, const std::string& name) {
  const std::string dir = std::string(MDFI_TEST_TMP);
  ::mkdir(dir.c_str(), 0755);
  const std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary) << cfg_text;
  return load_network_cfg(path, BuildOptions{});
}

// Any non-finite element (in either operand) makes the error infinite: a NaN must never be
// outvoted by the finite differences after it, and an Inf must never divide away.
template <typename Ref>
static double relative_error_impl(const std::vector<float>& a, const std::vector<Ref>& b) {
  if (a.size() != b.size()) return INFINITY;
  double max_diff = 0, max_ref = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double x = double(a[i]), y = double(b[i]);
    if (!std::isfinite(x) || !std::isfinite(y)) return INFINITY;
    max_diff = std::max(max_diff, std::fabs(x - y));
    max_ref = std::max(max_ref, std::fabs(y));
  }
  return max_ref == 0 ? max_diff : max_diff / max_ref;
}

double relative_error(const std::vector<float>& a, const std::vector<float>& b) { return relative_error_impl(a, b); }
double relative_error(const std::vector<float>& a, const std::vector<double>& b) { return relative_error_impl(a, b); }

std::string generated_weights(const std::string& cfg_path, const std::string& tag, Compat compat) {
  const std::string dir = std::string(MDFI_TEST_TMP) + "/weights";
  std::system(("mkdir -p '" + dir + "'").c_str());
  const std::string path = dir + "/" + tag + ".weights";
  BuildOptions opts;
  opts.compat = compat;
  auto net = load_network_cfg(cfg_path, opts);
  if (!net.ok()) return "";
  const uint64_t expect = 20 + uint64_t(net->param_floats()) * 4;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && uint64_t(st.st_size) == expect) return path;
  if (!generate_weights(*net, path, 1).ok()) return "";
  return path;
}

std::vector<float> uniform_input(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}

std::string set_key(const std::string& text, const std::string& key, int value) {
  return std::regex_replace(text, std::regex("(^|\n)[ \t]*" + key + "[ \t]*=[^\n]*"), "$1" + key + "=" + std::to_string(value));
}

CollectedRun run_collect(const Network& net, const std::string& weights_path, const std::vector<float>& input,
                         const ExecOptions& exec, const Plan* plan) {
  auto wf = WeightsFile::open(weights_path);
  REQUIRE(wf.ok());
  REQUIRE(wf->validate(net).ok());
  REQUIRE(input.size() == net.input_shape().count());
  CollectedRun run;
  auto in = Buffer::make(*run.mem, input.size(), MemCategory::kActivations, "input");
  REQUIRE(in.ok());
  std::copy(input.begin(), input.end(), in->data());
  run.layers.resize(net.layers.size());
  RunHooks hooks;
  hooks.on_output = [&run](const Layer& l, const float* o) {
    run.layers[size_t(l.index)].assign(o, o + l.out.count());
    return Status::Ok();
  };
  auto r = run_network(net, plan ? *plan : make_plan(net), *wf, std::move(*in), *run.mem, hooks, exec);
  INFO((r.ok() ? std::string() : r.status().message()));
  REQUIRE(r.ok());
  run.out = std::move(*r);
  return run;
}

LayerOutputs run_layers(const std::string& tag, const std::string& cfg, const std::vector<float>& params,
                        const std::vector<float>& input, const LayerRunOptions& opt) {
  // One directory for every case, made without a shell: tmp_dir's rm/mkdir per run would cost
  // more than the runs themselves on a loaded machine.
  const std::string dir = std::string(MDFI_TEST_TMP) + "/layers";
  ::mkdir(MDFI_TEST_TMP, 0755);
  ::mkdir(dir.c_str(), 0755);
  const std::string base = dir + "/" + tag;
  std::ofstream(base + ".cfg") << cfg;
  BuildOptions bo;
  bo.compat = opt.compat;
  auto net = load_network_cfg(base + ".cfg", bo);
  INFO(tag << ": " << (net.ok() ? std::string() : net.status().message()));
  REQUIRE(net.ok());
  if (opt.expect_no_warnings) CHECK(net->warnings.empty());
  REQUIRE(net->param_floats() == params.size());
  write_weights_file(base + ".weights", params);
  ExecOptions exec;
  exec.reference = opt.reference;
  exec.threads = opt.threads;
  return run_collect(*net, base + ".weights", input, exec).layers;
}

ParityFiles prepare_parity(const std::string& dir_name, const std::string& tag, const std::string& cfg_text,
                           Compat compat, uint32_t weights_seed, uint32_t input_seed) {
  ParityFiles f;
  f.dir = tmp_dir(dir_name);
  f.cfg = f.dir + "/" + tag + ".cfg";
  f.weights = f.dir + "/w.weights";
  f.input_npy = f.dir + "/input.npy";
  std::ofstream(f.cfg) << cfg_text;
  BuildOptions bo;
  bo.compat = compat;
  auto net = load_network_cfg(f.cfg, bo);
  INFO(tag << ": " << (net.ok() ? std::string() : net.status().message()));
  REQUIRE(net.ok());
  f.net = std::move(*net);
  REQUIRE(generate_weights(f.net, f.weights, weights_seed).ok());
  const Shape s = f.net.input_shape();
  f.input = uniform_input(s.count(), input_seed);
  REQUIRE(write_npy(f.input_npy, f.input.data(), {size_t(s.c), size_t(s.h), size_t(s.w)}).ok());
  return f;
}

std::vector<Detection> kept_detections(const Network& net, const RunOutput& out, int img_w, int img_h, float thresh,
                                       float nms) {
  DetectOptions opt;
  opt.thresh = thresh;
  opt.nms = nms;
  std::vector<Detection> dets = network_detections(net, out, img_w, img_h, opt);
  const int classes = dets.empty() ? 0 : int(dets[0].prob.size());
  if (nms > 0) network_nms(net, dets, classes, nms);
  std::vector<Detection> kept;
  for (Detection& d : dets)
    if (std::any_of(d.prob.begin(), d.prob.end(), [thresh](float p) { return p > thresh; })) kept.push_back(std::move(d));
  return kept;
}

const char* winograd_test_cfg() {
  return R"([net]
width=27
height=21
channels=3
[convolutional]
batch_normalize=1
filters=16
size=3
stride=1
pad=1
activation=leaky
[convolutional]
batch_normalize=1
filters=21
size=3
stride=1
pad=1
activation=leaky
[maxpool]
size=2
stride=2
[convolutional]
filters=40
size=3
stride=1
pad=0
activation=relu
[convolutional]
batch_normalize=1
filters=12
size=3
stride=1
pad=1
activation=logistic
[convolutional]
filters=9
size=1
stride=1
activation=linear
)";
}

std::string net_section(int w, int h, int c) {
  return "[net]\nbatch=64\nwidth=" + std::to_string(w) + "\nheight=" + std::to_string(h) + "\nchannels=" +
         std::to_string(c) + "\n";
}

LayerOutputs run_once(const std::string& tag, const std::string& cfg, const std::vector<float>& params,
                      const std::vector<float>& input, bool reference) {
  LayerRunOptions opt;
  opt.reference = reference;
  opt.threads = 2;
  opt.expect_no_warnings = true;
  return run_layers("once_" + tag, cfg, params, input, opt);
}

LayerOutputs run_both(const std::string& tag, const std::string& cfg, const std::vector<float>& params,
                      const std::vector<float>& input, size_t layer, const std::vector<float>& want, double tol) {
  LayerOutputs ref = run_once(tag + "_ref", cfg, params, input, true);
  LayerOutputs fast = run_once(tag + "_fast", cfg, params, input, false);
  {
    INFO("reference path, layer " << layer);
    check_close(ref[layer], want, tol);
  }
  {
    INFO("fast path, layer " << layer);
    check_close(fast[layer], want, tol);
  }
  for (size_t i = 0; i < ref.size(); ++i) {
    INFO("fast vs reference, layer " << i);
    check_close(fast[i], ref[i]);
  }
  return ref;
}

LayerOutputs run_tiny(const std::string& tag, const std::string& cfg, const std::vector<float>& params,
                      const std::vector<float>& input, Compat compat) {
  LayerRunOptions opt;
  opt.compat = compat;
  return run_layers("tiny_" + tag, cfg, params, input, opt);
}

void check_close(const std::vector<float>& got, const std::vector<float>& want, double tol) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("value " << i << ": got " << got[i] << ", want " << want[i]);
    CHECK(std::fabs(double(got[i]) - double(want[i])) <= tol * std::max(1.0, std::fabs(double(want[i]))));
  }
}

std::vector<float> random_floats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

void write_weights_file(const std::string& path, const std::vector<float>& params) {
  std::ofstream w(path, std::ios::binary);
  const int32_t head[3] = {0, 2, 0};
  const uint64_t seen = 0;
  w.write(reinterpret_cast<const char*>(head), sizeof head);
  w.write(reinterpret_cast<const char*>(&seen), sizeof seen);
  w.write(reinterpret_cast<const char*>(params.data()), std::streamsize(params.size() * sizeof(float)));
}

bool ci_provides(Need need) {
  const char* ci = std::getenv("CI");
  return need != Need::kOther && ci && std::string(ci) == "true";
}

static std::vector<std::string>& skip_list() {
  static std::vector<std::string> list;
  return list;
}
void record_skip(const std::string& why) { skip_list().push_back(why); }
const std::vector<std::string>& recorded_skips() { return skip_list(); }

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void write_file(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

}  // namespace mdfi::test
