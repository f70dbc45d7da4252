#include "upsample.h"

#include <cstring>

#include "../layer_registry.h"

namespace mdfi {

LayerRegistration register_upsample() {
  LayerRegistration r;
  r.section = "upsample";
  r.keys = "stride, scale";
  r.doc = "nearest-neighbour upsampling";
  r.create = &UpsampleLayer::create;
  return r;
}

LayerResult UpsampleLayer::create(const SectionReader& r, const BuildContext& ctx) {
  auto l = std::make_unique<UpsampleLayer>();
  MDFI_ASSIGN_OR_RETURN(auto stride, r.get_int("stride", 2));
  MDFI_ASSIGN_OR_RETURN(auto scale, r.get_float("scale", 1));
  if (stride == 0) return LayerResult(ErrorKind::kCfg, r.where("stride") + ": upsample stride must not be 0");
  l->reverse = stride < 0;
  l->stride = l->reverse ? -stride : stride;
  l->scale = scale;
  l->in = ctx.input;
  l->out.c = ctx.input.c;
  if (l->reverse) {
    if (ctx.input.w % l->stride || ctx.input.h % l->stride)
      return LayerResult(ErrorKind::kCfg, layer_error(ctx, "upsample", "input " + std::to_string(ctx.input.w) + "x" +
                                                                          std::to_string(ctx.input.h) +
                                                                          " is not divisible by stride " +
                                                                          std::to_string(l->stride)));
    l->out.w = ctx.input.w / l->stride;
    l->out.h = ctx.input.h / l->stride;
  } else {
    if (long(ctx.input.w) * l->stride > 1000000 || long(ctx.input.h) * l->stride > 1000000)
      return LayerResult(ErrorKind::kCfg, layer_error(ctx, "upsample", "output would be absurdly large"));
    l->out.w = ctx.input.w * l->stride;
    l->out.h = ctx.input.h * l->stride;
  }
  return LayerResult(std::unique_ptr<Layer>(std::move(l)));
}

Status UpsampleLayer::forward(LayerIO& io) const {
  if (reverse) {
    // Darknet's backward-direction upsample: each small pixel sums its stride x stride block.
    std::fill(io.output, io.output + out.count(), 0.f);
    for (int k = 0; k < in.c; ++k)
      for (int j = 0; j < in.h; ++j)
        for (int i = 0; i < in.w; ++i)
          io.output[(size_t(k) * out.h + j / stride) * out.w + i / stride] +=
              scale * io.inputs[0][(size_t(k) * in.h + j) * in.w + i];
    return Status::Ok();
  }
  // Each input value is scaled once and written stride times; the output rows after the first of
  // each input row are copies of it (the same products, so the same bits as scale * src[i / stride]
  // per output, without a division per element).
  // Threads split the channels of a large output (pure memory traffic, as route's copies).
  const int threads = io.memory_pass_threads(out.count());
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
  for (int k = 0; k < out.c; ++k)
    for (int j = 0; j < out.h; ++j) {
      float* dst = io.output + (size_t(k) * out.h + j) * out.w;
      if (j % stride != 0) {
        std::memcpy(dst, dst - out.w, size_t(out.w) * sizeof(float));
        continue;
      }
      const float* src = io.inputs[0] + (size_t(k) * in.h + j / stride) * in.w;
      for (int i = 0; i < in.w; ++i) {
        const float v = scale * src[i];
        for (int s = 0; s < stride; ++s) dst[i * stride + s] = v;
      }
    }
  return Status::Ok();
}

}  // namespace mdfi
