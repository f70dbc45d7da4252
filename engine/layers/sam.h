// [sam] (AlexeyAB): YOLOv4's spatial attention, an element-wise product of the previous layer
// and the `from` layer (same shape), then an optional activation.
#pragma once

#include "../activation.h"
#include "../layer.h"

namespace mdfi {

class SamLayer : public Layer {
 public:
  static LayerResult create(const SectionReader& r, const BuildContext& ctx);
  const char* kind() const override { return "sam"; }
  std::string detail() const override { return "  " + std::to_string(sources[1]); }
  Status forward(LayerIO& io) const override;

  Activation activation = Activation::kLinear;
};

}  // namespace mdfi
