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
//   large enough maps: F(2x2) from 169 output pixels (13x13, the smallest map measured: there the
//   whole-input way, which transforms each filter panel into a thread's cache right before using
//   it, took 8.1 ms against the GEMM path's 12.1 for 512 -> 1024 channels, one thread, weights
//   read and prepared included), F(4x4) from 676 (26x26). With
//   --keep-weights the transform runs once, so every candidate pays. Preference: F(4x4) before
//   F(2x2) when F(4x4) is allowed (auto: from 676 output pixels, and below that, from 169 streamed
//   or on any map with kept weights, where the micro-kernel's panels make F(4x4)'s products fewer:
//   ARM and AVX2, conv_choice.cpp; on 13x13 maps with AVX-512 its 16
//   tiles fill half a 32-wide panel and its 36 planes of transformed weights, 4x the 3x3 weights,
//   are read for them alone: 8.9 ms against F(2x2)'s 6.5 for 512 -> 1024, one thread; at 26x26 F(4x4)
//   by the whole-input way was the faster in YOLOv3, 5.0-5.4 ms against 6-9 per layer); whole
//   transformed weights before the whole-input way, except where the layer has so few tiles (at
//   most 64, or no more micro-kernel panels than threads) that the whole-weights way would read
//   all of U once per panel and leave threads idle, or so much U (over 3 MB: YOLOv3's 52x52
//   layers) that reading it once per tile panel costs more than it saves: the whole-input way
//   reads U once and splits the filters.
// - where even the GEMM path is over the limit: the way that needs least, when that is less than
//   the GEMM path's (the whole-input way streams weights one filter panel per thread), whatever
//   its speed, so a run can fit a budget the GEMM path cannot.
#pragma once

#include <cstddef>
#include <string>

#include "network.h"

namespace mdfi {

// off: GEMM everywhere; auto (the default): F(4x4,3x3) on maps of 676 output pixels (26x26) and
// more, F(2x2,3x3) below, except where this CPU's kernel needs fewer products by F(4x4)
// (conv_choice.cpp); both hold the parity limits (test/e2e/test_parity.cpp); f2: F(2x2) only;
// f4: F(4x4) wherever it fits (paying or not), else F(2x2).
enum class WinogradMode { kOff, kAuto, kF2, kF4 };
bool parse_winograd_mode(const std::string& text, WinogradMode* out);

struct ConvChoice {
  WinogradMode mode = WinogradMode::kAuto;
  size_t budget_bytes = 0;  // --max-mem (0: none)
  bool kept_weights = false;  // --keep-weights: transformed once, not per image
  // auto: F(4x4) also on maps under 26x26 where it needs fewer products (conv_choice.cpp); false
  // keeps F(2x2) there, whose transformed weights are 16/36 the size (a --keep-weights fallback).
  bool small_map_f4 = true;
};

void choose_conv_algorithms(Network& net, const ConvChoice& choice);

// Layers that run Winograd in `net`, for -v and tests.
int winograd_layer_count(const Network& net);
// "F(2x2,3x3): layers 2 4 12s ..." (s: streamed through the whole input), "" when none: `mdfi plan`.
std::string winograd_summary(const Network& net);

}  // namespace mdfi
