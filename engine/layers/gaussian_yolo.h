// [Gaussian_yolo]: AlexeyAB's Gaussian YOLOv3 head (Gaussian_yolov3_BDD). Per anchor it predicts
// 8 box values (x, y, w, h, each a mean and an uncertainty) then objectness and classes. At
// inference the logistic goes over x, y and their uncertainties, the w and h uncertainties,
// objectness and classes (w and h means stay raw); scale_x_y shifts the x and y means only.
// Boxes decode as in [yolo], and each class probability is objectness * class * (1 - mean of the
// four uncertainties), as AlexeyAB's get_gaussian_yolo_detections.
#pragma once

#include <functional>
#include <vector>

#include "../layer.h"
#include "yolo.h"

namespace mdfi {

struct Detection;
struct Box;

class GaussianYoloLayer : public Layer {
 public:
  static LayerResult create(const SectionReader& r, const BuildContext& ctx);
  const char* kind() const override { return "Gaussian_yolo"; }
  bool is_output_head() const override { return true; }
  int head_classes() const override { return classes; }
  size_t head_boxes() const override { return size_t(n()) * out.w * out.h; }
  Status forward(LayerIO& io) const override;
  void decode_boxes(const float* output, const BoxFrame& frame, CandidateSink& sink) const override;
  bool head_nms(NmsKind* kind, float* beta) const override;
  // Each anchor whose probability of some class is over `thresh`, in Darknet's order: its box
  // relative to the network input (before the letterbox correction), objectness and per-class
  // probabilities (0 where not over `thresh`).
  using Emit = std::function<void(const Box& box, float objectness, const std::vector<float>& prob)>;
  void decode(const float* pred, int netw, int neth, float thresh, const Emit& emit) const;

  enum class Point { kCenter, kLeftTop, kRightBottom };  // yolo_point=
  static constexpr int kEntries = 9;                      // 8 box values + objectness
  int classes = 20;
  int total = 1;
  std::vector<int> mask;
  std::vector<float> anchors;  // 2*total values, network pixels
  float scale_x_y = 1;
  Point point = Point::kCenter;
  NmsKind nms_kind = NmsKind::kDefault;
  float beta_nms = 0.6f;
  int n() const { return int(mask.size()); }
  // Offset of entry `e` of anchor `a` at cell `loc` (AlexeyAB's entry_gaussian_index).
  size_t entry(int a, size_t loc, int e) const {
    const size_t hw = size_t(out.w) * out.h;
    return size_t(a) * hw * (kEntries + classes) + size_t(e) * hw + loc;
  }
};

}  // namespace mdfi
