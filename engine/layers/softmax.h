// [softmax]: softmax over `groups` contiguous groups of the flattened input, with temperature.
#pragma once

#include "../layer.h"

namespace mdfi {

class SoftmaxLayer : public Layer {
 public:
  static LayerResult create(const SectionReader& r, const BuildContext& ctx);
  const char* kind() const override { return "softmax"; }
  std::string detail() const override { return groups > 1 ? "groups " + std::to_string(groups) : ""; }
  Status forward(LayerIO& io) const override;

  int groups = 1;
  float temperature = 1;
};

// Darknet's softmax of n values with stride, float/double mix kept for parity.
void softmax_strided(const float* in, int n, float temp, float* out, int stride);

}  // namespace mdfi
