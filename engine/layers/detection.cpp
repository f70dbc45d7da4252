#include "detection.h"

#include <cmath>
#include <cstring>

#include "softmax.h"
#include "detect.h"
#include "../layer_registry.h"

namespace mdfi {

LayerRegistration register_detection() {
  LayerRegistration r;
  r.section = "detection";
  r.keys = "classes, coords, num, side, softmax, sqrt";
  r.doc = "YOLOv1 head over a connected layer's output";
  r.ignored = {"rescore", "jitter", "max", "object_scale", "noobject_scale", "class_scale", "coord_scale",
                "forced", "random", "reorg"};
  r.create = &DetectionLayer::create;
  return r;
}

LayerResult DetectionLayer::create(const SectionReader& r, const BuildContext& ctx) {
  auto l = std::make_unique<DetectionLayer>();
  MDFI_ASSIGN_OR_RETURN(auto classes, r.get_int("classes", 1));
  MDFI_ASSIGN_OR_RETURN(auto coords, r.get_int("coords", 1));
  MDFI_ASSIGN_OR_RETURN(auto num, r.get_int("num", 1));
  MDFI_ASSIGN_OR_RETURN(auto side, r.get_int("side", 7));
  MDFI_ASSIGN_OR_RETURN(auto softmax, r.get_int("softmax", 0));
  MDFI_ASSIGN_OR_RETURN(auto sqrt, r.get_int("sqrt", 0));
  l->classes = classes;
  l->coords = coords;
  l->n = num;
  l->side = side;
  l->softmax = softmax != 0;
  l->sqrt = sqrt != 0;
  if (l->classes <= 0 || l->coords <= 0 || l->n <= 0 || l->side <= 0)
    return LayerResult(ErrorKind::kCfg, r.where() + ": [detection] needs positive classes, coords, num and side");
  const size_t expect = size_t(l->side) * l->side * (size_t(1 + l->coords) * l->n + l->classes);
  if (ctx.input.count() != expect)
    return LayerResult(ErrorKind::kCfg,
                       layer_error(ctx, "detection", "input has " + std::to_string(ctx.input.count()) +
                                                         " values but side^2 x ((1 + coords) x num + classes) = " +
                                                         std::to_string(expect)));
  l->in = ctx.input;
  l->out = Shape{int(expect), 1, 1};
  return LayerResult(std::unique_ptr<Layer>(std::move(l)));
}

Status DetectionLayer::forward(LayerIO& io) const {
  std::memcpy(io.output, io.inputs[0], out.bytes());
  if (softmax)
    for (int i = 0; i < side * side; ++i) {
      float* p = io.output + size_t(i) * classes;
      softmax_strided(p, classes, 1.f, p, 1);
    }
  return Status::Ok();
}

// get_detection_detections (pjreddie) with relative coordinates, as `darknet yolo test` calls it.
void DetectionLayer::decode_boxes(const float* pred, const BoxFrame& frame, CandidateSink& sink) const {
  const DetectionLayer& l = *this;
  const DetectOptions& opt = *frame.opt;
  const int side = l.side, cells = side * side;
  for (int i = 0; i < cells; ++i) {
    const int row = i / side, col = i % side;
    for (int n = 0; n < l.n; ++n) {
      const size_t p_index = size_t(cells) * l.classes + size_t(i) * l.n + n;
      const float scale = pred[p_index];
      // Only boxes with a class over the threshold: the rest can never be printed or suppress anything.
      bool any = false;
      for (int j = 0; j < l.classes && !any; ++j) {
        const float p = scale * pred[size_t(i) * l.classes + j];
        any = (p > opt.thresh ? p : 0) > 0;
      }
      if (!any) continue;
      const size_t box = size_t(cells) * (l.classes + l.n) + (size_t(i) * l.n + n) * 4;
      Box b;
      b.x = (pred[box + 0] + col) / side;
      b.y = (pred[box + 1] + row) / side;
      b.w = float(std::pow(double(pred[box + 2]), l.sqrt ? 2.0 : 1.0));
      b.h = float(std::pow(double(pred[box + 3]), l.sqrt ? 2.0 : 1.0));
      float* prob = sink.row(l.classes);
      for (int j = 0; j < l.classes; ++j) {
        const float p = scale * pred[size_t(i) * l.classes + j];
        prob[size_t(j)] = p > opt.thresh ? p : 0;
      }
      sink.add(b, scale);
    }
  }
}

}  // namespace mdfi
