#include "reorg.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "../layer_registry.h"

namespace mdfi {

LayerRegistration register_reorg() {
  LayerRegistration r;
  r.section = "reorg";
  r.keys = "stride, reverse, flatten, extra";
  r.doc = "space-to-depth in Darknet's channel order";
  r.create = &ReorgLayer::create;
  return r;
}

LayerResult ReorgLayer::create(const SectionReader& r, const BuildContext& ctx) {
  auto l = std::make_unique<ReorgLayer>();
  MDFI_ASSIGN_OR_RETURN(auto stride, r.get_int("stride", 1));
  MDFI_ASSIGN_OR_RETURN(auto reverse, r.get_int("reverse", 0));
  MDFI_ASSIGN_OR_RETURN(auto flatten, r.get_int("flatten", 0));
  MDFI_ASSIGN_OR_RETURN(auto extra, r.get_int("extra", 0));
  l->stride = stride;
  l->reverse = reverse != 0;
  l->flatten = flatten != 0;
  l->extra = extra;
  if (l->stride <= 0) return LayerResult(ErrorKind::kCfg, r.where("stride") + ": stride must be > 0");
  if (l->extra < 0) return LayerResult(ErrorKind::kCfg, r.where("extra") + ": extra must be >= 0");
  const Shape in = ctx.input;
  const int s = l->stride;
  l->in = in;
  if (l->extra) {
    // Darknet copies the input and leaves `extra` zeros after it, as a flat vector.
    l->out = Shape{int(in.count()) + l->extra, 1, 1};
  } else if (l->reverse) {
    if (in.c % (s * s) != 0)
      return LayerResult(ErrorKind::kCfg, layer_error(ctx, "reorg", "reverse needs channels (" + std::to_string(in.c) +
                                                                        ") divisible by stride^2"));
    l->out = Shape{in.c / (s * s), in.h * s, in.w * s};
  } else {
    if (in.w % s != 0 || in.h % s != 0)
      return LayerResult(ErrorKind::kCfg, layer_error(ctx, "reorg", "input " + std::to_string(in.w) + "x" +
                                                                        std::to_string(in.h) + " is not divisible by stride " +
                                                                        std::to_string(s)));
    l->out = Shape{in.c * s * s, in.h / s, in.w / s};
  }
  return LayerResult(std::unique_ptr<Layer>(std::move(l)));
}

void reorg_darknet(const float* x, int w, int h, int c, int stride, bool forward, float* out) {
  const int out_c = c / (stride * stride);
  for (int k = 0; k < c; ++k)
    for (int j = 0; j < h; ++j)
      for (int i = 0; i < w; ++i) {
        const size_t in_index = size_t(i) + size_t(w) * (j + size_t(h) * k);
        const int c2 = k % out_c;
        const int offset = k / out_c;
        const int w2 = i * stride + offset % stride;
        const int h2 = j * stride + offset / stride;
        const size_t out_index = size_t(w2) + size_t(w) * stride * (h2 + size_t(h) * stride * c2);
        if (forward)
          out[out_index] = x[in_index];
        else
          out[in_index] = x[out_index];
      }
}

Status ReorgLayer::forward(LayerIO& io) const {
  const float* x = io.inputs[0];
  if (flatten) {  // Darknet tests flatten before extra
    // CHW <-> HWC over the whole tensor; the shape is unchanged.
    const size_t size = size_t(in.w) * in.h, layers = size_t(in.c);
    for (size_t c = 0; c < layers; ++c)
      for (size_t i = 0; i < size; ++i) {
        const size_t chw = c * size + i, hwc = i * layers + c;
        if (reverse)
          io.output[chw] = x[hwc];
        else
          io.output[hwc] = x[chw];
      }
  } else if (extra) {
    std::memcpy(io.output, x, in.bytes());
    std::fill(io.output + in.count(), io.output + out.count(), 0.f);
  } else if (reverse) {
    reorg_darknet(x, in.w, in.h, in.c, stride, true, io.output);
  } else {
    reorg_darknet(x, in.w, in.h, in.c, stride, false, io.output);
  }
  return Status::Ok();
}

}  // namespace mdfi
