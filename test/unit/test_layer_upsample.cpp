// [upsample]: nearest-neighbour repetition times scale.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "support.h"

using namespace mdfi;
using namespace mdfi::test;

TEST_CASE("upsample x2 repeats each pixel and multiplies by scale", "[layers]") {
  run_both("upsample", net_section(2, 2, 1) + "[upsample]\nstride=2\nscale=0.5\n", {}, {1, 2, 3, 4}, 0,
           {0.5f, 0.5f, 1, 1, 0.5f, 0.5f, 1, 1, 1.5f, 1.5f, 2, 2, 1.5f, 1.5f, 2, 2});
  // Default scale 1, two channels, stride 3 on a 1x1 input.
  run_both("upsample3", net_section(1, 1, 2) + "[upsample]\nstride=3\n", {}, {7, -1}, 0,
           {7, 7, 7, 7, 7, 7, 7, 7, 7, -1, -1, -1, -1, -1, -1, -1, -1, -1});
}
