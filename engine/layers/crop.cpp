#include "crop.h"
#include "../layer_registry.h"

namespace mdfi {

LayerRegistration register_crop() {
  LayerRegistration r;
  r.section = "crop";
  r.keys = "crop_width, crop_height, noadjust";
  r.doc = "centre crop, mapped to [-1,1] unless noadjust=1";
  r.ignored = {"flip", "angle", "saturation", "exposure", "shift"};
  r.create = &CropLayer::create;
  return r;
}

LayerResult CropLayer::create(const SectionReader& r, const BuildContext& ctx) {
  auto l = std::make_unique<CropLayer>();
  MDFI_ASSIGN_OR_RETURN(auto ch, r.get_int("crop_height", 1));
  MDFI_ASSIGN_OR_RETURN(auto cw, r.get_int("crop_width", 1));
  MDFI_ASSIGN_OR_RETURN(auto noadjust, r.get_int("noadjust", 0));
  l->noadjust = noadjust != 0;
  if (ch <= 0 || cw <= 0 || ch > ctx.input.h || cw > ctx.input.w)
    return LayerResult(ErrorKind::kCfg, layer_error(ctx, "crop", "crop " + std::to_string(cw) + "x" +
                                                                     std::to_string(ch) + " does not fit its input " +
                                                                     std::to_string(ctx.input.w) + "x" +
                                                                     std::to_string(ctx.input.h)));
  l->in = ctx.input;
  l->out = Shape{ctx.input.c, ch, cw};
  return LayerResult(std::unique_ptr<Layer>(std::move(l)));
}

Status CropLayer::forward(LayerIO& io) const {
  const float scale = noadjust ? 1.f : 2.f, trans = noadjust ? 0.f : -1.f;
  const int dh = (in.h - out.h) / 2, dw = (in.w - out.w) / 2;
  const float* x = io.inputs[0];
  float* o = io.output;
  for (int c = 0; c < in.c; ++c)
    for (int i = 0; i < out.h; ++i)
      for (int j = 0; j < out.w; ++j) *o++ = x[(size_t(c) * in.h + i + dh) * in.w + j + dw] * scale + trans;
  return Status::Ok();
}

}  // namespace mdfi
