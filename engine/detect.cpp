#include "detect.h"

#include <algorithm>
#include <cmath>

#include "image.h"
#include "layers/yolo.h"

namespace mdfi {

static float overlap(float x1, float w1, float x2, float w2) {
  const float l1 = x1 - w1 / 2, l2 = x2 - w2 / 2;
  const float left = l1 > l2 ? l1 : l2;
  const float r1 = x1 + w1 / 2, r2 = x2 + w2 / 2;
  const float right = r1 < r2 ? r1 : r2;
  return right - left;
}

float box_iou(const Box& a, const Box& b) {
  const float w = overlap(a.x, a.w, b.x, b.w), h = overlap(a.y, a.h, b.y, b.h);
  const float inter = (w < 0 || h < 0) ? 0 : w * h;
  const float uni = a.w * a.h + b.w * b.h - inter;
  return inter / uni;
}

std::vector<Detection> yolo_detections(const Network& net, const RunOutput& out, int img_w, int img_h,
                                       const DetectOptions& opt) {
  std::vector<Detection> dets;
  const int netw = net.net.w, neth = net.net.h;
  for (const auto& lp : net.layers) {
    const auto* l = dynamic_cast<const YoloLayer*>(lp.get());
    if (!l) continue;
    const float* pred = out.output_of(net, l->index);
    if (!pred) continue;
    const size_t hw = size_t(l->out.w) * l->out.h;
    const size_t per_anchor = hw * (l->classes + 5);
    const size_t first = dets.size();
    for (size_t i = 0; i < hw; ++i) {
      const int row = int(i / l->out.w), col = int(i % l->out.w);
      for (int n = 0; n < l->n(); ++n) {
        const float* p = pred + n * per_anchor + i;
        const float objectness = p[4 * hw];
        if (objectness <= opt.thresh) continue;
        Detection d;
        const int a = l->mask[n];
        d.bbox.x = (col + p[0]) / l->out.w;
        d.bbox.y = (row + p[hw]) / l->out.h;
        d.bbox.w = float(std::exp(p[2 * hw]) * l->anchors[2 * a] / netw);
        d.bbox.h = float(std::exp(p[3 * hw]) * l->anchors[2 * a + 1] / neth);
        d.objectness = objectness;
        d.prob.resize(l->classes);
        for (int j = 0; j < l->classes; ++j) {
          const float prob = objectness * p[(5 + j) * hw];
          d.prob[j] = prob > opt.thresh ? prob : 0;
        }
        dets.push_back(std::move(d));
      }
    }
    // correct_yolo_boxes: undo the letterbox, in Darknet's float/double mix.
    int new_w = netw, new_h = neth;
    if (opt.letterbox) letterbox_size(img_w, img_h, netw, neth, &new_w, &new_h);
    for (size_t k = first; k < dets.size(); ++k) {
      Box& b = dets[k].bbox;
      b.x = float((b.x - (netw - new_w) / 2. / netw) / (float(new_w) / netw));
      b.y = float((b.y - (neth - new_h) / 2. / neth) / (float(new_h) / neth));
      b.w *= float(netw) / new_w;
      b.h *= float(neth) / new_h;
    }
  }
  return dets;
}

void nms_sort(std::vector<Detection>& dets, int classes, float thresh) {
  // Darknet moves objectness-0 detections to the back and ignores them.
  std::stable_partition(dets.begin(), dets.end(), [](const Detection& d) { return d.objectness != 0; });
  size_t total = 0;
  while (total < dets.size() && dets[total].objectness != 0) ++total;
  for (int k = 0; k < classes; ++k) {
    std::stable_sort(dets.begin(), dets.begin() + long(total),
                     [k](const Detection& a, const Detection& b) { return a.prob[k] > b.prob[k]; });
    for (size_t i = 0; i < total; ++i) {
      if (dets[i].prob[k] == 0) continue;
      for (size_t j = i + 1; j < total; ++j)
        if (box_iou(dets[i].bbox, dets[j].bbox) > thresh) dets[j].prob[k] = 0;
    }
  }
}

std::vector<Found> collect_found(const std::vector<Detection>& dets, int img_w, int img_h, float thresh) {
  std::vector<Found> found;
  for (const Detection& d : dets) {
    for (size_t j = 0; j < d.prob.size(); ++j) {
      if (!(d.prob[j] > thresh)) continue;
      Found f;
      f.class_id = int(j);
      f.prob = d.prob[j];
      f.rel = d.bbox;
      // Darknet's draw_detections truncation and clipping.
      int left = int((d.bbox.x - d.bbox.w / 2.) * img_w);
      int right = int((d.bbox.x + d.bbox.w / 2.) * img_w);
      int top = int((d.bbox.y - d.bbox.h / 2.) * img_h);
      int bot = int((d.bbox.y + d.bbox.h / 2.) * img_h);
      f.left = std::max(left, 0);
      f.right = std::min(right, img_w - 1);
      f.top = std::max(top, 0);
      f.bottom = std::min(bot, img_h - 1);
      found.push_back(f);
    }
  }
  return found;
}

}  // namespace mdfi
