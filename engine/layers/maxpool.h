// [maxpool]: Darknet's max pooling, including stride 1 and explicit padding (the SPP blocks of
// yolov3-spp and Yolo-Fastest). Out-of-image taps are ignored, as in Darknet.
#pragma once

#include "../layer.h"

namespace mdfi {

class MaxPoolLayer : public Layer {
 public:
  static LayerResult create(const SectionReader& r, const BuildContext& ctx);
  const char* kind() const override { return "max"; }
  std::string detail() const override;
  Status forward(LayerIO& io) const override;
  void describe_schedule(SchedNode& node) const override;
  Status forward_rows(RowStep& step) const override;

  int size = 1, stride = 1, padding = 0;
  // AlexeyAB maxpool_depth=1: max across channels g, g+out_channels, ... at each pixel instead.
  bool depth = false;
};

}  // namespace mdfi
