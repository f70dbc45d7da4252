// The vector 3x3 and 5x5 depthwise kernels (AVX2, AVX-512, NEON) against the direct sum, bit for bit, on
// random tensors with fixed seeds: widths around each vector length (tails, borders, images
// narrower than one vector), both strides, with and without padding, fused and unfused activations.
#include <catch2/catch.hpp>

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

// Darknet's order: from +0, taps in (ky, kx) order, products and sums rounded separately.
std::vector<float> direct(const std::vector<float>& in, int c, int h, int w, const std::vector<float>& wt, int k, int s,
                          int p, int oh, int ow, const std::vector<float>& bias, Activation act) {
  std::vector<float> out(size_t(c) * oh * ow);
  for (int ch = 0; ch < c; ++ch)
    for (int oy = 0; oy < oh; ++oy)
      for (int ox = 0; ox < ow; ++ox) {
        float sum = 0.f;
        for (int ky = 0; ky < k; ++ky)
          for (int kx = 0; kx < k; ++kx) {
            const int iy = oy * s + ky - p, ix = ox * s + kx - p;
            if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
            // volatile: GCC contracts a*b+c into an FMA on aarch64 unless told not to.
            const volatile float prod = wt[(size_t(ch) * k + ky) * k + kx] * in[(size_t(ch) * h + iy) * w + ix];
            sum += prod;
          }
        out[(size_t(ch) * oh + oy) * ow + ox] = activate(sum + bias[size_t(ch)], act);
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
            const std::vector<float> want = direct(in, c, h, w, wt, k, s, p, oh, ow, bias, act);
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
