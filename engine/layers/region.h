// [region]: YOLOv2's detection head. At inference it applies the logistic to x, y and the
// objectness of each anchor, and a softmax (or logistic) over the class scores; boxes are decoded
// after the run by decode_boxes. With tree= (yolo9000) the class scores get a softmax inside each
// group of the softmax tree, per anchor and cell, as Darknet's softmax_tree kernel does (its GPU
// path and the training: pjreddie's CPU forward at 61c9d02 indexes the tree groups as if the
// output were flattened cell by cell, which mixes anchors and cells; mdfi does not reproduce
// that), and decoding takes the top prediction along the tree at --hier.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "../layer.h"
#include "softmax_tree.h"

namespace mdfi {

class RegionLayer : public Layer {
 public:
  static LayerResult create(const SectionReader& r, const BuildContext& ctx);
  const char* kind() const override { return "region"; }
  bool is_output_head() const override { return true; }
  int head_classes() const override { return classes; }
  void decode_boxes(const float* output, const BoxFrame& frame, CandidateSink& sink) const override;
  size_t head_boxes() const override { return size_t(n) * out.w * out.h; }
  Status forward(LayerIO& io) const override;

  int classes = 20, coords = 4, n = 1;
  bool softmax = false, background = false;
  std::vector<float> anchors;  // 2*n values, in grid cells
  std::shared_ptr<const SoftmaxTree> tree;  // tree= (yolo9000), read when the network is built
  std::string tree_path;
  // Offset (floats) of entry `entry` of anchor `a` at cell `loc`, as Darknet's entry_index.
  size_t entry(int a, size_t loc, int e) const {
    const size_t hw = size_t(out.w) * out.h;
    return size_t(a) * hw * (coords + classes + 1) + size_t(e) * hw + loc;
  }
};

}  // namespace mdfi
