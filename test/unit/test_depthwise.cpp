// The vector 3x3 and 5x5 depthwise kernels (AVX2, AVX-512, NEON) against the direct sum, bit for bit, on
// random tensors with fixed seeds: widths around each vector length (tails, borders, images
// narrower than one vector), both strides, with and without padding, fused and unfused activations;
// on aarch64 the NEON kernels against the fused sum they compute (depthwise_kernel_fused).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "activation.h"
#include "kernels/depthwise.h"
#include "support.h"

using namespace mdfi;
using namespace mdfi::kernels;
using namespace mdfi::test;

namespace {

// Darknet's order: from +0, taps in (ky, kx) order, products and sums rounded separately, then
// + bias. `fused` (depthwise_kernel_fused): from the bias (+0 for -0), one fused multiply-add
// per tap in (ky, kx) order.
std::vector<float> direct(const std::vector<float>& in, int c, int h, int w, const std::vector<float>& wt, int k, int s,
                          int p, int oh, int ow, const std::vector<float>& bias, Activation act, bool fused) {
  std::vector<float> out(size_t(c) * oh * ow);
  for (int ch = 0; ch < c; ++ch)
    for (int oy = 0; oy < oh; ++oy)
      for (int ox = 0; ox < ow; ++ox) {
        float sum = fused ? bias[size_t(ch)] + 0.f : 0.f;
        for (int ky = 0; ky < k; ++ky)
          for (int kx = 0; kx < k; ++kx) {
            const int iy = oy * s + ky - p, ix = ox * s + kx - p;
            if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
            const float wv = wt[(size_t(ch) * k + ky) * k + kx], xv = in[(size_t(ch) * h + iy) * w + ix];
            if (fused) {
              sum = std::fma(wv, xv, sum);
              continue;
            }
            // volatile: GCC contracts a*b+c into an FMA on aarch64 unless told not to.
            const volatile float prod = wv * xv;
            sum += prod;
          }
        out[(size_t(ch) * oh + oy) * ow + ox] = activate(fused ? sum : sum + bias[size_t(ch)], act);
      }
  return out;
}

}  // namespace

TEST_CASE("3x3 and 5x5 depthwise vector kernels equal the direct sum bit for bit", "[layers]") {
  int checked = 0;
  for (const char* variant : {"avx512", "avx2", "neon", "scalar"}) {
    if (!depthwise_variant_available(variant)) continue;
    for (int k : {3, 5})
    for (int s : {1, 2})
      for (int p : {0, k / 2})
        for (int w : {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 18, 31, 33, 34, 35, 40, 67})
          for (Activation act : {Activation::kLeaky, Activation::kLinear, Activation::kRelu, Activation::kLogistic}) {
            const int c = 3, h = 1 + (w * 7) % 11;
            if (h + 2 * p < k || w + 2 * p < k) continue;
            const int oh = (h + 2 * p - k) / s + 1, ow = (w + 2 * p - k) / s + 1;
            const uint32_t seed = uint32_t(w * 64 + k * 16 + s * 4 + p);
            const std::vector<float> in = random_floats(size_t(c) * h * w, seed), wt = random_floats(size_t(c) * k * k, seed + 1),
                                     bias = random_floats(size_t(c), seed + 2);
            // The output plane sits between guard values: a kernel writing past it is caught.
            std::vector<float> out(size_t(c) * oh * ow + 32, 12345.f);
            depthwise_conv(in.data(), c, h, w, wt.data(), k, s, p, out.data() + 16, oh, ow, bias.data(), act, 1, variant);
            const std::vector<float> want = direct(in, c, h, w, wt, k, s, p, oh, ow, bias, act, depthwise_kernel_fused(k, s, variant));
            INFO(variant << " k=" << k << " w=" << w << " h=" << h << " s=" << s << " p=" << p << " act=" << int(act));
            bool guards = true;
            for (int g = 0; g < 16; ++g) guards = guards && out[size_t(g)] == 12345.f && out[out.size() - 1 - size_t(g)] == 12345.f;
            REQUIRE(guards);
            long first_bad = -1;  // one assertion per case keeps the test fast
            for (size_t i = 0; i < want.size() && first_bad < 0; ++i)
              if (std::memcmp(&out[16 + i], &want[i], sizeof(float)) != 0) first_bad = long(i);
            REQUIRE(first_bad == -1);
            ++checked;
          }
  }
  CHECK(checked > 0);
}

// The band rows of a --max-mem schedule call the kernels on a range of output rows of a window's
// channels (depthwise_rows in conv_rows.cpp): each range must give the whole plane's bits, and
// no kernel may read a row of the image outside the window (those rows hold NaN here, which any
// tap would carry into the sum) or write outside its rows. Widths below one vector and above
// AVX-512's 64 masked vectors (1100, and 2100 at stride 2), 3x3, 5x5 and 7x7 (the plain loop),
// strides 1 and 2, three channels per call, channels further apart than their rows.
TEST_CASE("depthwise kernels over row ranges and windows equal the whole plane bit for bit", "[layers]") {
  int checked = 0;
  for (const char* variant : {"avx512", "avx2", "neon", "scalar"}) {
    if (!depthwise_variant_available(variant)) continue;
    for (int k : {3, 5, 7})
      for (int s : {1, 2})
        for (int w : {1, 3, 7, 9, 16, 21, 40, 1100, 2100}) {
          if (k == 7 && w > 40) continue;
          const int c = 3, p = k / 2, h = 5 + (w + k) % 7;  // 5..11 rows
          const int oh = (h + 2 * p - k) / s + 1, ow = (w + 2 * p - k) / s + 1;
          const uint32_t seed = uint32_t(w * 64 + k * 16 + s);
          const std::vector<float> in = random_floats(size_t(c) * h * w, seed),
                                   wt = random_floats(size_t(c) * k * k, seed + 1), bias = random_floats(size_t(c), seed + 2);
          const Activation act = w % 2 ? Activation::kLeaky : Activation::kRelu;
          const DepthwiseRowsFn rows = depthwise_rows_kernel(k, s, variant);
          std::vector<float> whole(size_t(c) * oh * ow);
          depthwise_conv(in.data(), c, h, w, wt.data(), k, s, p, whole.data(), oh, ow, bias.data(), act, 1, variant);
          {
            INFO(variant << " k=" << k << " s=" << s << " w=" << w << " whole plane");
            const std::vector<float> want = direct(in, c, h, w, wt, k, s, p, oh, ow, bias, act, depthwise_kernel_fused(k, s, variant));
            REQUIRE(std::memcmp(whole.data(), want.data(), want.size() * sizeof(float)) == 0);
          }
          for (int oy0 = 0; oy0 < oh; ++oy0)
            for (int n : {1, 2, 3, 5, 9}) {
              const int oy1 = std::min(oh, oy0 + n);
              if (n > 1 && oy1 - oy0 < n && oy0 > 0) continue;  // one clipped range per start is enough
              // The window: exactly the image rows these outputs read, between NaN rows.
              const int lo = std::max(0, oy0 * s - p), hi = std::min(h, (oy1 - 1) * s - p + k);
              const size_t in_ch = size_t(hi - lo + 2) * w, out_ch = size_t(oy1 - oy0) * ow + 16;
              std::vector<float> win(c * in_ch, std::nanf(""));
              for (int ch = 0; ch < c; ++ch)
                std::memcpy(&win[ch * in_ch + w], &in[(size_t(ch) * h + lo) * w], size_t(hi - lo) * w * sizeof(float));
              std::vector<float> out(16 + c * out_ch, 12345.f);  // guard values before and after each channel
              DepthwiseRows g;
              g.in = win.data() + w, g.in_channel = in_ch, g.in_lo = lo, g.h = h, g.w = w;
              g.out = out.data() + 16, g.out_channel = out_ch, g.oy0 = oy0, g.oy1 = oy1, g.out_w = ow;
              g.ksize = k, g.stride = s, g.pad = p, g.weights = wt.data(), g.bias = bias.data(), g.act = act;
              rows(g, 0, c);
              INFO(variant << " k=" << k << " s=" << s << " w=" << w << " h=" << h << " rows " << oy0 << ".." << oy1);
              bool same = true, guards = true;
              for (int ch = 0; ch < c; ++ch) {
                const float* got = &out[16 + ch * out_ch];
                same = same && std::memcmp(got, &whole[(size_t(ch) * oh + oy0) * ow],
                                           size_t(oy1 - oy0) * ow * sizeof(float)) == 0;
                for (int gi = 1; gi <= 16; ++gi) guards = guards && got[-gi] == 12345.f;
              }
              for (int gi = 1; gi <= 16; ++gi) guards = guards && out[out.size() - size_t(gi)] == 12345.f;
              REQUIRE(guards);
              REQUIRE(same);
              ++checked;
            }
        }
  }
  CHECK(checked > 0);
}

// Outputs below the fast leaky's range (aarch64 leaky_fast.h: |x| < 2^-119, or -0) make the NEON
// kernel redo the plane the exact way: zero weights leave each output its channel's bias, tiny
// negative in some channels, ordinary in others, so both the redo and the planes around it are
// checked against the reference.
TEST_CASE("depthwise leaky: outputs below the fast leaky's range give activate()'s bits", "[layers]") {
  int checked = 0;
  for (const char* variant : {"avx512", "avx2", "neon", "scalar"}) {
    if (!depthwise_variant_available(variant)) continue;
    for (int s : {1, 2})
      for (int w : {3, 9, 20}) {
        const int c = 6, h = 7, k = 3, p = 1;
        const int oh = (h + 2 * p - k) / s + 1, ow = (w + 2 * p - k) / s + 1;
        const std::vector<float> in = random_floats(size_t(c) * h * w, uint32_t(w + s)), wt(size_t(c) * k * k, 0.f);
        // Normal floats only: ARMv7 NEON flushes denormals (its bias add would differ here).
        const std::vector<float> bias = {-2e-38f, 0.25f, -1.4e-36f, -0.f, -1.5e-38f, -2.f};
        std::vector<float> out(size_t(c) * oh * ow);
        depthwise_conv(in.data(), c, h, w, wt.data(), k, s, p, out.data(), oh, ow, bias.data(), Activation::kLeaky, 1,
                       variant);
        const std::vector<float> want =
            direct(in, c, h, w, wt, k, s, p, oh, ow, bias, Activation::kLeaky, depthwise_kernel_fused(k, s, variant));
        INFO(variant << " s=" << s << " w=" << w);
        REQUIRE(std::memcmp(out.data(), want.data(), want.size() * sizeof(float)) == 0);
        ++checked;
      }
  }
  CHECK(checked > 0);
}
