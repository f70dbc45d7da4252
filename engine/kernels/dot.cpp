#include "dot.h"

namespace mdfi::kernels {

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
float dot(const float* a, const float* b, size_t n) {
  // Sixteen independent partial sums let the compiler vectorise without -ffast-math.
  float acc[16] = {};
  size_t i = 0;
  for (; i + 16 <= n; i += 16)
    for (int j = 0; j < 16; ++j) acc[j] += a[i + j] * b[i + j];
  float s = 0;
  for (; i < n; ++i) s += a[i] * b[i];
  for (int j = 0; j < 16; ++j) s += acc[j];
  return s;
}

void gemv_rows(const float* x, const float* W, size_t n, int rows, float* y, int threads) {
  (void)threads;
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int r = 0; r < rows; ++r) y[r] += dot(x, W + size_t(r) * n, n);
}

}  // namespace mdfi::kernels
