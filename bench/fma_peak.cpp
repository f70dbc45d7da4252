// Peak single-precision FMA throughput of this machine, measured: THREADS threads each run
// independent chains of vector fused multiply-adds (16 accumulators, enough to cover FMA latency
// on two ports) for about a second; prints GFLOP/s (2 FLOPs per lane per FMA) on one line, then
// the path used on stderr. bench/speed.sh divides mdfi's GFLOP/s by it instead of a figure from
// another machine. Vectors are GCC vector extensions compiled per target (AVX-512, AVX2+FMA,
// else the compiler's default 128-bit path, e.g. NEON).
//   mdfi_fma_peak [THREADS]   (default: all cores)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {

constexpr int kAcc = 16;
constexpr long kIters = 1 << 25;

template <typename V>
__attribute__((always_inline)) inline double chains(float seed) {
  V acc[kAcc], a, b;
  for (int i = 0; i < kAcc; ++i) acc[i] = V{} + seed * float(i);
  a = V{} + 0.999999f;
  b = V{} + 1e-7f;
  for (long it = 0; it < kIters; ++it) {
#pragma GCC unroll 16
    for (int i = 0; i < kAcc; ++i) acc[i] = acc[i] * a + b;  // unrolled: the chains stay in registers
  }
  float sum = 0;
  for (int i = 0; i < kAcc; ++i) sum += acc[i][0];
  return double(sum);  // used, so the loop is not optimised away
}

#if defined(__x86_64__)
typedef float V16 __attribute__((vector_size(64)));
typedef float V8 __attribute__((vector_size(32)));
__attribute__((target("avx512f"), noinline)) double run512(float s) { return chains<V16>(s); }
__attribute__((target("avx2,fma"), noinline)) double run256(float s) { return chains<V8>(s); }
#endif
typedef float V4 __attribute__((vector_size(16)));
__attribute__((noinline)) double run128(float s) { return chains<V4>(s); }

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : int(std::thread::hardware_concurrency());
  if (threads < 1) {
    std::fprintf(stderr, "usage: mdfi_fma_peak [THREADS]\n");
    return 2;
  }
  double (*run)(float) = run128;
  int lanes = 4;
  const char* path = "128-bit vectors";
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) run = run512, lanes = 16, path = "AVX-512 FMA";
  else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) run = run256, lanes = 8, path = "AVX2 FMA";
#endif
  run(1.f);  // warm-up: clocks up, pages in
  std::vector<double> sink(static_cast<size_t>(threads));
  std::vector<std::thread> pool;
  const auto t0 = std::chrono::steady_clock::now();
  for (int t = 0; t < threads; ++t) pool.emplace_back([&, t] { sink[size_t(t)] = run(float(t + 1)); });
  for (auto& th : pool) th.join();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double flops = 2.0 * lanes * kAcc * double(kIters) * threads;
  std::printf("%.0f\n", flops / s / 1e9);
  std::fprintf(stderr, "mdfi_fma_peak: %s, %d thread(s), %.2f s (checksum %g)\n", path, threads, s, sink[0]);
  return 0;
}
