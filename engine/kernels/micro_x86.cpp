// AVX2+FMA (8x8) and AVX-512 (8x32) micro-kernels. Each function carries its own target
// attribute, so the file builds with the default flags and the CPU is checked at run time.
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#include "microkernel.h"

// The accumulators must live in registers: full unrolling over the panel rows guarantees it.
#if defined(__clang__)
#define MDFI_UNROLL _Pragma("unroll")
#else
#define MDFI_UNROLL _Pragma("GCC unroll 8")
#endif

namespace mdfi::kernels {

__attribute__((target("avx2,fma"))) static void kernel_avx2(int kc, const float* a, const float* b, float* c,
                                                            int ldc, int first) {
  __m256 acc[kMR];
  MDFI_UNROLL for (int i = 0; i < kMR; ++i) acc[i] = _mm256_setzero_ps();
  for (int k = 0; k < kc; ++k) {
    const __m256 bv = _mm256_loadu_ps(b + k * 8);
    const float* ak = a + k * kMR;
    MDFI_UNROLL for (int i = 0; i < kMR; ++i) acc[i] = _mm256_fmadd_ps(_mm256_broadcast_ss(ak + i), bv, acc[i]);
  }
  MDFI_UNROLL for (int i = 0; i < kMR; ++i) {
    float* ci = c + i * ldc;
    if (!first) acc[i] = _mm256_add_ps(acc[i], _mm256_loadu_ps(ci));
    _mm256_storeu_ps(ci, acc[i]);
  }
}

__attribute__((target("avx512f"))) static void kernel_avx512(int kc, const float* a, const float* b, float* c,
                                                              int ldc, int first) {
  __m512 lo[kMR], hi[kMR];
  MDFI_UNROLL for (int i = 0; i < kMR; ++i) lo[i] = hi[i] = _mm512_setzero_ps();
  for (int k = 0; k < kc; ++k) {
    const __m512 b0 = _mm512_loadu_ps(b + k * 32);
    const __m512 b1 = _mm512_loadu_ps(b + k * 32 + 16);
    const float* ak = a + k * kMR;
    MDFI_UNROLL for (int i = 0; i < kMR; ++i) {
      const __m512 av = _mm512_set1_ps(ak[i]);
      lo[i] = _mm512_fmadd_ps(av, b0, lo[i]);
      hi[i] = _mm512_fmadd_ps(av, b1, hi[i]);
    }
  }
  MDFI_UNROLL for (int i = 0; i < kMR; ++i) {
    float* ci = c + i * ldc;
    if (!first) {
      lo[i] = _mm512_add_ps(lo[i], _mm512_loadu_ps(ci));
      hi[i] = _mm512_add_ps(hi[i], _mm512_loadu_ps(ci + 16));
    }
    _mm512_storeu_ps(ci, lo[i]);
    _mm512_storeu_ps(ci + 16, hi[i]);
  }
}

KernelInfo micro_avx2() { return {"avx2", 8, &kernel_avx2}; }
KernelInfo micro_avx512() { return {"avx512", 32, &kernel_avx512}; }

}  // namespace mdfi::kernels
#endif
