#include "local_avgpool.h"

#include <cstdio>

#include "../layer_registry.h"

namespace mdfi {

LayerRegistration register_local_avgpool() {
  LayerRegistration r;
  r.section = "local_avgpool";
  r.aliases = {"local_avg"};
  r.keys = "size, stride, stride_x, stride_y, padding";
  r.doc = "AlexeyAB windowed average pool (taps outside the image not counted)";
  r.alexeyab_section = true;
  r.create = &LocalAvgPoolLayer::create;
  return r;
}

LayerResult LocalAvgPoolLayer::create(const SectionReader& r, const BuildContext& ctx) {
  auto l = std::make_unique<LocalAvgPoolLayer>();
  // AlexeyAB's parse_local_avgpool: the [maxpool] keys, with its defaults.
  auto stride = r.get_int("stride", 1);
  if (!stride.ok()) return stride.status();
  auto stride_x = r.get_int("stride_x", *stride);
  if (!stride_x.ok()) return stride_x.status();
  auto stride_y = r.get_int("stride_y", *stride);
  if (!stride_y.ok()) return stride_y.status();
  auto size = r.get_int("size", *stride);
  if (!size.ok()) return size.status();
  auto padding = r.get_int("padding", *size - 1);
  if (!padding.ok()) return padding.status();
  l->stride_x = *stride_x;
  l->stride_y = *stride_y;
  l->size = *size;
  l->padding = *padding;
  if (l->stride_x <= 0 || l->stride_y <= 0)
    return LayerResult(ErrorKind::kCfg, r.where("stride") + ": stride must be > 0");
  if (l->size <= 0) return LayerResult(ErrorKind::kCfg, r.where("size") + ": size must be > 0");
  // A window starts padding/2 before the image: with padding/2 >= size the first window holds no
  // pixel at all and AlexeyAB divides 0 by 0 there.
  if (l->padding < 0 || l->padding / 2 >= l->size)
    return LayerResult(ErrorKind::kCfg, r.where("padding") + ": padding must be >= 0 and padding/2 < size");
  const Shape in = ctx.input;
  if (in.w + l->padding < l->size || in.h + l->padding < l->size)
    return LayerResult(ErrorKind::kCfg, layer_error(ctx, "local_avgpool", "window larger than its input"));
  l->in = in;
  l->out = Shape{in.c, (in.h + l->padding - l->size) / l->stride_y + 1, (in.w + l->padding - l->size) / l->stride_x + 1};
  return LayerResult(std::unique_ptr<Layer>(std::move(l)));
}

std::string LocalAvgPoolLayer::detail() const {
  char buf[64];
  std::snprintf(buf, sizeof buf, "      %2d x%2d /%2d", size, size, stride_x);
  return buf;
}

Status LocalAvgPoolLayer::forward(LayerIO& io) const {
  const float* x = io.inputs[0];
  const int offset = -padding / 2;
  for (int k = 0; k < out.c; ++k) {
    const float* plane = x + size_t(k) * in.h * in.w;
    for (int i = 0; i < out.h; ++i)
      for (int j = 0; j < out.w; ++j) {
        // Summed in AlexeyAB's order (window rows, then columns) in float.
        float sum = 0;
        int count = 0;
        for (int n = 0; n < size; ++n) {
          const int y = offset + i * stride_y + n;
          if (y < 0 || y >= in.h) continue;
          for (int m = 0; m < size; ++m) {
            const int xx = offset + j * stride_x + m;
            if (xx < 0 || xx >= in.w) continue;
            sum += plane[size_t(y) * in.w + xx];
            ++count;
          }
        }
        io.output[(size_t(k) * out.h + i) * out.w + j] = sum / count;
      }
  }
  return Status::Ok();
}

}  // namespace mdfi
