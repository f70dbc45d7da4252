#include "contrastive.h"

#include <cstring>

#include "../layer_registry.h"

namespace mdfi {

LayerRegistration register_contrastive() {
  LayerRegistration r;
  r.section = "contrastive";
  r.keys = "yolo_layer (training keys ignored)";
  r.doc = "AlexeyAB contrastive loss: identity at inference";
  r.alexeyab_section = true;
  r.ignored = {"classes", "temperature", "cls_normalizer", "max_delta", "contrastive_neg_max"};
  r.create = &ContrastiveLayer::create;
  return r;
}

LayerResult ContrastiveLayer::create(const SectionReader& r, const BuildContext& ctx) {
  auto yolo = r.get_int("yolo_layer", 0);
  if (!yolo.ok()) return yolo.status();
  // AlexeyAB refuses a yolo_layer= that is not a [yolo]; 0 means none (then it embeds per image).
  if (*yolo != 0) {
    const int at = *yolo < 0 ? ctx.index + *yolo : *yolo;
    if (at < 0 || at >= ctx.index || std::strcmp(ctx.built[size_t(at)]->kind(), "yolo") != 0)
      return LayerResult(ErrorKind::kCfg, r.where("yolo_layer") + ": yolo_layer=" + std::to_string(*yolo) +
                                              " must name an earlier [yolo] layer");
  }
  auto l = std::make_unique<ContrastiveLayer>();
  l->in = ctx.input;
  l->out = ctx.input;
  return LayerResult(std::unique_ptr<Layer>(std::move(l)));
}

}  // namespace mdfi
