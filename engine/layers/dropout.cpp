#include "dropout.h"

namespace mdfi {

static LayerResult make_identity(const char* kind, const BuildContext& ctx) {
  auto l = std::make_unique<IdentityLayer>(kind);
  l->in = ctx.input;
  l->out = ctx.input;
  return LayerResult(std::unique_ptr<Layer>(std::move(l)));
}

LayerResult IdentityLayer::create_dropout(const SectionReader& r, const BuildContext& ctx) {
  r.ignore({"probability", "dropblock", "dropblock_size_rel", "dropblock_size_abs"});
  return make_identity("dropout", ctx);
}

LayerResult IdentityLayer::create_cost(const SectionReader& r, const BuildContext& ctx) {
  r.ignore({"type", "scale", "ratio", "noobject_scale", "thresh"});
  return make_identity("cost", ctx);
}

}  // namespace mdfi
