// [dropout] and [cost]: identities at inference. Their output is their input (no buffer of its
// own), exactly as Darknet aliases a dropout layer's output to its input.
#pragma once

#include "../layer.h"

namespace mdfi {

class IdentityLayer : public Layer {
 public:
  static LayerResult create_dropout(const SectionReader& r, const BuildContext& ctx);
  static LayerResult create_cost(const SectionReader& r, const BuildContext& ctx);
  explicit IdentityLayer(const char* kind) : kind_(kind) {}
  const char* kind() const override { return kind_; }
  bool aliases_input() const override { return true; }
  Status forward(LayerIO&) const override { return Status::Ok(); }

 private:
  const char* kind_;
};

}  // namespace mdfi
