// Detection post-processing with pjreddie Darknet's semantics: YOLO box decoding, the letterbox
// correction back to image coordinates, objectness x class thresholds and do_nms_sort.
#pragma once

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
std::vector<Detection> yolo_detections(const Network& net, const RunOutput& out, int img_w, int img_h,
                                       const DetectOptions& opt);
void nms_sort(std::vector<Detection>& dets, int classes, float thresh);
std::vector<Found> collect_found(const std::vector<Detection>& dets, int img_w, int img_h, float thresh);

}  // namespace mdfi
