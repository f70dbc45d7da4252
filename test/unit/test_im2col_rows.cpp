// The band path's im2col sources (layers/conv_rows.h): GatherIm2colB (per-tap offsets and masks,
// stride-2 runs copied every other float) and WindowIm2colB pack, from a window of input rows,
// exactly the panels Im2colB packs from the whole tensor for the same output rows, bit for bit,
// padding included.
#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <vector>

#include "layers/conv_rows.h"
#include "support.h"

using namespace mdfi;
using namespace mdfi::test;

TEST_CASE("band im2col: gather and window packs equal Im2colB's panels (strides 1 and 2, windows, padding)", "[layers]") {
  std::mt19937 rng(20261204);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int strided = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int k = pick(0, 2) ? 3 : pick(0, 1) ? 1 : 5, s = pick(1, 2), pad = pick(0, 1) ? k / 2 : 0;
    const int c = pick(1, 5), h = pick(k, 30), w = pick(k, 40);
    const int out_h = (h + 2 * pad - k) / s + 1, out_w = (w + 2 * pad - k) / s + 1;
    const int nr = pick(0, 1) ? 32 : pick(0, 1) ? 8 : 12;
    if (!GatherIm2colB::suits(k, out_w, nr) || out_h < 1 || out_w < 1) continue;
    strided += s == 2;
    const std::vector<float> x = random_floats(size_t(c) * h * w, uint32_t(trial) + 1);
    // Output rows [y0, y1) from a window holding input rows [lo, lo + cap) of every channel.
    const int y0 = pick(0, out_h - 1), y1 = pick(y0 + 1, out_h);
    const int lo = std::max(0, y0 * s - pad), hi = std::min(h, (y1 - 1) * s - pad + k);
    const int cap = hi - lo + pick(0, 3);
    std::vector<float> win(size_t(c) * cap * w, 12345.f);  // rows past hi: never read
    for (int ch = 0; ch < c; ++ch)
      for (int y = lo; y < hi; ++y)
        std::memcpy(&win[(size_t(ch) * cap + (y - lo)) * w], &x[(size_t(ch) * h + y) * w], size_t(w) * sizeof(float));
    const RowWindow in{win.data(), c, h, w, lo, cap};
    const kernels::Im2colB whole(x.data(), c, h, w, k, s, pad);
    const GatherIm2colB gather(in, k, s, pad, out_w, y0, y1 - y0);
    const WindowIm2colB window(in, k, s, pad, out_w, y0, y1 - y0);
    const int K = c * k * k, N = (y1 - y0) * out_w, n_base = y0 * out_w;
    // K blocks and column ranges as sgemm_packed asks for them (any k0, partial last panel).
    for (int rep = 0; rep < 3; ++rep) {
      const int k0 = pick(0, K - 1), kc = pick(1, K - k0);
      const int n0 = pick(0, N - 1) / nr * nr, nc = pick(1, N - n0);
      const size_t floats = size_t((nc + nr - 1) / nr) * nr * kc;
      std::vector<float> a(floats, -1.f), b(floats, -2.f), d(floats, -3.f);
      whole.pack(k0, kc, n_base + n0, nc, nr, a.data());
      gather.pack(k0, kc, n0, nc, nr, b.data());
      window.pack(k0, kc, n0, nc, nr, d.data());
      INFO("k " << k << " s " << s << " pad " << pad << " c " << c << " h " << h << " w " << w << " rows " << y0 << "-"
                << y1 << " k0 " << k0 << " kc " << kc << " n0 " << n0 << " nc " << nc << " nr " << nr);
      // Im2colB's last panel past N: the whole tensor's next columns, not padding; compare the
      // band's columns only.
      for (int p = 0; p < nc; p += nr)
        for (int r = 0; r < kc; ++r)
          for (int j = 0; j < nr && p + j < nc; ++j) {
            const size_t at = size_t(p) * kc + size_t(r) * nr + j;
            uint32_t ua, ub, ud;
            std::memcpy(&ua, &a[at], 4), std::memcpy(&ub, &b[at], 4), std::memcpy(&ud, &d[at], 4);
            if (ua != ub || ua != ud) {
              INFO("panel " << p / nr << " row " << r << " column " << j);
              REQUIRE(ua == ub);
              REQUIRE(ua == ud);
            }
          }
    }
  }
  CHECK(strided > 20);
}
