// Winograd's per-tile work compiled for AVX2 and for AVX-512 (the binary's baseline is plain
// x86-64): the same source, winograd_tiles.inc, under each target, chosen at run time.
#if defined(__x86_64__) || defined(__i386__)
// GCC 12's AVX-512 shuffle intrinsics start from _mm512_undefined_*(), which -O2 reports as maybe
// uninitialized wherever they inline (GCC bug 105593, fixed in 13): a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "transpose_x86.h"
#include "target_region.h"
#include "winograd.h"

namespace mdfi::kernels {

MDFI_TARGET_BEGIN("avx2,fma")
namespace wino_avx2 {
#include "winograd_tiles.inc"
}  // namespace wino_avx2
MDFI_TARGET_END()
MDFI_TARGET_BEGIN("avx512f")
namespace wino_avx512 {
// winograd_tiles.inc's gather of every M-th float by permutes of whole vectors: GCC vectorised
// the loop only in part (ymm permutes and scalar tails), and for F(4x4) it fills 36 of these per
// channel and run of tiles (yolov4-tiny, kept, 1 thread, VM: transform_panel<4> 8.3% -> 6.2% of
// the samples). It reads the padded row copy up to row[64 * M - 1] (within the copy's buffer);
// only the run's `len` results are stored. (Reading the input rows directly where a run has no
// padding, with loads masked at the run's end, measured slower: 9.7%.)
template <int M>
inline void gather_every(const float* row, int len, float* out) {
  static_assert(M == 2 || M == 4, "F(2x2) and F(4x4)");
  const __m512i idx = M == 2 ? _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30)
                             : _mm512_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28, 0, 4, 8, 12, 16, 20, 24, 28);
  for (int q = 0; q < len; q += 16) {
    const float* r = row + q * M;
    __m512 v = _mm512_permutex2var_ps(_mm512_loadu_ps(r), idx, _mm512_loadu_ps(r + 16));
    if (M == 4)  // lanes 0-7 from the first 32 floats, 8-15 from the next 32
      v = _mm512_shuffle_f32x4(v, _mm512_permutex2var_ps(_mm512_loadu_ps(r + 32), idx, _mm512_loadu_ps(r + 48)),
                               _MM_SHUFFLE(1, 0, 1, 0));
    if (len - q >= 16) _mm512_storeu_ps(out + q, v);
    else _mm512_mask_storeu_ps(out + q, __mmask16((1u << (len - q)) - 1), v);
  }
}
// winograd_tiles.inc's interleave (the output pass's copy of M tile rows side by side) by
// permutes: pairs of floats from ys[0], ys[1] (and ys[2], ys[3]), then for M = 4 pairs of those
// pairs; loads and stores masked at the run's end.
template <int M>
inline void interleave(const float* const* ys, int len, float* out) {
  static_assert(M == 2 || M == 4, "F(2x2) and F(4x4)");
  const __m512i lo = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const __m512i hi = _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  for (int q = 0; q < len; q += 16) {
    const int n = std::min(16, len - q);
    const __mmask16 in = __mmask16((1u << n) - 1);
    __m512 v[M];
    for (int s = 0; s < M; ++s) v[s] = _mm512_maskz_loadu_ps(in, ys[s] + q);
    __m512 o[M];  // 16 * M floats of out, in order
    if constexpr (M == 2) {
      o[0] = _mm512_permutex2var_ps(v[0], lo, v[1]);
      o[1] = _mm512_permutex2var_ps(v[0], hi, v[1]);
    } else {
      const __m512i plo = _mm512_setr_epi64(0, 8, 1, 9, 2, 10, 3, 11), phi = _mm512_setr_epi64(4, 12, 5, 13, 6, 14, 7, 15);
      const __m512d a0 = _mm512_castps_pd(_mm512_permutex2var_ps(v[0], lo, v[1]));
      const __m512d a1 = _mm512_castps_pd(_mm512_permutex2var_ps(v[0], hi, v[1]));
      const __m512d b0 = _mm512_castps_pd(_mm512_permutex2var_ps(v[2], lo, v[3]));
      const __m512d b1 = _mm512_castps_pd(_mm512_permutex2var_ps(v[2], hi, v[3]));
      o[0] = _mm512_castpd_ps(_mm512_permutex2var_pd(a0, plo, b0));
      o[1] = _mm512_castpd_ps(_mm512_permutex2var_pd(a0, phi, b0));
      o[2] = _mm512_castpd_ps(_mm512_permutex2var_pd(a1, plo, b1));
      o[3] = _mm512_castpd_ps(_mm512_permutex2var_pd(a1, phi, b1));
    }
    float* dst = out + size_t(q) * M;
    for (int k = 0; k < M; ++k) {
      const int left = n * M - 16 * k;  // floats of this run still to store
      if (left >= 16) _mm512_storeu_ps(dst + 16 * k, o[k]);
      else if (left > 0) _mm512_mask_storeu_ps(dst + 16 * k, __mmask16((1u << left) - 1), o[k]);
    }
  }
}
#define MDFI_WINOGRAD_GATHER
#define MDFI_WINOGRAD_INTERLEAVE
#include "winograd_tiles.inc"
#undef MDFI_WINOGRAD_GATHER
#undef MDFI_WINOGRAD_INTERLEAVE
}  // namespace wino_avx512
MDFI_TARGET_END()

// The weight transform over whole filter panels: one panel's kMR = 8 filters are the 8 lanes of a
// ymm vector, so per channel eight row loads and an 8x8 transpose give taps 0-7 of all eight
// filters (tap 8 is gathered), and the transform runs on vectors. The scalar gather of
// winograd_tiles.inc costs about a nanosecond per weight, paid for every weight of every image
// when weights stream. The expressions are Tf<M>::weight's, operation for operation, in GCC
// vector arithmetic (no contraction: -ffp-contract=off), so U holds the same bits; the AVX-512
// ops use it too (8 lanes are a ymm).
namespace wino_weights {

typedef float V8 __attribute__((vector_size(32)));

template <int M>
struct VTf;
template <>
struct VTf<2> {
  static constexpr int n = 4;
  __attribute__((target("avx2,fma"))) static void weight(V8 g0, V8 g1, V8 g2, V8* r) {
    r[0] = g0;
    r[1] = (g0 + g1 + g2) * .5f;
    r[2] = (g0 - g1 + g2) * .5f;
    r[3] = g2;
  }
};
template <>
struct VTf<4> {
  static constexpr int n = 6;
  __attribute__((target("avx2,fma"))) static void weight(V8 g0, V8 g1, V8 g2, V8* r) {
    constexpr float k6 = 1.f / 6.f, k12 = 1.f / 12.f, k24 = 1.f / 24.f;
    const V8 a = g0 * k24 + g2 * k6, b = g1 * k12;
    r[0] = g0 * .25f;
    r[1] = -(g0 + g1 + g2) * k6;
    r[2] = -(g0 - g1 + g2) * k6;
    r[3] = a + b;
    r[4] = a - b;
    r[5] = g2;
  }
};

template <int M>
__attribute__((target("avx2,fma"))) void transform(const WinogradGeo& geo, int rows, const float* raw,
                                                   const float* scale, float* u_block, size_t plane_stride,
                                                   int panel) {
  static_assert(kMR == 8, "one filter per lane of a ymm vector");
  constexpr int n = VTf<M>::n, kChunk = 16;  // channels per run of stores into each plane (see below)
  const int C = geo.channels;
  float* dst = u_block + size_t(panel) * kMR * C;
  alignas(32) float t[n * n][kChunk * kMR];
  const __m256i live = _mm256_cmpgt_epi32(_mm256_set1_epi32(rows), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  float sc[kMR];
  for (int i = 0; i < kMR; ++i) sc[i] = i < rows && scale ? scale[i] : 1.f;
  const __m256 fv = _mm256_loadu_ps(sc);
  for (int c0 = 0; c0 < C; c0 += kChunk) {
    const int cn = std::min(kChunk, C - c0);
    for (int cc = 0; cc < cn; ++cc) {
      const int c = c0 + cc;
      __m256 r[kMR];
      const float* w[kMR];
      for (int i = 0; i < kMR; ++i) {
        w[i] = raw + (size_t(std::min(i, rows - 1)) * C + c) * 9;  // missing filters: masked below
        r[i] = _mm256_loadu_ps(w[i]);
      }
      __m256 g[9];
      transpose8x8_ps(r, g);  // g[k]: tap k of the eight filters
      // Inserted, not stored and reloaded: a vector load of eight fresh scalar stores stalls.
      g[8] = _mm256_setr_ps(w[0][8], w[1][8], w[2][8], w[3][8], w[4][8], w[5][8], w[6][8], w[7][8]);
      V8 gv[9];
      for (int k = 0; k < 9; ++k) {
        // Filters past `rows` are zero (their loads repeated the last filter); the scale is a
        // product only where winograd_tiles.inc makes one (with `scale`).
        __m256 v = _mm256_and_ps(g[k], _mm256_castsi256_ps(live));
        if (scale) v = _mm256_mul_ps(v, fv);
        gv[k] = V8(v);
      }
      // Columns (x), then rows (y): col[y][x] = G applied to taps (0,x), (1,x), (2,x).
      V8 col[n][3], row[n];
      for (int x = 0; x < 3; ++x) {
        VTf<M>::weight(gv[x], gv[3 + x], gv[6 + x], row);
        for (int y = 0; y < n; ++y) col[y][x] = row[y];
      }
      for (int y = 0; y < n; ++y) {
        VTf<M>::weight(col[y][0], col[y][1], col[y][2], row);
        for (int x = 0; x < n; ++x) _mm256_store_ps(&t[y * n + x][cc * kMR], __m256(row[x]));
      }
    }
    // Into U plane by plane, the chunk's channels in one run each: channel by channel, n^2
    // stores to planes a power-of-two stride apart fall into one set of the L1 cache. Vector
    // copies, not memcpy: GCC made each run of at most 512 bytes a `rep movsq`, whose start-up
    // took 54-63% of this function's samples (yolov3 streamed, 2 threads, the VM). The empty asm
    // keeps GCC from seeing the loop as a copy and making it a `rep movsq` again.
    for (int k = 0; k < n * n; ++k) {
      float* to = dst + size_t(k) * plane_stride + size_t(c0) * kMR;
      for (int f = 0; f < cn * kMR; f += kMR) {
        __m256 v = _mm256_load_ps(&t[k][f]);
        asm("" : "+x"(v));
        _mm256_storeu_ps(to + f, v);
      }
    }
  }
}

void weights_panel(const WinogradGeo& geo, int rows, const float* raw, const float* scale, float* u_block,
                   size_t plane_stride, int panel) {
  if (geo.m == 4) transform<4>(geo, rows, raw, scale, u_block, plane_stride, panel);
  else transform<2>(geo, rows, raw, scale, u_block, plane_stride, panel);
}

}  // namespace wino_weights

WinogradOps winograd_ops_avx2() {
  return {"avx2", &wino_avx2::input_panel, &wino_avx2::output_panel, &wino_weights::weights_panel};
}
WinogradOps winograd_ops_avx512() {
  return {"avx512", &wino_avx512::input_panel, &wino_avx512::output_panel, &wino_weights::weights_panel};
}

}  // namespace mdfi::kernels
#endif
