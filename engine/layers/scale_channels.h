// [scale_channels] (AlexeyAB): squeeze-and-excitation's final step. The previous layer holds one
// value per channel (or, with scale_wh=1, one value per pixel); each is multiplied into the whole
// plane (or every channel) of the `from` layer, then an optional activation.
#pragma once

#include "../activation.h"
#include "../layer.h"

namespace mdfi {

class ScaleChannelsLayer : public Layer {
 public:
  static LayerResult create(const SectionReader& r, const BuildContext& ctx);
  const char* kind() const override { return "scale_ch"; }
  std::string detail() const override { return "  " + std::to_string(sources[1]); }
  Status forward(LayerIO& io) const override;

  bool scale_wh = false;
  Activation activation = Activation::kLinear;
};

}  // namespace mdfi
