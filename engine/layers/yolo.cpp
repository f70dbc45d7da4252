#include "yolo.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "../activation.h"
#include "detect.h"
#include "../layer_registry.h"

namespace mdfi {

LayerRegistration register_yolo() {
  LayerRegistration r;
  r.section = "yolo";
  r.keys = "mask, anchors, num, classes; AlexeyAB: scale_x_y, new_coords, nms_kind, beta_nms";
  r.doc = "YOLOv3 head (logistic x, y, objectness, classes)";
  r.alexeyab_keys_anywhere = {"nms_kind", "beta_nms", "scale_x_y", "iou_loss", "iou_normalizer",
      "cls_normalizer", "obj_normalizer", "iou_thresh", "new_coords", "max_delta", "label_smooth_eps",
      "objectness_smooth", "counters_per_class", "focal_loss"};
  r.ignored = {"jitter", "ignore_thresh", "truth_thresh", "random", "max", "counters_per_class",
                "label_smooth_eps", "iou_normalizer", "cls_normalizer", "obj_normalizer", "iou_loss",
                "iou_thresh", "resize", "focal_loss", "max_delta", "uc_normalizer", "objectness_smooth",
                "iou_thresh_kind", "track_history_size", "sim_thresh", "dets_for_track", "dets_for_show",
                "track_ciou_norm", "embedding_layer", "map"};
  r.create = &YoloLayer::create;
  return r;
}

LayerResult YoloLayer::create(const SectionReader& r, const BuildContext& ctx) {
  auto l = std::make_unique<YoloLayer>();
  MDFI_ASSIGN_OR_RETURN(auto classes, r.get_int("classes", 20));
  MDFI_ASSIGN_OR_RETURN(auto total, r.get_int("num", 1));
  MDFI_ASSIGN_OR_RETURN(auto mask, r.get_int_list("mask"));
  MDFI_ASSIGN_OR_RETURN(auto anchors, r.get_float_list("anchors"));
  if (ctx.net.compat == Compat::kAlexeyAB) {
    MDFI_ASSIGN_OR_RETURN(auto sxy, r.get_float("scale_x_y", 1));
    MDFI_ASSIGN_OR_RETURN(auto new_coords, r.get_int("new_coords", 0));
    MDFI_ASSIGN_OR_RETURN(auto beta, r.get_float("beta_nms", 0.6f));
    const std::string kind = r.get_string("nms_kind", "default");
    if (kind == "greedynms") l->nms_kind = NmsKind::kGreedy;
    else if (kind == "diounms") l->nms_kind = NmsKind::kDiou;
    else if (kind != "default")
      return LayerResult(ErrorKind::kUnsupported, r.where("nms_kind") + ": nms_kind '" + kind +
                                                      "' is not supported (supported: default, greedynms, diounms)");
    l->scale_x_y = sxy;
    l->new_coords = new_coords != 0;
    l->beta_nms = beta;
  } else {
    // pjreddie Darknet does not know these keys: read and deliberately ignored.
    r.ignore({"scale_x_y", "new_coords", "nms_kind", "beta_nms"});
  }
  l->classes = classes;
  l->total = total;
  if (l->classes <= 0) return LayerResult(ErrorKind::kCfg, r.where("classes") + ": classes must be > 0");
  if (l->total <= 0) return LayerResult(ErrorKind::kCfg, r.where("num") + ": num must be > 0");
  // The default mask and anchors are num-long: a huge num would allocate gigabytes here.
  if (l->total > 100000) return LayerResult(ErrorKind::kCfg, r.where("num") + ": num is absurdly large (limit 100000)");
  l->mask = mask;
  if (l->mask.empty())
    for (int i = 0; i < l->total; ++i) l->mask.push_back(i);
  l->anchors = anchors;
  // AlexeyAB reads at most num*2 anchor values and leaves the rest at .5; pjreddie reads every
  // value listed, past its buffer, so there a count other than num*2 stays an error. Stock
  // cspx-p7-mish.cfg lists 20 pairs for num=16 and masks 16-19 in its last [yolo]: AlexeyAB
  // indexes past its 16-pair buffer there (undefined), so mdfi takes the listed pairs the masks
  // name instead, and only when the cfg lists them.
  int anchor_pairs = l->total;
  if (ctx.net.compat == Compat::kAlexeyAB && !l->anchors.empty()) {
    for (int m : l->mask)
      if (m >= anchor_pairs && size_t(m) < l->anchors.size() / 2) anchor_pairs = m + 1;
    l->anchors.resize(size_t(2 * anchor_pairs), .5f);
  }
  for (int m : l->mask)
    if (m < 0 || m >= anchor_pairs)
      return LayerResult(ErrorKind::kCfg, r.where("mask") + ": mask index " + std::to_string(m) +
                                              " is outside num=" + std::to_string(l->total));
  if (!l->anchors.empty() && l->anchors.size() != size_t(2 * anchor_pairs))
    return LayerResult(ErrorKind::kCfg, r.where("anchors") + ": " + std::to_string(l->anchors.size()) +
                                            " anchor values but num=" + std::to_string(l->total) + " needs " +
                                            std::to_string(2 * l->total));
  if (l->anchors.empty()) l->anchors.assign(size_t(2 * l->total), .5f);  // Darknet's default
  const long long expect = (long long)l->n() * (l->classes + 5LL);  // int would overflow on absurd cfgs
  if (ctx.input.c != expect)
    return LayerResult(ErrorKind::kCfg,
                       layer_error(ctx, "yolo", "input has " + std::to_string(ctx.input.c) + " channels but " +
                                                    std::to_string(l->n()) + " masks x (classes " +
                                                    std::to_string(l->classes) + " + 5) = " + std::to_string(expect) +
                                                    "; set filters=" + std::to_string(expect) +
                                                    " in the conv before it"));
  l->in = ctx.input;
  l->out = ctx.input;
  return LayerResult(std::unique_ptr<Layer>(std::move(l)));
}

Status YoloLayer::forward(LayerIO& io) const {
  std::memcpy(io.output, io.inputs[0], out.bytes());
  const size_t hw = size_t(out.h) * out.w;
  // AlexeyAB's scal_add_cpu: x*scale + bias in float, with the bias rounded from double.
  const float bias = float(-0.5 * (double(scale_x_y) - 1));
  // Per anchor: x, y (2*hw values) and objectness + classes ((1+classes)*hw) go through the
  // logistic. Each value is independent, so threads take fixed-size chunks of those ranges
  // (Darknet's double-precision exp per value stays as it is: 170,000 of them at 26x26).
  struct Chunk {
    float* at;
    size_t n;
    bool xy;  // part of the x, y range, which scale_x_y then shifts
  };
  constexpr size_t kChunk = 4096;
  std::vector<Chunk> chunks;
  auto split = [&](float* at, size_t count, bool xy) {
    for (size_t i = 0; i < count; i += kChunk) chunks.push_back({at + i, std::min(kChunk, count - i), xy});
  };
  // Only decoded: the class scores stay logits, and decode_boxes takes the logistic of those of
  // the anchors whose objectness passes the threshold, the only ones Darknet's
  // get_yolo_detections reads (yolov3-tiny: 3 x 80 x 845 of its 215,000 logistics per image).
  const size_t scored = only_decoded_logits(io.only_decoded) ? 1 : 1 + size_t(classes);
  for (int a = 0; a < n(); ++a) {
    float* base = io.output + size_t(a) * hw * (classes + 5);
    split(base, 2 * hw, true);
    split(base + 4 * hw, scored * hw, false);
  }
  const int threads = io.fast() ? std::max(1, io.exec->threads) : 1;
  const bool shift = scale_x_y != 1 || new_coords;
#pragma omp parallel for schedule(static) num_threads(threads)
  for (size_t c = 0; c < chunks.size(); ++c) {
    const Chunk& r = chunks[c];
    if (!new_coords) activate_array(r.at, r.n, Activation::kLogistic);
    if (shift && r.xy)
      for (size_t i = 0; i < r.n; ++i) r.at[i] = r.at[i] * scale_x_y + bias;
  }
  return Status::Ok();
}

// get_yolo_detections: every anchor of every cell whose objectness and some class score pass the
// threshold, with AlexeyAB's new_coords decoding when the cfg asks for it.
void YoloLayer::decode_boxes(const float* pred, const BoxFrame& frame, CandidateSink& sink) const {
  const YoloLayer* l = this;  // the decoding reads as Darknet's, which takes the layer as `l`
  const DetectOptions& opt = *frame.opt;
  const int netw = frame.net_w, neth = frame.net_h;
  const BoxCorrection fix(frame.img_w, frame.img_h, netw, neth, opt.letterbox);
  const size_t hw = size_t(l->out.w) * l->out.h;
  const size_t per_anchor = hw * (l->classes + 5);
  // Only candidates with some class over the threshold are kept: a box whose every class
  // score is 0 neither suppresses another in NMS nor prints, and an untrained or odd model
  // has tens of thousands of cells over the objectness threshold. Counted first, so a vector
  // sink is allocated once at its size (no doubling on a 25,200-cell head).
  // A class score: the logistic of its logit when the forward left it (the same function as the
  // forward's, so the same bits).
  const bool logits = only_decoded_logits(frame.only_decoded);
  auto class_score = [&](const float* p, int j) {
    const float v = p[(5 + j) * hw];
    return logits ? activate(v, Activation::kLogistic) : v;
  };
  auto any_class = [&](const float* p, float objectness) {
    for (int j = 0; j < l->classes; ++j)
      if (objectness * class_score(p, j) > opt.thresh) return true;
    return false;
  };
  size_t count = 0;
  for (size_t i = 0; i < hw; ++i)
    for (int n = 0; n < l->n(); ++n) {
      const float* p = pred + n * per_anchor + i;
      if (p[4 * hw] > opt.thresh && any_class(p, p[4 * hw])) ++count;
    }
  sink.expect(count);
  for (size_t i = 0; i < hw; ++i) {
    const int row = int(i / l->out.w), col = int(i % l->out.w);
    for (int n = 0; n < l->n(); ++n) {
      const float* p = pred + n * per_anchor + i;
      const float objectness = p[4 * hw];
      if (objectness <= opt.thresh || !any_class(p, objectness)) continue;
      Box b;
      const int a = l->mask[n];
      b.x = (col + p[0]) / l->out.w;
      b.y = (row + p[hw]) / l->out.h;
      if (l->new_coords) {  // AlexeyAB: the conv's logistic output t, w = 4 t^2 anchor
        b.w = p[2 * hw] * p[2 * hw] * 4 * l->anchors[2 * a] / netw;
        b.h = p[3 * hw] * p[3 * hw] * 4 * l->anchors[2 * a + 1] / neth;
      } else {
        b.w = float(std::exp(p[2 * hw]) * l->anchors[2 * a] / netw);
        b.h = float(std::exp(p[3 * hw]) * l->anchors[2 * a + 1] / neth);
      }
      float* prob = sink.row(l->classes);
      for (int j = 0; j < l->classes; ++j) {
        const float pr = objectness * class_score(p, j);
        prob[j] = pr > opt.thresh ? pr : 0;
      }
      fix.apply(b);
      sink.add(b, objectness);
    }
  }
}

bool YoloLayer::head_nms(NmsKind* kind, float* beta) const {
  *kind = nms_kind;
  *beta = beta_nms;
  return true;
}

}  // namespace mdfi
