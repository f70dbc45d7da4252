#include "depthwise.h"

#include <algorithm>

namespace mdfi::kernels {

void depthwise_conv(const float* in, int channels, int h, int w, const float* weights, int ksize, int stride, int pad,
                    float* out, int out_h, int out_w, const float* bias, Activation act, int threads) {
  (void)threads;
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int c = 0; c < channels; ++c) {
    const float* plane = in + size_t(c) * h * w;
    const float* wk = weights + size_t(c) * ksize * ksize;
    float* oplane = out + size_t(c) * out_h * out_w;
    for (int oy = 0; oy < out_h; ++oy) {
      float* orow = oplane + size_t(oy) * out_w;
      std::fill(orow, orow + out_w, 0.f);
      for (int ky = 0; ky < ksize; ++ky) {
        const int iy = oy * stride + ky - pad;
        if (iy < 0 || iy >= h) continue;
        const float* irow = plane + size_t(iy) * w;
        for (int kx = 0; kx < ksize; ++kx) {
          const float wv = wk[ky * ksize + kx];
          // Valid output columns: 0 <= ox*stride + kx - pad < w.
          int lo = std::max(0, (pad - kx + stride - 1) / stride);
          int hi = std::min(out_w, (w - 1 + pad - kx) / stride + 1);
          if (stride == 1) {
            const float* src = irow + kx - pad;
            for (int ox = lo; ox < hi; ++ox) orow[ox] += wv * src[ox];
          } else {
            for (int ox = lo; ox < hi; ++ox) orow[ox] += wv * irow[ox * stride + kx - pad];
          }
        }
      }
      const float bv = bias ? bias[c] : 0.f;
      for (int ox = 0; ox < out_w; ++ox) orow[ox] += bv;
      activate_array(orow, size_t(out_w), act);
    }
  }
}

}  // namespace mdfi::kernels
