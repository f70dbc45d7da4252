// Portable micro-kernel: plain loops the compiler can vectorise for any target.
#include "conv_direct.h"
#include "microkernel.h"

namespace mdfi::kernels {

static constexpr int kNR = 8;

static void kernel_generic(int kc, const float* a, const float* b, float* c, int ldc, int first) {
  float acc[kMR][kNR] = {};
  for (int k = 0; k < kc; ++k) {
    const float* ak = a + k * kMR;
    const float* bk = b + k * kNR;
    // Fully unrolled so the 8x8 accumulators can stay in registers.
#if defined(__clang__)
#pragma unroll
#else
#pragma GCC unroll 8
#endif
    for (int i = 0; i < kMR; ++i)
      for (int j = 0; j < kNR; ++j) acc[i][j] += ak[i] * bk[j];
  }
  for (int i = 0; i < kMR; ++i)
    for (int j = 0; j < kNR; ++j) c[i * ldc + j] = first ? acc[i][j] : c[i * ldc + j] + acc[i][j];
}

KernelInfo micro_generic() { return {"generic", kNR, &kernel_generic, nullptr, nullptr, nullptr, &direct_generic, 8}; }

}  // namespace mdfi::kernels
