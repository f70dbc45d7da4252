// [avgpool]: the global average of each channel.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "support.h"

using namespace mdfi;
using namespace mdfi::test;

TEST_CASE("global avgpool averages each channel", "[layers]") {
  run_both("avg", net_section(2, 2, 2) + "[avgpool]\n", {}, {1, 2, 3, 4, -1, -1, -1, 5}, 0, {2.5f, 0.5f});
}
