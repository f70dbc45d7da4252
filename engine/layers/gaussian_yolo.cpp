#include "gaussian_yolo.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "../activation.h"
#include "detect.h"
#include "../layer_registry.h"

namespace mdfi {

LayerRegistration register_gaussian_yolo() {
  LayerRegistration r;
  r.section = "gaussian_yolo";
  r.aliases = {"Gaussian_yolo"};
  r.keys = "mask, anchors, num, classes, scale_x_y, yolo_point, nms_kind, beta_nms";
  r.doc = "AlexeyAB [Gaussian_yolo] head: yolo boxes, class prob scaled by 1 - mean box uncertainty";
  r.alexeyab_section = true;
  r.ignored = {"max", "max_delta", "counters_per_class", "label_smooth_eps", "objectness_smooth", "uc_normalizer",
               "iou_normalizer", "obj_normalizer", "cls_normalizer", "delta_normalizer", "iou_loss", "iou_thresh_kind",
               "jitter", "resize", "ignore_thresh", "truth_thresh", "iou_thresh", "random", "map"};
  r.create = &GaussianYoloLayer::create;
  return r;
}

LayerResult GaussianYoloLayer::create(const SectionReader& r, const BuildContext& ctx) {
  auto l = std::make_unique<GaussianYoloLayer>();
  auto classes = r.get_int("classes", 20);
  if (!classes.ok()) return classes.status();
  auto total = r.get_int("num", 1);
  if (!total.ok()) return total.status();
  auto mask = r.get_int_list("mask");
  if (!mask.ok()) return mask.status();
  auto anchors = r.get_float_list("anchors");
  if (!anchors.ok()) return anchors.status();
  auto sxy = r.get_float("scale_x_y", 1);
  if (!sxy.ok()) return sxy.status();
  auto beta = r.get_float("beta_nms", 0.6f);
  if (!beta.ok()) return beta.status();
  const std::string nms = r.get_string("nms_kind", "default");
  const std::string point = r.get_string("yolo_point", "center");
  if (nms == "greedynms") l->nms_kind = NmsKind::kGreedy;
  else if (nms == "diounms") l->nms_kind = NmsKind::kDiou;
  else if (nms != "default")
    return LayerResult(ErrorKind::kUnsupported, r.where("nms_kind") + ": nms_kind '" + nms +
                                                    "' is not supported (supported: default, greedynms, diounms)");
  if (point == "left_top") l->point = Point::kLeftTop;
  else if (point == "right_bottom") l->point = Point::kRightBottom;
  else if (point != "center")
    return LayerResult(ErrorKind::kCfg, r.where("yolo_point") + ": yolo_point '" + point +
                                            "' is not one of center, left_top, right_bottom");
  l->classes = *classes;
  l->total = *total;
  l->scale_x_y = *sxy;
  l->beta_nms = *beta;
  if (l->classes <= 0) return LayerResult(ErrorKind::kCfg, r.where("classes") + ": classes must be > 0");
  if (l->total <= 0 || l->total > 100000) return LayerResult(ErrorKind::kCfg, r.where("num") + ": num must be 1..100000");
  l->mask = *mask;
  if (l->mask.empty())
    for (int i = 0; i < l->total; ++i) l->mask.push_back(i);
  for (int m : l->mask)
    if (m < 0 || m >= l->total)
      return LayerResult(ErrorKind::kCfg, r.where("mask") + ": mask index " + std::to_string(m) +
                                              " is outside num=" + std::to_string(l->total));
  // AlexeyAB stores every listed value into a num*2 buffer (more would overflow it).
  l->anchors = *anchors;
  if (l->anchors.size() > size_t(2 * l->total))
    return LayerResult(ErrorKind::kCfg, r.where("anchors") + ": " + std::to_string(l->anchors.size()) +
                                            " anchor values but num=" + std::to_string(l->total) + " holds " +
                                            std::to_string(2 * l->total));
  l->anchors.resize(size_t(2 * l->total), .5f);
  const long long expect = (long long)l->n() * (l->classes + kEntries);
  if (ctx.input.c != expect)
    return LayerResult(ErrorKind::kCfg, layer_error(ctx, "Gaussian_yolo",
                                                    "input has " + std::to_string(ctx.input.c) + " channels but " +
                                                        std::to_string(l->n()) + " masks x (classes " +
                                                        std::to_string(l->classes) + " + 9) = " + std::to_string(expect) +
                                                        "; set filters=" + std::to_string(expect) + " in the conv before it"));
  l->in = ctx.input;
  l->out = ctx.input;
  return LayerResult(std::unique_ptr<Layer>(std::move(l)));
}

Status GaussianYoloLayer::forward(LayerIO& io) const {
  std::memcpy(io.output, io.inputs[0], out.bytes());
  const size_t hw = size_t(out.w) * out.h;
  const float bias = float(-0.5 * (double(scale_x_y) - 1));  // AlexeyAB's scal_add_cpu
  for (int a = 0; a < n(); ++a) {
    float* o = io.output;
    activate_array(o + entry(a, 0, 0), 2 * hw, Activation::kLogistic);  // x mean, x uncertainty
    for (size_t i = 0; i < hw; ++i) o[entry(a, i, 0)] = o[entry(a, i, 0)] * scale_x_y + bias;
    activate_array(o + entry(a, 0, 2), 2 * hw, Activation::kLogistic);  // y mean, y uncertainty
    for (size_t i = 0; i < hw; ++i) o[entry(a, i, 2)] = o[entry(a, i, 2)] * scale_x_y + bias;
    activate_array(o + entry(a, 0, 5), hw, Activation::kLogistic);  // w uncertainty
    activate_array(o + entry(a, 0, 7), hw, Activation::kLogistic);  // h uncertainty
    activate_array(o + entry(a, 0, 8), (1 + size_t(classes)) * hw, Activation::kLogistic);
  }
  return Status::Ok();
}

void GaussianYoloLayer::decode_boxes(const float* pred, const BoxFrame& frame, CandidateSink& sink) const {
  const BoxCorrection fix(frame.img_w, frame.img_h, frame.net_w, frame.net_h, frame.opt->letterbox);
  decode(pred, frame.net_w, frame.net_h, frame.opt->thresh,
         [&](const Box& box, float objectness, const std::vector<float>& prob) {
           float* row = sink.row(classes);
           std::copy(prob.begin(), prob.end(), row);
           Box b = box;
           fix.apply(b);
           sink.add(b, objectness);
         });
}

bool GaussianYoloLayer::head_nms(NmsKind* kind, float* beta) const {
  *kind = nms_kind;
  *beta = beta_nms;
  return true;
}

void GaussianYoloLayer::decode(const float* pred, int netw, int neth, float thresh, const Emit& emit) const {
  const size_t hw = size_t(out.w) * out.h;
  std::vector<float> prob(static_cast<size_t>(classes), 0.f);
  for (size_t i = 0; i < hw; ++i) {
    const int row = int(i / out.w), col = int(i % out.w);
    for (int a = 0; a < n(); ++a) {
      const float objectness = pred[entry(a, i, 8)];
      if (!(objectness > thresh)) continue;
      // AlexeyAB's float/double mix: the average in float, the product with (1.0 - avg) in double.
      const float uc_aver = float((pred[entry(a, i, 1)] + pred[entry(a, i, 3)] + pred[entry(a, i, 5)] +
                                   pred[entry(a, i, 7)]) / 4.0);
      bool any = false;
      for (int j = 0; j < classes; ++j) {
        const float p = float(objectness * pred[entry(a, i, kEntries + j)] * (1.0 - uc_aver));
        prob[size_t(j)] = p > thresh ? p : 0;
        any = any || prob[size_t(j)] > 0;
      }
      // A candidate with no class over the threshold neither prints nor suppresses anything.
      if (!any) continue;
      const int m = mask[size_t(a)];
      Box b;
      b.w = float(std::exp(double(pred[entry(a, i, 4)])) * anchors[2 * size_t(m)] / netw);
      b.h = float(std::exp(double(pred[entry(a, i, 6)])) * anchors[2 * size_t(m) + 1] / neth);
      b.x = (col + pred[entry(a, i, 0)]) / out.w;
      b.y = (row + pred[entry(a, i, 2)]) / out.h;
      if (point == Point::kLeftTop) {
        b.x += b.w / 2;
        b.y += b.h / 2;
      } else if (point == Point::kRightBottom) {
        b.x -= b.w / 2;
        b.y -= b.h / 2;
      }
      emit(b, objectness, prob);
    }
  }
}

}  // namespace mdfi
