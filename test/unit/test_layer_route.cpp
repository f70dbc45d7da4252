// [route]: concatenation in the listed order, and AlexeyAB's groups/group_id slice.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "support.h"

using namespace mdfi;
using namespace mdfi::test;

namespace {

// These hand-computed cases hold to 1e-5 (check_close defaults to 2e-5).
constexpr double kTol = 1e-5;

}  // namespace

TEST_CASE("route concatenates its sources in the order listed", "[layers]") {
  // x = [1, -2] (2x1). Layer 0: identity 1x1 conv -> A = [1, -2]. Layer 1: 2 filters (w 2, 3) on
  // A -> B = [2, -4, 3, -6]. Layer 2: route -1,0 -> [B, A]. Layer 3: route 0,1 -> [A, B].
  const std::string cfg = net_section(2, 1, 1) +
                          "[convolutional]\nfilters=1\nsize=1\nactivation=linear\n"
                          "[convolutional]\nfilters=2\nsize=1\nactivation=linear\n"
                          "[route]\nlayers=-1,0\n"
                          "[route]\nlayers=0, 1\n";
  const LayerOutputs o = run_both("route", cfg, {0, 1, 0, 0, 2, 3}, {1, -2}, 2, {2, -4, 3, -6, 1, -2});
  check_close(o[3], {1, -2, 2, -4, 3, -6});
}

TEST_CASE("route: groups/group_id takes one channel slice under AlexeyAB, all under pjreddie", "[layers]") {
  const std::string cfg = net_section(1, 1, 4) + "[convolutional]\nfilters=4\nsize=1\nactivation=linear\n\n"
                                              "[route]\nlayers=-1\ngroups=2\ngroup_id=1\n";
  std::vector<float> params = {0, 0, 0, 0};
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) params.push_back(i == j ? 1.f : 0.f);
  auto ab = run_tiny("route_ab", cfg, params, {1, 2, 3, 4}, Compat::kAlexeyAB);
  check_close(ab[1], {3, 4}, kTol);
  auto pj = run_tiny("route_pj", cfg, params, {1, 2, 3, 4}, Compat::kPjreddie);
  check_close(pj[1], {1, 2, 3, 4}, kTol);
}
