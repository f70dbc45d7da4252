// [local_avgpool] (AlexeyAB): windowed mean over the taps inside the image, checked by hand.
#include <catch2/catch.hpp>

#include "support.h"

using namespace mdfi;
using namespace mdfi::test;

TEST_CASE("local_avgpool: averages only the taps inside the image", "[layers]") {
  // 3x3, size=2, stride=2, default padding size-1=1 (offset -1/2 = 0): a 2x2 output whose right
  // and bottom windows hang over the edge.
  const std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  for (const char* section : {"local_avgpool", "local_avg"}) {
    const std::string cfg = net_section(3, 3, 1) + "[" + section + "]\nsize=2\nstride=2\n";
    const LayerOutputs r = run_layers("lavg", cfg, {}, x, LayerRunOptions{Compat::kAlexeyAB, true});
    const std::vector<float> want = {(1 + 2 + 4 + 5) / 4.f, (3 + 6) / 2.f, (7 + 8) / 2.f, 9};
    CHECK(r[0] == want);
  }
  // Explicit padding 2 (offset -1), stride 1, size 3: a 3x3 mean filter with edge windows clipped.
  const std::string cfg = net_section(3, 3, 1) + "[local_avgpool]\nsize=3\nstride=1\npadding=2\n";
  const LayerOutputs r = run_layers("lavg3", cfg, {}, x, LayerRunOptions{Compat::kAlexeyAB, false});
  REQUIRE(r[0].size() == 9);
  CHECK(r[0][0] == (1 + 2 + 4 + 5) / 4.f);
  CHECK(r[0][4] == 45 / 9.f);
  CHECK(r[0][5] == (2 + 3 + 5 + 6 + 8 + 9) / 6.f);
}

TEST_CASE("local_avgpool: a window that can hold no pixel is refused, not averaged to NaN", "[layers]") {
  auto net = network_from_text(net_section(4, 4, 1) + "[local_avgpool]\nsize=2\nstride=2\npadding=4\n");
  REQUIRE_FALSE(net.ok());
  CHECK(net.status().message().find("padding/2 < size") != std::string::npos);
}
