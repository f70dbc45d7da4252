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

#if defined(__x86_64__) || defined(__i386__)
// One channel of a 3x3 or 5x5 depthwise convolution, stride 1 or 2 (depthwise_x86.cpp).
void depthwise_plane_avx2(const float* plane, int h, int w, const float* wk, int ksize, int stride, int pad,
                            float* oplane, int out_h, int out_w, float bias, Activation act);
void depthwise_plane_avx512(const float* plane, int h, int w, const float* wk, int ksize, int stride, int pad,
                              float* oplane, int out_h, int out_w, float bias, Activation act);
#endif

#if defined(__ARM_NEON) || defined(__aarch64__)
// One channel, 3x3 or 5x5, stride 1 or 2, over zero-padded row copies (depthwise_neon.cpp);
// false (nothing written) for another shape or a row too wide for its stack buffers.
bool depthwise_plane_neon(const float* plane, int h, int w, const float* wk, int ksize, int stride, int pad,
                          float* oplane, int out_h, int out_w, float bias, Activation act);
#endif

}  // namespace mdfi::kernels
