#include "depthwise.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "cpu_features.h"
#include "leaky_fast.h"
#include "split_range.h"

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

#if defined(__ARM_NEON) || defined(__aarch64__)
namespace dw_neon {

struct V4 {
  static constexpr int L = 4;
  using T = float32x4_t;
  static T zero() { return vdupq_n_f32(0.f); }
  static T set1(float f) { return vdupq_n_f32(f); }
  static T load(const float* p) { return vld1q_f32(p); }
  static T load_s2(const float* p) { return vld2q_f32(p).val[0]; }
  static void store(float* p, T v) { vst1q_f32(p, v); }
  static T add(T a, T b) { return vaddq_f32(a, b); }
  static T mul(T a, T b) { return vmulq_f32(a, b); }
#if defined(__aarch64__)
  // aarch64 sums fused from the bias (depthwise_body.inc, DW_FMA), as depthwise_neon.cpp does.
  static T fma(T acc, T w, T x) { return vfmaq_f32(acc, w, x); }
  static T activate(T v, Activation act) {
    if (act == Activation::kRelu) return relu(v);
    if (act == Activation::kLeaky) return leaky_fast::apply_exact(v);  // rows too wide: rare
    return v;
  }
#else
  static T finish(T v, float bias, Activation act) {
    v = vaddq_f32(v, vdupq_n_f32(bias));
    return act == Activation::kRelu ? relu(v) : v;
  }
#endif
  static T relu(T v) {
    const uint32x4_t positive = vcgtq_f32(v, vdupq_n_f32(0.f));
    return vmulq_f32(v, vreinterpretq_f32_u32(vandq_u32(positive, vreinterpretq_u32_f32(vdupq_n_f32(1.f)))));
  }
};

// 32-bit NEON has no double lanes: leaky is left to activate_array's scalar loop there.
#if defined(__aarch64__)
#define DW_LEAKY 1
#define DW_FMA 1
#else
#define DW_LEAKY 0
#define DW_FMA 0
#endif
#define DW_VECS(F) F(V4)
#define DW_EDGE V4
#include "depthwise_body.inc"
#undef DW_VECS
#undef DW_EDGE
#undef DW_LEAKY
#undef DW_FMA

}  // namespace dw_neon

// The padded-row kernel (depthwise_neon.cpp); this file's for rows too wide for its buffers.
static void dw_rows_neon(const DepthwiseRows& g, int c0, int c1) {
  if (depthwise_rows_neon(g, c0, c1)) return;
  for (int ch = c0; ch < c1; ++ch)
    dw_neon::dw_plane_any(g.in + ch * g.in_channel, g.in_lo, g.h, g.w, g.weights + size_t(ch) * g.ksize * g.ksize,
                          g.ksize, g.stride, g.pad, g.out + ch * g.out_channel, g.oy0, g.oy1, g.out_w,
                          g.bias ? g.bias[ch] : 0.f, g.act);
}
#endif

// Any kernel size and stride: per output row, a zero row, then each tap's multiply-add over the
// columns it reaches, then the bias and the activation.
static void dw_rows_scalar(const DepthwiseRows& g, int c0, int c1) {
  const int ksize = g.ksize, stride = g.stride, pad = g.pad, w = g.w, out_w = g.out_w;
  for (int ch = c0; ch < c1; ++ch) {
    const float* wk = g.weights + size_t(ch) * ksize * ksize;
    const float bias = g.bias ? g.bias[ch] : 0.f;
    for (int oy = g.oy0; oy < g.oy1; ++oy) {
      float* orow = g.out + ch * g.out_channel + size_t(oy - g.oy0) * out_w;
      std::fill(orow, orow + out_w, 0.f);
      for (int ky = 0; ky < ksize; ++ky) {
        const int iy = oy * stride + ky - pad;
        if (iy < 0 || iy >= g.h) continue;
        const float* irow = g.in + ch * g.in_channel + ptrdiff_t(iy - g.in_lo) * w;
        for (int kx = 0; kx < ksize; ++kx) {
          const float wv = wk[ky * ksize + kx];
          // Valid output columns: 0 <= ox*stride + kx - pad < w.
          int lo = std::max(0, (pad - kx + stride - 1) / stride);
          // (A negative numerator means no column: C++ division would round it up to 0.)
          const int span = w - 1 + pad - kx;
          int hi = span < 0 ? 0 : std::min(out_w, span / stride + 1);
          row_madd(orow, irow + kx - pad, wv, lo, hi, stride);
        }
      }
      for (int ox = 0; ox < out_w; ++ox) orow[ox] += bias;
      activate_array(orow, size_t(out_w), g.act);
    }
  }
}

static DepthwiseRowsFn vector_kernel(const char* variant) {
  const bool any = variant == nullptr;
#if defined(__x86_64__) || defined(__i386__)
  if ((any || std::strcmp(variant, "avx512") == 0) && cpu_has_avx512f() && cpu_has_avx2_fma())
    return &depthwise_rows_avx512;
  if ((any || std::strcmp(variant, "avx2") == 0) && cpu_has_avx2_fma()) return &depthwise_rows_avx2;
#endif
#if defined(__ARM_NEON) || defined(__aarch64__)
  if (any || std::strcmp(variant, "neon") == 0) return &dw_rows_neon;
#endif
  return nullptr;
}

bool depthwise_variant_available(const char* variant) {
  return std::strcmp(variant, "scalar") == 0 || vector_kernel(variant) != nullptr;
}

DepthwiseRowsFn depthwise_rows_kernel(int ksize, int stride, const char* variant) {
  const DepthwiseRowsFn vec = (ksize == 3 || ksize == 5) && (stride == 1 || stride == 2) ? vector_kernel(variant) : nullptr;
  return vec ? vec : &dw_rows_scalar;
}

bool depthwise_kernel_fused(int ksize, int stride, const char* variant) {
#if defined(__aarch64__)
  return depthwise_rows_kernel(ksize, stride, variant) == &dw_rows_neon;
#else
  (void)ksize, (void)stride, (void)variant;
  return false;
#endif
}

void depthwise_conv(const float* in, int channels, int h, int w, const float* weights, int ksize, int stride, int pad,
                    float* out, int out_h, int out_w, const float* bias, Activation act, int threads,
                    const char* variant) {
  DepthwiseRows g;
  g.in = in, g.in_channel = size_t(h) * w, g.h = h, g.w = w;
  g.out = out, g.out_channel = size_t(out_h) * out_w, g.oy1 = out_h, g.out_w = out_w;
  g.ksize = ksize, g.stride = stride, g.pad = pad, g.weights = weights, g.bias = bias, g.act = act;
  depthwise_channels(depthwise_rows_kernel(ksize, stride, variant), g, channels, threads);
}

void depthwise_channels(DepthwiseRowsFn rows, const DepthwiseRows& g, int channels, int threads) {
  if (threads <= 1 || channels <= 1) {  // no OpenMP region: even one thread's costs microseconds
    rows(g, 0, channels);
    return;
  }
  // Each thread one contiguous range of channels, one call.
  split_range(threads, channels, [&](int, int c0, int c1) {
    if (c0 < c1) rows(g, c0, c1);
  });
}

}  // namespace mdfi::kernels
