// [maxpool]: 2x2/2, SPP-style stride 1 with out-of-image taps, and AlexeyAB's maxpool_depth.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "support.h"

using namespace mdfi;
using namespace mdfi::test;

namespace {

// These hand-computed cases hold to 1e-5 (check_close defaults to 2e-5).
constexpr double kTol = 1e-5;

}  // namespace

TEST_CASE("maxpool 2x2/2 and SPP-style size 3 stride 1 with out-of-image taps ignored", "[layers]") {
  // 4x4 input, blocks:  [1 5 / 3 4] -> 5   [2 0 / 8 7] -> 8   [9 -1 / 0 2] -> 9   [6 6 / -3 10] -> 10
  const std::vector<float> x = {1, 5, 2, 0, 3, 4, 8, 7, 9, -1, 6, 6, 0, 2, -3, 10};
  run_both("max2", net_section(4, 4, 1) + "[maxpool]\nsize=2\nstride=2\n", {}, x, 0, {5, 8, 9, 10});
  // size 3 stride 1, default padding size-1 = 2 (one each side): output 3x3 = max of the in-image
  // 3x3 neighbourhood. All values negative, so a padding tap counted as 0 would show up.
  //   -1 -2 -3      (0,0) max{-1,-2,-4,-5} = -1   (0,1) -1   (0,2) max{-2,-3,-5,-6} = -2
  //   -4 -5 -6      (1,0) -1                      (1,1) -1   (1,2) -2
  //   -7 -8 -9      (2,0) max{-4,-5,-7,-8} = -4   (2,1) -4   (2,2) max{-5,-6,-8,-9} = -5
  run_both("spp3", net_section(3, 3, 1) + "[maxpool]\nsize=3\nstride=1\n", {}, {-1, -2, -3, -4, -5, -6, -7, -8, -9}, 0,
           {-1, -1, -2, -1, -1, -2, -4, -4, -5});
  // Two channels pool independently.
  run_both("max2c", net_section(2, 2, 2) + "[max]\nsize=2\nstride=2\n", {}, {1, 4, 2, 3, -5, -6, -7, -8}, 0, {4, -5});
}

TEST_CASE("maxpool: maxpool_depth takes the max across channel groups", "[layers]") {
  const std::string cfg = net_section(2, 1, 4) + "[maxpool]\nmaxpool_depth=1\nout_channels=2\n";
  // channels 0..3 at two pixels; out channel g = max(channel g, channel g+2).
  auto o = run_tiny("maxdepth", cfg, {}, {1, 8, 5, 2, 3, 4, 0, 9}, Compat::kAlexeyAB);
  check_close(o[0], {3, 8, 5, 9}, kTol);
}

TEST_CASE("maxpool fast path equals the reference bit for bit: SPP windows, stride 2, +0/-0 ties and NaN", "[layers]") {
  // On aarch64 the fast path is the NEON kernel over -FLT_MAX-padded rows (maxpool_neon.cpp); a
  // tie of +0 and -0 keeps the first, NaN never wins, as the reference's `v > best` loop.
  std::vector<float> x = random_floats(size_t(13) * 11 * 3, 41);
  for (size_t i = 0; i < x.size(); i += 7) x[i] = (i / 7) % 2 ? 0.f : -0.f;
  x[5] = std::nanf("");
  x[200] = std::nanf("");
  const std::string cfg = net_section(13, 11, 3) +
                          "[maxpool]\nsize=9\nstride=1\n[maxpool]\nsize=5\nstride=1\n[maxpool]\nsize=3\nstride=2\n"
                          "[maxpool]\nsize=2\nstride=1\n[maxpool]\nsize=3\nstride=1\npadding=0\n";
  const LayerOutputs ref = run_once("maxpool-fast-ref", cfg, {}, x, true);
  const LayerOutputs fast = run_once("maxpool-fast", cfg, {}, x, false);
  REQUIRE(ref.size() == 5);
  REQUIRE(fast.size() == ref.size());
  for (size_t l = 0; l < ref.size(); ++l) {
    INFO("layer " << l);
    REQUIRE(fast[l].size() == ref[l].size());
    CHECK(std::memcmp(fast[l].data(), ref[l].data(), ref[l].size() * sizeof(float)) == 0);
  }
  // 2x2 stride 2 with every window inside (aarch64: read straight from the input): widths of
  // 4 and 5 vectors of outputs and one between, so the last vector overlaps.
  for (const int w : {16, 20, 26}) {
    INFO("2x2/2 on " << w << "x10");
    std::vector<float> y = random_floats(size_t(w) * 10 * 2, 42);
    for (size_t i = 0; i < y.size(); i += 5) y[i] = (i / 5) % 2 ? 0.f : -0.f;
    y[3] = std::nanf("");
    y[w + 6] = std::nanf("");
    y[9] = -INFINITY;
    const std::string c2 = net_section(w, 10, 2) + "[maxpool]\nsize=2\nstride=2\n";
    const LayerOutputs r2 = run_once("maxpool-2x2-ref", c2, {}, y, true);
    const LayerOutputs f2 = run_once("maxpool-2x2-fast", c2, {}, y, false);
    REQUIRE(r2.size() == 1);
    REQUIRE(f2.size() == 1);
    REQUIRE(f2[0].size() == r2[0].size());
    CHECK(std::memcmp(f2[0].data(), r2[0].data(), r2[0].size() * sizeof(float)) == 0);
  }
  // Maps wide and tall enough that two threads split the output rows rather than the channels
  // (x86 and generic builds; aarch64 pools whole planes): 2x2/2, 3x3/2 with Darknet's padding, and
  // an odd height, so the threads' row ranges differ and meet inside windows.
  for (const int h : {40, 46}) {
    INFO("row split, " << 140 << "x" << h);
    std::vector<float> y = random_floats(size_t(140) * h * 3, 43);
    y[71] = std::nanf("");
    const std::string c3 = net_section(140, h, 3) + "[maxpool]\nsize=2\nstride=2\n[maxpool]\nsize=3\nstride=2\n";
    const LayerOutputs r3 = run_once("maxpool-rows-ref", c3, {}, y, true);
    const LayerOutputs f3 = run_once("maxpool-rows-fast", c3, {}, y, false);
    REQUIRE(r3.size() == 2);
    REQUIRE(f3.size() == 2);
    for (size_t l = 0; l < 2; ++l) {
      REQUIRE(f3[l].size() == r3[l].size());
      CHECK(std::memcmp(f3[l].data(), r3[l].data(), r3[l].size() * sizeof(float)) == 0);
    }
  }
}
