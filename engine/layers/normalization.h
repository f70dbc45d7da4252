// [normalization]: local response normalisation across channels (AlexNet-era), Darknet's form:
// out = x * (kappa + alpha * sum of x^2 over `size` neighbouring channels)^-beta. Note Darknet
// does not divide alpha by size.
#pragma once

#include "../layer.h"

namespace mdfi {

class NormalizationLayer : public Layer {
 public:
  static LayerResult create(const SectionReader& r, const BuildContext& ctx);
  const char* kind() const override { return "norm"; }
  size_t workspace_floats() const override { return 2 * in.count(); }
  Status forward(LayerIO& io) const override;

  int size = 5;
  float alpha = .0001f, beta = .75f, kappa = 1;
};

}  // namespace mdfi
