#include "softmax.h"

#include <cfloat>
#include <cmath>

#include "../layer_registry.h"

namespace mdfi {

LayerRegistration register_softmax() {
  LayerRegistration r;
  r.section = "softmax";
  r.aliases = {"soft"};
  r.keys = "groups, temperature";
  r.doc = "softmax over groups of the flattened input (tree refused)";
  r.create = &SoftmaxLayer::create;
  return r;
}

LayerResult SoftmaxLayer::create(const SectionReader& r, const BuildContext& ctx) {
  auto l = std::make_unique<SoftmaxLayer>();
  MDFI_ASSIGN_OR_RETURN(auto groups, r.get_int("groups", 1));
  MDFI_ASSIGN_OR_RETURN(auto temp, r.get_float("temperature", 1));
  if (r.has("tree"))
    return LayerResult(ErrorKind::kUnsupported, r.where("tree") + ": softmax trees (yolo9000/darknet9000) are not supported");
  l->groups = groups;
  l->temperature = temp;
  if (l->groups <= 0 || ctx.input.count() % size_t(l->groups) != 0)
    return LayerResult(ErrorKind::kCfg, r.where("groups") + ": groups=" + std::to_string(l->groups) +
                                            " must divide the input size " + std::to_string(ctx.input.count()));
  if (l->temperature == 0) return LayerResult(ErrorKind::kCfg, r.where("temperature") + ": temperature must not be 0");
  l->in = ctx.input;
  l->out = ctx.input;
  return LayerResult(std::unique_ptr<Layer>(std::move(l)));
}

void softmax_strided(const float* in, int n, float temp, float* out, int stride) {
  float sum = 0;
  float largest = -FLT_MAX;
  for (int i = 0; i < n; ++i)
    if (in[i * stride] > largest) largest = in[i * stride];
  for (int i = 0; i < n; ++i) {
    float e = float(std::exp(double(in[i * stride] / temp - largest / temp)));
    sum += e;
    out[i * stride] = e;
  }
  for (int i = 0; i < n; ++i) out[i * stride] /= sum;
}

Status SoftmaxLayer::forward(LayerIO& io) const {
  const int per = int(in.count() / size_t(groups));
  for (int g = 0; g < groups; ++g) softmax_strided(io.inputs[0] + size_t(g) * per, per, temperature, io.output + size_t(g) * per, 1);
  return Status::Ok();
}

}  // namespace mdfi
