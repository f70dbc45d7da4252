// Direct depthwise convolution (groups == channels == filters), as Yolo-Fastest and MobileNet
// use it: im2col + GEMM would do one tiny dot product per output, so a direct loop is faster.
// Per output, taps are summed in (ky, kx) order like the reference GEMM path. 3x3 and 5x5
// kernels of stride 1 and 2 have vector versions (AVX2, AVX-512, NEON) that keep each output in a register
// through its nine taps, the bias and the activation (linear, leaky, relu), and store it once.
#pragma once

#include "../activation.h"

namespace mdfi::kernels {

// `variant` picks a kernel for tests: "avx512", "avx2", "neon" or "scalar" (the plain loop);
// null picks the best this CPU runs. depthwise_variant_available() says what can be asked for.
void depthwise_conv(const float* in, int channels, int h, int w, const float* weights, int ksize, int stride, int pad,
                    float* out, int out_h, int out_w, const float* bias, Activation act, int threads,
                    const char* variant = nullptr);
bool depthwise_variant_available(const char* variant);

// Output rows [oy0, oy1) of one channel, stored from `out` (row oy0) out_w floats apart. Input
// row y, for 0 <= y < h, lies at in + (y - in_lo) * w: a whole plane (in_lo 0) or a band
// window's channel (row_window.h). Only the rows in [0, h) that those outputs read are read;
// rows outside [0, h) are the zero padding. Every kernel gives the whole-plane call's bits for
// each output row, whatever the range.
using DepthwiseRowsFn = void (*)(const float* in, int in_lo, int h, int w, const float* wk, int ksize, int stride,
                                 int pad, float* out, int oy0, int oy1, int out_w, float bias, Activation act);
// The kernel depthwise_conv runs for this shape and variant (as above): a vector one for 3x3
// and 5x5 of stride 1 or 2, else the plain loop.
DepthwiseRowsFn depthwise_rows_kernel(int ksize, int stride, const char* variant = nullptr);

#if defined(__x86_64__) || defined(__i386__)
// 3x3 or 5x5, stride 1 or 2 (depthwise_x86.cpp).
void depthwise_rows_avx2(const float* in, int in_lo, int h, int w, const float* wk, int ksize, int stride, int pad,
                         float* out, int oy0, int oy1, int out_w, float bias, Activation act);
void depthwise_rows_avx512(const float* in, int in_lo, int h, int w, const float* wk, int ksize, int stride, int pad,
                           float* out, int oy0, int oy1, int out_w, float bias, Activation act);
#endif

#if defined(__ARM_NEON) || defined(__aarch64__)
// 3x3 or 5x5, stride 1 or 2, over zero-padded row copies (depthwise_neon.cpp); false (nothing
// written) for another shape or a row too wide for its stack buffers.
bool depthwise_rows_neon(const float* in, int in_lo, int h, int w, const float* wk, int ksize, int stride, int pad,
                         float* out, int oy0, int oy1, int out_w, float bias, Activation act);
#endif

}  // namespace mdfi::kernels
