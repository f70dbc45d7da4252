#include "maxpool.h"

#include <algorithm>
#include <cfloat>
#include <cstdio>

namespace mdfi {

LayerResult MaxPoolLayer::create(const SectionReader& r, const BuildContext& ctx) {
  auto l = std::make_unique<MaxPoolLayer>();
  auto stride = r.get_int("stride", 1);
  if (!stride.ok()) return stride.status();
  auto size = r.get_int("size", *stride);
  if (!size.ok()) return size.status();
  auto padding = r.get_int("padding", *size - 1);
  if (!padding.ok()) return padding.status();
  l->stride = *stride;
  l->size = *size;
  l->padding = *padding;
  if (l->stride <= 0) return LayerResult(ErrorKind::kCfg, r.where("stride") + ": stride must be > 0");
  if (l->size <= 0) return LayerResult(ErrorKind::kCfg, r.where("size") + ": size must be > 0");
  if (l->padding < 0) return LayerResult(ErrorKind::kCfg, r.where("padding") + ": padding must be >= 0");
  auto depth = r.get_int("maxpool_depth", 0);
  if (!depth.ok()) return depth.status();
  if (*depth) {
    auto out_channels = r.get_int("out_channels", 1);
    if (!out_channels.ok()) return out_channels.status();
    if (*out_channels <= 0)
      return LayerResult(ErrorKind::kCfg, r.where("out_channels") + ": out_channels must be > 0");
    l->depth = true;
    l->in = ctx.input;
    l->out = Shape{*out_channels, ctx.input.h, ctx.input.w};
    return LayerResult(std::unique_ptr<Layer>(std::move(l)));
  }
  l->in = ctx.input;
  l->out.c = ctx.input.c;
  l->out.w = (ctx.input.w + l->padding - l->size) / l->stride + 1;
  l->out.h = (ctx.input.h + l->padding - l->size) / l->stride + 1;
  if (ctx.input.w + l->padding < l->size || ctx.input.h + l->padding < l->size)
    return LayerResult(ErrorKind::kCfg, layer_error(ctx, "maxpool", "window larger than its input"));
  return LayerResult(std::unique_ptr<Layer>(std::move(l)));
}

std::string MaxPoolLayer::detail() const {
  char buf[64];
  std::snprintf(buf, sizeof buf, "      %2d x%2d /%2d", size, size, stride);
  return buf;
}

Status MaxPoolLayer::forward(LayerIO& io) const {
  const float* x = io.inputs[0];
  if (depth) {
    const size_t plane = size_t(in.w) * in.h;
    for (int g = 0; g < out.c; ++g)
      for (size_t p = 0; p < plane; ++p) {
        float best = -FLT_MAX;
        for (int k = g; k < in.c; k += out.c) best = std::max(best, x[size_t(k) * plane + p]);
        io.output[size_t(g) * plane + p] = best;
      }
    return Status::Ok();
  }
  const int off = -padding / 2;
  for (int k = 0; k < out.c; ++k)
    for (int i = 0; i < out.h; ++i)
      for (int j = 0; j < out.w; ++j) {
        float best = -FLT_MAX;
        for (int n = 0; n < size; ++n)
          for (int m = 0; m < size; ++m) {
            const int y = off + i * stride + n;
            const int xx = off + j * stride + m;
            if (y >= 0 && y < in.h && xx >= 0 && xx < in.w) {
              const float v = x[(size_t(k) * in.h + y) * in.w + xx];
              if (v > best) best = v;
            }
          }
        io.output[(size_t(k) * out.h + i) * out.w + j] = best;
      }
  return Status::Ok();
}

}  // namespace mdfi
