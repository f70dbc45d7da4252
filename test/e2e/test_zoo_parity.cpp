// Per-layer parity with libdarknet (through test/refdump) for the Darknet zoo cfgs that need the
// layers beyond the original eleven: region + reorg (yolov2, yolov2-tiny), detection + connected
// (yolov1-tiny), crop (vgg-16), dense routes (densenet201), grouped residuals (resnext50), the
// classifiers extraction and darknet, reorg extra (go), plus small cfgs written here for what no
// affordable zoo cfg covers (local + detection as in yolov1, LRN, reorg reverse and flatten, crop
// noadjust, region with logistic classes). A standalone [batchnorm] cannot be compared: libdarknet
// dereferences an unallocated buffer in its forward pass (test_layers_extra checks it by hand). Same cfg, same generated weights, same
// random input on both sides; every layer's max|a-b|/max|b| must stay within 1e-4.
//
// To keep the suite fast, the zoo cfgs run at a reduced input size where their architecture
// allows it (the [net] width/height lines, and vgg-16's crop, are rewritten in a temp copy; the
// layer sequence is untouched). yolov1.cfg itself is left out: its local layer alone is 460 MB
// of weights.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <sstream>

#include "executor.h"
#include "npy.h"
#include "plan.h"
#include "support.h"
#include "weights.h"

using namespace mdfi;
using namespace mdfi::test;

namespace {

struct ParityResult {
  int layers = 0;
  double worst = 0;
  int worst_layer = -1;
};

// Runs cfg text through mdfi (in process) and libdarknet on one random input; checks every layer.
ParityResult run_parity(const std::string& tag, const std::string& cfg_text, double tol = 1e-4) {
  const ParityFiles f = prepare_parity("zoo_" + tag, tag, cfg_text, Compat::kPjreddie, 7, 12345);
  const std::string &dir = f.dir, &cfg = f.cfg, &weights = f.weights;
  const Network* net = &f.net;

  REQUIRE(!refdump_binary().empty());
  auto r = run_command(refdump_binary() + " forward '" + cfg + "' '" + weights + "' '" + f.input_npy + "' '" + dir + "/ref'");
  INFO(r.err.substr(r.err.size() > 2000 ? r.err.size() - 2000 : 0));
  REQUIRE(r.exit_code == 0);

  const LayerOutputs ours = run_collect(*net, weights, f.input).layers;

  ParityResult res;
  for (const auto& l : net->layers) {
    if (std::string(l->kind()) == "cost") continue;  // libdarknet does not run it at inference
    char name[32];
    std::snprintf(name, sizeof name, "/ref/%03d.npy", l->index);
    auto ref = read_npy(dir + name);
    REQUIRE(ref.ok());
    const double rel = relative_error(ours[size_t(l->index)], ref->data);
    INFO(tag << " layer " << l->index << " [" << l->kind() << "] relative error " << rel);
    CHECK(rel <= tol);
    if (!(rel <= res.worst)) {
      res.worst = rel;
      res.worst_layer = l->index;
    }
    ++res.layers;
  }
  std::system(("rm -rf '" + dir + "'").c_str());
  WARN(tag << ": " << res.layers << " layers, max relative error " << res.worst << " (layer " << res.worst_layer << ")");
  return res;
}

std::string zoo(const std::string& name, int size) {
  std::string text = slurp(darknet_cfg(name + ".cfg"));
  REQUIRE(!text.empty());
  if (size > 0) text = set_key(set_key(text, "width", size), "height", size);
  return text;
}

const char* kHead = "[net]\nbatch=1\nwidth=%d\nheight=%d\nchannels=%d\n\n";

std::string head(int w, int h, int c) {
  char buf[128];
  std::snprintf(buf, sizeof buf, kHead, w, h, c);
  return buf;
}

}  // namespace

TEST_CASE("yolov2 (region, reorg, route) matches libdarknet at 224", "[parity][zoo]") { run_parity("yolov2", zoo("yolov2", 224)); }
TEST_CASE("yolov2-tiny (region) matches libdarknet at 224", "[parity][zoo]") { run_parity("yolov2-tiny", zoo("yolov2-tiny", 224)); }
TEST_CASE("yolov1-tiny (connected, detection) matches libdarknet", "[parity][zoo]") { run_parity("yolov1-tiny", zoo("yolov1-tiny", 0)); }
TEST_CASE("densenet201 matches libdarknet at 64", "[parity][zoo]") { run_parity("densenet201", zoo("densenet201", 64)); }
TEST_CASE("resnext50 matches libdarknet at 64", "[parity][zoo]") { run_parity("resnext50", zoo("resnext50", 64)); }
TEST_CASE("extraction matches libdarknet at 64", "[parity][zoo]") { run_parity("extraction", zoo("extraction", 64)); }
TEST_CASE("darknet (reference) matches libdarknet at 64", "[parity][zoo]") { run_parity("darknet", zoo("darknet", 64)); }
TEST_CASE("go (reorg extra) matches libdarknet", "[parity][zoo]") { run_parity("go", zoo("go", 0)); }
TEST_CASE("vgg-16 (crop) matches libdarknet at 40 with crop 32", "[parity][zoo]") {
  run_parity("vgg-16", set_key(set_key(zoo("vgg-16", 40), "crop_width", 32), "crop_height", 32));
}

TEST_CASE("local + detection (YOLOv1's head) matches libdarknet", "[parity][zoo]") {
  run_parity("yolov1-head", head(28, 28, 3) +
                                // A stride-1 first conv: libdarknet's shared workspace must also fit the local layer's im2col.
                                "[convolutional]\nbatch_normalize=1\nfilters=16\nsize=3\nstride=1\npad=1\nactivation=leaky\n\n"
                                "[maxpool]\nsize=2\nstride=2\n\n"
                                "[maxpool]\nsize=2\nstride=2\n\n"
                                "[local]\nsize=3\nstride=1\npad=1\nfilters=8\nactivation=leaky\n\n"
                                "[dropout]\nprobability=.5\n\n"
                                "[connected]\noutput=637\nactivation=linear\n\n"
                                "[detection]\nclasses=3\ncoords=4\nrescore=1\nside=7\nnum=2\nsoftmax=1\nsqrt=1\n");
}

TEST_CASE("normalization (LRN) + reorg reverse and flatten + crop noadjust + logistic region match libdarknet", "[parity][zoo]") {
  run_parity("misc", head(36, 36, 3) +
                         "[crop]\ncrop_width=32\ncrop_height=32\nnoadjust=1\n\n"
                         "[convolutional]\nfilters=12\nsize=3\nstride=1\npad=1\nactivation=linear\n\n"
                         "[normalization]\nalpha=.001\nbeta=.75\nkappa=2\nsize=5\n\n"
                         "[reorg]\nstride=2\n\n"
                         "[reorg]\nstride=2\nreverse=1\n\n"
                         "[reorg]\nflatten=1\n\n"
                         "[reorg]\nflatten=1\nreverse=1\n\n"
                         "[convolutional]\nfilters=18\nsize=1\nstride=1\nactivation=linear\n\n"
                         "[region]\nanchors=1,1, 2,2\nclasses=4\ncoords=4\nnum=2\nsoftmax=0\n");
}

TEST_CASE("the remaining zoo cfgs match libdarknet at small sizes", "[parity][zoo]") {
  struct Zoo {
    const char* name;
    int size;  // 0 = the cfg's own
    int crop;  // crop_width/height when the cfg has a crop layer
  };
  // Same layer types as above at other depths and head layouts; sizes keep each run to ~1 s.
  // Left out as architectural duplicates (all were checked once at these sizes, max error < 5e-6):
  // cifar.test, resnet34, darknet19_448, darknet53_448, yolov3-voc; tiny and darknet19 are in
  // test_parity.cpp.
  const Zoo zoos[] = {
      {"cifar", 0, 0},     {"jnet-conv", 0, 0},  {"t1.test", 64, 0},         {"writing", 32, 0},
      {"strided", 72, 64}, {"resnet18", 64, 0},  {"extraction.conv", 64, 0}, {"vgg-conv", 32, 0},
      {"yolov2-voc", 96, 0}, {"yolov2-tiny-voc", 96, 0}, {"yolov3-spp", 96, 0},
  };
  for (const Zoo& z : zoos) {
    std::string text = zoo(z.name, z.size);
    if (z.crop) text = set_key(set_key(text, "crop_width", z.crop), "crop_height", z.crop);
    run_parity(z.name, text);
  }
}

TEST_CASE("the deep and wide zoo variants match libdarknet at small sizes", "[parity][zoo]") {
  // The rest of /usr/share/darknet/cfg that Darknet runs for inference (rnn/gru and the
  // softmax-tree yolo9000/darknet9000 are optional in the issue and left out). Deep nets run at
  // 64x64 so generated weights stay the only big cost (resnet152: 240 MB); yolov1 at 64x64 puts
  // its local layer on a 1x1 grid, 2.4M weights instead of 115M at 448.
  struct Zoo {
    const char* name;
    int size;
  };
  const Zoo zoos[] = {{"resnet34", 64},          {"resnet101", 64},         {"resnet152", 64},
                      {"resnext101-32x4d", 64},  {"resnext152-32x4d", 64},  {"extraction22k", 64},
                      {"darknet19_448", 64},     {"darknet53_448", 64},     {"yolov3-voc", 96},
                      {"yolov3-openimages", 96}, {"yolov1", 64},            {"cifar.test", 0},
                      {"go.test", 0}};
  for (const Zoo& z : zoos) run_parity(z.name, zoo(z.name, z.size));
}
