// [yolo]: the logistic, and AlexeyAB's scale_x_y and new_coords.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "support.h"

using namespace mdfi;
using namespace mdfi::test;

namespace {

// These hand-computed cases hold to 1e-5 (check_close defaults to 2e-5).
constexpr double kTol = 1e-5;

}  // namespace

TEST_CASE("yolo: scale_x_y and new_coords under AlexeyAB, ignored under pjreddie", "[layers]") {
  // 1 anchor, 1 class, 1x1 grid: 6 channels x, y, w, h, obj, class.
  const std::string cfg = net_section(1, 1, 6) +
                          "[yolo]\nmask=0\nanchors=10,20\nnum=1\nclasses=1\nscale_x_y=1.2\nnms_kind=greedynms\n";
  const std::vector<float> x = {0, 2, 0.5f, -1, 0, 3};
  auto sig = [](float v) { return float(1 / (1 + std::exp(-double(v)))); };
  auto ab = run_tiny("yolo_ab", cfg, {}, x, Compat::kAlexeyAB);
  check_close(ab[0], {sig(0) * 1.2f - 0.1f, sig(2) * 1.2f - 0.1f, 0.5f, -1, sig(0), sig(3)}, kTol);
  auto pj = run_tiny("yolo_pj", cfg, {}, x, Compat::kPjreddie);
  check_close(pj[0], {sig(0), sig(2), 0.5f, -1, sig(0), sig(3)}, kTol);
  auto nc = run_tiny("yolo_nc", net_section(1, 1, 6) + "[yolo]\nmask=0\nanchors=10,20\nnum=1\nclasses=1\nnew_coords=1\n"
                                                    "scale_x_y=2\n",
                     {}, {0.25f, 0.5f, 0.5f, 1, 0.9f, 0.8f}, Compat::kAlexeyAB);
  check_close(nc[0], {0.25f * 2 - 0.5f, 0.5f * 2 - 0.5f, 0.5f, 1, 0.9f, 0.8f}, kTol);  // no logistic at all
}
