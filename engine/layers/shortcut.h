// [shortcut]: residual add of an earlier layer onto the previous one, out = alpha*prev +
// beta*from, then an activation. Sources of a different size are subsampled or repeated as
// Darknet's shortcut_cpu does (ResNet-50's projection blocks need it).
#pragma once

#include "../activation.h"
#include "../layer.h"

namespace mdfi {

class ShortcutLayer : public Layer {
 public:
  static LayerResult create(const SectionReader& r, const BuildContext& ctx);
  const char* kind() const override { return "res"; }
  std::string detail() const override { return "  " + std::to_string(sources[1]); }
  Status forward(LayerIO& io) const override;

  float alpha = 1, beta = 1;
  Activation activation = Activation::kLinear;
};

}  // namespace mdfi
