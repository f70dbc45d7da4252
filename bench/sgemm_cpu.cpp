// CPU SGEMM micro-benchmark on YOLOv3's conv GEMM shapes (M=filters, N=out_h*out_w, K=c*k*k):
// GFLOP/s of mdfi's packed kernel, per micro-kernel, single call timing with CPU time and wall time.
// Build: part of the bench targets (cmake --build build --target mdfi_sgemm_bench).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

#include "kernels/sgemm.h"

using namespace mdfi::kernels;

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 1;
  struct Shape {
    int M, N, K;
  } shapes[] = {{256, 2704, 1152}, {512, 676, 2304}, {1024, 169, 4608}, {128, 10816, 576}, {64, 43264, 288}, {32, 173056, 27}};
  std::printf("kernel %s (nr=%d), %d thread(s)\n", active_kernel().name, active_kernel().nr, threads);
  for (const Shape& s : shapes) {
    std::vector<float> A(size_t(s.M) * s.K), B(size_t(s.K) * s.N), C(size_t(s.M) * s.N), P(packed_a_floats(s.M, s.K));
    for (size_t i = 0; i < A.size(); ++i) A[i] = float(i % 7) * 0.1f;
    for (size_t i = 0; i < B.size(); ++i) B[i] = float(i % 5) * 0.1f;
    for (int m = 0; m < s.M; m += kMR) pack_a_panel(std::min(kMR, s.M - m), s.K, A.data() + size_t(m) * s.K, s.K, P.data() + size_t(m) * s.K);
    std::vector<float> ws(sgemm_workspace_floats(s.K, s.N, threads));
    MatrixB b(B.data(), s.K, s.N);
    double best = 1e9, best_cpu = 1e9;
    for (int rep = 0; rep < 3; ++rep) {
      auto t0 = std::chrono::steady_clock::now();
      std::clock_t c0 = std::clock();
      sgemm_packed(s.M, s.N, s.K, P.data(), b, C.data(), s.N, nullptr, mdfi::Activation::kLinear, threads, ws.data());
      double cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
      double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      best = std::min(best, wall);
      best_cpu = std::min(best_cpu, cpu);
    }
    const double gflop = 2.0 * s.M * s.N * s.K / 1e9;
    std::printf("%5d x %6d x %5d: %7.1f GFLOP/s wall, %7.1f GFLOP/s per CPU-second\n", s.M, s.N, s.K, gflop / best,
                gflop / best_cpu);
  }
}
