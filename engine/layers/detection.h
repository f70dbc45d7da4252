// [detection]: YOLOv1's detection head over the flat output of a connected layer: per grid cell
// `classes` class scores, then `num` confidences, then `num` boxes of `coords` values. At inference
// only an optional per-cell softmax over the classes runs; decode_boxes turns the output into boxes.
#pragma once

#include "../layer.h"

namespace mdfi {

class DetectionLayer : public Layer {
 public:
  static LayerResult create(const SectionReader& r, const BuildContext& ctx);
  const char* kind() const override { return "detection"; }
  bool is_output_head() const override { return true; }
  int head_classes() const override { return classes; }
  void decode_boxes(const float* output, const BoxFrame& frame, CandidateSink& sink) const override;
  size_t head_boxes() const override { return size_t(n) * side * side; }
  Status forward(LayerIO& io) const override;

  int classes = 1, coords = 1, n = 1, side = 7;
  bool softmax = false, sqrt = false;
};

}  // namespace mdfi
