#include "detection.h"

#include <cstring>

#include "softmax.h"

namespace mdfi {

LayerResult DetectionLayer::create(const SectionReader& r, const BuildContext& ctx) {
  auto l = std::make_unique<DetectionLayer>();
  auto classes = r.get_int("classes", 1);
  if (!classes.ok()) return classes.status();
  auto coords = r.get_int("coords", 1);
  if (!coords.ok()) return coords.status();
  auto num = r.get_int("num", 1);
  if (!num.ok()) return num.status();
  auto side = r.get_int("side", 7);
  if (!side.ok()) return side.status();
  auto softmax = r.get_int("softmax", 0);
  if (!softmax.ok()) return softmax.status();
  auto sqrt = r.get_int("sqrt", 0);
  if (!sqrt.ok()) return sqrt.status();
  r.ignore({"rescore", "jitter", "max", "object_scale", "noobject_scale", "class_scale", "coord_scale", "forced",
            "random", "reorg"});
  l->classes = *classes;
  l->coords = *coords;
  l->n = *num;
  l->side = *side;
  l->softmax = *softmax != 0;
  l->sqrt = *sqrt != 0;
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

}  // namespace mdfi
