#include "depthwise.h"

#include <algorithm>

#if defined(__ARM_NEON) || defined(__aarch64__)
#include <arm_neon.h>
#endif

namespace mdfi::kernels {

// orow[ox] += wv * src[ox * stride] for ox in [lo, hi). Multiply and add stay separate roundings
// on every path (NEON's vmla is unfused, the engine builds with -ffp-contract=off), so the sums
// equal the reference's bit for bit - except that 32-bit ARMv7 NEON flushes denormals to zero.
static void row_madd(float* orow, const float* src, float wv, int lo, int hi, int stride) {
  int ox = lo;
#if defined(__ARM_NEON) || defined(__aarch64__)
  const float32x4_t w4 = vdupq_n_f32(wv);
  if (stride == 1) {
    for (; ox + 4 <= hi; ox += 4) vst1q_f32(orow + ox, vmlaq_f32(vld1q_f32(orow + ox), w4, vld1q_f32(src + ox)));
  } else if (stride == 2) {
    // vld2 splits 8 consecutive inputs into even/odd lanes; the even ones are this row's taps.
    // It reads one float past the last tap, so it stops while another tap of the row follows.
    for (; ox + 4 < hi; ox += 4)
      vst1q_f32(orow + ox, vmlaq_f32(vld1q_f32(orow + ox), w4, vld2q_f32(src + 2 * ox).val[0]));
  }
#endif
  if (stride == 1)
    for (; ox < hi; ++ox) orow[ox] += wv * src[ox];
  else
    for (; ox < hi; ++ox) orow[ox] += wv * src[ox * stride];
}

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
          row_madd(orow, irow + kx - pad, wv, lo, hi, stride);
        }
      }
      const float bv = bias ? bias[c] : 0.f;
      for (int ox = 0; ox < out_w; ++ox) orow[ox] += bv;
      activate_array(orow, size_t(out_w), act);
    }
  }
}

}  // namespace mdfi::kernels
