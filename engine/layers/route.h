// [route]: channel-wise concatenation of earlier layers' outputs (negative indices are relative).
#pragma once

#include "../layer.h"

namespace mdfi {

class RouteLayer : public Layer {
 public:
  static LayerResult create(const SectionReader& r, const BuildContext& ctx);
  const char* kind() const override { return "route"; }
  std::string detail() const override;
  Status forward(LayerIO& io) const override;
};

// Resolves a Darknet layer reference (negative = relative to `index`) and checks it points to an
// earlier layer; on failure returns an error naming the cfg line.
Result<int> resolve_layer_ref(int ref, const BuildContext& ctx, const std::string& where, const char* what);

}  // namespace mdfi
