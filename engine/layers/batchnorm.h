// [batchnorm]: batch normalisation as a layer of its own (pjreddie Darknet's inference form:
// scales, rolling mean and variance, no bias), plus the per-compat batch-norm formula that conv
// and connected layers share. pjreddie divides by sqrt(var) + 1e-6, AlexeyAB by sqrt(var + 1e-5);
// the difference is visible on channels with tiny variance, so each network uses its own.
#pragma once

#include "../layer.h"

namespace mdfi {

// x = (x - mean) / denom * scale, per channel, with the compat's denominator and float/double mix.
void batchnorm_compat(float* x, int channels, size_t spatial, const float* mean, const float* var, const float* scales,
                      Compat compat);

class BatchnormLayer : public Layer {
 public:
  static LayerResult create(const SectionReader& r, const BuildContext& ctx);
  const char* kind() const override { return "batchnorm"; }
  size_t param_floats() const override { return 3 * size_t(in.c); }
  std::vector<ParamSegment> param_layout() const override;
  Status forward(LayerIO& io) const override;

  Compat compat = Compat::kPjreddie;
};

}  // namespace mdfi
