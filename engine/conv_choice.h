// Which algorithm each convolution runs: the planner's choice between the packed GEMM path and
// Winograd (kernels/winograd.h) for 3x3 stride-1 layers, made before the plan is final so that
// the plan counts what the chosen way holds (transformed weights, tile workspace).
//
// The rule, per candidate layer (Layer::winograd_candidate), with the limit --max-mem when
// given, else the network's predicted peak without Winograd (so by default Winograd never raises
// a network's peak and the memory targets hold):
// - where the GEMM path fits the limit: the fastest Winograd way that also fits, if Winograd pays
//   for this layer. With streamed weights (the default) the weight transform runs for every
//   image, at a cost per weight that the multiplications saved per output pixel repay only on
//   large enough maps: F(2x2) from 400 output pixels (20x20), F(4x4) from 1024 (32x32). With
//   --keep-weights the transform runs once, so every candidate pays. Preference: F(4x4) before
//   F(2x2) when F(4x4) is allowed, whole transformed weights before the whole-input way.
// - where even the GEMM path is over the limit: the way that needs least, when that is less than
//   the GEMM path's (the whole-input way streams weights one filter panel per thread), whatever
//   its speed, so a run can fit a budget the GEMM path cannot.
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
  bool kept_weights = false;  // --keep-weights: transformed once, not per image
};

void choose_conv_algorithms(Network& net, const ConvChoice& choice);

// Layers that run Winograd in `net`, for -v and tests.
int winograd_layer_count(const Network& net);
// "F(2x2,3x3): layers 2 4 12s ..." (s: streamed through the whole input), "" when none: `mdfi plan`.
std::string winograd_summary(const Network& net);

}  // namespace mdfi
