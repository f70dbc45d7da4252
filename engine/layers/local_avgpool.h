// [local_avgpool] (also [local_avg]): AlexeyAB's windowed average pool, a [maxpool] with the mean
// instead of the max (yolov4-tiny_contrastive). Each output is the mean of the window's taps that
// fall inside the image: padding taps are left out of the count, not averaged in as zeros.
#pragma once

#include "../layer.h"

namespace mdfi {

class LocalAvgPoolLayer : public Layer {
 public:
  static LayerResult create(const SectionReader& r, const BuildContext& ctx);
  const char* kind() const override { return "local_avg"; }
  std::string detail() const override;
  double flops() const override { return double(out.count()) * size * size; }
  Status forward(LayerIO& io) const override;

  int size = 1, stride_x = 1, stride_y = 1, padding = 0;
};

}  // namespace mdfi
