// [dropout]: the identity at inference.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "support.h"

using namespace mdfi;
using namespace mdfi::test;

TEST_CASE("dropout is the identity at inference", "[layers]") {
  const std::string cfg = net_section(3, 1, 1) +
                          "[convolutional]\nfilters=1\nsize=1\nactivation=linear\n"
                          "[dropout]\nprobability=.5\n";
  auto net = network_from_text(cfg, "core_dropout.cfg");
  REQUIRE(net.ok());
  CHECK(net->layers[1]->aliases_input());
  CHECK(net->layers[1]->param_floats() == 0);
  // conv: 3x - 1 = [2, -7, 0.5]; dropout passes it through untouched.
  const LayerOutputs o = run_both("dropout", cfg, {-1, 3}, {1, -2, 0.5f}, 1, {2, -7, 0.5f});
  CHECK(o[1] == o[0]);
}
