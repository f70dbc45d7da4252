#include "scale_channels.h"

#include "route.h"
#include "../layer_registry.h"

namespace mdfi {

LayerRegistration register_scale_channels() {
  LayerRegistration r;
  r.section = "scale_channels";
  r.keys = "from, scale_wh, activation";
  r.doc = "AlexeyAB squeeze-excitation: per-channel multiply";
  r.alexeyab_section = true;
  r.create = &ScaleChannelsLayer::create;
  return r;
}

LayerResult ScaleChannelsLayer::create(const SectionReader& r, const BuildContext& ctx) {
  auto l = std::make_unique<ScaleChannelsLayer>();
  if (!r.has("from")) return LayerResult(ErrorKind::kCfg, r.where() + ": [scale_channels] needs from=");
  if (ctx.index == 0) return LayerResult(ErrorKind::kCfg, r.where() + ": [scale_channels] cannot be the first layer");
  MDFI_ASSIGN_OR_RETURN(auto from, r.get_int("from", 0));
  MDFI_ASSIGN_OR_RETURN(auto idx, resolve_layer_ref(from, ctx, r.where("from"), "scale_channels from"));
  MDFI_ASSIGN_OR_RETURN(auto scale_wh, r.get_int("scale_wh", 0));
  std::string act = r.get_string("activation", "linear");
  if (!parse_activation(act, &l->activation))
    return LayerResult(ErrorKind::kCfg, r.where("activation") + ": unknown activation '" + act +
                                            "' (known: " + activation_names() + ")");
  l->scale_wh = scale_wh != 0;
  const Shape scales = ctx.input, target = ctx.built[size_t(idx)]->out;
  const bool fits = l->scale_wh ? (scales.c == 1 && scales.w == target.w && scales.h == target.h)
                                : (scales.c == target.c && scales.w == 1 && scales.h == 1);
  if (!fits)
    return LayerResult(ErrorKind::kCfg,
                       layer_error(ctx, "scale_channels",
                                   "the previous layer (" + std::to_string(scales.w) + "x" + std::to_string(scales.h) +
                                       "x" + std::to_string(scales.c) + ") must be " +
                                       (l->scale_wh ? "one channel of the from layer's size"
                                                    : "1x1 with one value per channel") +
                                       " of layer " + std::to_string(idx) + " (" + std::to_string(target.w) + "x" +
                                       std::to_string(target.h) + "x" + std::to_string(target.c) + ")"));
  l->sources = {ctx.index - 1, idx};
  l->source_shapes = {scales, target};
  l->in = scales;
  l->out = target;
  return LayerResult(std::unique_ptr<Layer>(std::move(l)));
}

Status ScaleChannelsLayer::forward(LayerIO& io) const {
  const float* s = io.inputs[0];
  const float* from = io.inputs[1];
  const size_t plane = size_t(out.w) * out.h;
  for (int c = 0; c < out.c; ++c)
    for (size_t i = 0; i < plane; ++i) {
      const size_t k = size_t(c) * plane + i;
      io.output[k] = (scale_wh ? s[i] : s[c]) * from[k];
    }
  activate_array(io.output, out.count(), activation);
  return Status::Ok();
}

}  // namespace mdfi
