// AVX2 and AVX-512 3x3 and 5x5 depthwise kernels (depthwise_body.inc), each compiled in a target region so
// the file builds with the default flags; depthwise.cpp calls them after checking the CPU.
#if defined(__x86_64__) || defined(__i386__)
// GCC 12's AVX-512 conversion intrinsics start from _mm256_undefined_*(): see micro_x86.cpp.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "depthwise.h"
#include "sgemm.h"
#include "target_region.h"
#include "tile_finish_x86.h"

namespace mdfi::kernels {

MDFI_TARGET_BEGIN("avx2,fma")
namespace dw_avx2 {

struct V8 {
  static constexpr int L = 8;
  using T = __m256;
  static T zero() { return _mm256_setzero_ps(); }
  static T set1(float f) { return _mm256_set1_ps(f); }
  static T load(const float* p) { return _mm256_loadu_ps(p); }
  static T load_s2(const float* p) {
    const __m256 a = _mm256_loadu_ps(p), b = _mm256_loadu_ps(p + 8);
    // Even elements of each 128-bit lane, then the two middle quarters swapped into order.
    const __m256 even = _mm256_shuffle_ps(a, b, 0x88);  // a0 a2 b0 b2 | a4 a6 b4 b6
    return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(even), 0xD8));
  }
  static void store(float* p, T v) { _mm256_storeu_ps(p, v); }
  static T add(T a, T b) { return _mm256_add_ps(a, b); }
  static T mul(T a, T b) { return _mm256_mul_ps(a, b); }
  // Bias, then Darknet's activation exactly (the SGEMM tiles' epilogue, so the same bits).
  static T finish(T v, float bias, Activation act) { return finish_avx2(v, bias, tile_act(act)); }
};

#define DW_LEAKY 1
#define DW_FMA 0
#define DW_VECS(F) F(V8)
#define DW_EDGE V8
#include "depthwise_body.inc"
#undef DW_VECS
#undef DW_EDGE
#undef DW_LEAKY
#undef DW_FMA

}  // namespace dw_avx2
MDFI_TARGET_END()

MDFI_TARGET_BEGIN("avx512f,avx2,fma")
namespace dw_avx512 {

using V8 = dw_avx2::V8;

struct V16 {
  static constexpr int L = 16;
  using T = __m512;
  static T zero() { return _mm512_setzero_ps(); }
  static T set1(float f) { return _mm512_set1_ps(f); }
  static T load(const float* p) { return _mm512_loadu_ps(p); }
  static T load_s2(const float* p) {
    const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    return _mm512_permutex2var_ps(_mm512_loadu_ps(p), even, _mm512_loadu_ps(p + 16));
  }
  static void store(float* p, T v) { _mm512_storeu_ps(p, v); }
  static T add(T a, T b) { return _mm512_add_ps(a, b); }
  static T mul(T a, T b) { return _mm512_mul_ps(a, b); }
  static T finish(T v, float bias, Activation act) { return finish_avx512(v, bias, tile_act(act)); }
};

#define DW_LEAKY 1
#define DW_FMA 0
#define DW_VECS(F) F(V16) F(V8)
#define DW_EDGE V8
#include "depthwise_body.inc"
#undef DW_VECS
#undef DW_EDGE
#undef DW_LEAKY
#undef DW_FMA

// Every output column in whole 16-lane vectors, borders included: a tap that falls outside the
// row is a masked-off lane of the load, which reads nothing and gives +0. As in the body above,
// a zero tap leaves a sum that started from +0 bit-identical to the sum that skips it, so this
// equals the direct sum bit for bit, with no scalar border columns and no overlapping tail: on
// the 10- to 40-wide maps of Yolo-Fastest those were most of the work. Rows wider than
// kMaxChunks vectors go to the kernel above.
constexpr int kMaxChunks = 64;

#if defined(__clang__)
#define MDFI_DW_UNROLL _Pragma("unroll")
#else
#define MDFI_DW_UNROLL _Pragma("GCC unroll 16")
#endif

static inline uint32_t lane_range(int lo, int hi) {  // bits [lo, hi) of 32, empty when hi <= lo
  lo = std::max(lo, 0), hi = std::min(hi, 32);
  if (hi <= lo) return 0;
  return uint32_t(((uint64_t(1) << hi) - 1) & ~((uint64_t(1) << lo) - 1));
}

// R output rows at a time: each input row is loaded once per kx for all the outputs that use it,
// and the R sums are independent chains (each output's own taps stay in (ky, kx) order).
template <int K, int S, int R>
static inline void dw_rows_masked(const float* const* rows, const __m512* wv, const uint32_t (*masks)[K], int chunks,
                                  int pad, float* orow, int out_w, float bias, Activation act, bool fused) {
  constexpr int kIn = K + S * (R - 1);  // input rows the R outputs read
  const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
  const __m512i odd = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
  for (int c = 0; c < chunks; ++c) {
    __m512 acc[R];
    MDFI_DW_UNROLL for (int j = 0; j < R; ++j) acc[j] = _mm512_setzero_ps();
    MDFI_DW_UNROLL for (int r = 0; r < kIn; ++r) {
      if (!rows[r]) continue;
      // Stride 2: one pair of loads from column kx serves taps kx (its even elements) and kx + 1
      // (its odd ones), so kx steps by 2. Masked lanes are never read, even before the row.
      MDFI_DW_UNROLL for (int kx = 0; kx < K; kx += S) {
        const float* src = rows[r] + (c * 16 * S + kx - pad);
        __m512 x[2];
        if (S == 1) {
          x[0] = _mm512_maskz_loadu_ps(__mmask16(masks[c][kx]), src);
        } else {
          const __m512 a = _mm512_maskz_loadu_ps(__mmask16(masks[c][kx]), src);
          const __m512 b = _mm512_maskz_loadu_ps(__mmask16(masks[c][kx] >> 16), src + 16);
          x[0] = _mm512_permutex2var_ps(a, even, b);
          if (kx + 1 < K) x[1] = _mm512_permutex2var_ps(a, odd, b);
        }
        for (int t = 0; t < S; ++t) {
          if (kx + t >= K) break;
          MDFI_DW_UNROLL for (int j = 0; j < R; ++j) {
            const int ky = r - S * j;
            if (ky >= 0 && ky < K) acc[j] = _mm512_add_ps(acc[j], _mm512_mul_ps(wv[ky * K + kx + t], x[t]));
          }
        }
      }
    }
    const __mmask16 store = __mmask16(lane_range(0, out_w - c * 16));
    MDFI_DW_UNROLL for (int j = 0; j < R; ++j) {
      const __m512 v = fused ? V16::finish(acc[j], bias, act) : _mm512_add_ps(acc[j], _mm512_set1_ps(bias));
      _mm512_mask_storeu_ps(orow + size_t(j) * out_w + c * 16, store, v);
    }
  }
}

// Channels [c0, c1): the load masks are worked out once for all of them.
template <int K, int S>
static void dw_plane_masked(const DepthwiseRows& g, int c0, int c1) {
  constexpr int R = 4;
  const int h = g.h, w = g.w, pad = g.pad, out_w = g.out_w, oy0 = g.oy0, oy1 = g.oy1;
  const Activation act = g.act;
  const bool fused = act == Activation::kLinear || act == Activation::kRelu || act == Activation::kLeaky;
  const int chunks = (out_w + 15) / 16;
  // Per chunk and kx: which of the (16 * S) input positions the loads may read.
  uint32_t masks[kMaxChunks][K];
  for (int c = 0; c < chunks; ++c)
    for (int kx = 0; kx < K; ++kx) {
      const int base = c * 16 * S + kx - pad;  // input column of the chunk's first position
      masks[c][kx] = lane_range(-base, w - base);
    }
  for (int ch = c0; ch < c1; ++ch) {
    const float* in = g.in + ch * g.in_channel;
    float* out = g.out + ch * g.out_channel;
    const float* wk = g.weights + size_t(ch) * K * K;
    const float bias = g.bias ? g.bias[ch] : 0.f;
    __m512 wv[K * K];
    for (int i = 0; i < K * K; ++i) wv[i] = _mm512_set1_ps(wk[i]);
    const float* rows[K + S * (R - 1)];
    for (int oy = oy0; oy < oy1;) {
      // Four rows at a time, then two, then one (a band step is often one or two rows).
      const int n = oy1 - oy >= R ? R : oy1 - oy >= 2 ? 2 : 1;
      for (int r = 0; r < K + S * (n - 1); ++r) {
        const int iy = oy * S + r - pad;
        rows[r] = iy >= 0 && iy < h ? in + ptrdiff_t(iy - g.in_lo) * w : nullptr;
      }
      float* orow = out + size_t(oy - oy0) * out_w;
      if (n == R) dw_rows_masked<K, S, R>(rows, wv, masks, chunks, pad, orow, out_w, bias, act, fused);
      else if (n == 2) dw_rows_masked<K, S, 2>(rows, wv, masks, chunks, pad, orow, out_w, bias, act, fused);
      else dw_rows_masked<K, S, 1>(rows, wv, masks, chunks, pad, orow, out_w, bias, act, fused);
      if (!fused) activate_array(orow, size_t(n) * out_w, act);
      oy += n;
    }
  }
}

static void dw_plane_best(const DepthwiseRows& g, int c0, int c1) {
  if (g.out_w > kMaxChunks * 16) {
    for (int ch = c0; ch < c1; ++ch)
      dw_plane_any(g.in + ch * g.in_channel, g.in_lo, g.h, g.w, g.weights + size_t(ch) * g.ksize * g.ksize, g.ksize,
                   g.stride, g.pad, g.out + ch * g.out_channel, g.oy0, g.oy1, g.out_w, g.bias ? g.bias[ch] : 0.f, g.act);
    return;
  }
  if (g.ksize == 3) {
    if (g.stride == 1) return dw_plane_masked<3, 1>(g, c0, c1);
    return dw_plane_masked<3, 2>(g, c0, c1);
  }
  if (g.stride == 1) return dw_plane_masked<5, 1>(g, c0, c1);
  return dw_plane_masked<5, 2>(g, c0, c1);
}

}  // namespace dw_avx512
MDFI_TARGET_END()

void depthwise_rows_avx2(const DepthwiseRows& g, int c0, int c1) {
  for (int ch = c0; ch < c1; ++ch)
    dw_avx2::dw_plane_any(g.in + ch * g.in_channel, g.in_lo, g.h, g.w, g.weights + size_t(ch) * g.ksize * g.ksize,
                          g.ksize, g.stride, g.pad, g.out + ch * g.out_channel, g.oy0, g.oy1, g.out_w,
                          g.bias ? g.bias[ch] : 0.f, g.act);
}

void depthwise_rows_avx512(const DepthwiseRows& g, int c0, int c1) { dw_avx512::dw_plane_best(g, c0, c1); }

}  // namespace mdfi::kernels
#endif
