// NEON depthwise 3x3 and 5x5 convolution, stride 1 or 2, a range of one channel's rows at a time, over
// zero-padded copies of the input rows, a strip of rows at a time: every output then runs the same
// vector code (no scalar border columns, no bounds checks, no per-row bookkeeping), and the
// shifted tap vectors come from registers (EXT, or LD2's even/odd lanes for stride 2)
// instead of one unaligned load per tap. On Yolo-Fastest's 10x10 and 20x20 planes the scalar
// border columns of the previous kernel cost more than the vector interior.
//
// Arithmetic. ARMv7: as the reference (test_depthwise.cpp checks bit for bit): per output, from
// +0, taps in (ky, kx) order, each product rounded before its sum (one VMLA by scalar rounds as
// VMUL + VADD), then + bias, then the activation. aarch64: from the bias, taps in (ky, kx) order,
// each one FMLA by element (fused: one rounding per tap, half the instructions of FMUL + FADD),
// then the activation; leaky by leaky_fast.h. That is not Darknet's rounding, but within the
// parity limits (per layer 1e-4 against Darknet: Yolo-Fastest-1.1, -XL and MobileNetV2-YOLOv3-
// Nano measured 5e-6 to 7e-6 at most), and every aarch64 depthwise kernel sums so (the wide-row
// fallback in depthwise.cpp too), so whole planes and band rows still agree bit for bit; the
// test checks a fused reference. Zero taps of the padding add +-0, which leaves any sum but -0
// unchanged (a fused sum is -0 only after underflowing below 2^-149).
//
// Per block, two output rows are computed together (kRows): the input rows they share are loaded
// and shifted once.
#if defined(__ARM_NEON) || defined(__aarch64__)
#include <arm_neon.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <utility>

#include "../activation.h"
#include "depthwise.h"
#include "leaky_fast.h"

namespace mdfi::kernels {
namespace {

// Everything below inlines into plane(): the sums of a block then stay in registers (a called
// Block kept them, and the filter, in memory between input rows).
#define MDFI_INLINE inline __attribute__((always_inline))

// Tap kx of four outputs from the vectors of one padded row, all in registers (GCC keeps plain
// vectors there; NEON structs such as float32x4x2_t held across calls went through the stack).
// Stride 1: a = r[x..x+3], b = r[x+4..x+7]; tap kx = r[x + kx + i].
template <int kx>
MDFI_INLINE float32x4_t tap1(float32x4_t a, float32x4_t b) {
  if constexpr (kx == 0) return a;
  else if constexpr (kx == 4) return b;
  else return vextq_f32(a, b, kx);
}
// Stride 2: e0/o0 = even/odd lanes of r[2x..2x+7], e1/o1 of r[2x+8..2x+15]; tap kx = r[2x + kx + 2i].
template <int kx>
MDFI_INLINE float32x4_t tap2(float32x4_t e0, float32x4_t o0, float32x4_t e1, float32x4_t o1) {
  if constexpr (kx == 0) return e0;
  else if constexpr (kx == 1) return o0;
  else if constexpr (kx == 2) return vextq_f32(e0, e1, 1);
  else if constexpr (kx == 3) return vextq_f32(o0, o1, 1);
  else return vextq_f32(e0, e1, 2);
}

// acc + v * lane `l` of w. aarch64: FMLA by element, fused (one rounding per tap). ARMv7: one
// VMLA by scalar, which rounds the product, then the sum (ARMv7 NEON has no fused by-scalar
// form), as the reference does.
template <int l>
MDFI_INLINE float32x4_t mla_lane(float32x4_t acc, float32x4_t v, float32x4_t w) {
#if defined(__aarch64__)
  return vfmaq_laneq_f32(acc, v, w, l);
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
  MDFI_INLINE float32x4_t mla(float32x4_t acc, float32x4_t x) const {
    return mla_lane<(ky * K + kx) % 4>(acc, x, v[(ky * K + kx) / 4]);
  }
};

// A block: R output rows of N vectors (4N outputs each) at column x. The input rows they read are
// visited once each, top to bottom; each row's vectors and shifted taps serve every output row
// that reads it (stride 1, R = 2: four input rows for two output rows instead of six), and each
// output still takes its taps in (ky, kx) order. acc[rr][n] starts as the bias (aarch64) or +0.
template <int K, int S, int R, int N>
struct Block {
  float32x4_t acc[R][N];

  // Taps (ky, 0..K-1) of output row rr's vector n, from the loaded vectors of its input row.
  template <int ky, int rr, int n, int... kx>
  MDFI_INLINE void taps_n(const float32x4_t* e, const float32x4_t* o, const Filter<K>& f, std::integer_sequence<int, kx...>) {
    if constexpr (S == 1) ((acc[rr][n] = f.template mla<ky, kx>(acc[rr][n], tap1<kx>(e[n], e[n + 1]))), ...);
    else ((acc[rr][n] = f.template mla<ky, kx>(acc[rr][n], tap2<kx>(e[n], o[n], e[n + 1], o[n + 1]))), ...);
  }
  template <int ky, int rr, int... n>
  MDFI_INLINE void taps(const float32x4_t* e, const float32x4_t* o, const Filter<K>& f, std::integer_sequence<int, n...>) {
    if constexpr (ky >= 0 && ky < K) (taps_n<ky, rr, n>(e, o, f, std::make_integer_sequence<int, K>{}), ...);
  }
  // Input row j of the block (at r): loaded once, then its taps for every output row reading it.
  template <int j, int... rr, int... n>
  MDFI_INLINE void in_row(const float* r, int x, const Filter<K>& f, std::integer_sequence<int, rr...>,
              std::integer_sequence<int, n...>) {
    float32x4_t e[N + 1], o[N + 1];
    if constexpr (S == 1) {
      ((e[n] = vld1q_f32(r + x + 4 * n)), ...);
      e[N] = vld1q_f32(r + x + 4 * N);
      o[0] = e[0];  // unused
    } else {
      float32x4x2_t l;
      ((l = vld2q_f32(r + 2 * x + 8 * n), e[n] = l.val[0], o[n] = l.val[1]), ...);
      l = vld2q_f32(r + 2 * x + 8 * N), e[N] = l.val[0], o[N] = l.val[1];
    }
    (taps<j - rr * S, rr>(e, o, f, std::make_integer_sequence<int, N>{}), ...);
  }
  template <int... j>
  MDFI_INLINE void run(const float* r, size_t ld, int x, const Filter<K>& f, float32x4_t init, std::integer_sequence<int, j...>) {
#pragma GCC unroll 4
    for (int rr = 0; rr < R; ++rr)
#pragma GCC unroll 2
      for (int n = 0; n < N; ++n) acc[rr][n] = init;
    (in_row<j>(r + j * ld, x, f, std::make_integer_sequence<int, R>{}, std::make_integer_sequence<int, N>{}), ...);
  }
  // All taps of the block whose top input row is at r (rows ld floats apart).
  MDFI_INLINE void compute(const float* r, size_t ld, int x, const Filter<K>& f, float32x4_t init) {
    run(r, ld, x, f, init, std::make_integer_sequence<int, (R - 1) * S + K>{});
  }
};

// How a finished sum becomes an output: linear, relu, leaky (aarch64: leaky_fast.h, its range
// test gathered per plane) or leaky the exact way (the plane is redone so when the test fails).
enum class Fin { kLinear, kRelu, kLeaky, kLeakyExact };

struct Finisher {
  float32x4_t bias;  // added here on ARMv7; on aarch64 the sums start from it
#if defined(__aarch64__)
  leaky_fast::Consts leaky;
  int32x4_t min = leaky_fast::min_start();
#endif
  template <Fin F>
  MDFI_INLINE float32x4_t apply(float32x4_t v) {
#if !defined(__aarch64__)
    v = vaddq_f32(v, bias);
#endif
    if constexpr (F == Fin::kRelu) {
      const uint32x4_t positive = vcgtq_f32(v, vdupq_n_f32(0.f));
      return vmulq_f32(v, vreinterpretq_f32_u32(vandq_u32(positive, vreinterpretq_u32_f32(vdupq_n_f32(1.f)))));
    }
#if defined(__aarch64__)
    if constexpr (F == Fin::kLeaky) return leaky_fast::apply(v, leaky, min);
    if constexpr (F == Fin::kLeakyExact) return leaky_fast::apply_exact(v);
#endif
    return v;
  }
};

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
// row runs the same vector code over them, R rows at a time (kRows; the last one alone).
#if defined(__aarch64__)
constexpr int kRows = 2;
#else
constexpr int kRows = 1;  // 16 q registers: two rows' sums and a 5x5 filter would spill
#endif

// One output row or R of them (r: the top input row of the block; orow: the first output row).
// Finishes and stores the N vectors of each of the R rows of a block at x (rows out_w apart).
template <Fin F, int R, int N, int... rr>
MDFI_INLINE void store_block(float* orow, int out_w, int x, float32x4_t (&acc)[R][N], Finisher& fin,
                             std::integer_sequence<int, rr...>) {
  if constexpr (N == 2)
    ((vst1q_f32(orow + size_t(rr) * out_w + x, fin.apply<F>(acc[rr][0])),
      vst1q_f32(orow + size_t(rr) * out_w + x + 4, fin.apply<F>(acc[rr][1]))), ...);
  else ((vst1q_f32(orow + size_t(rr) * out_w + x, fin.apply<F>(acc[rr][0]))), ...);
}

// One output row or R of them (r: the top input row of the block; orow: the first output row).
template <int K, int S, int R, Fin F>
MDFI_INLINE void rows_out(const float* r, size_t ld, float* orow, int out_w, const Filter<K>& f, Finisher& fin) {
  using Rs = std::make_integer_sequence<int, R>;
#if defined(__aarch64__)
  const float32x4_t init = fin.bias;
#else
  const float32x4_t init = vdupq_n_f32(0.f);
#endif
  int x = 0;
  for (; x + 8 <= out_w; x += 8) {
    Block<K, S, R, 2> b;
    b.compute(r, ld, x, f, init);
    store_block<F>(orow, out_w, x, b.acc, fin, Rs{});
  }
  // The last four outputs overlap the ones before rather than leaving a scalar tail; a row
  // narrower than four goes through a small buffer (the padded rows cover those reads).
  if (x + 4 <= out_w) {
    Block<K, S, R, 1> b;
    b.compute(r, ld, x, f, init);
    store_block<F>(orow, out_w, x, b.acc, fin, Rs{});
    x += 4;
  }
  if (x < out_w) {
    Block<K, S, R, 1> b;
    if (out_w >= 4) {
      b.compute(r, ld, out_w - 4, f, init);
      store_block<F>(orow, out_w, out_w - 4, b.acc, fin, Rs{});
    } else {
      b.compute(r, ld, 0, f, init);
      for (int rr = 0; rr < R; ++rr) {
        float tmp[4];
        vst1q_f32(tmp, fin.apply<F>(b.acc[rr][0]));
        for (int j = 0; j < out_w; ++j) orow[size_t(rr) * out_w + j] = tmp[j];
      }
    }
  }
}

template <int K, int S, Fin F>
__attribute__((noinline)) void plane(const float* in, int in_lo, int h, int w, const float* wk, int pad, float* out,
                                     int oy0, int oy1, int out_w, Finisher& finisher, int row_len, float* buf) {
  const Filter<K> f(wk);
  Finisher fin = finisher;  // a local copy stays in registers
  const size_t ld = size_t(row_len);
  const int strip = std::max(1, ((kBuf / row_len) - K) / S + 1);  // output rows whose inputs fit
  for (int sy = oy0; sy < oy1; sy += strip) {
    const int n = std::min(strip, oy1 - sy);
    fill_rows(buf, ld, (n - 1) * S + K, in, in_lo, h, w, pad, sy * S - pad);
    float* orow = out + size_t(sy - oy0) * out_w;
    int i = 0;
    if constexpr (kRows > 1)
      for (; i + kRows <= n; i += kRows)
        rows_out<K, S, kRows, F>(buf + size_t(i) * S * ld, ld, orow + size_t(i) * out_w, out_w, f, fin);
    for (; i < n; ++i) rows_out<K, S, 1, F>(buf + size_t(i) * S * ld, ld, orow + size_t(i) * out_w, out_w, f, fin);
  }
  finisher = fin;
}

// Which activations the kernel applies; the rest run over the stored plane afterwards.
inline bool fused(Activation act) {
  return act == Activation::kLinear || act == Activation::kRelu
#if defined(__aarch64__)
         || act == Activation::kLeaky
#endif
      ;
}

template <int K, int S>
void plane_act(const float* in, int in_lo, int h, int w, const float* wk, int pad, float* out, int oy0, int oy1,
               int out_w, float bias, Activation act, int row_len, float* buf) {
  Finisher fin;
#if defined(__aarch64__)
  fin.bias = vdupq_n_f32(bias + 0.f);  // the sums start from it: a -0 bias as +0, as the reference
#else
  fin.bias = vdupq_n_f32(bias);
#endif
  if (act == Activation::kRelu) {
    plane<K, S, Fin::kRelu>(in, in_lo, h, w, wk, pad, out, oy0, oy1, out_w, fin, row_len, buf);
#if defined(__aarch64__)
  } else if (act == Activation::kLeaky) {
    plane<K, S, Fin::kLeaky>(in, in_lo, h, w, wk, pad, out, oy0, oy1, out_w, fin, row_len, buf);
    // An input below leaky_fast's range (|x| < 2^-119, or -0): the plane again, the exact way.
    if (!leaky_fast::exact(fin.min)) plane<K, S, Fin::kLeakyExact>(in, in_lo, h, w, wk, pad, out, oy0, oy1, out_w, fin, row_len, buf);
#endif
  } else {
    plane<K, S, Fin::kLinear>(in, in_lo, h, w, wk, pad, out, oy0, oy1, out_w, fin, row_len, buf);
  }
}

#undef MDFI_INLINE

}  // namespace

bool depthwise_rows_neon(const DepthwiseRows& g, int c0, int c1) {
  const int ksize = g.ksize, stride = g.stride, pad = g.pad, out_w = g.out_w;
  if ((ksize != 3 && ksize != 5) || (stride != 1 && stride != 2) || pad < 0 || out_w <= 0) return false;
  if (g.oy1 <= g.oy0) return true;
  // Reads reach stride * (out_w rounded to 4, + 4) + 8 floats into a padded row (a block's loads
  // past its last output), and a strip holds at least one output row's inputs.
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
    // Activations the kernel does not apply run over the stored rows.
    if (!fused(g.act)) activate_array(out, size_t(oy1 - oy0) * out_w, g.act);
  }
  return true;
}

}  // namespace mdfi::kernels
#endif
