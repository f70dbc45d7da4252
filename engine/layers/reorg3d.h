// [reorg3d]: AlexeyAB's space-to-depth (its REORG type; AlexeyAB's [reorg] is the old YOLOv2 one,
// layers/reorg.h). Unlike [reorg], its forward pass runs Darknet's reorg kernel with the OUTPUT's
// dimensions, which is a true space-to-depth: output channel k = offset * in_c + c2 holds input
// channel c2 at pixel (i*stride + offset % stride, j*stride + offset / stride). reverse=1 runs the
// same kernel the other way (depth-to-space in that order).
#pragma once

#include "../layer.h"

namespace mdfi {

class Reorg3dLayer : public Layer {
 public:
  static LayerResult create(const SectionReader& r, const BuildContext& ctx);
  const char* kind() const override { return "reorg3d"; }
  std::string detail() const override { return "          / " + std::to_string(stride); }
  Status forward(LayerIO& io) const override;

  int stride = 1;
  bool reverse = false;
};

}  // namespace mdfi
