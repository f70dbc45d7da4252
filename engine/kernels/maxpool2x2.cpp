#include "maxpool2x2.h"

#include <cfloat>

#include "cpu_features.h"

#if defined(__x86_64__) || defined(__i386__)
// GCC 12's AVX-512 intrinsics start from _mm512_undefined_*(): a maybe-uninitialized false
// positive wherever they inline (GCC bug 105593), as in micro_x86.cpp.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#endif

namespace mdfi::kernels {

static inline float take_greater(float v, float best) { return v > best ? v : best; }

#if defined(__x86_64__) || defined(__i386__)
// 16 outputs per step: the even and odd columns of 32 inputs are gathered with two-source
// permutes. _mm512_max_ps(v, best) returns best unless v > best, exactly take_greater.
__attribute__((target("avx512f"))) static int max2x2_avx512(const float* r0, const float* r1, float* dst, int n) {
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
  const __m512 lowest = _mm512_set1_ps(-FLT_MAX);
  int j = 0;
  for (; j + 16 <= n; j += 16) {
    const __m512 a0 = _mm512_loadu_ps(r0 + 2 * j), a1 = _mm512_loadu_ps(r0 + 2 * j + 16);
    const __m512 b0 = _mm512_loadu_ps(r1 + 2 * j), b1 = _mm512_loadu_ps(r1 + 2 * j + 16);
    __m512 best = _mm512_max_ps(_mm512_permutex2var_ps(a0, even, a1), lowest);
    best = _mm512_max_ps(_mm512_permutex2var_ps(a0, odd, a1), best);
    best = _mm512_max_ps(_mm512_permutex2var_ps(b0, even, b1), best);
    best = _mm512_max_ps(_mm512_permutex2var_ps(b0, odd, b1), best);
    _mm512_storeu_ps(dst + j, best);
  }
  return j;
}

#endif

void max2x2_row(const float* r0, const float* r1, float* dst, int n) {
  int j = 0;
#if defined(__x86_64__) || defined(__i386__)
  if (cpu_has_avx512f()) j = max2x2_avx512(r0, r1, dst, n);
#endif
  for (; j < n; ++j) {
    float best = take_greater(r0[2 * j], -FLT_MAX);
    best = take_greater(r0[2 * j + 1], best);
    best = take_greater(r1[2 * j], best);
    dst[j] = take_greater(r1[2 * j + 1], best);
  }
}

}  // namespace mdfi::kernels
