// AVX2+FMA (8x24) and AVX-512 (8x32) micro-kernels. Each function carries its own target
// attribute, so the file builds with the default flags and the CPU is checked at run time.
#if defined(__x86_64__) || defined(__i386__)
// GCC 12's AVX-512 conversion intrinsics start from _mm256_undefined_*(), which -O2 reports as
// maybe-uninitialized wherever they inline (GCC bug 105593, fixed in 13): a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include "conv_direct.h"
#include "microkernel.h"
#include "tile_finish_x86.h"
#include "unroll.h"

namespace mdfi::kernels {

constexpr int kAvx2NR = 24;  // columns of the AVX2 tile (kernel_avx2)

// kFinish: the last K block; bias (may be null) and act are applied before the store.
// kVecs 3: an 8 x 24 tile as two 4 x 24 halves: 12 accumulators, three B vectors and one
// broadcast fill the 16 ymm registers, so each k costs 7 loads for 12 FMAs (an 8 x 8 tile: 9 loads
// for 8 FMAs, bound by the load ports, and three times the kernel calls, B panel packs and tile
// stores). kVecs 1: an 8 x 8 tile, all eight rows at once (micro_avx2_narrow). Each element sums
// its products in k order by FMA from zero, then adds C's old value and finishes: the same bits
// whatever the tile, and as the AVX-512 kernel.
template <bool kFinish, int kVecs = 3>
__attribute__((target("avx2,fma"))) static void kernel_avx2(int kc, const float* a, const float* b, int ldb, float* c,
                                                            int ldc, int first, const float* bias, TileAct act) {
  constexpr int kRows = kVecs == 1 ? kMR : kMR / 2;
  for (int h = 0; h < kMR / kRows; ++h) {
    __m256 acc[kRows][kVecs];
    MDFI_UNROLL for (int i = 0; i < kRows; ++i) MDFI_UNROLL for (int j = 0; j < kVecs; ++j) acc[i][j] = _mm256_setzero_ps();
    const float* ah = a + h * kRows;
    for (int k = 0; k < kc; ++k) {
      const float* bk = b + size_t(k) * ldb;
      __m256 bv[kVecs];
      MDFI_UNROLL for (int j = 0; j < kVecs; ++j) bv[j] = _mm256_loadu_ps(bk + 8 * j);
      const float* ak = ah + k * kMR;
      MDFI_UNROLL for (int i = 0; i < kRows; ++i) {
        const __m256 av = _mm256_broadcast_ss(ak + i);
        MDFI_UNROLL for (int j = 0; j < kVecs; ++j) acc[i][j] = _mm256_fmadd_ps(av, bv[j], acc[i][j]);
      }
    }
    MDFI_UNROLL for (int i = 0; i < kRows; ++i) {
      float* ci = c + (h * kRows + i) * ldc;
      MDFI_UNROLL for (int j = 0; j < kVecs; ++j) {
        if (!first) acc[i][j] = _mm256_add_ps(acc[i][j], _mm256_loadu_ps(ci + 8 * j));
        if (kFinish) acc[i][j] = finish_avx2(acc[i][j], bias ? bias[h * kRows + i] : 0.f, act);
        _mm256_storeu_ps(ci + 8 * j, acc[i][j]);
      }
    }
  }
}

template <bool kFinish>
__attribute__((target("avx512f"))) static void kernel_avx512(int kc, const float* a, const float* b, int ldb, float* c,
                                                              int ldc, int first, const float* bias, TileAct act) {
  __m512 lo[kMR], hi[kMR];
  MDFI_UNROLL for (int i = 0; i < kMR; ++i) lo[i] = hi[i] = _mm512_setzero_ps();
  for (int k = 0; k < kc; ++k) {
    const __m512 b0 = _mm512_loadu_ps(b + size_t(k) * ldb);
    const __m512 b1 = _mm512_loadu_ps(b + size_t(k) * ldb + 16);
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
    if (kFinish) {
      const float bi = bias ? bias[i] : 0.f;
      lo[i] = finish_avx512(lo[i], bi, act);
      hi[i] = finish_avx512(hi[i], bi, act);
    }
    _mm512_storeu_ps(ci, lo[i]);
    _mm512_storeu_ps(ci + 16, hi[i]);
  }
}

// Packed panels: B's rows are nr floats apart.
__attribute__((target("avx2,fma"))) static void avx2_block(int kc, const float* a, const float* b, float* c, int ldc,
                                                           int first) {
  kernel_avx2<false>(kc, a, b, kAvx2NR, c, ldc, first, nullptr, TileAct::kLinear);
}
__attribute__((target("avx2,fma"))) static void avx2_finish(int kc, const float* a, const float* b, float* c, int ldc,
                                                            int first, const float* bias, TileAct act) {
  kernel_avx2<true>(kc, a, b, kAvx2NR, c, ldc, first, bias, act);
}
__attribute__((target("avx2,fma"))) static void avx2_strided(int kc, const float* a, const float* b, int ldb, float* c,
                                                             int ldc, int first, bool finish, const float* bias,
                                                             TileAct act) {
  if (finish) kernel_avx2<true>(kc, a, b, ldb, c, ldc, first, bias, act);
  else kernel_avx2<false>(kc, a, b, ldb, c, ldc, first, nullptr, TileAct::kLinear);
}
__attribute__((target("avx512f"))) static void avx512_block(int kc, const float* a, const float* b, float* c, int ldc,
                                                             int first) {
  kernel_avx512<false>(kc, a, b, 32, c, ldc, first, nullptr, TileAct::kLinear);
}
__attribute__((target("avx512f"))) static void avx512_finish(int kc, const float* a, const float* b, float* c, int ldc,
                                                              int first, const float* bias, TileAct act) {
  kernel_avx512<true>(kc, a, b, 32, c, ldc, first, bias, act);
}
__attribute__((target("avx512f"))) static void avx512_strided(int kc, const float* a, const float* b, int ldb, float* c,
                                                               int ldc, int first, bool finish, const float* bias,
                                                               TileAct act) {
  if (finish) kernel_avx512<true>(kc, a, b, ldb, c, ldc, first, bias, act);
  else kernel_avx512<false>(kc, a, b, ldb, c, ldc, first, nullptr, TileAct::kLinear);
}

KernelInfo micro_avx2() { return {"avx2", kAvx2NR, &avx2_block, &avx2_finish, &avx2_strided, nullptr, &direct_avx2, 8}; }
__attribute__((target("avx2,fma"))) static void avx2_narrow_block(int kc, const float* a, const float* b, float* c, int ldc,
                                                                  int first) {
  kernel_avx2<false, 1>(kc, a, b, 8, c, ldc, first, nullptr, TileAct::kLinear);
}
// 8 x 8 tiles (one B vector, eight rows at once): for Winograd's layers of few tiles, where
// 24-wide panels would be a third padding (winograd_kernel). Same bits as the 24-wide tile.
KernelInfo micro_avx2_narrow() { return {"avx2-8", 8, &avx2_narrow_block}; }
// NarrowKernel: a panel of at most 16 real columns as an 8 x 16 tile, one B vector and eight
// accumulators: Winograd's last tile panel of a 52x52 (9 tiles), 104x104 (4) or 208x208 (16) map
// by F(4x4), and a 13x13 map's 16 tiles under --winograd f4 (conv_choice.cpp says why `auto`
// keeps F(2x2) there). Eight independent FMA chains cover a latency of four at two a cycle. Each accumulator takes
// the same FMAs in k order from zero as the 32-wide tile's: the same bits in the first 16 columns.
__attribute__((target("avx512f"))) static void avx512_narrow(int kc, const float* a, const float* b, float* c, int ldc,
                                                              int cols) {
  if (cols > 16) return kernel_avx512<false>(kc, a, b, 32, c, ldc, 1, nullptr, TileAct::kLinear);
  __m512 acc[kMR];
  MDFI_UNROLL for (int i = 0; i < kMR; ++i) acc[i] = _mm512_setzero_ps();
  for (int k = 0; k < kc; ++k) {
    const __m512 bk = _mm512_loadu_ps(b + size_t(k) * 32);
    const float* ak = a + k * kMR;
    MDFI_UNROLL for (int i = 0; i < kMR; ++i) acc[i] = _mm512_fmadd_ps(_mm512_set1_ps(ak[i]), bk, acc[i]);
  }
  MDFI_UNROLL for (int i = 0; i < kMR; ++i) _mm512_storeu_ps(c + i * ldc, acc[i]);
}

KernelInfo micro_avx512() {
  return {"avx512", 32, &avx512_block, &avx512_finish, &avx512_strided, &avx512_narrow, &direct_avx512, 16, 16};
}

}  // namespace mdfi::kernels
#endif
