#include "avgpool.h"
#include "../layer_registry.h"

namespace mdfi {

LayerRegistration register_avgpool() {
  LayerRegistration r;
  r.section = "avgpool";
  r.aliases = {"avg"};
  r.keys = "";
  r.doc = "global average pool";
  r.create = &AvgPoolLayer::create;
  return r;
}

LayerResult AvgPoolLayer::create(const SectionReader&, const BuildContext& ctx) {
  auto l = std::make_unique<AvgPoolLayer>();
  l->in = ctx.input;
  l->out = Shape{ctx.input.c, 1, 1};
  return LayerResult(std::unique_ptr<Layer>(std::move(l)));
}

Status AvgPoolLayer::forward(LayerIO& io) const {
  const size_t hw = size_t(in.h) * in.w;
  for (int k = 0; k < in.c; ++k) {
    float sum = 0;
    const float* p = io.inputs[0] + k * hw;
    for (size_t i = 0; i < hw; ++i) sum += p[i];
    io.output[k] = sum / float(hw);
  }
  return Status::Ok();
}

}  // namespace mdfi
