// [batchnorm]: pjreddie's and AlexeyAB's epsilon.
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

TEST_CASE("batchnorm: normalises with pjreddie's or AlexeyAB's epsilon", "[layers]") {
  // 2 channels of 2 values; params: scales, means, variances.
  const std::string cfg = net_section(2, 1, 2) + "[batchnorm]\n";
  const std::vector<float> params = {2, 0.5f, 1, -1, 4, 1e-4f};
  const std::vector<float> x = {3, 5, -1, 0};
  auto pj = run_tiny("bn_pj", cfg, params, x, Compat::kPjreddie);
  check_close(pj[0], {float((3 - 1) / (2 + 1e-6) * 2), float((5 - 1) / (2 + 1e-6) * 2),
                      float((-1 + 1) / (std::sqrt(1e-4) + 1e-6) * .5), float((0 + 1) / (std::sqrt(1e-4) + 1e-6) * .5)}, kTol);
  auto ab = run_tiny("bn_ab", cfg, params, x, Compat::kAlexeyAB);
  check_close(ab[0], {float((3 - 1) / std::sqrt(4 + 1e-5) * 2), float((5 - 1) / std::sqrt(4 + 1e-5) * 2), 0.f,
                      float(1 / std::sqrt(1e-4 + 1e-5) * .5)}, kTol);
  CHECK(std::fabs(pj[0][3] - ab[0][3]) > 1);  // the two forms really differ on tiny variances
}
