// Detection post-processing with Darknet's semantics: YOLO/region/detection box decoding, the
// letterbox correction back to image coordinates, objectness x class thresholds and NMS
// (pjreddie's do_nms_sort, or AlexeyAB's DIoU NMS when its semantics are in force).
#pragma once

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
};

struct DetectOptions {
  float thresh = 0.25f;
  float hier_thresh = 0.5f;  // region layers (YOLOv2) only
  float nms = 0.45f;         // 0 disables NMS
  bool letterbox = true;     // pjreddie always letterboxes detector input
};

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
// A one-line description of the NMS network_nms runs, for -v.
std::string describe_nms(const Network& net);
std::vector<Detection> yolo_detections(const Network& net, const RunOutput& out, int img_w, int img_h,
                                       const DetectOptions& opt);
void nms_sort(std::vector<Detection>& dets, int classes, float thresh);
std::vector<Found> collect_found(const std::vector<Detection>& dets, int img_w, int img_h, float thresh);

}  // namespace mdfi
