// [softmax] with groups and temperature.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "support.h"

using namespace mdfi;
using namespace mdfi::test;

TEST_CASE("softmax with groups and temperature", "[layers]") {
  // x = [1, 2, 0, 4], groups=2, temperature=2: softmax([0.5, 1]) and softmax([0, 2]):
  //   1/(1+e^0.5) = 0.377540669, e^0.5/(1+e^0.5) = 0.622459331; 1/(1+e^2) = 0.119202922, 0.880797078.
  run_both("softmax_g", net_section(1, 1, 4) + "[softmax]\ngroups=2\ntemperature=2\n", {}, {1, 2, 0, 4}, 0,
           {0.377540669f, 0.622459331f, 0.119202922f, 0.880797078f}, 1e-6);
  // One group, temperature 1: e^x / sum over [1, 2, 0, 4] (sum = e + e^2 + 1 + e^4 = 65.68336).
  const double s = std::exp(1.0) + std::exp(2.0) + 1 + std::exp(4.0);
  run_both("softmax1", net_section(1, 1, 4) + "[soft]\n", {}, {1, 2, 0, 4}, 0,
           {float(std::exp(1.0) / s), float(std::exp(2.0) / s), float(1 / s), float(std::exp(4.0) / s)});
}
