#include "gemm.h"

namespace mdfi {

void gemm_nn_ref(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
  for (int i = 0; i < M; ++i) {
    float* c = C + long(i) * ldc;
    for (int k = 0; k < K; ++k) {
      const float a = A[long(i) * lda + k];
      const float* b = B + long(k) * ldb;
      for (int j = 0; j < N; ++j) c[j] += a * b[j];
    }
  }
}

void gemm_nt_ref(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      float sum = 0;
      const float* a = A + long(i) * lda;
      const float* b = B + long(j) * ldb;
      for (int k = 0; k < K; ++k) sum += a[k] * b[k];
      C[long(i) * ldc + j] += sum;
    }
  }
}

}  // namespace mdfi
