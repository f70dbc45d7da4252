// [scale_channels]: AlexeyAB's per-channel multiply.
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

TEST_CASE("scale_channels: multiplies each plane by its channel's scale", "[layers]") {
  // Layer 0: 1x1 conv to 2 channels (identity weights) on a 2x2x2 input; layer 1 global avgpool;
  // layer 2: scale_channels from=0 multiplies the conv output planes by their averages.
  const std::string cfg = net_section(2, 2, 2) +
                          "[convolutional]\nfilters=2\nsize=1\nactivation=linear\n\n[avgpool]\n\n"
                          "[scale_channels]\nfrom=0\n";
  const std::vector<float> params = {0, 0, 1, 0, 0, 1};  // biases, then the 2x2 identity
  const std::vector<float> x = {1, 2, 3, 4, 10, 20, 30, 40};
  auto o = run_tiny("scale_ch", cfg, params, x, Compat::kAlexeyAB);
  check_close(o[1], {2.5f, 25}, kTol);
  check_close(o[2], {2.5f, 5, 7.5f, 10, 250, 500, 750, 1000}, kTol);
}
