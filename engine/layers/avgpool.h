// [avgpool]: global average pooling to one value per channel.
#pragma once

#include "../layer.h"

namespace mdfi {

class AvgPoolLayer : public Layer {
 public:
  static LayerResult create(const SectionReader& r, const BuildContext& ctx);
  const char* kind() const override { return "avg"; }
  Status forward(LayerIO& io) const override;
};

}  // namespace mdfi
