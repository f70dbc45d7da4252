// The OpenCL backend against the CPU path, on whatever OpenCL device is present (PoCL in CI):
// the SGEMM in every tile configuration and split-K factor against a double-precision
// reference on awkward shapes; every layer of yolov3-tiny and Yolo-Fastest-1.1 on the device
// from the CPU reference's own input; both networks chained on the device; the program cache.
// Every test skips when mdfi was built without OpenCL or no platform exists at run time.
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>

#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "backend.h"
#include "detect.h"
#include "image.h"
#include "plan.h"
#include "support.h"
#include "weights.h"

#ifdef MDFI_HAVE_OPENCL
#include "sgemm.h"
#include "program_cache.h"
#endif

using namespace mdfi;
using namespace mdfi::test;

namespace {

// One backend for the whole run: building the program on PoCL takes seconds.
cl::Backend* backend() {
  static std::unique_ptr<cl::Backend> b = [] {
    auto r = cl::Backend::open({});
    return r.ok() ? std::move(*r) : nullptr;
  }();
  return b.get();
}

#define MDFI_NEED_OPENCL()                                                                   \
  do {                                                                                       \
    if (!cl::compiled_in()) MDFI_SKIP(Need::kOpenCL, "built without OpenCL (MDFI_OPENCL=OFF)");             \
    auto _devs = cl::list_devices();                                                         \
    if (!_devs.ok()) MDFI_SKIP(Need::kOpenCL, "no OpenCL platform: " << _devs.status().message());          \
    REQUIRE(backend() != nullptr);                                                           \
  } while (0)

[[maybe_unused]] std::vector<float> random_vector(size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

// All layer outputs of one CPU run.
struct CpuRun {
  std::vector<std::vector<float>> outputs;
  std::unique_ptr<MemoryTracker> mem = std::make_unique<MemoryTracker>();  // outlives `out`'s buffers
  RunOutput out;
};

CpuRun run_cpu(const Network& net, const std::string& weights_path, const std::vector<float>& input) {
  CpuRun r;
  r.outputs.resize(net.layers.size());
  auto wf = WeightsFile::open(weights_path);
  REQUIRE(wf.ok());
  REQUIRE(wf->validate(net).ok());
  MemoryTracker& mem = *r.mem;
  auto in = Buffer::make(mem, input.size(), MemCategory::kActivations, "input");
  REQUIRE(in.ok());
  std::copy(input.begin(), input.end(), in->data());
  RunHooks hooks;
  hooks.on_output = [&r](const Layer& l, const float* p) {
    r.outputs[size_t(l.index)].assign(p, p + l.out.count());
    return Status::Ok();
  };
  auto out = run_network(net, make_plan(net), *wf, std::move(*in), mem, hooks);
  REQUIRE(out.ok());
  r.out = std::move(*out);
  return r;
}

std::vector<float> letterboxed(const Network& net, const std::string& image) {
  MemoryTracker mem;
  auto im = load_image_rgb(image, mem);
  REQUIRE(im.ok());
  auto boxed = letterbox_image(*im, net.net.w, net.net.h, mem);
  REQUIRE(boxed.ok());
  return std::vector<float>(boxed->data.data(), boxed->data.data() + boxed->data.size());
}

std::string found_text(const Network& net, const RunOutput& out, int w, int h) {
  DetectOptions opt;
  auto dets = head_detections(net, out, w, h, opt);
  const int ncls = dets.empty() ? 0 : int(dets[0].prob.size());
  nms_sort(dets, ncls, opt.nms);
  std::string s;
  for (const Found& f : collect_found(dets, w, h, opt.thresh))
    s += std::to_string(f.class_id) + " " + std::to_string(int(std::lround(f.prob * 100))) + " " +
         std::to_string(f.left) + " " + std::to_string(f.top) + " " + std::to_string(f.right) + " " +
         std::to_string(f.bottom) + "\n";
  return s;
}

// Every layer on the device from the CPU's inputs (<= 1e-5), then the whole network chained on
// the device (<= 1e-4 per layer), then the same detections. Detections are compared for real
// weights only: random weights put scores of hundreds of boxes right at the threshold, where
// the last bit of rounding decides.
void check_network(const std::string& cfg, const std::string& weights, const std::string& image, int img_w, int img_h,
                   bool compare_detections) {
  auto net = load_network_cfg(cfg, BuildOptions{});
  REQUIRE(net.ok());
  const std::vector<float> input = letterboxed(*net, image);
  CpuRun cpu = run_cpu(*net, weights, input);
  auto wf = WeightsFile::open(weights);
  REQUIRE(wf.ok());
  const std::vector<size_t> offsets = layer_param_offsets(*net);

  int convs = 0;
  for (const auto& l : net->layers) {
    std::vector<const float*> ins;
    for (int s : l->sources) ins.push_back(s < 0 ? input.data() : cpu.outputs[size_t(s)].data());
    LayerParams params(*wf, *l, offsets[size_t(l->index)]);
    auto got = backend()->forward_layer(*l, ins, params);
    INFO(cfg << " layer " << l->index << " [" << l->kind() << "] " << l->detail());
    INFO((got.ok() ? "" : got.status().message()));
    REQUIRE(got.ok());
    const double rel = relative_error(*got, cpu.outputs[size_t(l->index)]);
    INFO("max-abs-diff / max-abs = " << rel);
    CHECK(rel <= 1e-5);
    convs += std::string(l->kind()) == "conv";
  }
  CHECK(convs > 5);

  std::vector<std::vector<float>> dev(net->layers.size());
  MemoryTracker mem;
  auto in = Buffer::make(mem, input.size(), MemCategory::kActivations, "input");
  REQUIRE(in.ok());
  std::copy(input.begin(), input.end(), in->data());
  RunHooks hooks;
  hooks.on_output = [&dev](const Layer& l, const float* p) {
    dev[size_t(l.index)].assign(p, p + l.out.count());
    return Status::Ok();
  };
  auto out = backend()->run(*net, make_plan(*net), *wf, std::move(*in), mem, hooks);
  REQUIRE(out.ok());
  for (size_t i = 0; i < dev.size(); ++i) {
    const double rel = relative_error(dev[i], cpu.outputs[i]);
    INFO(cfg << " chained layer " << i << " relative error " << rel);
    CHECK(rel <= 1e-4);
  }
  const cl::DeviceMemStats dm = backend()->device_memory();
  CHECK(dm.peak > 0);
  CHECK(dm.peak_layer >= 0);
  if (!compare_detections) return;
  const std::string a = found_text(*net, cpu.out, img_w, img_h), b = found_text(*net, *out, img_w, img_h);
  INFO("cpu:\n" << a << "opencl:\n" << b);
  CHECK(!a.empty());
  CHECK(a == b);
}

}  // namespace

TEST_CASE("OpenCL: devices are listed with their properties", "[opencl]") {
  MDFI_NEED_OPENCL();
  auto devs = cl::list_devices();
  REQUIRE(!devs->empty());
  for (const auto& d : *devs) {
    CHECK(!d.name.empty());
    CHECK(d.compute_units > 0);
    CHECK(d.global_mem > 0);
    CHECK(d.local_mem > 0);
    CHECK(d.version.rfind("OpenCL ", 0) == 0);
  }
  auto bad = cl::Backend::open({"no such device anywhere"});
  REQUIRE(!bad.ok());
  CHECK(bad.status().message().find("no such device") != std::string::npos);
  auto out_of_range = cl::Backend::open({"999"});
  REQUIRE(!out_of_range.ok());
}

#ifdef MDFI_HAVE_OPENCL
TEST_CASE("OpenCL: every SGEMM configuration and split-K matches a double reference", "[opencl]") {
  MDFI_NEED_OPENCL();
  auto rt = cl::Runtime::open("");
  REQUIRE(rt.ok());
  cl::GemmTuner tuner(**rt, false);
  std::mt19937 rng(7);
  // 1s, primes, and sizes just off the tile multiples.
  const int shapes[][3] = {{1, 1, 1}, {1, 13, 7}, {5, 1, 3}, {17, 31, 1}, {31, 37, 41}, {64, 65, 63}, {129, 97, 130}, {37, 169, 288}};
  for (const auto& s : shapes) {
    const int M = s[0], N = s[1], K = s[2];
    const auto A = random_vector(size_t(M) * K, rng), B = random_vector(size_t(K) * N, rng);
    std::vector<float> ref(size_t(M) * N);
    for (int m = 0; m < M; ++m)
      for (int n = 0; n < N; ++n) {
        double acc = 0;
        for (int k = 0; k < K; ++k) acc += double(A[size_t(m) * K + k]) * B[size_t(k) * N + n];
        ref[size_t(m) * N + n] = float(acc);
      }
    for (size_t c = 0; c < cl::gemm_configs().size(); ++c)
      for (int splits : {1, 2, 3}) {
        const cl::GemmPlan p = cl::make_gemm_plan(M, N, K, int(c), splits);
        std::vector<float> at(p.at_floats(), 0.f), b(p.b_floats(), 0.f), got(size_t(M) * N, NAN);
        for (int m = 0; m < M; ++m)
          for (int k = 0; k < K; ++k) at[size_t(k) * p.Mp + m] = A[size_t(m) * K + k];
        for (int k = 0; k < K; ++k)
          for (int n = 0; n < N; ++n) b[size_t(k) * p.Np + n] = B[size_t(k) * N + n];
        auto dat = (*rt)->alloc(at.size() * 4, "A"), db = (*rt)->alloc(b.size() * 4, "B"),
             dc = (*rt)->alloc(got.size() * 4, "C"), part = (*rt)->alloc(std::max<size_t>(p.partial_floats(), 1) * 4, "P");
        REQUIRE((dat.ok() && db.ok() && dc.ok() && part.ok()));
        REQUIRE((*rt)->write(*dat, at.data(), at.size() * 4).ok());
        REQUIRE((*rt)->write(*db, b.data(), b.size() * 4).ok());
        REQUIRE((*rt)->write(*dc, got.data(), got.size() * 4).ok());  // NaN poison: every C must be written
        REQUIRE(cl::enqueue_gemm(**rt, p, dat->get(), db->get(), dc->get(), nullptr, -1, part->get()).ok());
        REQUIRE((*rt)->read(*dc, got.data(), got.size() * 4).ok());
        INFO(M << "x" << N << "x" << K << " " << cl::gemm_configs()[c].name << " splits " << splits);
        CHECK(relative_error(got, ref) <= 1e-5);
      }
  }
  // The public entry point, through the tuner's choice.
  const int M = 23, N = 45, K = 67;
  const auto A = random_vector(size_t(M) * K, rng), B = random_vector(size_t(K) * N, rng);
  std::vector<float> C(size_t(M) * N), ref(size_t(M) * N, 0.f);
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      double acc = 0;
      for (int k = 0; k < K; ++k) acc += double(A[size_t(m) * K + k]) * B[size_t(k) * N + n];
      ref[size_t(m) * N + n] = float(acc);
    }
  REQUIRE(backend()->gemm(M, N, K, A.data(), B.data(), C.data()).ok());
  CHECK(relative_error(C, ref) <= 1e-5);
}

TEST_CASE("OpenCL: the compiled program is cached on disk", "[opencl]") {
  MDFI_NEED_OPENCL();
  const std::string dir = tmp_dir("opencl_cache");
  const char* old = std::getenv("XDG_CACHE_HOME");
  const std::string saved = old ? old : "";
  ::setenv("XDG_CACHE_HOME", dir.c_str(), 1);
  auto first = cl::Runtime::open("");
  auto second = cl::Runtime::open("");
  if (old) ::setenv("XDG_CACHE_HOME", saved.c_str(), 1);
  else ::unsetenv("XDG_CACHE_HOME");
  REQUIRE(first.ok());
  REQUIRE(second.ok());
  CHECK(!(*first)->program_from_cache());
  CHECK((*second)->program_from_cache());
}
#endif

TEST_CASE("OpenCL: yolov3-tiny layer by layer and chained equals the CPU path", "[opencl]") {
  MDFI_NEED_OPENCL();
  const std::string cfg = source_path("cfg/yolov3-tiny.cfg");
  const std::string weights = generated_weights(cfg, "yolov3-tiny");
  REQUIRE(!weights.empty());
  check_network(cfg, weights, "/usr/share/darknet/data/dog.jpg", 768, 576, false);
}

TEST_CASE("OpenCL: Yolo-Fastest-1.1 layer by layer and chained equals the CPU path", "[opencl]") {
  MDFI_NEED_OPENCL();
  const std::string dir = shared_path("models/yolo-fastest-1.1-coco");
  if (dir.empty()) MDFI_SKIP(Need::kShared, "../shared/models is absent");
  check_network(dir + "/yolo-fastest-1.1.cfg", dir + "/yolo-fastest-1.1.weights", "/usr/share/darknet/data/dog.jpg", 768,
                576, true);
}

namespace {

struct Det {
  std::string name;
  int prob, left, top, width, height;
};

std::vector<Det> parse_detections(const std::string& text) {
  std::vector<Det> out;
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t end = text.find('\n', pos);
    const std::string line = text.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    pos = end == std::string::npos ? text.size() : end + 1;
    Det d;
    char name[64] = {0};
    if (std::sscanf(line.c_str(), "%63[^:]: %d%%\t(left: %d top: %d width: %d height: %d)", name, &d.prob, &d.left, &d.top,
                    &d.width, &d.height) == 6) {
      d.name = name;
      out.push_back(d);
    }
  }
  return out;
}

}  // namespace

TEST_CASE("OpenCL: mdfi devices, --backend opencl and its failures on the command line", "[opencl]") {
  MDFI_NEED_OPENCL();
  // The user's cache directory on purpose: PoCL keeps its compiled kernels there too, and a
  // fresh one makes every command recompile them.
  const std::string env;
  auto devs = run_command(env + mdfi_binary() + " devices");
  INFO(devs.err);
  CHECK(devs.exit_code == 0);
  CHECK(devs.out.find("compute units") != std::string::npos);
  CHECK(devs.out.find("global memory") != std::string::npos);

  const std::string dir = shared_path("models/yolo-fastest-1.1-coco");
  if (dir.empty()) MDFI_SKIP(Need::kShared, "../shared/models is absent");
  const std::string model = " --cfg '" + dir + "/yolo-fastest-1.1.cfg' -w '" + dir + "/yolo-fastest-1.1.weights' --names '" +
                            dir + "/coco.names' /usr/share/darknet/data/dog.jpg";
  auto bad = run_command(env + mdfi_binary() + " -q detect --backend opencl --device 'no such device'" + model);
  CHECK(bad.exit_code == 1);
  CHECK(bad.err.find("--backend opencl") != std::string::npos);
  auto stray = run_command(env + mdfi_binary() + " -q detect --device 0" + model);
  CHECK(stray.exit_code == 2);
  // --keep-weights on the CPU keeps the prepared weights in RAM: same detections as streaming.
  auto cpu_keep = run_command(env + mdfi_binary() + " -q detect --keep-weights" + model);
  auto cpu_stream = run_command(env + mdfi_binary() + " -q detect" + model);
  CHECK(cpu_keep.exit_code == 0);
  CHECK(cpu_keep.out == cpu_stream.out);

  // Same detections as the CPU reference; folded batch-norm and FMA move the last bits, which
  // can move a printed percentage or pixel by one.
  auto ref = run_command(env + mdfi_binary() + " -q detect --reference" + model);
  auto dev = run_command(env + mdfi_binary() + " -q detect --backend opencl --mem-report" + model);
  INFO(ref.err << dev.err);
  REQUIRE(ref.exit_code == 0);
  REQUIRE(dev.exit_code == 0);
  CHECK(dev.err.find("peak device memory") != std::string::npos);
  const auto a = parse_detections(ref.out), b = parse_detections(dev.out);
  INFO("reference:\n" << ref.out << "opencl:\n" << dev.out);
  REQUIRE(a.size() >= 3);
  REQUIRE(a.size() == b.size());
  // Weights kept on the device across a batch: the second image reuses them, same results.
  auto kept = run_command(env + mdfi_binary() + " -q detect --backend opencl --keep-weights" + model +
                          " /usr/share/darknet/data/dog.jpg");
  INFO(kept.err);
  REQUIRE(kept.exit_code == 0);
  const auto k = parse_detections(kept.out);
  REQUIRE(k.size() == 2 * b.size());
  for (size_t i = 0; i < b.size(); ++i) {
    CHECK(k[i].prob == b[i].prob);
    CHECK(k[b.size() + i].prob == b[i].prob);
    CHECK(k[b.size() + i].left == b[i].left);
  }
  for (size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].name == b[i].name);
    CHECK(std::abs(a[i].prob - b[i].prob) <= 1);
    CHECK(std::abs(a[i].left - b[i].left) <= 1);
    CHECK(std::abs(a[i].top - b[i].top) <= 1);
    CHECK(std::abs(a[i].width - b[i].width) <= 1);
    CHECK(std::abs(a[i].height - b[i].height) <= 1);
  }
}

TEST_CASE("OpenCL: --backend opencl with no platform at run time fails with exit 1", "[opencl]") {
  // An empty vendor directory leaves the ICD loader with no platform; a build without OpenCL
  // gives the same exit code with its own message. The CPU path must not care either way.
  const std::string empty = tmp_dir("opencl_no_vendors");
  const std::string env = "OCL_ICD_VENDORS='" + empty + "' XDG_CACHE_HOME='" + empty + "' ";
  const std::string cfg = source_path("cfg/yolov3-tiny.cfg");
  const std::string weights = generated_weights(cfg, "yolov3-tiny");
  REQUIRE(!weights.empty());
  const std::string model = " --cfg '" + cfg + "' -w '" + weights + "' --width 64 --height 64 /usr/share/darknet/data/dog.jpg";
  auto devs = run_command(env + mdfi_binary() + " devices");
  CHECK(devs.exit_code == 1);
  auto dev = run_command(env + mdfi_binary() + " -q detect --backend opencl" + model);
  INFO(dev.err);
  CHECK(dev.exit_code == 1);
  CHECK(dev.err.find(cl::compiled_in() ? "no OpenCL platform" : "without the OpenCL backend") != std::string::npos);
  auto cpu = run_command(env + mdfi_binary() + " -q detect" + model);
  INFO(cpu.err);
  CHECK(cpu.exit_code == 0);
}

TEST_CASE("OpenCL: layers without a device kernel are listed under -v, counted, and timed apart", "[opencl]") {
  MDFI_NEED_OPENCL();
  const std::string dir = shared_path("models/mobilenetv2-yolo-fastest-voc-v2");
  if (dir.empty()) MDFI_SKIP(Need::kShared, "../shared/models is absent");
  const std::string cfg = dir + "/MobileNetV2-YOLO-Fastest-voc-v2.cfg", weights = dir + "/MobileNetV2-YOLO-Fastest-voc-v2.weights";
  // Its squeeze-and-excitation blocks use a global avgpool and [scale_channels]: no device kernels.
  BuildOptions bo;
  bo.compat = Compat::kAlexeyAB;  // what auto picks for it
  auto net = load_network_cfg(cfg, bo);
  REQUIRE(net.ok());
  const std::vector<int> host = cl::Backend::host_layers(*net);
  REQUIRE(host.size() == 4);
  CHECK(std::string(net->layers[size_t(host[0])]->kind()) == "avg");
  CHECK(std::string(net->layers[size_t(host[1])]->kind()) == "scale_ch");
  const std::string model = " --cfg '" + cfg + "' -w '" + weights + "' --names '" + dir + "/voc.names' ";
  auto v = run_command(mdfi_binary() + " -v detect --backend opencl" + model + shared_path("models/images/dog.png"));
  INFO(v.err);
  REQUIRE(v.exit_code == 0);
  CHECK(v.err.find("4 of " + std::to_string(net->layers.size()) + " layers have no device kernel and run on the CPU: " +
                   std::to_string(host[0]) + " [avg], " + std::to_string(host[1]) + " [scale_ch]") != std::string::npos);
  CHECK(v.err.find("OpenCL: 4 of " + std::to_string(net->layers.size()) + " layers ran on the CPU") != std::string::npos);

  // bench: per-layer device times from event profiling, the host layers marked and host-timed.
  auto b = run_command(mdfi_binary() + " bench --backend opencl --warmup 0 -r 1 -f json" + model +
                       shared_path("models/images/dog.png"));
  INFO(b.err);
  REQUIRE(b.exit_code == 0);
  CHECK(b.out.find("\"layer_times\": \"device (OpenCL event profiling)\"") != std::string::npos);
  CHECK(b.out.find("\"host_layers\": 4") != std::string::npos);
  CHECK(b.out.find("\"device_gflops_per_s\"") != std::string::npos);

  // The run itself reports each layer's device time; convolutions take some, host layers none.
  auto wf = WeightsFile::open(weights);
  REQUIRE(wf.ok());
  MemoryTracker mem;
  auto in = Buffer::make(mem, net->input_shape().count(), MemCategory::kActivations, "input");
  REQUIRE(in.ok());
  std::fill(in->data(), in->data() + in->size(), 0.5f);
  std::vector<LayerRunStats> stats;
  RunHooks hooks;
  hooks.on_layer = [&](const LayerRunStats& s) { stats.push_back(s); };
  auto out = backend()->run(*net, make_plan(*net), *wf, std::move(*in), mem, hooks);
  REQUIRE(out.ok());
  REQUIRE(out->device_ms.size() == net->layers.size());
  REQUIRE(stats.size() == net->layers.size());
  for (size_t i = 0; i < stats.size(); ++i) {
    const bool is_host = std::find(host.begin(), host.end(), int(i)) != host.end();
    INFO("layer " << i << " [" << net->layers[i]->kind() << "] device ms " << out->device_ms[i]);
    CHECK(stats[i].on_host == is_host);
    if (std::string(net->layers[i]->kind()) == "conv") CHECK(out->device_ms[i] > 0);
  }
  const cl::RunTiming t = backend()->last_timing();
  CHECK(t.host_layers == 4);
  CHECK(t.compute_ms > 0);
  CHECK(t.upload_ms > 0);
  CHECK(t.read_ms > 0);
}

TEST_CASE("OpenCL: weights cut short while the stream reads ahead give an error naming a layer, not a hang", "[opencl]") {
  MDFI_NEED_OPENCL();
  const std::string cfg = source_path("cfg/yolov3-tiny.cfg");
  const std::string weights = generated_weights(cfg, "yolov3-tiny");
  REQUIRE(!weights.empty());
  const std::string copy = tmp_dir("opencl_truncate") + "/copy.weights";
  REQUIRE(std::system(("cp '" + weights + "' '" + copy + "'").c_str()) == 0);
  BuildOptions bo;
  bo.width = bo.height = 96;
  auto net = load_network_cfg(cfg, bo);
  REQUIRE(net.ok());
  auto wf = WeightsFile::open(copy);
  REQUIRE(wf.ok());
  REQUIRE(wf->validate(*net).ok());
  MemoryTracker mem;
  auto in = Buffer::make(mem, net->input_shape().count(), MemCategory::kActivations, "input");
  REQUIRE(in.ok());
  std::fill(in->data(), in->data() + in->size(), 0.5f);
  // Another process cuts the file to its first layers while layer 0 runs; the reader thread
  // meets the end of the file some layers ahead of the walk.
  RunHooks hooks;
  hooks.on_layer = [&](const LayerRunStats& s) {
    if (s.index == 0) REQUIRE(::truncate(copy.c_str(), 4096) == 0);
  };
  auto out = backend()->run(*net, make_plan(*net), *wf, std::move(*in), mem, hooks);
  REQUIRE(!out.ok());
  INFO(out.status().message());
  CHECK(out.status().message().find("layer ") != std::string::npos);
  CHECK(out.status().message().find("ended early") != std::string::npos);
  // The backend still works afterwards.
  auto wf2 = WeightsFile::open(weights);
  REQUIRE(wf2.ok());
  auto in2 = Buffer::make(mem, net->input_shape().count(), MemCategory::kActivations, "input");
  REQUIRE(in2.ok());
  std::fill(in2->data(), in2->data() + in2->size(), 0.5f);
  auto again = backend()->run(*net, make_plan(*net), *wf2, std::move(*in2), mem);
  CHECK(again.ok());
}
