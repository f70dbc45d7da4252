// The direct convolution (conv_direct.h) for AVX2+FMA and AVX-512: one source,
// conv_direct_body.inc, compiled under each target with the tile shape of that target's SGEMM
// kernel (micro_x86.cpp: 4 filters x 3 ymm per pass, 8 x 2 zmm) and its epilogue, chosen at run
// time through KernelInfo::direct.
#if defined(__x86_64__) || defined(__i386__)
// As micro_x86.cpp: GCC 12's AVX-512 intrinsics trip a false maybe-uninitialized (bug 105593).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include <algorithm>
#include <cstddef>

#include "conv_direct.h"
#include "sgemm.h"
#include "target_region.h"
#include "tile_finish_x86.h"
#include "unroll.h"

namespace mdfi::kernels {

// What a slot reads for a row of padding: a tap column (< 8) plus a vector (<= 16) stays inside.
alignas(64) static const float kZeros[32] = {};

MDFI_TARGET_BEGIN("avx2,fma")
namespace direct_x86_avx2 {
struct Ops {
  using V = __m256;
  using M = __m256i;
  static constexpr int L = 8;
  static V zero() { return _mm256_setzero_ps(); }
  static V load(const float* p) { return _mm256_loadu_ps(p); }
  static void store(float* p, V v) { _mm256_storeu_ps(p, v); }
  // Lanes [lo, hi) set.
  static M mask(int lo, int hi) {
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_and_si256(_mm256_cmpgt_epi32(lane, _mm256_set1_epi32(std::max(lo, -1) - 1)),
                            _mm256_cmpgt_epi32(_mm256_set1_epi32(std::min(hi, 9)), lane));
  }
  static V maskload(const float* p, M m) { return _mm256_maskload_ps(p, m); }
  static void maskstore(float* p, M m, V v) { _mm256_maskstore_ps(p, m, v); }
  static V broadcast(const float* p) { return _mm256_broadcast_ss(p); }
  static V fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static V add(V a, V b) { return _mm256_add_ps(a, b); }
  static V finish(V v, float bias, TileAct act) { return finish_avx2(v, bias, act); }
};
constexpr int kRows = kMR / 2, kVecs = 3;
#include "conv_direct_body.inc"
}  // namespace direct_x86_avx2
MDFI_TARGET_END()

MDFI_TARGET_BEGIN("avx512f")
namespace direct_x86_avx512 {
struct Ops {
  using V = __m512;
  using M = __mmask16;
  static constexpr int L = 16;
  static V zero() { return _mm512_setzero_ps(); }
  static V load(const float* p) { return _mm512_loadu_ps(p); }
  static void store(float* p, V v) { _mm512_storeu_ps(p, v); }
  static M mask(int lo, int hi) {
    lo = std::clamp(lo, 0, 16), hi = std::clamp(hi, 0, 16);
    return hi > lo ? M(((1u << hi) - 1) & ~((1u << lo) - 1)) : M(0);
  }
  static V maskload(const float* p, M m) { return _mm512_maskz_loadu_ps(m, p); }
  static void maskstore(float* p, M m, V v) { _mm512_mask_storeu_ps(p, m, v); }
  static V broadcast(const float* p) { return _mm512_set1_ps(*p); }
  static V fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static V add(V a, V b) { return _mm512_add_ps(a, b); }
  static V finish(V v, float bias, TileAct act) { return finish_avx512(v, bias, act); }
};
constexpr int kRows = kMR, kVecs = 2;
#include "conv_direct_body.inc"
}  // namespace direct_x86_avx512
MDFI_TARGET_END()

void direct_avx2(const DirectJob& job) { direct_x86_avx2::run(job); }
void direct_avx512(const DirectJob& job) { direct_x86_avx512::run(job); }

}  // namespace mdfi::kernels
#endif
