#include "normalization.h"

#include <cmath>

#include "../layer_registry.h"

namespace mdfi {

LayerRegistration register_normalization() {
  LayerRegistration r;
  r.section = "normalization";
  r.aliases = {"lrn"};
  r.keys = "size, alpha, beta, kappa";
  r.doc = "local response normalisation across channels";
  r.create = &NormalizationLayer::create;
  return r;
}

LayerResult NormalizationLayer::create(const SectionReader& r, const BuildContext& ctx) {
  auto l = std::make_unique<NormalizationLayer>();
  MDFI_ASSIGN_OR_RETURN(auto alpha, r.get_float("alpha", .0001f));
  MDFI_ASSIGN_OR_RETURN(auto beta, r.get_float("beta", .75f));
  MDFI_ASSIGN_OR_RETURN(auto kappa, r.get_float("kappa", 1));
  MDFI_ASSIGN_OR_RETURN(auto size, r.get_int("size", 5));
  l->alpha = alpha;
  l->beta = beta;
  l->kappa = kappa;
  l->size = size;
  if (l->size <= 0) return LayerResult(ErrorKind::kCfg, r.where("size") + ": size must be > 0");
  l->in = ctx.input;
  l->out = ctx.input;
  return LayerResult(std::unique_ptr<Layer>(std::move(l)));
}

Status NormalizationLayer::forward(LayerIO& io) const {
  const size_t hw = size_t(in.w) * in.h;
  const float* x = io.inputs[0];
  MDFI_ASSIGN_OR_RETURN(auto ws, Buffer::make(*io.mem, 2 * in.count(), MemCategory::kWorkspace, "normalization squares and norms"));
  float* squared = ws.data();
  float* norms = ws.data() + in.count();
  for (size_t i = 0; i < in.count(); ++i) squared[i] = float(std::pow(double(x[i]), 2.0));
  // A running window over channels, updated exactly as Darknet's axpy sequence does.
  for (size_t i = 0; i < hw; ++i) norms[i] = kappa;
  for (int k = 0; k < size / 2 && k < in.c; ++k)
    for (size_t i = 0; i < hw; ++i) norms[i] += alpha * squared[size_t(k) * hw + i];
  for (int k = 1; k < in.c; ++k) {
    float* nk = norms + size_t(k) * hw;
    for (size_t i = 0; i < hw; ++i) nk[i] = nk[i - hw];
    const int prev = k - ((size - 1) / 2) - 1;
    const int next = k + size / 2;
    if (prev >= 0)
      for (size_t i = 0; i < hw; ++i) nk[i] += -alpha * squared[size_t(prev) * hw + i];
    if (next < in.c)
      for (size_t i = 0; i < hw; ++i) nk[i] += alpha * squared[size_t(next) * hw + i];
  }
  for (size_t i = 0; i < in.count(); ++i) io.output[i] = float(std::pow(double(norms[i]), double(-beta))) * x[i];
  return Status::Ok();
}

}  // namespace mdfi
