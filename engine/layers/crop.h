// [crop]: Darknet's crop layer at inference: the centred crop_width x crop_height window, mapped
// from [0,1] to [-1,1] (x*2-1) unless noadjust=1. Flip, angle, saturation and exposure only
// apply while training.
#pragma once

#include "../layer.h"

namespace mdfi {

class CropLayer : public Layer {
 public:
  static LayerResult create(const SectionReader& r, const BuildContext& ctx);
  const char* kind() const override { return "crop"; }
  Status forward(LayerIO& io) const override;

  bool noadjust = false;
};

}  // namespace mdfi
