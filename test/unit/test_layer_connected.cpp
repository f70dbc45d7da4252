// [connected] without and with batch-norm, on both paths.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "support.h"

using namespace mdfi;
using namespace mdfi::test;

TEST_CASE("connected without and with batch_normalize", "[layers]") {
  // Input 3 values [1, 2, 3]; weights rows w0 = [1, 0, -1], w1 = [0.5, 0.5, 0.5]; biases [1, -1].
  //   w.x = [-2, 3]; + bias = [-1, 2]; leaky -> [-0.1, 2].
  run_both("fc", net_section(3, 1, 1) + "[connected]\noutput=2\nactivation=leaky\n", {1, -1, 1, 0, -1, 0.5f, 0.5f, 0.5f},
           {1, 2, 3}, 0, {-0.1f, 2});
  // With BN (file order: biases, weights, scales, means, variances), bias added after the BN:
  //   y0 = (-2 - 0.5)/(1 + e)*2 + 1 = about -4;  y1 = (3 - 1)/(2 + e)*3 - 1 = about 2.
  const double e = double(.000001f);
  run_both("fc_bn", net_section(3, 1, 1) + "[connected]\nbatch_normalize=1\noutput=2\nactivation=linear\n",
           {1, -1, 1, 0, -1, 0.5f, 0.5f, 0.5f, 2, 3, 0.5f, 1, 1, 4}, {1, 2, 3}, 0,
           {float(-2.5 / (1 + e) * 2 + 1), float(2 / (2 + e) * 3 - 1)});
  // A connected layer flattens a CHW input in memory order: input 2x1x2 -> 4 inputs.
  run_both("fc_flat", net_section(2, 1, 2) + "[connected]\noutput=1\nactivation=linear\n", {0, 1, 10, 100, 1000},
           {1, 2, 3, 4}, 0, {4321});
}
