// [contrastive]: AlexeyAB's contrastive-loss layer (yolov4-tiny_contrastive). It only computes a
// training loss; at inference nothing reads its output. mdfi makes it an identity that aliases
// its input (no buffer), as AlexeyAB's GPU forward copies its input. (AlexeyAB's CPU forward
// returns at once and leaves its output at zeros: the parity test says so and skips the layer.)
#pragma once

#include "../layer.h"

namespace mdfi {

class ContrastiveLayer : public Layer {
 public:
  static LayerResult create(const SectionReader& r, const BuildContext& ctx);
  const char* kind() const override { return "contrastive"; }
  bool aliases_input() const override { return true; }
  Status forward(LayerIO&) const override { return Status::Ok(); }
  // AlexeyAB's detector runs the NMS of the network's LAST layer; a [contrastive] there (after
  // the [yolo] of yolov4-tiny_contrastive) has the default nms_kind: do_nms_sort, whatever the
  // heads before it ask for. As the last layer that answers, it decides.
  bool head_nms(NmsKind* kind, float* beta) const override {
    *kind = NmsKind::kDefault;
    *beta = 0.6f;
    return true;
  }
};

}  // namespace mdfi
