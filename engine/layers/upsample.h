// [upsample]: nearest-neighbour upsampling by an integer stride, times `scale`. A negative
// stride downsamples as Darknet does.
#pragma once

#include "../layer.h"

namespace mdfi {

class UpsampleLayer : public Layer {
 public:
  static LayerResult create(const SectionReader& r, const BuildContext& ctx);
  const char* kind() const override { return "upsample"; }
  std::string detail() const override { return "          " + std::to_string(stride) + "x"; }
  Status forward(LayerIO& io) const override;

  int stride = 2;
  bool reverse = false;
  float scale = 1;
};

}  // namespace mdfi
