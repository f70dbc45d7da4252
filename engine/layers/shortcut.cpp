#include "shortcut.h"

#include <algorithm>
#include <cstring>

#include "route.h"

namespace mdfi {

LayerResult ShortcutLayer::create(const SectionReader& r, const BuildContext& ctx) {
  auto l = std::make_unique<ShortcutLayer>();
  if (!r.has("from")) return LayerResult(ErrorKind::kCfg, r.where() + ": [shortcut] needs from=");
  auto from = r.get_int("from", 0);
  if (!from.ok()) return from.status();
  auto idx = resolve_layer_ref(*from, ctx, r.where("from"), "shortcut from");
  if (!idx.ok()) return idx.status();
  if (ctx.index == 0) return LayerResult(ErrorKind::kCfg, r.where() + ": [shortcut] cannot be the first layer");
  auto alpha = r.get_float("alpha", 1);
  if (!alpha.ok()) return alpha.status();
  auto beta = r.get_float("beta", 1);
  if (!beta.ok()) return beta.status();
  std::string act = r.get_string("activation", "linear");
  if (!parse_activation(act, &l->activation))
    return LayerResult(ErrorKind::kCfg, r.where("activation") + ": unknown activation '" + act +
                                            "' (known: " + activation_names() + ")");
  l->alpha = *alpha;
  l->beta = *beta;
  const Shape add = ctx.built[*idx]->out;
  const Shape prev = ctx.input;
  // Darknet asserts that both axes scale by the same integer factor.
  const int stride = add.w / prev.w, sample = prev.w / add.w;
  const bool same_factor = add.h > 0 && prev.h > 0 && stride == add.h / prev.h && sample == prev.h / add.h;
  if (!same_factor)
    return LayerResult(ErrorKind::kCfg, r.where("from") + ": layer " + std::to_string(ctx.index) +
                                            " shortcut from layer " + std::to_string(*idx) + " (" +
                                            std::to_string(add.w) + "x" + std::to_string(add.h) +
                                            ") cannot be added to " + std::to_string(prev.w) + "x" +
                                            std::to_string(prev.h));
  l->sources = {ctx.index - 1, *idx};
  l->source_shapes = {prev, add};
  l->in = prev;
  l->out = prev;
  return LayerResult(std::unique_ptr<Layer>(std::move(l)));
}

Status ShortcutLayer::forward(LayerIO& io) const {
  const Shape& a = source_shapes[1];  // the "from" layer, added in
  const Shape& o = out;
  std::memcpy(io.output, io.inputs[0], o.bytes());
  int stride = a.w / o.w, sample = o.w / a.w;
  if (stride < 1) stride = 1;
  if (sample < 1) sample = 1;
  const int minw = std::min(a.w, o.w), minh = std::min(a.h, o.h), minc = std::min(a.c, o.c);
  const float* add = io.inputs[1];
  float* out_p = io.output;
  for (int k = 0; k < minc; ++k)
    for (int j = 0; j < minh; ++j)
      for (int i = 0; i < minw; ++i) {
        const size_t oi = size_t(i) * sample + size_t(o.w) * (size_t(j) * sample + size_t(o.h) * k);
        const size_t ai = size_t(i) * stride + size_t(a.w) * (size_t(j) * stride + size_t(a.h) * k);
        out_p[oi] = alpha * out_p[oi] + beta * add[ai];
      }
  activate_array(io.output, o.count(), activation);
  return Status::Ok();
}

}  // namespace mdfi
