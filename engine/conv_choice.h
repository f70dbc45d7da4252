// Which algorithm each convolution runs: the planner's choice between the packed GEMM path and
// Winograd (kernels/winograd.h) for 3x3 stride-1 layers, made before the plan is final so that
// the plan counts what the chosen way holds (transformed weights, tile workspace).
//
// The rule, per candidate layer (ConvLayer::winograd_candidate): the fastest way whose predicted
// layer peak stays within the limit, where the limit is --max-mem when given, else the peak of
// the network without Winograd. So by default Winograd never raises a network's predicted peak
// (the memory targets hold); a layer that is itself over the limit takes the Winograd way that
// needs least when that is less than the GEMM path's. Preference: F(4x4) before F(2x2) when
// F(4x4) is allowed, whole transformed weights before the streamed whole-input way.
#pragma once

#include <cstddef>
#include <string>

#include "network.h"

namespace mdfi {

// off: GEMM everywhere; f2: F(2x2,3x3) (the default: holds the parity limits); f4: F(4x4,3x3)
// where it fits, else F(2x2) (opt-in: its rounding differs more from Darknet's, see README).
enum class WinogradMode { kOff, kF2, kF4 };
bool parse_winograd_mode(const std::string& text, WinogradMode* out);

struct ConvChoice {
  WinogradMode mode = WinogradMode::kF2;
  size_t budget_bytes = 0;  // --max-mem (0: none)
};

void choose_conv_algorithms(Network& net, const ConvChoice& choice);

// Layers that run Winograd in `net`, for -v and tests.
int winograd_layer_count(const Network& net);
// "F(2x2,3x3): layers 2 4 12s ..." (s: streamed through the whole input), "" when none: `mdfi plan`.
std::string winograd_summary(const Network& net);

}  // namespace mdfi
