#include "reorg3d.h"

#include "reorg.h"
#include "../layer_registry.h"

namespace mdfi {

LayerRegistration register_reorg3d() {
  LayerRegistration r;
  r.section = "reorg3d";
  r.keys = "stride, reverse";
  r.doc = "AlexeyAB space-to-depth (true pixel-block order, unlike [reorg])";
  r.alexeyab_section = true;
  r.create = &Reorg3dLayer::create;
  return r;
}

LayerResult Reorg3dLayer::create(const SectionReader& r, const BuildContext& ctx) {
  auto l = std::make_unique<Reorg3dLayer>();
  auto stride = r.get_int("stride", 1);
  if (!stride.ok()) return stride.status();
  auto reverse = r.get_int("reverse", 0);
  if (!reverse.ok()) return reverse.status();
  l->stride = *stride;
  l->reverse = *reverse != 0;
  const int s = l->stride;
  if (s <= 0 || s > 64) return LayerResult(ErrorKind::kCfg, r.where("stride") + ": stride must be 1..64");
  const Shape in = ctx.input;
  l->in = in;
  if (l->reverse) {
    // The kernel walks the output as (c/s^2) x (h*s) x (w*s) and its source as c/s^4 planes of
    // (h*s^2) x (w*s^2): only a whole number of those is a permutation of the input.
    if (in.c % (s * s * s * s) != 0)
      return LayerResult(ErrorKind::kCfg, layer_error(ctx, "reorg3d", "reverse needs channels (" + std::to_string(in.c) +
                                                                          ") divisible by stride^4"));
    l->out = Shape{in.c / (s * s), in.h * s, in.w * s};
  } else {
    // AlexeyAB truncates w/stride, but its kernel then reads rows of (w/stride)*stride pixels
    // from rows of w: the result would be skewed, so mdfi refuses instead.
    if (in.w % s != 0 || in.h % s != 0)
      return LayerResult(ErrorKind::kCfg, layer_error(ctx, "reorg3d", "input " + std::to_string(in.w) + "x" +
                                                                          std::to_string(in.h) +
                                                                          " is not divisible by stride " + std::to_string(s)));
    l->out = Shape{in.c * s * s, in.h / s, in.w / s};
  }
  return LayerResult(std::unique_ptr<Layer>(std::move(l)));
}

Status Reorg3dLayer::forward(LayerIO& io) const {
  // AlexeyAB's forward_reorg_layer: reorg_cpu(input, out_w, out_h, out_c, stride, reverse, output).
  reorg_darknet(io.inputs[0], out.w, out.h, out.c, stride, reverse, io.output);
  return Status::Ok();
}

}  // namespace mdfi
