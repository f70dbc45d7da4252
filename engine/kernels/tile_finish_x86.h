// The epilogue of the x86 micro-kernels (micro_x86.cpp) on a finished vector of outputs: bias,
// then the activation, in registers. Shared with the direct convolution (conv_direct_x86.cpp),
// whose outputs must carry the same bits as the SGEMM's.
#pragma once
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#include "microkernel.h"

namespace mdfi::kernels {

// Bias and activation on finished rows, in registers. Leaky's .1 * x is a double product in
// Darknet, so the negative lanes are widened to double, scaled and rounded back: bit-identical.
__attribute__((target("avx2,fma"))) inline __m256 finish_avx2(__m256 v, float bias, TileAct act) {
  v = _mm256_add_ps(v, _mm256_set1_ps(bias));
  const __m256 positive = _mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_GT_OQ);
  if (act == TileAct::kRelu) return _mm256_mul_ps(v, _mm256_and_ps(positive, _mm256_set1_ps(1.f)));
  if (act != TileAct::kLeaky) return v;
  const __m256d tenth = _mm256_set1_pd(.1);
  const __m128 lo = _mm256_cvtpd_ps(_mm256_mul_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(v)), tenth));
  const __m128 hi = _mm256_cvtpd_ps(_mm256_mul_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)), tenth));
  return _mm256_blendv_ps(_mm256_set_m128(hi, lo), v, positive);
}

__attribute__((target("avx512f"))) inline __m512 finish_avx512(__m512 v, float bias, TileAct act) {
  v = _mm512_add_ps(v, _mm512_set1_ps(bias));
  const __mmask16 positive = _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_GT_OQ);
  if (act == TileAct::kRelu) return _mm512_mul_ps(v, _mm512_maskz_mov_ps(positive, _mm512_set1_ps(1.f)));
  if (act != TileAct::kLeaky) return v;
  const __m512d tenth = _mm512_set1_pd(.1);
  const __m256 lo = _mm512_cvtpd_ps(_mm512_mul_pd(_mm512_cvtps_pd(_mm512_castps512_ps256(v)), tenth));
  const __m256 hi = _mm512_cvtpd_ps(
      _mm512_mul_pd(_mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1))), tenth));
  const __m512 scaled = _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castps_pd(_mm512_castps256_ps512(lo)),
                                                            _mm256_castps_pd(hi), 1));
  return _mm512_mask_blend_ps(positive, scaled, v);
}

}  // namespace mdfi::kernels
#endif
