// [yolo]: YOLOv3's detection head. At inference it applies the logistic to x, y, objectness and
// class scores of each anchor in `mask`; boxes are decoded later by detect/yolo_boxes.
#pragma once

#include <vector>

#include "../layer.h"

namespace mdfi {

class YoloLayer : public Layer {
 public:
  static LayerResult create(const SectionReader& r, const BuildContext& ctx);
  const char* kind() const override { return "yolo"; }
  bool is_output_head() const override { return true; }
  Status forward(LayerIO& io) const override;

  int classes = 20;
  int total = 1;                // num=: anchors in the cfg
  std::vector<int> mask;        // anchors this head predicts
  std::vector<float> anchors;   // 2*total values, in network pixels
  float scale_x_y = 1;          // AlexeyAB; 1 under pjreddie semantics
  int n() const { return int(mask.size()); }
};

}  // namespace mdfi
