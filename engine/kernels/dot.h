// Dot products for connected layers (matrix-vector: memory bound, so simple and wide).
#pragma once

#include <cstddef>

namespace mdfi::kernels {

float dot(const float* a, const float* b, size_t n);

// y[r] += dot(x, W[r]) for rows r in [0, rows); W rows have stride n. Threads split the rows.
void gemv_rows(const float* x, const float* W, size_t n, int rows, float* y, int threads);

}  // namespace mdfi::kernels
