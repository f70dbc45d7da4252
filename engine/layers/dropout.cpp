#include "dropout.h"
#include "../layer_registry.h"

namespace mdfi {

LayerRegistration register_dropout() {
  LayerRegistration r;
  r.section = "dropout";
  r.keys = "probability";
  r.doc = "identity at inference";
  r.ignored = {"probability", "dropblock", "dropblock_size_rel", "dropblock_size_abs"};
  r.create = &IdentityLayer::create_dropout;
  return r;
}

LayerRegistration register_cost() {
  LayerRegistration r;
  r.section = "cost";
  r.keys = "type";
  r.doc = "identity at inference";
  r.ignored = {"type", "scale", "ratio", "noobject_scale", "thresh"};
  r.create = &IdentityLayer::create_cost;
  return r;
}

static LayerResult make_identity(const char* kind, const BuildContext& ctx) {
  auto l = std::make_unique<IdentityLayer>(kind);
  l->in = ctx.input;
  l->out = ctx.input;
  return LayerResult(std::unique_ptr<Layer>(std::move(l)));
}

LayerResult IdentityLayer::create_dropout(const SectionReader&, const BuildContext& ctx) {
  return make_identity("dropout", ctx);
}

LayerResult IdentityLayer::create_cost(const SectionReader&, const BuildContext& ctx) {
  return make_identity("cost", ctx);
}

}  // namespace mdfi
