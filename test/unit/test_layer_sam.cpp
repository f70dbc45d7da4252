// [sam]: AlexeyAB's element-wise multiply.
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

TEST_CASE("sam: multiplies element-wise, then activates", "[layers]") {
  const std::string cfg = net_section(2, 1, 1) +
                          "[convolutional]\nfilters=1\nsize=1\nactivation=linear\n\n"
                          "[sam]\nfrom=-1\nactivation=relu6\n";
  // conv: y = 2x + 1, then sam(y, y) = y^2 clipped at 6 by relu6.
  auto o = run_tiny("sam", cfg, {1, 2}, {0.5f, -3}, Compat::kAlexeyAB);
  check_close(o[0], {2, -5}, kTol);
  check_close(o[1], {4, 6}, kTol);
}
