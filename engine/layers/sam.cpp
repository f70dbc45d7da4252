#include "sam.h"

#include "route.h"
#include "../layer_registry.h"

namespace mdfi {

LayerRegistration register_sam() {
  LayerRegistration r;
  r.section = "sam";
  r.keys = "from, activation";
  r.doc = "AlexeyAB spatial attention: element-wise multiply";
  r.alexeyab_section = true;
  r.create = &SamLayer::create;
  return r;
}

LayerResult SamLayer::create(const SectionReader& r, const BuildContext& ctx) {
  auto l = std::make_unique<SamLayer>();
  if (!r.has("from")) return LayerResult(ErrorKind::kCfg, r.where() + ": [sam] needs from=");
  if (ctx.index == 0) return LayerResult(ErrorKind::kCfg, r.where() + ": [sam] cannot be the first layer");
  MDFI_ASSIGN_OR_RETURN(auto from, r.get_int("from", 0));
  MDFI_ASSIGN_OR_RETURN(auto idx, resolve_layer_ref(from, ctx, r.where("from"), "sam from"));
  std::string act = r.get_string("activation", "linear");
  if (!parse_activation(act, &l->activation))
    return LayerResult(ErrorKind::kCfg, r.where("activation") + ": unknown activation '" + act +
                                            "' (known: " + activation_names() + ")");
  const Shape a = ctx.input, b = ctx.built[size_t(idx)]->out;
  if (a != b)
    return LayerResult(ErrorKind::kCfg, layer_error(ctx, "sam", "the previous layer's shape differs from layer " +
                                                                    std::to_string(idx) + "'s"));
  l->sources = {ctx.index - 1, idx};
  l->source_shapes = {a, b};
  l->in = a;
  l->out = b;
  return LayerResult(std::unique_ptr<Layer>(std::move(l)));
}

Status SamLayer::forward(LayerIO& io) const {
  for (size_t i = 0; i < out.count(); ++i) io.output[i] = io.inputs[0][i] * io.inputs[1][i];
  activate_array(io.output, out.count(), activation);
  return Status::Ok();
}

}  // namespace mdfi
