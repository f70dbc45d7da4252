#include "region.h"

#include <cstdint>
#include <cstring>

#include "../activation.h"
#include "softmax.h"

namespace mdfi {

LayerResult RegionLayer::create(const SectionReader& r, const BuildContext& ctx) {
  auto l = std::make_unique<RegionLayer>();
  auto classes = r.get_int("classes", 20);
  if (!classes.ok()) return classes.status();
  auto coords = r.get_int("coords", 4);
  if (!coords.ok()) return coords.status();
  auto num = r.get_int("num", 1);
  if (!num.ok()) return num.status();
  auto softmax = r.get_int("softmax", 0);
  if (!softmax.ok()) return softmax.status();
  auto background = r.get_int("background", 0);
  if (!background.ok()) return background.status();
  auto anchors = r.get_float_list("anchors");
  if (!anchors.ok()) return anchors.status();
  if (r.has("tree"))
    return LayerResult(ErrorKind::kUnsupported, r.where("tree") + ": [region] softmax trees (yolo9000) are not supported");
  // bias_match only changes which anchor training assigns a truth to; the rest are training knobs.
  r.ignore({"bias_match", "jitter", "rescore", "thresh", "classfix", "absolute", "random", "coord_scale",
            "object_scale", "noobject_scale", "mask_scale", "class_scale", "max", "log", "sqrt", "map", "focal_loss"});
  l->classes = *classes;
  l->coords = *coords;
  l->n = *num;
  l->softmax = *softmax != 0;
  l->background = *background != 0;
  if (l->classes < 0) return LayerResult(ErrorKind::kCfg, r.where("classes") + ": classes must be >= 0");
  if (l->coords < 2) return LayerResult(ErrorKind::kCfg, r.where("coords") + ": coords must be >= 2");
  if (l->n <= 0) return LayerResult(ErrorKind::kCfg, r.where("num") + ": num must be > 0");
  // 64-bit arithmetic: hostile cfgs give values whose products overflow an int.
  if (int64_t(l->n) * (int64_t(l->classes) + l->coords + 1) != ctx.input.c)
    return LayerResult(ErrorKind::kCfg,
                       layer_error(ctx, "region", "input has " + std::to_string(ctx.input.c) + " channels but num " +
                                                      std::to_string(l->n) + " x (classes " + std::to_string(l->classes) +
                                                      " + coords " + std::to_string(l->coords) + " + 1) = " +
                                                      std::to_string(int64_t(l->n) * (int64_t(l->classes) + l->coords + 1))));
  l->anchors = *anchors;
  // As in [yolo]: AlexeyAB reads at most num*2 values (the rest stay .5), pjreddie all of them.
  if (ctx.net.compat == Compat::kAlexeyAB && !l->anchors.empty()) l->anchors.resize(size_t(2) * size_t(l->n), .5f);
  if (!l->anchors.empty() && l->anchors.size() != size_t(2) * size_t(l->n))
    return LayerResult(ErrorKind::kCfg, r.where("anchors") + ": " + std::to_string(l->anchors.size()) +
                                            " anchor values but num=" + std::to_string(l->n) + " needs " +
                                            std::to_string(2 * int64_t(l->n)));
  if (l->anchors.empty()) l->anchors.assign(size_t(2) * size_t(l->n), .5f);  // Darknet's default
  l->in = ctx.input;
  l->out = ctx.input;
  return LayerResult(std::unique_ptr<Layer>(std::move(l)));
}

Status RegionLayer::forward(LayerIO& io) const {
  const float* x = io.inputs[0];
  std::memcpy(io.output, x, out.bytes());
  const size_t hw = size_t(out.w) * out.h;
  for (int a = 0; a < n; ++a) {
    activate_array(io.output + entry(a, 0, 0), 2 * hw, Activation::kLogistic);
    if (!background) activate_array(io.output + entry(a, 0, coords), hw, Activation::kLogistic);
    if (!softmax) activate_array(io.output + entry(a, 0, coords + 1), size_t(classes) * hw, Activation::kLogistic);
  }
  if (softmax) {
    // Per anchor and cell, a softmax across the class planes, read from the raw input.
    const int first = coords + !background;
    for (int a = 0; a < n; ++a)
      for (size_t loc = 0; loc < hw; ++loc)
        softmax_strided(x + entry(a, loc, first), classes + int(background), 1.f, io.output + entry(a, loc, first),
                        int(hw));
  }
  return Status::Ok();
}

}  // namespace mdfi
