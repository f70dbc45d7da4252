// NEON depthwise 3x3 and 5x5 convolution, stride 1 or 2, a range of one channel's rows at a time, over
// zero-padded copies of the input rows, a strip of rows at a time: every output then runs the same
// vector code (no scalar border columns, no bounds checks, no per-row bookkeeping), and the
// shifted tap vectors come from registers (EXT, or LD2's even/odd lanes for stride 2)
// instead of one unaligned load per tap. On Yolo-Fastest's 10x10 and 20x20 planes the scalar
// border columns of the previous kernel cost more than the vector interior.
//
// Arithmetic as the reference (test_depthwise.cpp checks bit for bit): per output, from +0, taps
// in (ky, kx) order, each product rounded before its sum (zero taps of the padding add +-0,
// which leaves such a sum unchanged), then + bias, then the activation. ARMv7 does a tap in one
// VMLA by scalar (it rounds the product, then the sum); aarch64 needs FMUL then FADD, since its
// only multiply-accumulate, FMLA, is fused (one rounding). FMLA would halve the taps'
// instructions, but the reference test, the scalar loop (other kernel sizes, rows too wide for
// the buffers) and the x86 kernels round separately, and mdfi's outputs agree across them.
#if defined(__ARM_NEON) || defined(__aarch64__)
#include <arm_neon.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <utility>

#include "../activation.h"
#include "depthwise.h"

namespace mdfi::kernels {
namespace {

// Tap kx of four outputs from the vectors of one padded row, all in registers (GCC keeps plain
// vectors there; NEON structs such as float32x4x2_t held across calls went through the stack).
// Stride 1: a = r[x..x+3], b = r[x+4..x+7]; tap kx = r[x + kx + i].
template <int kx>
inline float32x4_t tap1(float32x4_t a, float32x4_t b) {
  if constexpr (kx == 0) return a;
  else if constexpr (kx == 4) return b;
  else return vextq_f32(a, b, kx);
}
// Stride 2: e0/o0 = even/odd lanes of r[2x..2x+7], e1/o1 of r[2x+8..2x+15]; tap kx = r[2x + kx + 2i].
template <int kx>
inline float32x4_t tap2(float32x4_t e0, float32x4_t o0, float32x4_t e1, float32x4_t o1) {
  if constexpr (kx == 0) return e0;
  else if constexpr (kx == 1) return o0;
  else if constexpr (kx == 2) return vextq_f32(e0, e1, 1);
  else if constexpr (kx == 3) return vextq_f32(o0, o1, 1);
  else return vextq_f32(e0, e1, 2);
}

// acc + v * lane `l` of w, the product rounded before the sum. aarch64: FMUL by element, then
// FADD. ARMv7: one VMLA by scalar, which rounds as VMUL + VADD (ARMv7 NEON has no fused
// by-scalar form): the same bits in half the instructions.
template <int l>
inline float32x4_t mla_lane(float32x4_t acc, float32x4_t v, float32x4_t w) {
#if defined(__aarch64__)
  return vaddq_f32(acc, vmulq_laneq_f32(v, w, l));
#else
  if constexpr (l < 2) return vmlaq_lane_f32(acc, v, vget_low_f32(w), l);
  else return vmlaq_lane_f32(acc, v, vget_high_f32(w), l - 2);
#endif
}

// The filter's K*K taps in (ky, kx) order, four to a vector, loaded once per plane.
template <int K>
struct Filter {
  static constexpr int kVecs = (K * K + 3) / 4;
  float32x4_t v[kVecs];
  explicit Filter(const float* wk) {
    float pad[kVecs * 4] = {};
    std::memcpy(pad, wk, K * K * sizeof(float));
    for (int q = 0; q < kVecs; ++q) v[q] = vld1q_f32(pad + 4 * q);
  }
  template <int ky, int kx>
  float32x4_t mla(float32x4_t acc, float32x4_t x) const {
    return mla_lane<(ky * K + kx) % 4>(acc, x, v[(ky * K + kx) / 4]);
  }
};

// acc + the products of row ky's taps in kx order, for four outputs at x of padded row r.
template <int K, int ky, int... kx>
inline float32x4_t row1(float32x4_t acc, const float* r, int x, const Filter<K>& f, std::integer_sequence<int, kx...>) {
  const float32x4_t a = vld1q_f32(r + x), b = vld1q_f32(r + x + 4);
  ((acc = f.template mla<ky, kx>(acc, tap1<kx>(a, b))), ...);
  return acc;
}
template <int K, int ky, int... kx>
inline float32x4_t row2(float32x4_t acc, const float* r, int x, const Filter<K>& f, std::integer_sequence<int, kx...>) {
  const float32x4x2_t l0 = vld2q_f32(r + 2 * x), l1 = vld2q_f32(r + 2 * x + 8);
  const float32x4_t e0 = l0.val[0], o0 = l0.val[1], e1 = l1.val[0], o1 = l1.val[1];
  ((acc = f.template mla<ky, kx>(acc, tap2<kx>(e0, o0, e1, o1))), ...);
  return acc;
}
// Eight outputs at x: the middle vectors are loaded once for both halves.
template <int K, int ky, int... kx>
inline void row1x8(float32x4_t& a0, float32x4_t& a1, const float* r, int x, const Filter<K>& f,
                   std::integer_sequence<int, kx...>) {
  const float32x4_t a = vld1q_f32(r + x), b = vld1q_f32(r + x + 4), c = vld1q_f32(r + x + 8);
  ((a0 = f.template mla<ky, kx>(a0, tap1<kx>(a, b))), ...);
  ((a1 = f.template mla<ky, kx>(a1, tap1<kx>(b, c))), ...);
}
template <int K, int ky, int... kx>
inline void row2x8(float32x4_t& a0, float32x4_t& a1, const float* r, int x, const Filter<K>& f,
                   std::integer_sequence<int, kx...>) {
  const float32x4x2_t l0 = vld2q_f32(r + 2 * x), l1 = vld2q_f32(r + 2 * x + 8), l2 = vld2q_f32(r + 2 * x + 16);
  const float32x4_t e0 = l0.val[0], o0 = l0.val[1], e1 = l1.val[0], o1 = l1.val[1], e2 = l2.val[0], o2 = l2.val[1];
  ((a0 = f.template mla<ky, kx>(a0, tap2<kx>(e0, o0, e1, o1))), ...);
  ((a1 = f.template mla<ky, kx>(a1, tap2<kx>(e1, o1, e2, o2))), ...);
}

// Rows ky of the window start at r + ky * ld.
template <int K, int S, int... ky>
inline float32x4_t taps4(const float* r, size_t ld, int x, const Filter<K>& f, std::integer_sequence<int, ky...>) {
  float32x4_t acc = vdupq_n_f32(0.f);
  if constexpr (S == 1) ((acc = row1<K, ky>(acc, r + ky * ld, x, f, std::make_integer_sequence<int, K>{})), ...);
  else ((acc = row2<K, ky>(acc, r + ky * ld, x, f, std::make_integer_sequence<int, K>{})), ...);
  return acc;
}
template <int K, int S, int... ky>
inline void taps8(const float* r, size_t ld, int x, const Filter<K>& f, float32x4_t& a0, float32x4_t& a1,
                  std::integer_sequence<int, ky...>) {
  a0 = a1 = vdupq_n_f32(0.f);
  if constexpr (S == 1) (row1x8<K, ky>(a0, a1, r + ky * ld, x, f, std::make_integer_sequence<int, K>{}), ...);
  else (row2x8<K, ky>(a0, a1, r + ky * ld, x, f, std::make_integer_sequence<int, K>{}), ...);
}

// + bias, then the fused activation A (linear, relu, or leaky on aarch64).
template <Activation A>
inline float32x4_t finish(float32x4_t v, float32x4_t bias) {
  v = vaddq_f32(v, bias);
  if constexpr (A == Activation::kRelu) {
    const uint32x4_t positive = vcgtq_f32(v, vdupq_n_f32(0.f));
    return vmulq_f32(v, vreinterpretq_f32_u32(vandq_u32(positive, vreinterpretq_u32_f32(vdupq_n_f32(1.f)))));
  }
#if defined(__aarch64__)
  if constexpr (A == Activation::kLeaky) {  // Darknet's double product, on aarch64's double lanes
    const uint32x4_t positive = vcgtq_f32(v, vdupq_n_f32(0.f));
    const float64x2_t tenth = vdupq_n_f64(.1);
    const float32x2_t lo = vcvt_f32_f64(vmulq_f64(vcvt_f64_f32(vget_low_f32(v)), tenth));
    return vbslq_f32(positive, v, vcvt_high_f32_f64(lo, vmulq_f64(vcvt_high_f64_f32(v), tenth)));
  }
#endif
  return v;
}

// dst[0..n) = src[0..n), eight floats a step, the last vector overlapping the one before.
inline void copy_row(float* dst, const float* src, int n) {
  int j = 0;
  for (; j + 8 <= n; j += 8) {
    const float32x4_t a = vld1q_f32(src + j), b = vld1q_f32(src + j + 4);
    vst1q_f32(dst + j, a);
    vst1q_f32(dst + j + 4, b);
  }
  if (j + 4 <= n) vst1q_f32(dst + j, vld1q_f32(src + j)), j += 4;
  if (j < n) {
    if (n >= 4) vst1q_f32(dst + n - 4, vld1q_f32(src + n - 4));
    else for (; j < n; ++j) dst[j] = src[j];
  }
}

constexpr int kBuf = 12288;  // floats of padded input rows on the stack (48 KiB)

// The buffer holds `rows` padded rows of `ld` floats: input row iy0 + i in row i, its pixels at
// [pad, pad + w), zeros around them (and whole zero rows above and below the image). Input row
// iy lies at in + (iy - in_lo) * w.
inline void fill_rows(float* buf, size_t ld, int rows, const float* in, int in_lo, int h, int w, int pad, int iy0) {
  for (int i = 0; i < rows; ++i) {
    float* r = buf + size_t(i) * ld;
    const int iy = iy0 + i;
    if (iy < 0 || iy >= h) {
      for (size_t j = 0; j < ld; ++j) r[j] = 0.f;
      continue;
    }
    for (int j = 0; j < pad; ++j) r[j] = 0.f;
    copy_row(r + pad, in + ptrdiff_t(iy - in_lo) * w, w);
    for (size_t j = size_t(pad) + w; j < ld; ++j) r[j] = 0.f;
  }
}

// Output rows [oy0, oy1) in strips: a strip's input rows are copied padded, then every output
// row runs the same vector code over them.
template <int K, int S, Activation A>
__attribute__((noinline)) void plane(const float* in, int in_lo, int h, int w, const float* wk, int pad, float* out,
                                     int oy0, int oy1, int out_w, float bias, int row_len, float* buf) {
  using Rows = std::make_integer_sequence<int, K>;
  const float32x4_t bv = vdupq_n_f32(bias);
  const Filter<K> f(wk);
  const size_t ld = size_t(row_len);
  const int strip = std::max(1, ((kBuf / row_len) - K) / S + 1);  // output rows whose inputs fit
  for (int sy = oy0; sy < oy1; sy += strip) {
    const int n = std::min(strip, oy1 - sy);
    fill_rows(buf, ld, (n - 1) * S + K, in, in_lo, h, w, pad, sy * S - pad);
    for (int i = 0; i < n; ++i) {
      const float* r = buf + size_t(i) * S * ld;
      float* orow = out + size_t(sy - oy0 + i) * out_w;
      int x = 0;
      for (; x + 8 <= out_w; x += 8) {
        float32x4_t a0, a1;
        taps8<K, S>(r, ld, x, f, a0, a1, Rows{});
        vst1q_f32(orow + x, finish<A>(a0, bv));
        vst1q_f32(orow + x + 4, finish<A>(a1, bv));
      }
      // The last four outputs overlap the ones before rather than leaving a scalar tail; a row
      // narrower than four goes through a small buffer (the padded rows cover those reads).
      if (x < out_w) {
        if (x + 4 <= out_w) {
          vst1q_f32(orow + x, finish<A>(taps4<K, S>(r, ld, x, f, Rows{}), bv));
          x += 4;
        }
        if (x < out_w) {
          x = out_w >= 4 ? out_w - 4 : 0;
          const float32x4_t v = finish<A>(taps4<K, S>(r, ld, x, f, Rows{}), bv);
          if (out_w >= 4) {
            vst1q_f32(orow + x, v);
          } else {
            float tmp[4];
            vst1q_f32(tmp, v);
            for (int j = 0; j < out_w; ++j) orow[j] = tmp[j];
          }
        }
      }
    }
  }
}

// Which activations finish() applies; the rest run over the stored plane afterwards.
inline Activation fused_part(Activation act) {
  const bool fused = act == Activation::kLinear || act == Activation::kRelu
#if defined(__aarch64__)
                     || act == Activation::kLeaky
#endif
      ;
  return fused ? act : Activation::kLinear;
}

template <int K, int S>
void plane_act(const float* in, int in_lo, int h, int w, const float* wk, int pad, float* out, int oy0, int oy1,
               int out_w, float bias, Activation act, int row_len, float* buf) {
  if (act == Activation::kRelu)
    plane<K, S, Activation::kRelu>(in, in_lo, h, w, wk, pad, out, oy0, oy1, out_w, bias, row_len, buf);
#if defined(__aarch64__)
  else if (act == Activation::kLeaky)
    plane<K, S, Activation::kLeaky>(in, in_lo, h, w, wk, pad, out, oy0, oy1, out_w, bias, row_len, buf);
#endif
  else plane<K, S, Activation::kLinear>(in, in_lo, h, w, wk, pad, out, oy0, oy1, out_w, bias, row_len, buf);
}

}  // namespace

bool depthwise_rows_neon(const DepthwiseRows& g, int c0, int c1) {
  const int ksize = g.ksize, stride = g.stride, pad = g.pad, out_w = g.out_w;
  if ((ksize != 3 && ksize != 5) || (stride != 1 && stride != 2) || pad < 0 || out_w <= 0) return false;
  if (g.oy1 <= g.oy0) return true;
  // Reads reach stride * (out_w rounded to 4, + 4) + 8 floats into a padded row (the loads of
  // row1x8/row2x8 past the last output), and a strip holds at least one output row's inputs.
  const int row_len = std::max(stride * (std::max(out_w, 4) + 4) + 8, pad + g.w);
  if (row_len * ksize > kBuf) return false;
  float buf[kBuf];
  for (int ch = c0; ch < c1; ++ch) {
    const float* in = g.in + ch * g.in_channel;
    float* out = g.out + ch * g.out_channel;
    const float* wk = g.weights + size_t(ch) * ksize * ksize;
    const float bias = g.bias ? g.bias[ch] : 0.f;
    const int lo = g.in_lo, h = g.h, w = g.w, oy0 = g.oy0, oy1 = g.oy1;
    if (ksize == 3 && stride == 1) plane_act<3, 1>(in, lo, h, w, wk, pad, out, oy0, oy1, out_w, bias, g.act, row_len, buf);
    else if (ksize == 3) plane_act<3, 2>(in, lo, h, w, wk, pad, out, oy0, oy1, out_w, bias, g.act, row_len, buf);
    else if (stride == 1) plane_act<5, 1>(in, lo, h, w, wk, pad, out, oy0, oy1, out_w, bias, g.act, row_len, buf);
    else plane_act<5, 2>(in, lo, h, w, wk, pad, out, oy0, oy1, out_w, bias, g.act, row_len, buf);
    // Activations finish() does not apply run over the stored rows.
    if (fused_part(g.act) != g.act) activate_array(out, size_t(oy1 - oy0) * out_w, g.act);
  }
  return true;
}

}  // namespace mdfi::kernels
#endif
