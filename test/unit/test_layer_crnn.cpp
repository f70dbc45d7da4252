// [crnn]: one step of AlexeyAB's convolutional RNN from a zero state, checked by hand (the self
// convolution of the zero state still contributes its bias), the weights in Darknet's order,
// and the reference and fast paths agreeing on a 3x3 case with batch-norm.
// Parity with AlexeyAB on yolov3-tiny_occlusion_track: test_alexeyab_parity.cpp.
#include <catch2/catch.hpp>

#include <cmath>

#include "support.h"

using namespace mdfi;
using namespace mdfi::test;

TEST_CASE("crnn: out = conv_out(conv_in(x) + conv_self(0)), weights input, self, output", "[layers]") {
  const std::string cfg = net_section(2, 1, 1) + "[crnn]\nsize=1\noutput=1\nhidden=1\nactivation=linear\n";
  // Each 1x1 conv: bias, weight. input: 0.5 + 2x; self: -1 + 7*0; output: 3 + 0.25 s.
  const std::vector<float> params = {0.5f, 2, -1, 7, 3, 0.25f};
  const std::vector<float> x = {1, -4};
  for (bool reference : {true, false}) {
    const LayerOutputs r = run_layers("crnn", cfg, params, x, LayerRunOptions{Compat::kAlexeyAB, reference});
    const float s0 = 0.5f + 2 * 1 - 1, s1 = 0.5f + 2 * -4.f - 1;
    CHECK(r[0] == std::vector<float>{3 + 0.25f * s0, 3 + 0.25f * s1});
  }
}

TEST_CASE("crnn: 3x3 with batch-norm, reference and fast paths agree; sizes and FLOPs add up", "[layers]") {
  const std::string cfg = net_section(6, 5, 3) +
                          "[crnn]\nbatch_normalize=1\nsize=3\npad=1\noutput=4\nhidden=2\nactivation=leaky\n";
  auto net = network_from_text(cfg);
  REQUIRE(net.ok());
  const size_t per_in = 2 * 4 + 2 * 3 * 9, per_self = 2 * 4 + 2 * 2 * 9, per_out = 4 * 4 + 4 * 2 * 9;
  REQUIRE(net->param_floats() == per_in + per_self + per_out);
  CHECK(net->layers[0]->flops() == Approx(2.0 * 30 * 9 * (2 * 3 + 2 * 2 + 4 * 2)));
  std::vector<float> params = random_floats(net->param_floats(), 21);
  // Variances must be positive: the fourth run of each conv's head (input at 0, self at
  // per_in, output at per_in + per_self).
  for (auto [start, filters] : {std::pair<size_t, size_t>{0, 2}, {per_in, 2}, {per_in + per_self, 4}})
    for (size_t i = 0; i < filters; ++i) params[start + 3 * filters + i] = 0.5f + std::fabs(params[start + 3 * filters + i]);
  const std::vector<float> x = random_floats(90, 22);
  const LayerOutputs ref = run_layers("crnn_ref", cfg, params, x, LayerRunOptions{Compat::kAlexeyAB, true});
  const LayerOutputs fast = run_layers("crnn_fast", cfg, params, x, LayerRunOptions{Compat::kAlexeyAB, false, 2});
  CHECK(relative_error(fast[0], ref[0]) <= 1e-5);
}

TEST_CASE("crnn: convolutions that would change the size are refused", "[layers]") {
  auto net = network_from_text(net_section(6, 6, 3) + "[crnn]\nsize=3\nstride=2\npad=1\noutput=2\nhidden=2\n");
  REQUIRE_FALSE(net.ok());
  CHECK(net.status().message().find("must keep the input size") != std::string::npos);
}
