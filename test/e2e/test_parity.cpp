// Differential tests against Darknet itself: mdfi and libdarknet (through test/refdump) run the
// same cfg, the same generated weights and the same input tensor; every layer's output must
// agree. Preprocessing is checked separately, on pixels both sides decode identically.
#include <catch2/catch.hpp>

#include <cstdio>

#include "image.h"
#include "npy.h"
#include "support.h"

using namespace mdfi;
using namespace mdfi::test;

namespace {

struct LayerDiff {
  int layer;
  double rel;
};

// Runs mdfi (CLI, --dump-layers) and libdarknet on `cfg` and returns each layer's relative error.
std::vector<LayerDiff> compare_network(const std::string& cfg, const std::string& tag, const std::string& image,
                                       const std::string& extra = "") {
  const std::string weights = generated_weights(cfg, tag);
  REQUIRE(!weights.empty());
  const std::string dir = tmp_dir("parity_" + tag + (extra.empty() ? "" : "_extra"));
  const std::string ours = dir + "/mdfi", ref = dir + "/darknet";
  // detect or classify, whichever the cfg is for (mdfi refuses the other); the dump is the same.
  auto built = load_network_cfg(cfg, BuildOptions{});
  REQUIRE(built.ok());
  bool detector = false;
  for (const auto& l : built->layers) detector = detector || l->is_output_head();
  auto r = run_command(mdfi_binary() + (detector ? " -q detect" : " -q classify --top 1") + extra + " --cfg '" + cfg +
                       "' -w '" + weights + "' --dump-layers '" + ours + "' '" + image + "'");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  REQUIRE(!refdump_binary().empty());
  auto d = run_command(refdump_binary() + " forward '" + cfg + "' '" + weights + "' '" + ours + "/input.npy' '" + ref + "'");
  INFO(d.err);
  REQUIRE(d.exit_code == 0);
  auto net = load_network_cfg(cfg, BuildOptions{});
  REQUIRE(net.ok());
  std::vector<LayerDiff> diffs;
  for (const auto& l : net->layers) {
    if (std::string(l->kind()) == "cost") continue;  // libdarknet does not compute it at inference
    char name[32];
    std::snprintf(name, sizeof name, "/%03d.npy", l->index);
    auto a = read_npy(ours + name);
    auto b = read_npy(ref + name);
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    diffs.push_back({l->index, relative_error(a->data, b->data)});
  }
  std::system(("rm -rf '" + dir + "'").c_str());
  return diffs;
}

void check_parity(const std::string& net_name, double tol, double tol_tail = 0, int tail_from = 1 << 30,
                  const std::string& extra = "") {
  // Cross builds (MDFI_DARKNET_TESTS=OFF) have no libdarknet for the target to compare with.
  if (refdump_binary().empty()) MDFI_SKIP(Need::kLibdarknet, "built without the libdarknet reference helper");
  const std::string cfg = source_path("cfg/" + net_name + ".cfg");
  const std::string image = "/usr/share/darknet/data/dog.jpg";
  double worst = 0;
  for (const LayerDiff& d : compare_network(cfg, net_name, image, extra)) {
    INFO(net_name << " layer " << d.layer << " relative error " << d.rel);
    CHECK(d.rel <= (d.layer >= tail_from ? tol_tail : tol));
    if (!(d.rel <= worst)) worst = d.rel;  // a NaN stays
  }
  WARN(net_name << extra << ": max relative error over all layers " << worst);
}

}  // namespace

TEST_CASE("yolov3-tiny matches libdarknet layer by layer", "[parity]") { check_parity("yolov3-tiny", 1e-4); }
TEST_CASE("alexnet matches libdarknet layer by layer", "[parity]") { check_parity("alexnet", 1e-4); }
TEST_CASE("tiny darknet matches libdarknet layer by layer", "[parity]") { check_parity("tiny", 1e-4); }
TEST_CASE("darknet19 matches libdarknet layer by layer", "[parity]") { check_parity("darknet19", 1e-4); }
TEST_CASE("darknet53 matches libdarknet layer by layer", "[parity]") { check_parity("darknet53", 1e-4); }
TEST_CASE("resnet50 matches libdarknet layer by layer", "[parity]") { check_parity("resnet50", 1e-4); }
// 107 layers of float accumulation: summation order differs between our blocked kernels and
// Darknet's gemm, and random weights amplify rounding through the residual stack, so the
// heads may drift past 1e-4; 1e-3 is accepted from layer 80 on.
TEST_CASE("yolov3 matches libdarknet layer by layer", "[parity]") { check_parity("yolov3", 1e-4, 1e-3, 80); }
// The default (--winograd auto) runs F(4x4,3x3) on maps of 26x26 and more and F(2x2,3x3)
// below, so the cases above check both tiles: worst layer measured with auto 3.3e-6 on yolov3-tiny,
// 2.6e-6 on tiny, 3.4e-6 on darknet53, 5.6e-6 on yolov3 (f2 on yolov3-tiny: 2.9e-6). f4
// (F(4x4) wherever it fits, also on the 13x13 maps where ARM and AVX2 take it by default) and f2
// (F(2x2) only) have the same limits: F(4x4)'s transforms scale by up to 8 and 1/24, yet its worst
// was 3.1e-6 on yolov3-tiny and 3.3e-6 on darknet53 before f4 took the 13x13 maps (f2: 3.3e-6 and
// 3.2e-6); with them, 4.8e-6 on yolov3-tiny (4 Dec 2026).
TEST_CASE("yolov3-tiny with --winograd f4 matches libdarknet layer by layer", "[parity]") {
  check_parity("yolov3-tiny", 1e-4, 0, 1 << 30, " --winograd f4");
}
TEST_CASE("yolov3-tiny with --winograd f2 matches libdarknet layer by layer", "[parity]") {
  check_parity("yolov3-tiny", 1e-4, 0, 1 << 30, " --winograd f2");
}
TEST_CASE("darknet53 with --winograd f4 matches libdarknet layer by layer", "[parity]") {
  check_parity("darknet53", 1e-4, 0, 1 << 30, " --winograd f4");
}

// yolo9000's [region] softmax tree: every layer before the head matches libdarknet. The head
// itself is mdfi's tree softmax per anchor and cell (test_layer_region_tree.cpp), as Darknet's
// GPU kernel and training compute it; pjreddie's CPU forward (61c9d02) indexes the tree groups
// as if the output were flattened cell by cell (its output then holds non-finite values: 9690
// of 113076 at 64x64, measured), so that layer is only reported. At 64x64 (a 2x2 grid); tree= and map= made absolute so both sides find them.
TEST_CASE("yolo9000 matches libdarknet up to its tree [region] head", "[parity]") {
  if (refdump_binary().empty()) MDFI_SKIP(Need::kLibdarknet, "built without the libdarknet reference helper");
  const std::string tree = shared_path("refs/data/9k.tree"), map = shared_path("refs/data/coco9k.map");
  if (tree.empty() || map.empty()) MDFI_SKIP(Need::kShared, "../shared/refs/data (9k.tree, coco9k.map) is absent");
  std::string text = slurp(shared_path("refs/cfg/yolo9000.cfg"));
  REQUIRE(!text.empty());
  for (const auto& kv : {std::pair<std::string, std::string>{"width=544", "width=64"}, {"height=544", "height=64"},
                         {"tree=data/9k.tree", "tree=" + tree}, {"map = data/coco9k.map", "map = " + map}}) {
    const size_t at = text.find(kv.first);
    REQUIRE(at != std::string::npos);
    text.replace(at, kv.first.size(), kv.second);
  }
  const std::string cfg = tmp_dir("yolo9000") + "/yolo9000.cfg";
  write_file(cfg, text);
  double worst = 0, head = 0;
  int compared = 0;
  for (const LayerDiff& d : compare_network(cfg, "yolo9000_64", "/usr/share/darknet/data/dog.jpg")) {
    if (d.layer == 24) {
      head = d.rel;
      continue;
    }
    INFO("yolo9000 layer " << d.layer << " relative error " << d.rel);
    CHECK(d.rel <= 1e-4);
    if (!(d.rel <= worst)) worst = d.rel;
    ++compared;
  }
  CHECK(compared == 24);
  WARN("yolo9000 at 64x64: layers 0-23 max relative error " << worst << "; the tree [region] differs from "
                                                            << "libdarknet's CPU forward by " << head << " (inf: non-finite values there; not reproduced)");
}

// The reference layers (--reference: plain loops, the oracle of the fast path) against
// libdarknet directly, so the README's statement about them is a checked one.
void check_reference_parity(const std::string& net_name, double tol) {
  if (refdump_binary().empty()) MDFI_SKIP(Need::kLibdarknet, "built without the libdarknet reference helper");
  const std::string cfg = source_path("cfg/" + net_name + ".cfg");
  double worst = 0;
  for (const LayerDiff& d : compare_network(cfg, net_name, "/usr/share/darknet/data/dog.jpg", " --reference")) {
    INFO(net_name << " --reference layer " << d.layer << " relative error " << d.rel);
    CHECK(d.rel <= tol);
    if (!(d.rel <= worst)) worst = d.rel;
  }
  WARN(net_name << " --reference: max relative error over all layers " << worst);
}

// Measured: yolov3-tiny bit for bit (0), tiny 5.9e-7, alexnet 1.9e-6: not bit-exact everywhere.
TEST_CASE("reference layers match libdarknet layer by layer: yolov3-tiny exactly, tiny and alexnet within 1e-5",
          "[parity]") {
  check_reference_parity("yolov3-tiny", 0);
  check_reference_parity("tiny", 1e-5);
  check_reference_parity("alexnet", 1e-5);
}

TEST_CASE("letterbox and resize equal libdarknet's on the same pixels", "[parity]") {
  if (refdump_binary().empty()) MDFI_SKIP(Need::kLibdarknet, "built without the libdarknet reference helper");
  MemoryTracker mem;
  auto im = load_image_rgb("/usr/share/darknet/data/dog.jpg", mem);
  REQUIRE(im.ok());
  const std::string dir = tmp_dir("letterbox");
  REQUIRE(write_npy(dir + "/im.npy", im->data.data(), {3, size_t(im->h), size_t(im->w)}).ok());
  struct Case {
    const char* op;
    int w, h;
  };
  for (Case c : {Case{"letterbox", 416, 416}, Case{"letterbox", 227, 227}, Case{"resize", 320, 320},
                 Case{"resize", 224, 300}, Case{"letterbox", 608, 320}}) {
    auto r = run_command(refdump_binary() + " " + c.op + " '" + dir + "/im.npy' " + std::to_string(c.w) + " " +
                         std::to_string(c.h) + " '" + dir + "/ref.npy'");
    REQUIRE(r.exit_code == 0);
    auto ref = read_npy(dir + "/ref.npy");
    REQUIRE(ref.ok());
    auto ours = std::string(c.op) == "letterbox" ? letterbox_image(*im, c.w, c.h, mem) : resize_image(*im, c.w, c.h, mem);
    REQUIRE(ours.ok());
    std::vector<float> v(ours->data.data(), ours->data.data() + ours->data.size());
    INFO(c.op << " " << c.w << "x" << c.h);
    REQUIRE(v.size() == ref->data.size());
    CHECK(v == ref->data);  // bit for bit
  }
}
