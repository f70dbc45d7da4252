// The Raspberry Pi specifics (issue 7): an ARM build has and picks the NEON micro-kernel; the
// NEON depthwise rows and leaky activation equal the scalar reference bit for bit; both weights
// header widths load on 32-bit. Run under qemu-user by scripts/ci-cross.sh, which is how the NEON
// code is exercised without a Pi. The micro-kernels and fast conv layers (NEON included) are
// checked against the reference by test_kernels.cpp.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <random>
#include <vector>

#include "activation.h"
#include "kernels/depthwise.h"
#include "kernels/sgemm.h"
#include "support.h"
#include "weights.h"

using namespace mdfi;
using namespace mdfi::kernels;
using namespace mdfi::test;

TEST_CASE("an ARM build has the NEON micro-kernel and chooses it by default", "[layers]") {
#if defined(__ARM_NEON) || defined(__aarch64__)
  const KernelInfo* k = find_kernel("neon");
  REQUIRE(k != nullptr);
  CHECK(k->nr % 4 == 0);
  CHECK(std::string(active_kernel().name) == (std::getenv("MDFI_KERNEL") ? active_kernel().name : "neon"));
#else
  CHECK(find_kernel("neon") == nullptr);
#endif
  REQUIRE(find_kernel("generic") != nullptr);
}

#if defined(__ARM_NEON) || defined(__aarch64__)
TEST_CASE("NEON micro-kernel tile: each value the k products accumulated in order, bit for bit", "[layers]") {
  // aarch64: one fused multiply-add per k step (FMLA), from +0; ARMv7: multiply, then add
  // (VMLA), each rounded. Every kc modulo 4 (the aarch64 loop takes four steps at a time, then a
  // pair, then one), with C overwritten, accumulated into, and finished with bias and leaky; on
  // aarch64 the narrow form for panels with only `cols` real columns too.
  const KernelInfo* k = find_kernel("neon");
  REQUIRE(k != nullptr);
  const int nr = k->nr;
  for (int kc : {1, 2, 3, 4, 6, 7, 16, 33}) {
    const std::vector<float> a = random_floats(size_t(kc) * kMR, 41), b = random_floats(size_t(kc) * nr, 42);
    const std::vector<float> old = random_floats(size_t(kMR) * nr, 43), bias = random_floats(kMR, 44);
    std::vector<float> want(size_t(kMR) * nr);
    for (int i = 0; i < kMR; ++i)
      for (int j = 0; j < nr; ++j) {
        float acc = 0.f;
        for (int q = 0; q < kc; ++q) {
#if defined(__aarch64__)
          acc = std::fma(a[size_t(q) * kMR + i], b[size_t(q) * nr + j], acc);
#else
          volatile float prod = a[size_t(q) * kMR + i] * b[size_t(q) * nr + j];
          acc = acc + prod;
#endif
        }
        want[size_t(i) * nr + j] = acc;
      }
    const int ldc = nr + 3;  // rows apart by more than the tile
    std::vector<float> c(size_t(kMR) * ldc, 9.f);
    auto check = [&](const char* what, auto expect) {
      for (int i = 0; i < kMR; ++i)
        for (int j = 0; j < nr; ++j) {
          const float e = expect(i, j), got = c[size_t(i) * ldc + j];
          INFO(what << " kc=" << kc << " row " << i << " col " << j << " got " << got << " want " << e);
          REQUIRE(std::memcmp(&got, &e, sizeof(float)) == 0);
        }
    };
    k->fn(kc, a.data(), b.data(), c.data(), ldc, 1);
    check("first", [&](int i, int j) { return want[size_t(i) * nr + j]; });
    for (int i = 0; i < kMR; ++i)
      for (int j = 0; j < nr; ++j) c[size_t(i) * ldc + j] = old[size_t(i) * nr + j];
    k->fn(kc, a.data(), b.data(), c.data(), ldc, 0);
    check("accumulate", [&](int i, int j) {
      volatile float sum = old[size_t(i) * nr + j] + want[size_t(i) * nr + j];
      return float(sum);
    });
    REQUIRE(k->finish != nullptr);
    k->finish(kc, a.data(), b.data(), c.data(), ldc, 1, bias.data(), TileAct::kLeaky);
    check("finish", [&](int i, int j) {
      volatile float sum = want[size_t(i) * nr + j] + bias[i];
      return activate(float(sum), Activation::kLeaky);
    });
    // Sums below leaky_fast.h's range (|x| < 2^-119, -0): zero A makes every sum +0 + its row's
    // bias, and the aarch64 epilogue must notice and redo the tile the exact way.
    {
      const std::vector<float> zero(size_t(kc) * kMR, 0.f);
      // Normal floats only: ARMv7 NEON flushes denormals (its bias add would differ here).
      const float tiny[kMR] = {-2e-38f, 0.5f, -0.f, -1.4e-36f, -1.6e-36f, -1.5e-38f, -3.f, 3e-38f};
      k->finish(kc, zero.data(), b.data(), c.data(), ldc, 1, tiny, TileAct::kLeaky);
      check("finish, tiny sums", [&](int i, int) {
        volatile float sum = 0.f + tiny[i];
        return activate(float(sum), Activation::kLeaky);
      });
    }
#if defined(__aarch64__)
    // The narrow form (Winograd's last panel): the real columns as `first`, nothing past the
    // tile's nr columns touched.
    REQUIRE(k->narrow != nullptr);
    for (int cols = 1; cols < nr; ++cols) {
      for (float& v : c) v = 9.f;
      k->narrow(kc, a.data(), b.data(), c.data(), ldc, cols);
      for (int i = 0; i < kMR; ++i)
        for (int j = 0; j < ldc; ++j) {
          const float got = c[size_t(i) * ldc + j];
          INFO("narrow kc=" << kc << " cols=" << cols << " row " << i << " col " << j << " got " << got);
          if (j < cols) REQUIRE(std::memcmp(&got, &want[size_t(i) * nr + j], sizeof(float)) == 0);
          else if (j >= nr) REQUIRE(got == 9.f);
        }
    }
#else
    CHECK(k->narrow == nullptr);  // ARMv7: every panel through fn
#endif
  }
}
#endif  // the NEON micro-kernel is built only for ARM

TEST_CASE("leaky over an array equals Darknet's scalar formula bit for bit", "[layers]") {
  std::vector<float> x = random_floats(1003, 21);  // odd length: vector body and scalar tail
  x[0] = -0.f;
  x[1] = 1e-40f;   // denormal
  x[2] = -1e-40f;
  x[3] = -3.4e38f;
  x[4] = 0.f;
  std::vector<float> got = x;
  activate_array(got.data(), got.size(), Activation::kLeaky);
  for (size_t i = 0; i < x.size(); ++i) {
    const float want = activate(x[i], Activation::kLeaky);
    INFO("i=" << i << " x=" << x[i]);
    REQUIRE(std::memcmp(&got[i], &want, sizeof(float)) == 0);
  }
}

TEST_CASE("depthwise kernel equals the direct sum in Darknet's tap order", "[layers]") {
  struct Case { int c, h, w, k, s, p; };
  for (const Case& t : {Case{3, 9, 13, 3, 1, 1}, Case{4, 10, 17, 3, 2, 1}, Case{2, 7, 7, 5, 1, 2}, Case{5, 11, 6, 3, 2, 0},
                        Case{1, 33, 35, 3, 2, 1}}) {
    INFO("c=" << t.c << " " << t.h << "x" << t.w << " k=" << t.k << " s=" << t.s << " p=" << t.p);
    const int oh = (t.h + 2 * t.p - t.k) / t.s + 1, ow = (t.w + 2 * t.p - t.k) / t.s + 1;
    const std::vector<float> in = random_floats(size_t(t.c) * t.h * t.w, 31), wt = random_floats(size_t(t.c) * t.k * t.k, 32),
                             bias = random_floats(size_t(t.c), 33);
    std::vector<float> out(size_t(t.c) * oh * ow, NAN);
    depthwise_conv(in.data(), t.c, t.h, t.w, wt.data(), t.k, t.s, t.p, out.data(), oh, ow, bias.data(), Activation::kLeaky, 2);
    for (int c = 0; c < t.c; ++c)
      for (int oy = 0; oy < oh; ++oy)
        for (int ox = 0; ox < ow; ++ox) {
          // Float, (ky, kx) order: unfused from +0, then + bias; or (aarch64 NEON) fused from the
          // bias. The kernel must match exactly.
          const bool fused = depthwise_kernel_fused(t.k, t.s);
          float s = fused ? bias[c] + 0.f : 0.f;
          for (int ky = 0; ky < t.k; ++ky)
            for (int kx = 0; kx < t.k; ++kx) {
              const int iy = oy * t.s + ky - t.p, ix = ox * t.s + kx - t.p;
              if (iy < 0 || iy >= t.h || ix < 0 || ix >= t.w) continue;
              const float wv = wt[size_t(c) * t.k * t.k + ky * t.k + kx], xv = in[(size_t(c) * t.h + iy) * t.w + ix];
              if (fused) {
                s = std::fma(wv, xv, s);
                continue;
              }
              // volatile: GCC contracts a*b+c into an FMA on aarch64 unless told not to.
              const volatile float prod = wv * xv;
              s += prod;
            }
          if (!fused) s += bias[c];
          const float want = activate(s, Activation::kLeaky), got = out[(size_t(c) * oh + oy) * ow + ox];
          INFO("c=" << c << " oy=" << oy << " ox=" << ox);
          REQUIRE(std::memcmp(&got, &want, sizeof(float)) == 0);
        }
  }
}

TEST_CASE("both weights header widths load the same parameters on every word size", "[weights]") {
  // Darknet 0.1 files carry a 4-byte `seen` (16-byte header), 0.2+ an 8-byte one (20 bytes).
  // Readers that use size_t for it (4 bytes on armhf) misread one or the other on 32-bit Pis.
  const std::string dir = test::tmp_dir("neon_header");
  const std::string cfg = dir + "/c.cfg";
  std::ofstream(cfg) << "[net]\nwidth=4\nheight=4\nchannels=1\n[convolutional]\nfilters=2\nsize=1\nstride=1\nactivation=linear\n";
  auto net = load_network_cfg(cfg, BuildOptions{});
  REQUIRE(net.ok());
  const size_t params = net->param_floats();  // 2 biases + 2 weights
  REQUIRE(params == 4);
  const float values[4] = {0.5f, -1.25f, 3.f, 7.5f};
  for (int minor : {1, 2}) {
    INFO("format 0." << minor);
    const std::string path = dir + "/w" + std::to_string(minor) + ".weights";
    {
      std::ofstream f(path, std::ios::binary);
      const int32_t head[3] = {0, minor, 0};
      f.write(reinterpret_cast<const char*>(head), sizeof head);
      if (minor >= 2) {
        const uint64_t seen = 0x0000000500000007ull;  // high word set: a 32-bit misread shifts data
        f.write(reinterpret_cast<const char*>(&seen), sizeof seen);
      } else {
        const int32_t seen = 7;
        f.write(reinterpret_cast<const char*>(&seen), sizeof seen);
      }
      f.write(reinterpret_cast<const char*>(values), sizeof values);
    }
    auto w = WeightsFile::open(path);
    REQUIRE(w.ok());
    CHECK(w->header().bytes() == (minor >= 2 ? 20u : 16u));
    CHECK(w->header().seen == (minor >= 2 ? 0x0000000500000007ull : 7u));
    REQUIRE(w->validate(*net).ok());
    float got[4] = {};
    REQUIRE(w->read(0, got, 4, 0, "conv").ok());
    for (int i = 0; i < 4; ++i) CHECK(got[i] == values[i]);
  }
}
