// Optimised kernels against the reference oracle (ncnn-style): every micro-kernel this CPU runs
// against a double-precision GEMM on awkward sizes, and whole conv/connected layers on the fast
// path against the reference layers on generated weights.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>

#include "executor.h"
#include "kernels/cpu_features.h"
#include "kernels/sgemm.h"
#include "plan.h"
#include "resident_weights.h"
#include "support.h"
#include "weights.h"

using namespace mdfi;
using namespace mdfi::test;

TEST_CASE("every micro-kernel matches a double-precision GEMM on odd sizes", "[layers]") {
  const char* names[] = {"generic", "avx2", "avx2-8", "avx512", "neon"};
  struct Size {
    int M, N, K;
  };
  const Size sizes[] = {{1, 1, 1}, {7, 13, 5}, {8, 32, 256}, {9, 33, 257}, {31, 97, 300}, {64, 600, 27}, {13, 1030, 3},
                       {40, 9, 300}, {72, 30, 520}};  // M >= N: split over rows with 2 threads
  int tested = 0;
  for (const char* name : names) {
    const kernels::KernelInfo* k = kernels::find_kernel(name);
    if (!k) continue;
    ++tested;
    for (const Size& s : sizes) {
      auto A = random_floats(size_t(s.M) * s.K, 1), B = random_floats(size_t(s.K) * s.N, 2);
      auto bias = random_floats(size_t(s.M), 3);
      std::vector<float> packed(kernels::packed_a_floats(s.M, s.K));
      for (int m = 0; m < s.M; m += kernels::kMR)
        kernels::pack_a_panel(std::min(kernels::kMR, s.M - m), s.K, A.data() + size_t(m) * s.K, s.K,
                              packed.data() + size_t(m) * s.K);
      // Workspace for two threads of the widest kernel (NR 32), whatever the active one is.
      std::vector<float> ws(size_t(std::min(s.K, kernels::kKC)) * (kernels::kNC + 64) * 2);
      std::vector<float> C(size_t(s.M) * s.N, 123.f);
      kernels::sgemm_packed(s.M, s.N, s.K, packed.data(), kernels::MatrixB(B.data(), s.K, s.N), C.data(), s.N,
                            bias.data(), Activation::kLeaky, 2, ws.data(), k);
      std::vector<double> ref(size_t(s.M) * s.N);
      for (int i = 0; i < s.M; ++i)
        for (int j = 0; j < s.N; ++j) {
          double r = bias[i];
          for (int kk = 0; kk < s.K; ++kk) r += double(A[size_t(i) * s.K + kk]) * B[size_t(kk) * s.N + j];
          ref[size_t(i) * s.N + j] = r > 0 ? r : .1 * r;
        }
      INFO(name << " " << s.M << "x" << s.N << "x" << s.K);
      CHECK(relative_error(C, ref) < 1e-5);  // a NaN or Inf anywhere in C fails
    }
  }
  CHECK(tested >= 1);
}

TEST_CASE("the x86 micro-kernels give the same bits whatever their tile width", "[layers]") {
  // AVX2 8x24, AVX2 8x8 and AVX-512 8x32 all sum each element's products in k order by FMA, so
  // the kernel a CPU picks (and Winograd's narrow one on few tiles) never changes a result.
  const kernels::KernelInfo* base = kernels::find_kernel("avx2");
  if (!base) {
    WARN("no AVX2/FMA on this CPU: nothing to compare");
    return;
  }
  const int M = 21, N = 103, K = 300;  // partial row and column panels, two K blocks
  auto A = random_floats(size_t(M) * K, 7), B = random_floats(size_t(K) * N, 8), bias = random_floats(size_t(M), 9);
  std::vector<float> packed(kernels::packed_a_floats(M, K));
  for (int m = 0; m < M; m += kernels::kMR)
    kernels::pack_a_panel(std::min(kernels::kMR, M - m), K, A.data() + size_t(m) * K, K, packed.data() + size_t(m) * K);
  std::vector<float> ws(size_t(kernels::kKC) * (kernels::kNC + 64) * 2);
  auto run = [&](const kernels::KernelInfo* k) {
    std::vector<float> C(size_t(M) * N, 5.f);
    kernels::sgemm_packed(M, N, K, packed.data(), kernels::MatrixB(B.data(), K, N), C.data(), N, bias.data(),
                          Activation::kLeaky, 2, ws.data(), k);
    return C;
  };
  const std::vector<float> want = run(base);
  for (const char* name : {"avx2-8", "avx512"}) {
    const kernels::KernelInfo* k = kernels::find_kernel(name);
    if (!k) continue;
    INFO(name);
    const std::vector<float> got = run(k);
    CHECK(std::memcmp(got.data(), want.data(), want.size() * sizeof(float)) == 0);
  }
  // AVX-512's narrow form (Winograd's last panel of at most 16 tiles): its real columns the bits
  // of the 32-wide tile, nothing past the tile's 32 columns touched; more columns: the whole tile.
  const kernels::KernelInfo* wide = kernels::find_kernel("avx512");
  if (!wide) return;
  REQUIRE(wide->narrow != nullptr);
  CHECK(wide->narrow_cols == 16);
  const int nr = wide->nr, ldc = nr + 5;
  for (int kc : {1, 7, 300}) {
    const std::vector<float> a = random_floats(size_t(kc) * kernels::kMR, 21), b = random_floats(size_t(kc) * nr, 22);
    std::vector<float> full(size_t(kernels::kMR) * ldc, 0.f), c(full.size());
    wide->fn(kc, a.data(), b.data(), full.data(), ldc, 1);
    for (int cols = 1; cols < nr; ++cols) {
      std::fill(c.begin(), c.end(), 9.f);
      wide->narrow(kc, a.data(), b.data(), c.data(), ldc, cols);
      for (int i = 0; i < kernels::kMR; ++i)
        for (int j = 0; j < ldc; ++j) {
          const float got = c[size_t(i) * ldc + j];
          INFO("narrow kc=" << kc << " cols=" << cols << " row " << i << " col " << j << " got " << got);
          if (j < cols) REQUIRE(std::memcmp(&got, &full[size_t(i) * ldc + j], sizeof(float)) == 0);
          else if (j >= nr) REQUIRE(got == 9.f);
        }
    }
  }
}

TEST_CASE("weight panels pack exactly, with and without the batch-norm scale", "[layers]") {
  for (int K : {1, 7, 8, 9, 64, 300})
    for (int rows : {kernels::kMR, 5})
      for (bool scaled : {false, true}) {
        const int lda = K + 3;
        auto A = random_floats(size_t(kernels::kMR) * lda, 11), scale = random_floats(size_t(kernels::kMR), 12);
        std::vector<float> panel(size_t(kernels::kMR) * K, 99.f);
        kernels::pack_a_panel(rows, K, A.data(), lda, panel.data(), scaled ? scale.data() : nullptr);
        INFO("K=" << K << " rows=" << rows << (scaled ? " scaled" : ""));
        for (int k = 0; k < K; ++k)
          for (int i = 0; i < kernels::kMR; ++i) {
            const float a = A[size_t(i) * lda + k];
            const float want = i >= rows ? 0.f : scaled ? a * scale[size_t(i)] : a;
            REQUIRE(panel[size_t(k) * kernels::kMR + i] == want);
          }
      }
}

TEST_CASE("fused bias+activation in the finishing kernels is bit-identical to the separate pass, B read in place to B packed", "[layers]") {
  // Same GEMM through each kernel twice: with its finishing variant (bias and activation in
  // registers) and with it switched off (sgemm adds the bias and calls activate_array).
  int tested = 0;
  for (const char* name : {"avx2", "avx512", "neon", "generic"}) {
    const kernels::KernelInfo* k = kernels::find_kernel(name);
    if (!k || !k->finish) continue;
    ++tested;
    kernels::KernelInfo unfused = *k;
    unfused.finish = nullptr;
    kernels::KernelInfo packed_b = *k;  // B always packed, never read in place
    packed_b.strided = nullptr;
    for (Activation act : {Activation::kLeaky, Activation::kRelu, Activation::kLinear})
      for (int M : {8, 13}) {
        const int N = 77, K = 300;
        auto A = random_floats(size_t(M) * K, 4), B = random_floats(size_t(K) * N, 5), bias = random_floats(size_t(M), 6);
        std::vector<float> packed(kernels::packed_a_floats(M, K));
        for (int m = 0; m < M; m += kernels::kMR)
          kernels::pack_a_panel(std::min(kernels::kMR, M - m), K, A.data() + size_t(m) * K, K, packed.data() + size_t(m) * K);
        std::vector<float> ws(size_t(kernels::kKC) * (kernels::kNC + 64) * 2);
        std::vector<float> fused(size_t(M) * N), separate(size_t(M) * N);
        for (const float* bp : {static_cast<const float*>(bias.data()), static_cast<const float*>(nullptr)}) {
          kernels::sgemm_packed(M, N, K, packed.data(), kernels::MatrixB(B.data(), K, N), fused.data(), N, bp, act, 2,
                                ws.data(), k);
          kernels::sgemm_packed(M, N, K, packed.data(), kernels::MatrixB(B.data(), K, N), separate.data(), N, bp, act, 2,
                                ws.data(), &unfused);
          INFO(name << " " << to_string(act) << " M=" << M << (bp ? " with bias" : " no bias"));
          CHECK(std::memcmp(fused.data(), separate.data(), fused.size() * sizeof(float)) == 0);
          std::vector<float> copied(size_t(M) * N);
          kernels::sgemm_packed(M, N, K, packed.data(), kernels::MatrixB(B.data(), K, N), copied.data(), N, bp, act, 2,
                                ws.data(), &packed_b);
          CHECK(std::memcmp(fused.data(), copied.data(), fused.size() * sizeof(float)) == 0);
          // B's rows further apart than N (a band's rows of a window's channels), in place and packed.
          const int ld = N + 19;
          std::vector<float> spread(size_t(K) * ld, std::nanf(""));
          for (int r = 0; r < K; ++r) std::memcpy(&spread[size_t(r) * ld], &B[size_t(r) * N], size_t(N) * sizeof(float));
          for (const kernels::KernelInfo* kk : {k, static_cast<const kernels::KernelInfo*>(&packed_b)}) {
            std::vector<float> apart(size_t(M) * N);
            kernels::sgemm_packed(M, N, K, packed.data(), kernels::MatrixB(spread.data(), K, N, ld), apart.data(), N, bp,
                                  act, 2, ws.data(), kk);
            CHECK(std::memcmp(fused.data(), apart.data(), fused.size() * sizeof(float)) == 0);
          }
        }
      }
  }
  // Every x86 kernel with AVX2 has a finishing variant: finding none there means the fused path
  // vanished, not that this CPU lacks it.
#if defined(__x86_64__) || defined(__i386__)
  if (kernels::cpu_has_avx2_fma()) CHECK(tested >= 1);
#endif
  if (tested == 0) WARN("no finishing kernel on this CPU (no AVX2/FMA): nothing to compare");
}

namespace {

// Runs one cfg on a random input with both paths and returns the worst relative error per layer.
double fast_vs_reference(const std::string& cfg_text, const std::string& tag) {
  auto net = network_from_text(cfg_text, tag + ".cfg");
  INFO(net.status().message());
  REQUIRE(net.ok());
  const std::string wpath = std::string(MDFI_TEST_TMP) + "/" + tag + ".weights";
  REQUIRE(generate_weights(*net, wpath, 7).ok());
  const Plan plan = make_plan(*net);
  std::vector<std::vector<std::vector<float>>> outs(2);
  for (int pass = 0; pass < 2; ++pass) {
    auto wf = WeightsFile::open(wpath);
    REQUIRE(wf.ok());
    MemoryTracker mem;
    auto in = Buffer::make(mem, net->input_shape().count(), MemCategory::kActivations, "input");
    REQUIRE(in.ok());
    auto r = random_floats(in->size(), 11);
    std::memcpy(in->data(), r.data(), in->bytes());
    RunHooks hooks;
    hooks.on_output = [&](const Layer& l, const float* o) {
      outs[pass].emplace_back(o, o + l.out.count());
      return Status::Ok();
    };
    ExecOptions exec;
    exec.reference = pass == 0;
    exec.threads = 2;
    auto out = run_network(*net, plan, *wf, std::move(*in), mem, hooks, exec);
    REQUIRE(out.ok());
  }
  double worst = 0;
  for (size_t i = 0; i < outs[0].size(); ++i) worst = std::max(worst, relative_error(outs[1][i], outs[0][i]));
  return worst;
}

}  // namespace

TEST_CASE("fast 2x2 and separable stride-1 max pools equal the reference: odd widths, padding before and after, wider windows", "[layers]") {
  const std::string cfg = R"([net]
width=67
height=21
channels=3
[maxpool]
size=2
stride=2
[maxpool]
size=5
stride=1
[maxpool]
size=9
stride=1
[maxpool]
size=3
stride=1
padding=0
[maxpool]
size=3
stride=1
padding=5
[maxpool]
size=2
stride=2
padding=2
[maxpool]
size=2
stride=2
padding=0
[maxpool]
size=3
stride=2
[maxpool]
size=2
stride=1
)";
  CHECK(fast_vs_reference(cfg, "kernels_maxpool") == 0);
}

TEST_CASE("fast conv path equals the reference: 3x3, strided, 1x1, grouped, depthwise, odd sizes", "[layers]") {
  const std::string cfg = R"([net]
width=37
height=29
channels=5
[convolutional]
batch_normalize=1
filters=19
size=3
stride=1
pad=1
activation=leaky
[convolutional]
filters=33
size=3
stride=2
pad=1
activation=relu
[convolutional]
batch_normalize=1
filters=12
size=1
stride=1
pad=1
activation=logistic
[convolutional]
filters=12
size=3
groups=12
stride=1
pad=1
batch_normalize=1
activation=leaky
[convolutional]
filters=8
size=5
groups=4
stride=2
pad=1
activation=linear
[convolutional]
filters=8
size=3
groups=8
stride=2
pad=1
activation=relu
[connected]
output=23
activation=leaky
[connected]
output=7
batch_normalize=1
activation=linear
)";
  CHECK(fast_vs_reference(cfg, "kernels_conv") < 1e-5);
}

TEST_CASE("Im2colB packs exactly the im2col matrix: strides, padding, narrow images, every panel width", "[layers]") {
  struct Geo {
    int c, h, w, k, s, p;
  };
  const Geo geos[] = {{3, 7, 9, 3, 1, 1}, {2, 13, 13, 3, 2, 1}, {4, 5, 3, 5, 1, 2}, {1, 1, 1, 3, 1, 1},
                      {2, 11, 6, 1, 2, 0}, {3, 9, 14, 3, 3, 0}, {1, 4, 33, 2, 1, 1}, {2, 6, 5, 7, 2, 3},
                      {2, 5, 70, 3, 2, 1}, {1, 3, 67, 2, 2, 0}, {3, 6, 40, 3, 1, 1},  // 3x3 stride 1, 12-wide panels inside
                      {2, 5, 140, 3, 2, 1}, {3, 6, 80, 3, 1, 1}, {2, 4, 90, 2, 2, 0}};  // 32-wide panels inside
  for (const Geo& g : geos) {
    const int oh = (g.h + 2 * g.p - g.k) / g.s + 1, ow = (g.w + 2 * g.p - g.k) / g.s + 1;
    const int K = g.c * g.k * g.k, N = oh * ow;
    const auto im = random_floats(size_t(g.c) * g.h * g.w, 5);
    // The naive im2col (Darknet's im2col_cpu semantics).
    std::vector<float> full(size_t(K) * N);
    for (int row = 0; row < K; ++row)
      for (int col = 0; col < N; ++col) {
        const int kx = row % g.k, ky = row / g.k % g.k, ch = row / g.k / g.k;
        const int iy = col / ow * g.s - g.p + ky, ix = col % ow * g.s - g.p + kx;
        const bool in = iy >= 0 && iy < g.h && ix >= 0 && ix < g.w;
        full[size_t(row) * N + col] = in ? im[(size_t(ch) * g.h + iy) * g.w + ix] : 0.f;
      }
    const kernels::Im2colB b(im.data(), g.c, g.h, g.w, g.k, g.s, g.p);
    for (int nr : {4, 8, 12, 16, 24, 32}) {
      for (int k0 = 0; k0 < K; k0 += 5) {
        const int kc = std::min(5, K - k0);
        for (int n0 = 0; n0 < N; n0 += nr) {
          const int nc = std::min(nr, N - n0);
          std::vector<float> panel(size_t(kc) * nr, -7.f);
          b.pack(k0, kc, n0, nc, nr, panel.data());
          for (int r = 0; r < kc; ++r)
            for (int j = 0; j < nr; ++j) {
              const float want = n0 + j < N ? full[size_t(k0 + r) * N + n0 + j] : 0.f;
              if (panel[size_t(r) * nr + j] != want) {
                INFO("c" << g.c << " h" << g.h << " w" << g.w << " k" << g.k << " s" << g.s << " p" << g.p << " nr" << nr
                         << " k0 " << k0 << " n0 " << n0 << " r " << r << " j " << j);
                REQUIRE(panel[size_t(r) * nr + j] == want);
              }
            }
        }
      }
    }
  }
}

TEST_CASE("kept weights (--keep-weights) give the streamed outputs on every image of a batch", "[layers]") {
  const std::string cfg = R"([net]
width=23
height=19
channels=3
[convolutional]
batch_normalize=1
filters=16
size=3
stride=1
pad=1
activation=leaky
[convolutional]
filters=16
size=3
groups=16
stride=2
pad=1
batch_normalize=1
activation=relu
[convolutional]
filters=12
size=1
groups=4
stride=1
pad=0
activation=linear
[connected]
output=37
batch_normalize=1
activation=leaky
[connected]
output=10
activation=linear
)";
  auto net = network_from_text(cfg, "kept.cfg");
  REQUIRE(net.ok());
  const std::string wpath = std::string(MDFI_TEST_TMP) + "/kept.weights";
  REQUIRE(generate_weights(*net, wpath, 9).ok());
  const Plan plan = make_plan(*net);
  ResidentWeights kept;
  auto run = [&](ResidentWeights* keep, uint32_t seed) {
    auto wf = WeightsFile::open(wpath);
    REQUIRE(wf.ok());
    MemoryTracker mem;
    auto in = Buffer::make(mem, net->input_shape().count(), MemCategory::kActivations, "input");
    REQUIRE(in.ok());
    auto r = random_floats(in->size(), seed);
    std::memcpy(in->data(), r.data(), in->bytes());
    std::vector<std::vector<float>> outs;
    RunHooks hooks;
    hooks.on_output = [&](const Layer& l, const float* o) {
      outs.emplace_back(o, o + l.out.count());
      return Status::Ok();
    };
    ExecOptions exec;
    exec.threads = 2;
    exec.resident = keep;
    auto out = run_network(*net, plan, *wf, std::move(*in), mem, hooks, exec);
    REQUIRE(out.ok());
    return outs;
  };
  for (uint32_t seed : {1u, 2u, 3u}) {
    const auto streamed = run(nullptr, seed), resident = run(&kept, seed);
    REQUIRE(streamed.size() == resident.size());
    for (size_t i = 0; i < streamed.size(); ++i) CHECK(streamed[i] == resident[i]);
  }
  CHECK(kept.tracker().current().total() == kept_weights_floats(*net) * sizeof(float));
}

TEST_CASE("small-N products split over rows give the column split's result bit for bit", "[layers]") {
  // 13x13-like: many filters, few columns. Two threads split by rows; one thread is the column
  // split's arithmetic (same K blocks and kernel calls per tile).
  const int M = 72, N = 37, K = 600;
  REQUIRE(kernels::split_by_rows(M, N, 2));
  REQUIRE_FALSE(kernels::split_by_rows(M, N, 1));
  REQUIRE_FALSE(kernels::split_by_rows(8, 300, 2));
  auto A = random_floats(size_t(M) * K, 7), B = random_floats(size_t(K) * N, 8), bias = random_floats(size_t(M), 9);
  std::vector<float> packed(kernels::packed_a_floats(M, K));
  for (int m = 0; m < M; m += kernels::kMR)
    kernels::pack_a_panel(std::min(kernels::kMR, M - m), K, A.data() + size_t(m) * K, K, packed.data() + size_t(m) * K);
  std::vector<float> one(size_t(M) * N), two(size_t(M) * N);
  std::vector<float> ws(kernels::sgemm_workspace_floats(K, N, 2));
  kernels::sgemm_packed(M, N, K, packed.data(), kernels::MatrixB(B.data(), K, N), one.data(), N, bias.data(),
                        Activation::kLeaky, 1, ws.data());
  kernels::sgemm_packed(M, N, K, packed.data(), kernels::MatrixB(B.data(), K, N), two.data(), N, bias.data(),
                        Activation::kLeaky, 2, ws.data());
  CHECK(std::memcmp(one.data(), two.data(), one.size() * sizeof(float)) == 0);
}
