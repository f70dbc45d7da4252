// C[M x N] += A[M x K] * B[K x N], row-major with leading dimensions. The reference kernel sums
// over k in the same order as Darknet's gemm_nn, so its results are bit-identical with
// libdarknet's; faster kernels are checked against it.
#pragma once

namespace mdfi {

void gemm_nn_ref(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc);

// C[M x N] += A[M x K] * B^T where B is N x K (a connected layer's weight rows).
void gemm_nt_ref(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc);

}  // namespace mdfi
