// [yolo]: YOLOv3's detection head. At inference it applies the logistic to x, y, objectness and
// class scores of each anchor in `mask`; decode_boxes turns its output into boxes after the run.
#pragma once

#include <vector>

#include "../layer.h"

namespace mdfi {

class YoloLayer : public Layer {
 public:
  static LayerResult create(const SectionReader& r, const BuildContext& ctx);
  const char* kind() const override { return "yolo"; }
  bool is_output_head() const override { return true; }
  int head_classes() const override { return classes; }
  void decode_boxes(const float* output, const BoxFrame& frame, CandidateSink& sink) const override;
  bool head_nms(NmsKind* kind, float* beta) const override;
  size_t head_boxes() const override { return size_t(n()) * out.w * out.h; }
  Status forward(LayerIO& io) const override;

  int classes = 20;
  int total = 1;                // num=: anchors in the cfg
  std::vector<int> mask;        // anchors this head predicts
  std::vector<float> anchors;   // 2*total values (more only when AlexeyAB masks name listed pairs past num), network pixels
  // AlexeyAB only (pjreddie ignores these keys): x,y = x,y*scale_x_y - (scale_x_y-1)/2;
  // new_coords: the conv already applied the logistic, boxes decode as w = 4 * t^2 * anchor.
  float scale_x_y = 1;
  bool new_coords = false;
  NmsKind nms_kind = NmsKind::kDefault;  // the NMS AlexeyAB runs on this head's boxes
  float beta_nms = 0.6f;
  int n() const { return int(mask.size()); }
  // Whether the forward leaves the class scores as logits for decode_boxes: when only the
  // decoding reads the output (LayerIO::only_decoded); new_coords heads apply no logistic at all.
  bool only_decoded_logits(bool only_decoded) const { return only_decoded && !new_coords; }
};

}  // namespace mdfi
