// Direct depthwise convolution (groups == channels == filters), as Yolo-Fastest and MobileNet
// use it: im2col + GEMM would do one tiny dot product per output, so a direct loop is faster.
// Per output, taps are summed in (ky, kx) order like the reference GEMM path (on aarch64 with
// fused multiply-adds: depthwise_kernel_fused). 3x3 and 5x5
// kernels of stride 1 and 2 have vector versions (AVX2, AVX-512, NEON) that keep each output in a register
// through its nine taps, the bias and the activation (linear, leaky, relu), and store it once.
#pragma once

#include <cstddef>

#include "../activation.h"

namespace mdfi::kernels {

// `variant` picks a kernel for tests: "avx512", "avx2", "neon" or "scalar" (the plain loop);
// null picks the best this CPU runs. depthwise_variant_available() says what can be asked for.
void depthwise_conv(const float* in, int channels, int h, int w, const float* weights, int ksize, int stride, int pad,
                    float* out, int out_h, int out_w, const float* bias, Activation act, int threads,
                    const char* variant = nullptr);
bool depthwise_variant_available(const char* variant);

// Output rows [oy0, oy1) of some channels of a depthwise convolution. Channel c's input row y,
// for 0 <= y < h, lies at in + c * in_channel + (y - in_lo) * w: whole planes (in_lo 0,
// in_channel h * w) or a band window's channels (row_window.h). Only the rows in [0, h) that
// those outputs read are read; rows outside [0, h) are the zero padding. Channel c's output row
// oy goes to out + c * out_channel + (oy - oy0) * out_w. Every kernel gives each output row the
// whole-plane call's bits, whatever the range.
struct DepthwiseRows {
  const float* in = nullptr;
  size_t in_channel = 0;  // floats between input channels
  int in_lo = 0, h = 0, w = 0;
  float* out = nullptr;
  size_t out_channel = 0;  // floats between output channels
  int oy0 = 0, oy1 = 0, out_w = 0;
  int ksize = 3, stride = 1, pad = 0;
  const float* weights = nullptr;  // ksize * ksize taps per channel, (ky, kx) order
  const float* bias = nullptr;     // one per channel, or null: 0
  Activation act = Activation::kLinear;
};
// Channels [c0, c1) of `r`, in one call: the per-call set-up (the AVX-512 kernel's load masks,
// the NEON kernel's buffers) is shared by the channels, which matters when a band step is one
// row of a small map.
using DepthwiseRowsFn = void (*)(const DepthwiseRows& r, int c0, int c1);
// The kernel depthwise_conv runs for this shape and variant (as above): a vector one for 3x3
// and 5x5 of stride 1 or 2, else the plain loop.
DepthwiseRowsFn depthwise_rows_kernel(int ksize, int stride, const char* variant = nullptr);
// Whether that kernel sums each output from the bias with one fused multiply-add per tap, then
// the activation (aarch64 NEON, depthwise_neon.cpp), rather than Darknet's way (from +0,
// products and sums rounded separately, then + bias).
bool depthwise_kernel_fused(int ksize, int stride, const char* variant = nullptr);
// All `channels` of `g` by `rows`, `threads` splitting them into contiguous ranges.
void depthwise_channels(DepthwiseRowsFn rows, const DepthwiseRows& g, int channels, int threads);

#if defined(__x86_64__) || defined(__i386__)
// 3x3 or 5x5, stride 1 or 2 (depthwise_x86.cpp).
void depthwise_rows_avx2(const DepthwiseRows& r, int c0, int c1);
void depthwise_rows_avx512(const DepthwiseRows& r, int c0, int c1);
#endif

#if defined(__ARM_NEON) || defined(__aarch64__)
// 3x3 or 5x5, stride 1 or 2, over zero-padded row copies (depthwise_neon.cpp); false (nothing
// written) for another shape or a row too wide for its stack buffers.
bool depthwise_rows_neon(const DepthwiseRows& r, int c0, int c1);
#endif

}  // namespace mdfi::kernels
