// Direct depthwise convolution (groups == channels == filters), as Yolo-Fastest and MobileNet
// use it: im2col + GEMM would do one tiny dot product per output, so a direct loop is faster.
// Per output, taps are summed in (ky, kx) order like the reference GEMM path.
#pragma once

#include "../activation.h"

namespace mdfi::kernels {

void depthwise_conv(const float* in, int channels, int h, int w, const float* weights, int ksize, int stride, int pad,
                    float* out, int out_h, int out_w, const float* bias, Activation act, int threads);

}  // namespace mdfi::kernels
