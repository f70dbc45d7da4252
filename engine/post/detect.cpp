#include "detect.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "image.h"

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

float box_diou(const Box& a, const Box& b, float beta) {
  const float top = std::min(a.y - a.h / 2, b.y - b.h / 2), bot = std::max(a.y + a.h / 2, b.y + b.h / 2);
  const float left = std::min(a.x - a.w / 2, b.x - b.w / 2), right = std::max(a.x + a.w / 2, b.x + b.w / 2);
  const float w = right - left, h = bot - top;
  const float c = w * w + h * h;
  const float iou = box_iou(a, b);
  if (c == 0) return iou;
  const float d = (a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y);
  return iou - float(std::pow(double(d / c), double(beta)));
}

BoxCorrection::BoxCorrection(int img_w, int img_h, int nw, int nh, bool letterbox)
    : netw(nw), neth(nh), new_w(nw), new_h(nh) {
  if (letterbox) letterbox_size(img_w, img_h, netw, neth, &new_w, &new_h);
}

static void head_candidates(const Network& net, const RunOutput& out, int img_w, int img_h, const DetectOptions& opt,
                            CandidateSink& sink);

namespace {
// network_detections' sink: Detection records in a vector, as Darknet's detection array.
class VectorSink : public CandidateSink {
 public:
  explicit VectorSink(std::vector<Detection>& dets) : dets_(dets) {}
  void expect(size_t n) override { dets_.reserve(dets_.size() + n); }
  float* row(int classes) override {
    d_.prob.assign(size_t(classes), 0.f);
    return d_.prob.data();
  }
  void add(const Box& box, float objectness) override {
    d_.bbox = box;
    d_.objectness = objectness;
    dets_.push_back(std::move(d_));
    d_ = Detection();
  }

 private:
  std::vector<Detection>& dets_;
  Detection d_;
};
}  // namespace

std::vector<Detection> head_detections(const Network& net, const RunOutput& out, int img_w, int img_h,
                                       const DetectOptions& opt) {
  std::vector<Detection> dets;
  VectorSink sink(dets);
  head_candidates(net, out, img_w, img_h, opt, sink);
  return dets;
}

// Greedy suppression inside the live prefix [0, live) of boxes sorted by prob[k]: every box that
// is still on suppresses each later box it overlaps by more than `thresh` (`score` is IoU or
// DIoU). The pairwise loop is Darknet's; with thousands of live boxes (random weights give ten
// thousand) it is O(n^2), so beyond a few dozen boxes a uniform grid finds the candidates. A
// score above a non-negative threshold needs a positive intersection (IoU is 0 without one and
// DIoU is at most IoU), and two boxes that intersect share a grid cell, because cells are a
// monotone function of the same float edges the intersection uses. The pairs scored and the
// order they are visited in are Darknet's, so the result is identical.
template <typename Score>
static void suppress_prefix(std::vector<Detection>& dets, size_t live, int k, float thresh, Score score) {
  if (live < 64 || !(thresh >= 0)) {
    for (size_t i = 0; i < live; ++i) {
      if (dets[i].prob[k] == 0) continue;
      for (size_t j = i + 1; j < live; ++j)
        if (dets[j].prob[k] != 0 && score(dets[i].bbox, dets[j].bbox) > thresh) dets[j].prob[k] = 0;
    }
    return;
  }
  constexpr int kGrid = 32, kMaxCells = 64;
  auto cell = [](float v) { return int(std::min(float(kGrid - 1), std::max(0.f, std::floor(v * kGrid)))); };
  struct Span {
    int x0, x1, y0, y1;  // cell ranges; x1 < x0 for a box that can overlap nothing
    bool always;         // too large or not finite: compared with every later box
  };
  std::vector<Span> span(live);
  std::vector<std::vector<uint32_t>> cells(size_t(kGrid) * kGrid);
  std::vector<uint32_t> always;
  for (size_t j = 0; j < live; ++j) {
    const Box& b = dets[j].bbox;
    const float l = b.x - b.w / 2, r = b.x + b.w / 2, t = b.y - b.h / 2, d = b.y + b.h / 2;
    Span& s = span[j];
    s.always = !(std::isfinite(l) && std::isfinite(r) && std::isfinite(t) && std::isfinite(d));
    if (!s.always && (r <= l || d <= t)) {  // no area: no positive intersection with anything
      s.x0 = 1, s.x1 = 0;
      continue;
    }
    if (!s.always) {
      s.x0 = cell(l), s.x1 = cell(r), s.y0 = cell(t), s.y1 = cell(d);
      s.always = (s.x1 - s.x0 + 1) * (s.y1 - s.y0 + 1) > kMaxCells;
    }
    if (s.always) {
      always.push_back(uint32_t(j));
      continue;
    }
    for (int y = s.y0; y <= s.y1; ++y)
      for (int x = s.x0; x <= s.x1; ++x) cells[size_t(y) * kGrid + x].push_back(uint32_t(j));
  }
  std::vector<uint32_t> seen(live, ~uint32_t(0));
  auto visit = [&](size_t i, uint32_t j) {
    if (j <= i || seen[j] == uint32_t(i)) return;
    seen[j] = uint32_t(i);
    if (dets[j].prob[k] != 0 && score(dets[i].bbox, dets[j].bbox) > thresh) dets[j].prob[k] = 0;
  };
  for (size_t i = 0; i < live; ++i) {
    if (dets[i].prob[k] == 0) continue;
    const Span& s = span[i];
    if (s.always) {
      for (size_t j = i + 1; j < live; ++j) visit(i, uint32_t(j));
      continue;
    }
    if (s.x1 < s.x0) continue;
    for (int y = s.y0; y <= s.y1; ++y)
      for (int x = s.x0; x <= s.x1; ++x)
        for (uint32_t j : cells[size_t(y) * kGrid + x]) visit(i, j);
    for (uint32_t j : always) visit(i, j);
  }
}

void nms_sort(std::vector<Detection>& dets, int classes, float thresh) {
  // Darknet moves objectness-0 detections to the back and ignores them.
  std::stable_partition(dets.begin(), dets.end(), [](const Detection& d) { return d.objectness != 0; });
  size_t total = 0;
  while (total < dets.size() && dets[total].objectness != 0) ++total;
  for (int k = 0; k < classes; ++k) {
    std::stable_sort(dets.begin(), dets.begin() + long(total),
                     [k](const Detection& a, const Detection& b) { return a.prob[k] > b.prob[k]; });
    // After the sort the boxes with prob[k] > 0 form a prefix; the rest can neither suppress
    // nor be suppressed, so the pairwise work stays inside it (same result, far fewer pairs).
    size_t live = 0;
    while (live < total && dets[live].prob[k] > 0) ++live;
    suppress_prefix(dets, live, k, thresh, box_iou);
  }
}

bool found_of(const Box& b, int class_id, float prob, int img_w, int img_h, Found& f) {
  // Darknet's draw_detections truncation and clipping.
  if (!std::isfinite(b.x) || !std::isfinite(b.y) || !std::isfinite(b.w) || !std::isfinite(b.h)) return false;
  f.class_id = class_id;
  f.prob = prob;
  f.rel = b;
  auto px = [](double v) { return int(std::max(-1e9, std::min(1e9, v))); };
  const int left = px((b.x - b.w / 2.) * img_w);
  const int right = px((b.x + b.w / 2.) * img_w);
  const int top = px((b.y - b.h / 2.) * img_h);
  const int bot = px((b.y + b.h / 2.) * img_h);
  f.left = std::max(left, 0);
  f.right = std::min(right, img_w - 1);
  f.top = std::max(top, 0);
  f.bottom = std::min(bot, img_h - 1);
  return true;
}

std::vector<Found> collect_found(const std::vector<Detection>& dets, int img_w, int img_h, float thresh) {
  std::vector<Found> found;
  size_t count = 0;  // allocated once at its size
  for (const Detection& d : dets)
    for (float p : d.prob) count += p > thresh;
  found.reserve(count);
  for (const Detection& d : dets) {
    for (size_t j = 0; j < d.prob.size(); ++j) {
      if (!(d.prob[j] > thresh)) continue;
      Found f;
      if (!found_of(d.bbox, int(j), d.prob[j], img_w, img_h, f)) continue;
      f.order = uint32_t(found.size());
      found.push_back(f);
    }
  }
  return found;
}

// Every head's candidates as `opt` says (letterbox included), in layer order as Darknet's
// fill_network_boxes walks them: each head decodes its own (Layer::decode_boxes).
static void head_candidates(const Network& net, const RunOutput& out, int img_w, int img_h, const DetectOptions& opt,
                            CandidateSink& sink) {
  for (const auto& l : net.layers) {
    if (!l->is_output_head()) continue;
    const bool only_decoded = !out.only_decoded.empty() && out.only_decoded[size_t(l->index)];
    const BoxFrame frame{img_w, img_h, net.net.w, net.net.h, &opt, only_decoded};
    if (const float* pred = out.output_of(net, l->index)) l->decode_boxes(pred, frame, sink);
  }
}

void network_candidates(const Network& net, const RunOutput& out, int img_w, int img_h, const DetectOptions& opt,
                        CandidateSink& sink) {
  DetectOptions o = opt;
  o.letterbox = opt.letterbox && net.net.letterbox;
  head_candidates(net, out, img_w, img_h, o, sink);
}

std::vector<Detection> network_detections(const Network& net, const RunOutput& out, int img_w, int img_h,
                                          const DetectOptions& opt) {
  std::vector<Detection> dets;
  VectorSink sink(dets);
  network_candidates(net, out, img_w, img_h, opt, sink);
  return dets;
}
// The NMS the last head that asks for one wants (AlexeyAB's [yolo] nms_kind), or false.
static bool head_nms(const Network& net, NmsKind* kind, float* beta) {
  bool found = false;
  for (const auto& l : net.layers) found = l->head_nms(kind, beta) || found;
  return found;
}

void diou_nms_sort(std::vector<Detection>& dets, int classes, float thresh, float beta) {
  std::stable_partition(dets.begin(), dets.end(), [](const Detection& d) { return d.objectness != 0; });
  size_t total = 0;
  while (total < dets.size() && dets[total].objectness != 0) ++total;
  for (int k = 0; k < classes; ++k) {
    std::stable_sort(dets.begin(), dets.begin() + long(total),
                     [k](const Detection& a, const Detection& b) { return a.prob[k] > b.prob[k]; });
    // AlexeyAB's loop also visits boxes whose prob[k] is already 0; zeroing them again changes
    // nothing, so the live prefix gives the same result.
    size_t live = 0;
    while (live < total && dets[live].prob[k] > 0) ++live;
    suppress_prefix(dets, live, k, thresh, [beta](const Box& a, const Box& b) { return box_diou(a, b, beta); });
  }
}

float nms_diou_beta(const Network& net) {
  NmsKind kind = NmsKind::kDefault;
  float beta = 0;
  if (net.net.compat != Compat::kAlexeyAB || !head_nms(net, &kind, &beta) || kind == NmsKind::kDefault) return -1;
  return kind == NmsKind::kGreedy ? 0.6f : beta;
}

void network_nms(const Network& net, std::vector<Detection>& dets, int classes, float thresh) {
  NmsKind kind = NmsKind::kDefault;
  float beta = 0;
  if (net.net.compat != Compat::kAlexeyAB || !head_nms(net, &kind, &beta) || kind == NmsKind::kDefault)
    return nms_sort(dets, classes, thresh);
  diou_nms_sort(dets, classes, thresh, kind == NmsKind::kGreedy ? 0.6f : beta);
}

std::string describe_nms(const Network& net) {
  NmsKind kind = NmsKind::kDefault;
  float beta = 0;
  if (net.net.compat != Compat::kAlexeyAB || !head_nms(net, &kind, &beta) || kind == NmsKind::kDefault)
    return "IoU NMS (do_nms_sort)";
  if (kind == NmsKind::kGreedy) return "DIoU NMS (greedynms, exponent 0.6)";
  return "DIoU NMS (diounms, beta_nms " + std::to_string(beta) + ")";
}

}  // namespace mdfi
