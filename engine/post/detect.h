// Detection post-processing with Darknet's semantics: YOLO/region/detection box decoding, the
// letterbox correction back to image coordinates, objectness x class thresholds and NMS
// (pjreddie's do_nms_sort, or AlexeyAB's DIoU NMS when its semantics are in force).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "executor.h"
#include "network.h"

namespace mdfi {

struct Box {
  float x = 0, y = 0, w = 0, h = 0;  // centre and size, relative to the image (0..1)
};

struct Detection {
  Box bbox;
  float objectness = 0;
  std::vector<float> prob;  // per class, 0 where not above the threshold
};

// One printed result: a (detection, class) pair over the threshold, as Darknet prints them.
struct Found {
  int class_id = 0;
  float prob = 0;
  Box rel;                              // relative centre/size
  int left = 0, top = 0, right = 0, bottom = 0;  // pixels, clipped as Darknet draws them
  uint32_t order = 0;  // position in Darknet's print order (bounded_results: ties keep it)
};

struct DetectOptions {
  float thresh = 0.25f;
  float hier_thresh = 0.5f;  // region layers (YOLOv2) only
  float nms = 0.45f;         // 0 disables NMS
  bool letterbox = true;     // pjreddie always letterboxes detector input
};

// Where box decoding puts each candidate: the extraction fills row() with the candidate's class
// scores (objectness x class, 0 where not above the threshold), then calls add(). Candidates
// arrive in Darknet's order (head by head, cell by cell, anchor by anchor), already corrected
// back from the letterbox; expect(n) announces how many a head will add at most.
class CandidateSink {
 public:
  virtual ~CandidateSink() = default;
  virtual void expect(size_t n) { (void)n; }
  virtual float* row(int classes) = 0;
  virtual void add(const Box& box, float objectness) = 0;
};

// Every head's candidates into `sink` (what network_detections collects into a vector).
void network_candidates(const Network& net, const RunOutput& out, int img_w, int img_h, const DetectOptions& opt,
                        CandidateSink& sink);

float box_iou(const Box& a, const Box& b);
// AlexeyAB's distance-IoU: IoU - (centre distance^2 / enclosing diagonal^2)^beta.
float box_diou(const Box& a, const Box& b, float beta);

// Every head of the network: [yolo] (with AlexeyAB's new_coords when in force), [region]
// (YOLOv2) and [detection] (YOLOv1, relative boxes as Darknet's `yolo test` gives them). Boxes are
// corrected back from the letterbox only when net.net.letterbox says the input was letterboxed.
std::vector<Detection> network_detections(const Network& net, const RunOutput& out, int img_w, int img_h,
                                          const DetectOptions& opt);
// The NMS the network's semantics call for: pjreddie's do_nms_sort, or under AlexeyAB the
// nms_kind of the last [yolo] layer (greedynms: DIoU with exponent 0.6; diounms: beta_nms).
void network_nms(const Network& net, std::vector<Detection>& dets, int classes, float thresh);
void diou_nms_sort(std::vector<Detection>& dets, int classes, float thresh, float beta);
// The DIoU exponent network_nms uses, or a negative value for plain IoU (do_nms_sort).
float nms_diou_beta(const Network& net);
// A one-line description of the NMS network_nms runs, for -v.
std::string describe_nms(const Network& net);
// Every head's boxes (Layer::decode_boxes), in layer order, letterbox as `opt` says.
std::vector<Detection> head_detections(const Network& net, const RunOutput& out, int img_w, int img_h,
                                       const DetectOptions& opt);
// correct_yolo_boxes / correct_region_boxes: undoes the letterbox, in Darknet's float/double mix.
// Built once per head by its decoder; each box is corrected on its own.
struct BoxCorrection {
  int netw, neth, new_w, new_h;
  BoxCorrection(int img_w, int img_h, int nw, int nh, bool letterbox);
  void apply(Box& b) const {
    b.x = float((b.x - (netw - new_w) / 2. / netw) / (float(new_w) / netw));
    b.y = float((b.y - (neth - new_h) / 2. / neth) / (float(new_h) / neth));
    b.w *= float(netw) / new_w;
    b.h *= float(neth) / new_h;
  }
};
void nms_sort(std::vector<Detection>& dets, int classes, float thresh);
std::vector<Found> collect_found(const std::vector<Detection>& dets, int img_w, int img_h, float thresh);
// One printed result of a box, as collect_found makes it; false for a box that overflowed to
// inf/NaN (Darknet would convert it to int: undefined).
bool found_of(const Box& b, int class_id, float prob, int img_w, int img_h, Found& f);

}  // namespace mdfi
