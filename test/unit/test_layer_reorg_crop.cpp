// [reorg] in Darknet's channel order and [crop]'s centre crop and rescale.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "support.h"

using namespace mdfi;
using namespace mdfi::test;

namespace {

// These hand-computed cases hold to 1e-5 (check_close defaults to 2e-5).
constexpr double kTol = 1e-5;

}  // namespace

TEST_CASE("reorg: uses Darknet's channel order; crop centres and rescales", "[layers]") {
  // 4 channels of 2x2 with stride 2 -> 16 channels of 1x1. Darknet's forward runs its kernel
  // backwards (out[in_index] = x[out_index]) with the input's own dimensions.
  std::vector<float> x(16);
  for (int i = 0; i < 16; ++i) x[size_t(i)] = float(i);
  auto o = run_tiny("reorg", net_section(2, 2, 4) + "[reorg]\nstride=2\n", {}, x);
  // Worked by hand from Darknet's kernel with (w,h,c) = (2,2,4), out_c = 1:
  // output[i + 2j + 4k] = x[(2i + k%2) + 4(2j + k/2)], read as a 4x4 single-channel image.
  check_close(o[0], {0, 2, 8, 10, 1, 3, 9, 11, 4, 6, 12, 14, 5, 7, 13, 15}, kTol);

  auto c = run_tiny("crop", net_section(4, 4, 1) + "[crop]\ncrop_width=2\ncrop_height=2\n", {},
                    {0, 0, 0, 0, 0, .25f, .5f, 0, 0, .75f, 1, 0, 0, 0, 0, 0});
  check_close(c[0], {-0.5f, 0, 0.5f, 1}, kTol);
}
