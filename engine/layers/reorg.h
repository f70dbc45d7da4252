// [reorg]: YOLOv2's space-to-depth. pjreddie Darknet's forward pass runs its reorg kernel in the
// "backward" direction with the input's dimensions, which yields a channel order unlike a plain
// space-to-depth; mdfi reproduces that order exactly (weights trained in Darknet expect it).
// Also the `reverse`, `flatten` and `extra` variants (go.cfg uses extra).
#pragma once

#include "../layer.h"

namespace mdfi {

class ReorgLayer : public Layer {
 public:
  static LayerResult create(const SectionReader& r, const BuildContext& ctx);
  const char* kind() const override { return "reorg"; }
  std::string detail() const override { return "          / " + std::to_string(stride); }
  Status forward(LayerIO& io) const override;

  int stride = 1;
  bool reverse = false, flatten = false;
  int extra = 0;
};

// Darknet's reorg kernel: x has dims (c, h, w); forward=false is what its forward pass uses.
void reorg_darknet(const float* x, int w, int h, int c, int stride, bool forward, float* out);

}  // namespace mdfi
