// Issue 16: mdfi installed to any prefix (and moved), or copied alone as one binary, runs the
// named networks with nothing read from the build tree or /usr/share/darknet; every named
// network's cfg describes the published architecture (same layers and weight counts as the stock
// cfg its official weights were trained with); labels without flags (.names beside the cfg,
// --data) and the refusals (--names x.data, a network of the other task); scripts/get-weights.sh
// offline, with a bad file and with a good one (through MDFI_WEIGHTS_MIRROR, no network needed).
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "support.h"

using namespace mdfi;
using namespace mdfi::test;

namespace {

std::string quote(const std::string& s) { return "'" + s + "'"; }  // test paths hold no single quote
std::string bin() { return mdfi_binary(); }
int count_lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

// The stock cfg each named network's cfg must match: the one its official weights come with.
// pjreddie's set from the Debian darknet package ("darknet:"), the AlexeyAB networks from his
// repository, the model zoos' own files for Yolo-Fastest and MobileNetV2-YOLOv3-Nano.
const std::map<std::string, std::string>& reference_cfgs() {
  static const std::map<std::string, std::string> refs = {
      {"yolov3", "darknet:yolov3.cfg"},
      {"yolov3-tiny", "darknet:yolov3-tiny.cfg"},
      {"yolov4-tiny", "refs/cfg/yolov4-tiny.cfg"},
      {"yolov7-tiny", "refs/cfg/yolov7-tiny.cfg"},
      {"yolov4", "refs/cfg/yolov4.cfg"},
      {"yolo-fastest-1.1", "models/yolo-fastest-1.1-coco/yolo-fastest-1.1.cfg"},
      {"yolo-fastest-1.1-xl", "models/yolo-fastest-1.1-xl-coco/yolo-fastest-1.1-xl.cfg"},
      {"mobilenetv2-yolov3-nano", "models/mobilenetv2-yolov3-nano-coco/MobileNetV2-YOLOv3-Nano-coco.cfg"},
      {"alexnet", "darknet:alexnet.cfg"},
      {"tiny", "darknet:tiny.cfg"},
      {"darknet19", "darknet:darknet19.cfg"},
      {"darknet53", "darknet:darknet53.cfg"},
      {"resnet50", "darknet:resnet50.cfg"},
  };
  return refs;
}

std::string reference_path(const std::string& ref) {
  if (ref.rfind("darknet:", 0) == 0) {
    const std::string p = darknet_cfg(ref.substr(8));
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 ? p : "";
  }
  return shared_path(ref);
}

struct Named {
  std::string name, task, cfg;
};

// name, task and cfg file of every named network, from `mdfi models --porcelain`.
std::vector<Named> named_networks() {
  auto r = run_command(bin() + " models --porcelain");
  REQUIRE(r.exit_code == 0);
  std::vector<Named> out;
  std::istringstream lines(r.out);
  std::string line;
  while (std::getline(lines, line)) {
    std::stringstream ss(line);
    std::string name, task;
    std::getline(ss, name, '\t');
    std::getline(ss, task, '\t');
    out.push_back({name, task, source_path("cfg/" + name + ".cfg")});
  }
  return out;
}

// Runs `cmd` under strace and returns every path it tried to open or stat ("" when strace is
// missing or not allowed here, e.g. ptrace blocked in a container).
bool have_strace() {
  static const bool ok = run_command("strace -f -o /dev/null true").exit_code == 0;
  return ok;
}
CommandResult run_traced(const std::string& cmd, const std::string& trace_file, std::string* paths) {
  auto r = run_command("strace -f -qq -e trace=%file -o " + quote(trace_file) + " " + cmd);
  std::ifstream f(trace_file);
  std::stringstream ss;
  ss << f.rdbuf();
  *paths = ss.str();
  return r;
}

// Lines of the trace naming a path under `prefix`.
std::string opened_under(const std::string& trace, const std::string& prefix) {
  std::string hits;
  std::istringstream lines(trace);
  std::string line;
  while (std::getline(lines, line))
    if (line.find("\"" + prefix) != std::string::npos) hits += line + "\n";
  return hits;
}

// A fresh directory outside the build tree: a binary inside its own build tree may read the source
// tree (data_lookup.h), which is what these tests must show a copy does not do.
struct OutsideDir {
  std::string path;
  explicit OutsideDir(const std::string& name) {
    const char* t = std::getenv("TMPDIR");
    path = std::string(t && *t ? t : "/tmp") + "/mdfi-" + name + "-" + std::to_string(::getpid());
    run_command("rm -rf " + quote(path) + " && mkdir -p " + quote(path));
  }
  ~OutsideDir() { run_command("rm -rf " + quote(path)); }
};

struct Fixture {
  OutsideDir dir;
  std::string root, image, tiny_w, yolo_w;
  explicit Fixture(const std::string& name) : dir(name), root(dir.path) {}
};

// A camera-sized photo and generated weights for tiny and yolov3-tiny.
void make_fixture(Fixture& fx) {
  fx.image = fx.root + "/photo.jpg";
  REQUIRE(run_command("cp /usr/share/darknet/data/dog.jpg " + quote(fx.image)).exit_code == 0);
  fx.tiny_w = fx.root + "/tiny.weights";
  fx.yolo_w = fx.root + "/yolov3-tiny.weights";
  REQUIRE(run_command(bin() + " -q gen-weights --net tiny -o " + quote(fx.tiny_w)).exit_code == 0);
  REQUIRE(run_command(bin() + " -q gen-weights --net yolov3-tiny -o " + quote(fx.yolo_w)).exit_code == 0);
}

// Generated weights for a named network, kept between test runs (the large ones take seconds to
// write): reused when `mdfi info` accepts them for the network.
std::string named_weights(const std::string& name) {
  const std::string dir = std::string(MDFI_TEST_TMP) + "/weights";
  const std::string path = dir + "/named-" + name + ".weights";
  run_command("mkdir -p " + quote(dir));
  if (run_command(bin() + " -q info --net " + name + " -w " + quote(path)).exit_code == 0) return path;
  if (run_command(bin() + " -q gen-weights --net " + name + " -o " + quote(path)).exit_code != 0) return "";
  return path;
}

// The two commands of the issue, run by `mdfi_path` from `cwd` with no data directory set.
std::pair<CommandResult, CommandResult> run_both(const Fixture& fx, const std::string& mdfi_path, const std::string& cwd,
                                                 const std::string& trace = "", std::string* paths = nullptr) {
  const std::string env = "cd " + quote(cwd) + " && env -u MDFI_DATA_DIR -u MDFI_WEIGHTS -u MDFI_WEIGHTS_DIR ";
  const std::string c = env + quote(mdfi_path) + " classify -q --net tiny -w " + quote(fx.tiny_w) + " " + quote(fx.image);
  const std::string d = env + quote(mdfi_path) + " detect -q --net yolov3-tiny --thresh 0.1 --top 20 -w " +
                        quote(fx.yolo_w) + " " + quote(fx.image);
  if (trace.empty()) return {run_command(c), run_command(d)};
  std::string p1, p2;
  auto rc = run_traced("sh -c " + quote(c), trace + ".1", &p1);
  auto rd = run_traced("sh -c " + quote(d), trace + ".2", &p2);
  *paths = p1 + p2;
  return {rc, rd};
}

}  // namespace

TEST_CASE("install: every named network's cfg has the layers and weight count of its stock cfg", "[models]") {
  if (!have_shared_models()) MDFI_SKIP(Need::kShared, "../shared/models is absent");
  const auto nets = named_networks();
  CHECK(nets.size() == reference_cfgs().size());
  for (const Named& n : nets) {
    INFO(n.name);
    auto it = reference_cfgs().find(n.name);
    REQUIRE(it != reference_cfgs().end());
    const std::string ref_path = reference_path(it->second);
    if (ref_path.empty()) {
      WARN("SKIPPED: " << it->second << " is absent");
      continue;
    }
    BuildOptions as_mdfi;  // what `mdfi --net` uses: route groups etc. only exist under AlexeyAB semantics
    as_mdfi.compat = Compat::kAuto;
    auto ours = load_network_cfg(n.cfg, as_mdfi);
    REQUIRE(ours.ok());
    // The stock cfg at the input size the named network uses (Darknet's own yolov3.cfg says 608;
    // the published yolov3-416 is the same network and weights at 416).
    BuildOptions ref_opts = as_mdfi;
    ref_opts.width = ours->net.w;
    ref_opts.height = ours->net.h;
    auto ref = load_network_cfg(ref_path, ref_opts);
    REQUIRE(ref.ok());
    CHECK(ours->warnings.empty());  // inference-only cfgs: every key is read
    CHECK(ours->net.compat == ref->net.compat);
    CHECK(ours->param_floats() == ref->param_floats());
    REQUIRE(ours->layers.size() == ref->layers.size());
    CHECK(ours->input_shape().c == ref->input_shape().c);
    CHECK(ours->input_shape().h == ref->input_shape().h);
    CHECK(ours->input_shape().w == ref->input_shape().w);
    for (size_t i = 0; i < ours->layers.size(); ++i) {
      const Layer& a = *ours->layers[i];
      const Layer& b = *ref->layers[i];
      INFO("layer " << i);
      CHECK(std::string(a.kind()) == b.kind());
      CHECK(a.detail() == b.detail());
      CHECK(a.param_floats() == b.param_floats());
      CHECK((a.out.c == b.out.c && a.out.h == b.out.h && a.out.w == b.out.w));
      CHECK(a.sources == b.sources);
    }
    // The weight count mdfi info reports for the named network is the stock cfg's.
    auto info = run_command(bin() + " info --net " + n.name);
    auto info_ref = run_command(bin() + " -q info --cfg " + quote(ref_path));
    REQUIRE(info.exit_code == 0);
    REQUIRE(info_ref.exit_code == 0);
    const std::regex params("([0-9,]+) param");
    std::smatch m1, m2;
    REQUIRE(std::regex_search(info.out, m1, params));
    REQUIRE(std::regex_search(info_ref.out, m2, params));
    CHECK(m1[1] == m2[1]);
  }
}

TEST_CASE("install: named networks with official weights here give the stock cfg's detections", "[models]") {
  // The real weights of three of the Pi models are in ../shared: the cfg written here and the
  // model zoo's own cfg must produce the same boxes, byte for byte.
  const std::map<std::string, std::string> real = {
      {"yolo-fastest-1.1", "models/yolo-fastest-1.1-coco/yolo-fastest-1.1"},
      {"yolo-fastest-1.1-xl", "models/yolo-fastest-1.1-xl-coco/yolo-fastest-1.1-xl"},
      {"mobilenetv2-yolov3-nano", "models/mobilenetv2-yolov3-nano-coco/MobileNetV2-YOLOv3-Nano-coco"},
  };
  if (!have_shared_models()) MDFI_SKIP(Need::kShared, "../shared/models is absent");
  const std::string img = shared_path("models/images/dog.png");
  for (const auto& [name, base] : real) {
    INFO(name);
    const std::string stem = shared_path(base + ".cfg");
    const std::string dir = stem.substr(0, stem.rfind('/'));
    const std::string w = shared_path(base + ".weights");
    auto ours = run_command(bin() + " detect -q --net " + name + " -w " + quote(w) + " " + quote(img));
    auto ref = run_command(bin() + " detect -q --cfg " + quote(stem) + " -w " + quote(w) + " --names " +
                           quote(dir + "/coco.names") + " " + quote(img));
    INFO(ours.err << ref.err);
    REQUIRE(ours.exit_code == 0);
    REQUIRE(ref.exit_code == 0);
    CHECK(ours.out.find("dog: ") != std::string::npos);
    CHECK(ours.out == ref.out);
  }
}

TEST_CASE("install: each named network runs its task on generated weights and refuses the other", "[models]") {
  const std::string root = tmp_dir("install_tasks");
  const std::string img = root + "/photo.jpg";
  REQUIRE(run_command("cp /usr/share/darknet/data/eagle.jpg " + quote(img)).exit_code == 0);
  for (const Named& n : named_networks()) {
    INFO(n.name);
    const std::string w = named_weights(n.name);
    REQUIRE(!w.empty());
    // At 128x128 (the weights do not depend on the input size) except alexnet, whose connected
    // layers fix it: the test is about running, not about speed.
    auto r = run_command(bin() + " " + n.task + " -q --net " + n.name + " -w " + quote(w) +
                         (n.name != "alexnet" ? " --width 128 --height 128" : "") + " " + quote(img));
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out.rfind(img + ":\n", 0) == 0);
    if (n.task == "classify") CHECK(count_lines(r.out) == 6);  // the top 5
    const std::string other = n.task == "detect" ? "classify" : "detect";
    auto wrong = run_command(bin() + " " + other + " --net " + n.name + " -w " + quote(w) + " " + quote(img));
    CHECK(wrong.exit_code == 2);
    CHECK(wrong.out.empty());
    CHECK(count_lines(wrong.err) == 1);
    CHECK(wrong.err.find("mdfi " + n.task + " --net " + n.name) != std::string::npos);
  }
}

TEST_CASE("install: cmake --install to a prefix, moved, runs from its own share/mdfi", "[models]") {
#ifdef MDFI_EMULATOR
  MDFI_SKIP(Need::kOther, "cross build: the installed binary would need the emulator");
#else
  Fixture fx("install-prefix");
  make_fixture(fx);
  const std::string first = fx.root + "/first", moved = fx.root + "/elsewhere/moved";
  auto inst = run_command(std::string(MDFI_CMAKE) + " --install " + quote(MDFI_BUILD_DIR) + " --prefix " + quote(first));
  INFO(inst.out << inst.err);
  REQUIRE(inst.exit_code == 0);
  REQUIRE(run_command("mkdir -p " + quote(fx.root + "/elsewhere") + " && mv " + quote(first) + " " + quote(moved)).exit_code == 0);
  for (const char* f : {"bin/mdfi", "share/mdfi/cfg/yolov4-tiny.cfg", "share/mdfi/cfg/tiny.cfg", "share/mdfi/data/coco.names",
                        "share/mdfi/data/imagenet1k.shortnames.list", "share/mdfi/data/voc.names",
                        "share/bash-completion/completions/mdfi", "share/man/man1/mdfi.1", "share/doc/mdfi/README.md",
                        "share/doc/mdfi/raspberry-pi.md", "share/mdfi/scripts/get-weights.sh"}) {
    INFO(f);
    CHECK(exists(moved + "/" + f));
  }
  // The man page is the help text: every command has its section.
  std::ifstream man(moved + "/share/man/man1/mdfi.1");
  std::stringstream page;
  page << man.rdbuf();
  CHECK(page.str().rfind(".TH MDFI 1", 0) == 0);
  for (const char* c : {"detect", "classify", "models", "info", "plan", "gen-weights", "bench"})
    CHECK(page.str().find(".SS mdfi " + std::string(c) + "\n") != std::string::npos);

  const std::string cwd = fx.root + "/cwd";
  REQUIRE(run_command("mkdir -p " + quote(cwd)).exit_code == 0);
  auto [bc, bd] = run_both(fx, bin(), cwd);
  REQUIRE(bc.exit_code == 0);
  REQUIRE(bd.exit_code == 0);
  CHECK(count_lines(bc.out) == 6);
  CHECK(bc.out.find("%: ") != std::string::npos);
  CHECK(bc.out.find("class ") == std::string::npos);  // ImageNet names, not indices
  CHECK(bd.out.find("class ") == std::string::npos);
  std::string trace;
  const bool traced = have_strace();
  auto [ic, id] = run_both(fx, moved + "/bin/mdfi", cwd, traced ? fx.root + "/trace" : "", &trace);
  INFO(ic.err << id.err);
  CHECK(ic.exit_code == 0);
  CHECK(id.exit_code == 0);
  CHECK(ic.out == bc.out);
  CHECK(id.out == bd.out);
  auto models = run_command("env -u MDFI_DATA_DIR " + quote(moved + "/bin/mdfi") + " models");
  CHECK(models.out.find("cfg " + moved + "/share/mdfi/cfg/yolov4-tiny.cfg\n") != std::string::npos);
  // The prefix's own share/mdfi comes before $MDFI_DATA_DIR, which is used for what it lacks.
  const std::string data = fx.root + "/datadir";
  REQUIRE(run_command("mkdir -p " + quote(data + "/cfg")).exit_code == 0);
  write_file(data + "/cfg/tiny.cfg", "[net]\nwidth=224\nheight=224\nchannels=3\n[convolutional]\nfilterz=16\n");
  write_file(data + "/cfg/yolov4-tiny.cfg", "[net]\nwidth=224\nheight=224\nchannels=3\n[convolutional]\nfilterz=16\n");
  REQUIRE(run_command("rm " + quote(moved + "/share/mdfi/cfg/yolov4-tiny.cfg")).exit_code == 0);
  CHECK(run_command("MDFI_DATA_DIR=" + quote(data) + " " + quote(moved + "/bin/mdfi") + " info --net tiny").exit_code == 0);
  auto from_env = run_command("MDFI_DATA_DIR=" + quote(data) + " " + quote(moved + "/bin/mdfi") + " info --net yolov4-tiny");
  CHECK(from_env.exit_code == 1);
  CHECK(from_env.err.find(data + "/cfg/yolov4-tiny.cfg") != std::string::npos);
  if (!traced) MDFI_SKIP(Need::kOther, "strace is not usable here: which files were opened is not checked");
  CHECK(!opened_under(trace, moved + "/share/mdfi/cfg/tiny.cfg").empty());
  CHECK(!opened_under(trace, moved + "/share/mdfi/data/imagenet1k.shortnames.list").empty());
  CHECK(opened_under(trace, "/usr/share/darknet").empty());
  CHECK(opened_under(trace, std::string(MDFI_SOURCE_DIR) + "/cfg").empty());
  CHECK(opened_under(trace, std::string(MDFI_SOURCE_DIR) + "/data").empty());
  CHECK(opened_under(trace, first).empty());
#endif
}

TEST_CASE("install: the bare binary alone in an empty directory runs from its built-in data", "[models]") {
#ifdef MDFI_EMULATOR
  MDFI_SKIP(Need::kOther, "cross build: the copied binary would need the emulator");
#else
  Fixture fx("install-bare");
  make_fixture(fx);
  const std::string alone = fx.root + "/alone";
  REQUIRE(run_command("mkdir -p " + quote(alone) + " && cp " + quote(bin()) + " " + quote(alone + "/mdfi")).exit_code == 0);
  auto [bc, bd] = run_both(fx, bin(), fx.root);
  REQUIRE(bc.exit_code == 0);
  REQUIRE(bd.exit_code == 0);
  std::string trace;
  const bool traced = have_strace();
  auto [ac, ad] = run_both(fx, alone + "/mdfi", alone, traced ? fx.root + "/trace" : "", &trace);
  INFO(ac.err << ad.err);
  CHECK(ac.exit_code == 0);
  CHECK(ad.exit_code == 0);
  CHECK(ac.out == bc.out);
  CHECK(ad.out == bd.out);
  // Nothing beside it but itself: `models` still lists every network from the built-in cfgs.
  auto models = run_command("cd " + quote(alone) + " && env -u MDFI_DATA_DIR ./mdfi models");
  INFO(models.err);
  CHECK(models.exit_code == 0);
  CHECK(models.err.empty());
  CHECK(models.out.find("cfg built-in cfg/yolov4-tiny.cfg\n") != std::string::npos);
  // A file on disk wins over the built-in copy: a cfg with a typo in MDFI_DATA_DIR is what runs.
  const std::string data = fx.root + "/datadir";
  REQUIRE(run_command("mkdir -p " + quote(data + "/cfg")).exit_code == 0);
  write_file(data + "/cfg/tiny.cfg", "[net]\nwidth=224\nheight=224\nchannels=3\n[convolutional]\nfilterz=16\n");
  auto disk = run_command("cd " + quote(alone) + " && MDFI_DATA_DIR=" + quote(data) + " ./mdfi info --net tiny");
  CHECK(disk.exit_code != 0);
  CHECK(disk.err.find(data + "/cfg/tiny.cfg") != std::string::npos);
  if (!traced) MDFI_SKIP(Need::kOther, "strace is not usable here: which files were opened is not checked");
  CHECK(opened_under(trace, "/usr/share/darknet").empty());
  CHECK(opened_under(trace, std::string(MDFI_SOURCE_DIR) + "/cfg").empty());
  CHECK(opened_under(trace, std::string(MDFI_SOURCE_DIR) + "/data").empty());
  CHECK(!opened_under(trace, fx.root + "/share/mdfi/cfg/tiny.cfg").empty());  // disk first, then the built-in copy
#endif
}
