// [Gaussian_yolo] (AlexeyAB): which entries get the logistic and the scale_x_y shift, and the box
// and probability decoding (objectness * class * (1 - mean uncertainty)), checked by hand.
// Parity with AlexeyAB on Gaussian_yolov3_BDD, boxes included: test_alexeyab_parity.cpp.
#include <catch2/catch.hpp>

#include <cmath>

#include "detect.h"
#include "layers/gaussian_yolo.h"
#include "postprocess.h"
#include "support.h"

using namespace mdfi;
using namespace mdfi::test;

namespace {
float logistic(float v) { return float(1. / (1. + std::exp(-double(v)))); }
const std::string kCfg = net_section(2, 1, 10) +
                         "[Gaussian_yolo]\nmask=0\nanchors=10,20\nclasses=1\nnum=1\nscale_x_y=1.1\n"
                         "uc_normalizer=1.0\niou_loss=giou\nignore_thresh=.5\n";
}  // namespace

TEST_CASE("Gaussian_yolo: logistic on x, y, their and w/h uncertainties, objectness, classes; w, h raw", "[layers]") {
  std::vector<float> x(20);
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(i) * 0.3f - 2.5f;
  const LayerOutputs r = run_layers("gauss", kCfg, {}, x, LayerRunOptions{Compat::kAlexeyAB, true});
  const std::vector<float>& o = r[0];
  REQUIRE(o.size() == 20);
  const float bias = float(-0.5 * (1.1f - 1.));
  for (int e = 0; e < 10; ++e)
    for (int loc = 0; loc < 2; ++loc) {
      const float v = x[size_t(e * 2 + loc)];
      float want = (e == 4 || e == 6) ? v : logistic(v);
      if (e == 0 || e == 2) want = want * 1.1f + bias;
      INFO("entry " << e << " cell " << loc);
      CHECK(o[size_t(e * 2 + loc)] == Approx(want).epsilon(1e-6));
    }
}

TEST_CASE("Gaussian_yolo: boxes as [yolo], probability scaled by 1 - mean of the four uncertainties", "[layers]") {
  auto net = network_from_text(kCfg);
  REQUIRE(net.ok());
  const auto& g = dynamic_cast<const GaussianYoloLayer&>(*net->layers[0]);
  CHECK(head_boxes(*net) == 2);  // post-processing's candidate store counts its anchors x cells
  // Cell 1 (col 1): x .5, x-unc .1, y .25, y-unc .2, w log 2, w-unc .3, h 0, h-unc .4, obj .9, class .8.
  std::vector<float> pred(20, 0.f);
  const float cell1[10] = {.5f, .1f, .25f, .2f, float(std::log(2.)), .3f, 0, .4f, .9f, .8f};
  for (int e = 0; e < 10; ++e) pred[size_t(e * 2 + 1)] = cell1[e];
  std::vector<Detection> dets;
  auto collect = [&dets](const Box& box, float objectness, const std::vector<float>& prob) {
    Detection d;
    d.bbox = box;
    d.objectness = objectness;
    d.prob = prob;
    dets.push_back(d);
  };
  g.decode(pred.data(), 32, 16, 0.5f, collect);
  REQUIRE(dets.size() == 1);  // cell 0 has objectness 0
  CHECK(dets[0].bbox.x == Approx(0.75));
  CHECK(dets[0].bbox.y == Approx(0.25));
  CHECK(dets[0].bbox.w == Approx(2 * 10 / 32.));
  CHECK(dets[0].bbox.h == Approx(20 / 16.));
  CHECK(dets[0].objectness == Approx(0.9));
  CHECK(dets[0].prob[0] == Approx(0.9 * 0.8 * 0.75));
  // 0.54 is under 0.6: no class over the threshold, no candidate.
  dets.clear();
  g.decode(pred.data(), 32, 16, 0.6f, collect);
  CHECK(dets.empty());
}

TEST_CASE("Gaussian_yolo: a conv whose filters do not match is refused with the right count", "[layers]") {
  auto net = network_from_text(net_section(2, 1, 12) + "[Gaussian_yolo]\nmask=0,1\nanchors=1,1,2,2\nclasses=2\nnum=2\n");
  REQUIRE_FALSE(net.ok());
  CHECK(net.status().message().find("= 22; set filters=22") != std::string::npos);
}
