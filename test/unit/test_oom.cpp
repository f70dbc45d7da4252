// Allocation-failure injection (as ncnn's OOM tests do): the Nth tracked allocation of a whole
// detect pipeline - image decode, letterbox, every layer's output, parameters and workspace - is
// made to fail, for every N on small networks and for a sample of N on yolov3-tiny. Each run must
// end in a clean kOutOfMemory error (never a crash, never a success that skipped work) and leave
// the tracker at zero bytes, i.e. nothing leaked on the error path. One exception is allowed and
// checked: stb_image probes formats in turn and its JPEG probe allocates, so a PNG survives a
// failure there - only inside decoding, and only with outputs identical to the reference run. LeakSanitizer checks the
// untracked side in the sanitizer job (scripts/ci-sanitizers.sh).
#include <catch2/catch.hpp>
#include <fstream>
#include <string>
#include <vector>

#include "executor.h"
#include "image.h"
#include "plan.h"
#include "support.h"
#include "weights.h"

namespace {

// One image through the network the way `mdfi detect` drives the engine (app/run_common.cpp).
mdfi::Status run_pipeline(const mdfi::Network& net, const mdfi::Plan& plan, const std::string& weights,
                          const std::string& image, mdfi::MemoryTracker& mem, std::vector<float>* outputs = nullptr) {
  auto wf = mdfi::WeightsFile::open(weights);
  if (!wf.ok()) return wf.status();
  MDFI_RETURN_IF_ERROR(wf->validate(net));
  mdfi::Buffer input;
  {
    auto im = mdfi::load_image_u8(image, mem);
    if (!im.ok()) return im.status();
    auto boxed = mdfi::letterbox_image(*im, net.net.w, net.net.h, mem, mdfi::MemCategory::kActivations);
    if (!boxed.ok()) return boxed.status();
    input = std::move(boxed->data);
  }
  auto out = mdfi::run_network(net, plan, *wf, std::move(input), mem);
  if (!out.ok()) return out.status();
  if (outputs)
    for (const auto& kv : out->kept) outputs->insert(outputs->end(), kv.second.data(), kv.second.data() + kv.second.size());
  return mdfi::Status::Ok();
}

struct Model {
  mdfi::Network net;
  mdfi::Plan plan;
  std::string weights;
};

Model load_model(const std::string& cfg, const std::string& tag) {
  auto net = mdfi::load_network_cfg(cfg, mdfi::BuildOptions{});
  REQUIRE(net.ok());
  Model m{std::move(*net), {}, mdfi::test::generated_weights(cfg, tag)};
  REQUIRE(!m.weights.empty());
  m.plan = mdfi::make_plan(m.net);
  return m;
}

struct Reference {
  uint64_t allocations = 0;         // in the whole pipeline
  uint64_t decode_allocations = 0;  // in load_image_u8 alone
  std::vector<float> outputs;       // every kept output, concatenated
};

Reference reference_run(const Model& m, const std::string& image) {
  Reference ref;
  mdfi::MemoryTracker mem;
  const mdfi::Status st = run_pipeline(m.net, m.plan, m.weights, image, mem, &ref.outputs);
  INFO(st.message());
  REQUIRE(st.ok());
  CHECK(mem.current().total() == 0);
  ref.allocations = mem.allocations();
  mdfi::MemoryTracker dec;
  REQUIRE(mdfi::load_image_u8(image, dec).ok());
  ref.decode_allocations = dec.allocations();
  return ref;
}

void check_fails_cleanly(const Model& m, const std::string& image, uint64_t n, const Reference& ref) {
  mdfi::MemoryTracker mem;
  mem.fail_nth_allocation(n);
  std::vector<float> outputs;
  const mdfi::Status st = run_pipeline(m.net, m.plan, m.weights, image, mem, &outputs);
  INFO("allocation " << n << " of " << ref.allocations << " failed: " << st.message());
  if (st.ok()) {
    // Absorbed by the decoder's format probing: allowed only there, and only with the same answer.
    CHECK(n <= ref.decode_allocations);
    CHECK(outputs == ref.outputs);
    CHECK(mem.current().total() == 0);
    return;
  }
  CHECK(st.kind() == mdfi::ErrorKind::kOutOfMemory);
  CHECK(st.message().find("out of memory") != std::string::npos);
  CHECK(mem.current().total() == 0);  // every tracked byte was given back on the error path
}

// A small network with every layer type the streaming executor treats differently: batch-norm
// conv, grouped conv, maxpool, route, shortcut, upsample, two yolo heads, dropout.
const char* kAllLayersCfg = R"([net]
width=48
height=40
channels=3
[convolutional]
batch_normalize=1
filters=8
size=3
stride=1
pad=1
activation=leaky
[maxpool]
size=2
stride=2
[convolutional]
batch_normalize=1
filters=8
groups=2
size=3
pad=1
activation=leaky
[route]
layers=-1,-2
[convolutional]
filters=8
size=1
activation=linear
[shortcut]
from=-4
activation=linear
[dropout]
probability=.5
[convolutional]
filters=18
size=1
activation=linear
[yolo]
mask=0,1,2
anchors=4,4,8,8,16,16,24,24,32,32,40,40
classes=1
num=6
[route]
layers=-4
[upsample]
stride=2
[convolutional]
filters=18
size=3
pad=1
activation=linear
[yolo]
mask=3,4,5
anchors=4,4,8,8,16,16,24,24,32,32,40,40
classes=1
num=6
)";

}  // namespace

TEST_CASE("every allocation of a small detect run can fail and gives a clean out-of-memory error", "[robustness]") {
  const std::string dir = mdfi::test::tmp_dir("oom");
  const std::string cfg = dir + "/all-layers.cfg";
  std::ofstream(cfg) << kAllLayersCfg;
  const Model all = load_model(cfg, "oom-all-layers");
  const Model tiny = load_model(mdfi::test::source_path("test/bad/good/tiny-yolo.cfg"), "bad-tiny-yolo");
  const std::string png = mdfi::test::source_path("test/bad/good/small.png");
  const std::string jpg = "/usr/share/darknet/data/dog.jpg";  // JPEG decoding allocates differently
  for (const Model* m : {&all, &tiny})
    for (const std::string& image : {png, jpg}) {
      const Reference ref = reference_run(*m, image);
      const uint64_t total = ref.allocations;
      INFO(m->net.cfg_path << " on " << image << ": " << total << " allocations");
      REQUIRE(total > 10);
      for (uint64_t n = 1; n <= total; ++n) check_fails_cleanly(*m, image, n, ref);
      // One past the last allocation is not a failure at all.
      mdfi::MemoryTracker mem;
      mem.fail_nth_allocation(total + 1);
      CHECK(run_pipeline(m->net, m->plan, m->weights, image, mem).ok());
    }
}

TEST_CASE("a sample of allocations of a yolov3-tiny run can fail cleanly", "[robustness]") {
  const Model m = load_model(mdfi::test::source_path("cfg/yolov3-tiny.cfg"), "yolov3-tiny");
  const std::string png = mdfi::test::source_path("test/bad/good/small.png");
  const Reference ref = reference_run(m, png);
  const uint64_t total = ref.allocations;
  INFO("yolov3-tiny: " << total << " allocations");
  // The first ones (decode, letterbox, first layers) and the last ones (heads) every time, the
  // middle sampled: a failing run stops early, so the late ones are the costly ones.
  std::vector<uint64_t> sample;
  for (uint64_t n = 1; n <= 12 && n <= total; ++n) sample.push_back(n);
  for (uint64_t k = 1; k < 6; ++k) sample.push_back(total * k / 6);
  for (uint64_t n = total > 4 ? total - 4 : 1; n <= total; ++n) sample.push_back(n);
  for (uint64_t n : sample) check_fails_cleanly(m, png, n, ref);
}
