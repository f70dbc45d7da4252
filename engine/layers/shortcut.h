// [shortcut]: residual add of an earlier layer onto the previous one, out = alpha*prev +
// beta*from, then an activation. Sources of a different size are subsampled or repeated as
// Darknet's shortcut_cpu does (ResNet-50's projection blocks need it). Under AlexeyAB semantics
// its multi-source, weighted form (weights_type, weights_normalization) instead.
#pragma once

#include "../activation.h"
#include "../layer.h"

namespace mdfi {

class ShortcutLayer : public Layer {
 public:
  static LayerResult create(const SectionReader& r, const BuildContext& ctx);
  const char* kind() const override { return "res"; }
  std::string detail() const override { return "  " + std::to_string(sources[1]); }
  size_t param_floats() const override { return size_t(nweights); }
  std::vector<ParamSegment> param_layout() const override;
  Status forward(LayerIO& io) const override;
  void describe_schedule(SchedNode& node) const override;
  Status forward_rows(RowStep& step) const override;

  float alpha = 1, beta = 1;
  Activation activation = Activation::kLinear;

  // AlexeyAB form: several `from` layers added by flat index (a smaller source only covers the
  // first values), optionally weighted per layer or per channel, the weights normalised by
  // relu or softmax. nweights floats follow in the weights file.
  enum class Weights { kNone, kPerFeature, kPerChannel };
  enum class Normalize { kNone, kRelu, kSoftmax };
  bool alexeyab = false;
  Weights weights_type = Weights::kNone;
  Normalize weights_normalization = Normalize::kNone;
  int nweights = 0;

 private:
  Status forward_alexeyab(LayerIO& io) const;
  void add_planes(LayerIO& io, float a_scale, float b_scale, bool scaled) const;
};

}  // namespace mdfi
