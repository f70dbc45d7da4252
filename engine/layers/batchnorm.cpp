#include "batchnorm.h"

#include <cmath>
#include <cstring>

#include "conv.h"
#include "../layer_registry.h"

namespace mdfi {

LayerRegistration register_batchnorm() {
  LayerRegistration r;
  r.section = "batchnorm";
  r.keys = "";
  r.doc = "standalone batch-norm: scales, rolling mean and variance";
  r.create = &BatchnormLayer::create;
  return r;
}

void batchnorm_compat(float* x, int channels, size_t spatial, const float* mean, const float* var, const float* scales,
                      Compat compat) {
  if (compat != Compat::kAlexeyAB) {
    batchnorm_inference(x, channels, spatial, mean, var, scales);
    return;
  }
  for (int f = 0; f < channels; ++f) {
    // AlexeyAB's normalize_cpu adds the epsilon in float, then takes a double sqrt.
    const double denom = std::sqrt(double(var[f] + .00001f));
    float* p = x + size_t(f) * spatial;
    for (size_t i = 0; i < spatial; ++i) p[i] = float((p[i] - mean[f]) / denom);
    for (size_t i = 0; i < spatial; ++i) p[i] *= scales[f];
  }
}

LayerResult BatchnormLayer::create(const SectionReader&, const BuildContext& ctx) {
  auto l = std::make_unique<BatchnormLayer>();
  l->in = ctx.input;
  l->out = ctx.input;
  l->compat = ctx.net.compat;
  return LayerResult(std::unique_ptr<Layer>(std::move(l)));
}

std::vector<ParamSegment> BatchnormLayer::param_layout() const {
  const size_t n = size_t(in.c);
  return {{ParamRole::kScale, n, 0}, {ParamRole::kMean, n, 0}, {ParamRole::kVariance, n, 0}};
}

Status BatchnormLayer::forward(LayerIO& io) const {
  // File order: scales, rolling_mean, rolling_variance (Darknet keeps the biases at zero).
  const size_t n = size_t(in.c);
  MDFI_ASSIGN_OR_RETURN(auto p, load_params(io, 0, 3 * n, "batchnorm parameters"));
  std::memcpy(io.output, io.inputs[0], out.bytes());
  batchnorm_compat(io.output, in.c, size_t(in.h) * in.w, p.data() + n, p.data() + 2 * n, p.data(), compat);
  return Status::Ok();
}

}  // namespace mdfi
