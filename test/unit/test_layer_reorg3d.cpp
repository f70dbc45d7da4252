// [reorg3d] (AlexeyAB): a true space-to-depth, checked against the index arithmetic written out
// here; shapes it cannot permute are refused. (Parity on a stock cfg: test_alexeyab_parity.cpp.)
#include <catch2/catch.hpp>

#include "support.h"

using namespace mdfi;
using namespace mdfi::test;

TEST_CASE("reorg3d: output channel offset*C+c holds pixel (x*s + offset%s, y*s + offset/s) of channel c", "[layers]") {
  const int c = 2, h = 4, w = 6, s = 2;
  const std::string cfg = net_section(w, h, c) + "[reorg3d]\nstride=2\n";
  std::vector<float> x(size_t(c * h * w));
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(i) * 0.5f - 3;
  for (bool reference : {true, false}) {
    const LayerOutputs r = run_layers("reorg3d", cfg, {}, x, LayerRunOptions{Compat::kAlexeyAB, reference});
    const std::vector<float>& o = r[0];
    REQUIRE(o.size() == x.size());
    const int oh = h / s, ow = w / s;
    for (int k = 0; k < c * s * s; ++k)
      for (int j = 0; j < oh; ++j)
        for (int i = 0; i < ow; ++i) {
          const int offset = k / c, ch = k % c;
          const int sx = i * s + offset % s, sy = j * s + offset / s;
          INFO("k " << k << " y " << j << " x " << i);
          CHECK(o[size_t((k * oh + j) * ow + i)] == x[size_t((ch * h + sy) * w + sx)]);
        }
  }
}

TEST_CASE("reorg3d: sizes it cannot permute are refused with the layer named", "[layers]") {
  auto odd = network_from_text(net_section(5, 4, 2) + "[reorg3d]\nstride=2\n");
  REQUIRE_FALSE(odd.ok());
  CHECK(odd.status().message().find("not divisible by stride 2") != std::string::npos);
  // reverse: AlexeyAB's kernel needs channels divisible by stride^4 to be a permutation.
  auto rev = network_from_text(net_section(4, 4, 4) + "[reorg3d]\nstride=2\nreverse=1\n");
  REQUIRE_FALSE(rev.ok());
  CHECK(rev.status().message().find("stride^4") != std::string::npos);
  auto ok = network_from_text(net_section(2, 2, 16) + "[reorg3d]\nstride=2\nreverse=1\n");
  REQUIRE(ok.ok());
  CHECK(ok->layers[0]->out.c == 4);
  CHECK(ok->layers[0]->out.h == 4);
}
