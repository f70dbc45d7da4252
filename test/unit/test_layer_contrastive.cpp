// [contrastive] (AlexeyAB): an identity at inference that owns no buffer; its yolo_layer= must
// name a [yolo], as AlexeyAB requires.
#include <catch2/catch.hpp>

#include "support.h"

using namespace mdfi;
using namespace mdfi::test;

namespace {
const std::string kHead = net_section(2, 2, 1) +
                          "[convolutional]\nfilters=6\nsize=1\nstride=1\nactivation=linear\n"
                          "[yolo]\nmask=0\nanchors=1,1\nclasses=1\nnum=1\n"
                          "[route]\nlayers=-2\n";
}

TEST_CASE("contrastive: passes its input through at inference, aliasing it", "[layers]") {
  const std::string cfg = kHead + "[contrastive]\nclasses=1\nyolo_layer=-2\ntemperature=1.0\n";
  std::vector<float> params(6 + 6, 0.f);  // 6 biases, 6 weights
  for (int f = 0; f < 6; ++f) params[size_t(6 + f)] = float(f + 1);
  const std::vector<float> x = {1, -2, 3, 0.5f};
  const LayerOutputs r = run_layers("contrastive", cfg, params, x, LayerRunOptions{Compat::kAlexeyAB, true});
  CHECK(r[3] == r[0]);
  auto net = network_from_text(cfg);
  REQUIRE(net.ok());
  CHECK(net->layers[3]->aliases_input());
  CHECK(net->warnings.empty());  // its training keys are known
}

TEST_CASE("contrastive: yolo_layer= naming a layer that is not a [yolo] is refused", "[layers]") {
  auto net = network_from_text(kHead + "[contrastive]\nyolo_layer=-1\n");
  REQUIRE_FALSE(net.ok());
  CHECK(net.status().message().find("must name an earlier [yolo] layer") != std::string::npos);
}
