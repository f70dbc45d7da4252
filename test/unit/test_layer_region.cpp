// [region] tree= (yolo9000): reading Darknet's tree file, the softmax inside each tree group per
// anchor and cell, and the hierarchical decoding (hierarchy_predictions, then the top prediction
// at --hier), on a four-class tree worked by hand; where the tree file is looked for.
#include <catch2/catch.hpp>

#include <cmath>

#include "detect.h"
#include "executor.h"
#include "layers/region.h"
#include "plan.h"
#include "weights.h"
#include "softmax_tree.h"
#include "support.h"

using namespace mdfi;
using namespace mdfi::test;

namespace {
// a, b are roots; c, d are children of a.
const char* kTree = "a -1\nb -1\nc 0\nd 0\n";
std::string region_cfg(const std::string& tree) {
  return net_section(1, 1, 9) + "[region]\nanchors=1,1\nclasses=4\ncoords=4\nnum=1\nsoftmax=1\ntree=" + tree + "\n";
}
}  // namespace

TEST_CASE("region tree: Darknet's tree file gives groups, parents and child groups", "[layers]") {
  const std::string dir = tmp_dir("tree_read");
  write_file(dir + "/t.tree", kTree);
  auto t = read_softmax_tree(dir + "/t.tree");
  REQUIRE(t.ok());
  CHECK(t->parent == std::vector<int>{-1, -1, 0, 0});
  CHECK(t->group_offset == std::vector<int>{0, 2});
  CHECK(t->group_size == std::vector<int>{2, 2});
  CHECK(t->child == std::vector<int>{1, -1, -1, -1});
  write_file(dir + "/bad.tree", "a -1\nb 7\n");
  auto bad = read_softmax_tree(dir + "/bad.tree");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message().find("bad.tree:2: parent 7 is not an earlier line") != std::string::npos);
  // yolo9000's own tree, from AlexeyAB's repository copy.
  const std::string nine = shared_path("refs/data/9k.tree");
  if (nine.empty()) MDFI_SKIP(Need::kShared, "../shared/refs/data/9k.tree is absent");
  auto big = read_softmax_tree(nine);
  REQUIRE(big.ok());
  CHECK(big->n() == 9418);
}

TEST_CASE("region tree: softmax inside each group per cell, hierarchical top prediction", "[layers]") {
  const std::string dir = tmp_dir("tree_region");
  write_file(dir + "/t.tree", kTree);
  write_file(dir + "/r.cfg", region_cfg("t.tree"));  // found next to the cfg
  auto net = load_network_cfg(dir + "/r.cfg", BuildOptions{});
  INFO((net.ok() ? std::string() : net.status().message()));
  REQUIRE(net.ok());
  const std::vector<float> x = {0, 0, 0, 0, 2, std::log(3.f), 0, std::log(4.f), 0};
  const LayerOutputs r = run_layers("tree_fw", region_cfg(dir + "/t.tree"), {}, x, LayerRunOptions{Compat::kPjreddie, true});
  const std::vector<float>& o = r[0];
  const float obj = float(1 / (1 + std::exp(-2.)));
  CHECK(o[4] == Approx(obj));
  CHECK(o[5] == Approx(0.75));  // a, b: softmax(log 3, 0)
  CHECK(o[6] == Approx(0.25));
  CHECK(o[7] == Approx(0.8));   // c, d: softmax(log 4, 0)
  CHECK(o[8] == Approx(0.2));

  // Decoding: hierarchy_predictions makes c .8 * .75 = .6 and d .15. The walk (Darknet's rule:
  // descend while p * max > hier) takes a (.75), then c where p * .6 = .45: over --hier .4, so c;
  // under --hier .5, so it stops at the parent of c's group, a.
  auto wpath = dir + "/none.weights";
  write_weights_file(wpath, {});
  auto wf = WeightsFile::open(wpath);
  REQUIRE(wf.ok());
  MemoryTracker mem;
  for (float hier : {0.4f, 0.5f}) {
    auto in = Buffer::make(mem, x.size(), MemCategory::kActivations, "input");
    REQUIRE(in.ok());
    std::copy(x.begin(), x.end(), in->data());
    auto res = run_network(*net, make_plan(*net), *wf, std::move(*in), mem);
    REQUIRE(res.ok());
    DetectOptions opt;
    opt.thresh = 0.5f;
    opt.hier_thresh = hier;
    std::vector<Detection> dets = network_detections(*net, *res, 100, 100, opt);
    REQUIRE(dets.size() == 1);
    const std::vector<float> want = hier < 0.45f ? std::vector<float>{0, 0, obj, 0} : std::vector<float>{obj, 0, 0, 0};
    INFO("hier " << hier);
    CHECK(dets[0].prob == want);
  }
}

TEST_CASE("region tree: a missing tree file or one of the wrong size is one clear error", "[layers]") {
  const std::string dir = tmp_dir("tree_missing");
  write_file(dir + "/r.cfg", region_cfg("data/nope.tree"));
  auto net = load_network_cfg(dir + "/r.cfg", BuildOptions{});
  REQUIRE_FALSE(net.ok());
  const std::string m = net.status().message();
  CHECK(m.find("r.cfg:") != std::string::npos);
  CHECK(m.find("softmax tree file 'data/nope.tree' not found (tried data/nope.tree, ") != std::string::npos);
  CHECK(m.find('\n') == std::string::npos);
  write_file(dir + "/three.tree", "a -1\nb -1\nc 0\n");
  write_file(dir + "/r2.cfg", region_cfg("three.tree"));
  auto wrong = load_network_cfg(dir + "/r2.cfg", BuildOptions{});
  REQUIRE_FALSE(wrong.ok());
  CHECK(wrong.status().message().find("has 3 classes but classes=4") != std::string::npos);
}
