#include "shortcut.h"
#include "row_window.h"
#include "schedule.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>

#include "route.h"
#include "../layer_registry.h"

namespace mdfi {

LayerRegistration register_shortcut() {
  LayerRegistration r;
  r.section = "shortcut";
  r.keys = "from, alpha, beta, activation; AlexeyAB: from list, weights_type, weights_normalization";
  r.doc = "residual add (pjreddie strided form, or AlexeyAB weighted multi-source form)";
  r.alexeyab_keys = {"weights_type", "weights_normalization"};
  r.create = &ShortcutLayer::create;
  return r;
}

static LayerResult create_alexeyab(const SectionReader& r, const BuildContext& ctx) {
  auto l = std::make_unique<ShortcutLayer>();
  l->alexeyab = true;
  MDFI_ASSIGN_OR_RETURN(auto from, r.get_int_list("from"));
  if (from.empty()) return LayerResult(ErrorKind::kCfg, r.where() + ": [shortcut] needs from=");
  std::string act = r.get_string("activation", "linear");
  if (!parse_activation(act, &l->activation))
    return LayerResult(ErrorKind::kCfg, r.where("activation") + ": unknown activation '" + act +
                                            "' (known: " + activation_names() + ")");
  const std::string wt = r.get_string("weights_type", "none");
  if (wt == "per_feature" || wt == "per_layer") l->weights_type = ShortcutLayer::Weights::kPerFeature;
  else if (wt == "per_channel") l->weights_type = ShortcutLayer::Weights::kPerChannel;
  else if (wt != "none")
    return LayerResult(ErrorKind::kCfg, r.where("weights_type") + ": unknown weights_type '" + wt +
                                            "' (known: none, per_feature, per_layer, per_channel)");
  const std::string wn = r.get_string("weights_normalization", "none");
  if (wn == "relu" || wn == "avg_relu") l->weights_normalization = ShortcutLayer::Normalize::kRelu;
  else if (wn == "softmax") l->weights_normalization = ShortcutLayer::Normalize::kSoftmax;
  else if (wn != "none")
    return LayerResult(ErrorKind::kCfg, r.where("weights_normalization") + ": unknown weights_normalization '" + wn +
                                            "' (known: none, relu, softmax)");
  const Shape prev = ctx.input;
  l->sources = {ctx.index - 1};
  l->source_shapes = {prev};
  for (int ref : from) {
    MDFI_ASSIGN_OR_RETURN(auto idx, resolve_layer_ref(ref, ctx, r.where("from"), "shortcut from"));
    l->sources.push_back(idx);
    l->source_shapes.push_back(ctx.built[size_t(idx)]->out);
  }
  const int n = int(from.size());
  if (l->weights_type == ShortcutLayer::Weights::kPerFeature) l->nweights = n + 1;
  if (l->weights_type == ShortcutLayer::Weights::kPerChannel) l->nweights = (n + 1) * prev.c;
  l->in = prev;
  l->out = prev;
  return LayerResult(std::unique_ptr<Layer>(std::move(l)));
}

LayerResult ShortcutLayer::create(const SectionReader& r, const BuildContext& ctx) {
  if (ctx.net.compat == Compat::kAlexeyAB) return create_alexeyab(r, ctx);
  auto l = std::make_unique<ShortcutLayer>();
  if (!r.has("from")) return LayerResult(ErrorKind::kCfg, r.where() + ": [shortcut] needs from=");
  MDFI_ASSIGN_OR_RETURN(auto from, r.get_int("from", 0));
  MDFI_ASSIGN_OR_RETURN(auto idx, resolve_layer_ref(from, ctx, r.where("from"), "shortcut from"));
  if (ctx.index == 0) return LayerResult(ErrorKind::kCfg, r.where() + ": [shortcut] cannot be the first layer");
  MDFI_ASSIGN_OR_RETURN(auto alpha, r.get_float("alpha", 1));
  MDFI_ASSIGN_OR_RETURN(auto beta, r.get_float("beta", 1));
  std::string act = r.get_string("activation", "linear");
  if (!parse_activation(act, &l->activation))
    return LayerResult(ErrorKind::kCfg, r.where("activation") + ": unknown activation '" + act +
                                            "' (known: " + activation_names() + ")");
  l->alpha = alpha;
  l->beta = beta;
  const Shape add = ctx.built[idx]->out;
  const Shape prev = ctx.input;
  // Darknet asserts that both axes scale by the same integer factor.
  const int stride = add.w / prev.w, sample = prev.w / add.w;
  const bool same_factor = add.h > 0 && prev.h > 0 && stride == add.h / prev.h && sample == prev.h / add.h;
  if (!same_factor)
    return LayerResult(ErrorKind::kCfg, r.where("from") + ": layer " + std::to_string(ctx.index) +
                                            " shortcut from layer " + std::to_string(idx) + " (" +
                                            std::to_string(add.w) + "x" + std::to_string(add.h) +
                                            ") cannot be added to " + std::to_string(prev.w) + "x" +
                                            std::to_string(prev.h));
  l->sources = {ctx.index - 1, idx};
  l->source_shapes = {prev, add};
  l->in = prev;
  l->out = prev;
  return LayerResult(std::unique_ptr<Layer>(std::move(l)));
}

std::vector<ParamSegment> ShortcutLayer::param_layout() const {
  if (nweights == 0) return {};
  return {{ParamRole::kWeight, size_t(nweights), sources.size()}};
}

Status ShortcutLayer::forward_alexeyab(LayerIO& io) const {
  const size_t outputs = out.count();
  const int n = int(sources.size()) - 1;
  Buffer weights;
  if (nweights > 0) {
    MDFI_ASSIGN_OR_RETURN(auto w, load_params(io, 0, size_t(nweights), "shortcut weights"));
    weights = std::move(w);
  }
  const float* wts = weights.empty() ? nullptr : weights.data();
  // One weight per source (per_feature) or per source and channel (per_channel).
  const size_t layer_step = nweights ? size_t(nweights) / size_t(n + 1) : 0;
  const size_t step = nweights ? outputs / layer_step : 1;
  if (!wts && n == 1 && source_shapes[1].count() >= outputs) {
    // The plain residual add of Yolo-Fastest and MobileNet: the same sums, in a loop that vectorises.
    add_planes(io, 1.f, 1.f, false);
    return Status::Ok();
  }
  for (size_t id = 0; id < outputs; ++id) {
    float sum = 1, max_val = -FLT_MAX;
    if (wts && weights_normalization != Normalize::kNone) {
      if (weights_normalization == Normalize::kSoftmax)
        for (int i = 0; i <= n; ++i) max_val = std::max(max_val, wts[id / step + size_t(i) * layer_step]);
      sum = 0.0001f;  // AlexeyAB's eps
      for (int i = 0; i <= n; ++i) {
        const float w = wts[id / step + size_t(i) * layer_step];
        sum += weights_normalization == Normalize::kRelu ? std::max(w, 0.f) : std::exp(w - max_val);
      }
    }
    auto weight = [&](int i) {
      float w = wts[id / step + size_t(i) * layer_step];
      if (weights_normalization == Normalize::kRelu) w = std::max(w, 0.f) / sum;
      else if (weights_normalization == Normalize::kSoftmax) w = std::exp(w - max_val) / sum;
      return w;
    };
    float o = wts ? io.inputs[0][id] * weight(0) : io.inputs[0][id];
    for (int i = 0; i < n; ++i) {
      if (id >= source_shapes[size_t(i) + 1].count()) continue;  // smaller sources cover a prefix
      const float add = io.inputs[size_t(i) + 1][id];
      o += wts ? add * weight(i + 1) : add;
    }
    io.output[id] = o;
  }
  activate_array(io.output, outputs, activation);
  return Status::Ok();
}

// out = alpha * prev + beta * from (scaled) or prev + from, then the activation, over equal
// shapes in one pass, threads splitting the channels: the maps are megabytes (YOLOv3's first
// residuals 11 MB each), so the add is bound by memory traffic, and Darknet's copy-then-add made
// two passes over the output. Same expression per value as forward_rows: the same bits.
void ShortcutLayer::add_planes(LayerIO& io, float a_scale, float b_scale, bool scaled) const {
  const float *a = io.inputs[0], *b = io.inputs[1];
  float* o = io.output;
  const size_t plane = size_t(out.h) * size_t(out.w);
  const int threads = io.memory_pass_threads(out.count());
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
  for (int k = 0; k < out.c; ++k) {
    const size_t at = size_t(k) * plane;
    if (scaled)
      for (size_t j = at; j < at + plane; ++j) o[j] = a_scale * a[j] + b_scale * b[j];
    else
      for (size_t j = at; j < at + plane; ++j) o[j] = a[j] + b[j];
    activate_array(o + at, plane, activation);
  }
}

Status ShortcutLayer::forward(LayerIO& io) const {
  if (alexeyab) return forward_alexeyab(io);
  const Shape& a = source_shapes[1];  // the "from" layer, added in
  const Shape& o = out;
  if (a == o) {
    add_planes(io, alpha, beta, true);
    return Status::Ok();
  }
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


// Bands of pjreddie's plain residual add of two equal shapes; AlexeyAB's weighted or multi-source
// forms keep today's path.
// Bands: the two-source add of equal shapes (pjreddie's, or AlexeyAB's without weights: the
// residual of Yolo-Fastest and MobileNet).
void ShortcutLayer::describe_schedule(SchedNode& n) const {
  if ((alexeyab && nweights) || source_shapes.size() != 2 || !(source_shapes[1] == out) || !(source_shapes[0] == out))
    return;
  n.band = SchedNode::Band::kAdd;
}

// Rows of forward for equal shapes: out = alpha * prev + beta * from (AlexeyAB: prev + from, as
// forward_alexeyab's plain loop), then the activation.
Status ShortcutLayer::forward_rows(RowStep& step) const {
  const RowWindow& a = step.inputs[0];
  const RowWindow& b = step.inputs[1];
  const RowWindow& out = step.out;
  const int y0 = step.y0, y1 = step.y1;

  for (int k = 0; k < out.c; ++k)
    for (int i = y0; i < y1; ++i) {
      const float* pa = a.row(k, i);
      const float* pb = b.row(k, i);
      float* o = out.row(k, i);
      if (alexeyab)
        for (int j = 0; j < out.w; ++j) o[j] = pa[j] + pb[j];
      else
        for (int j = 0; j < out.w; ++j) {
          o[j] = pa[j];
          o[j] = alpha * o[j] + beta * pb[j];
        }
      activate_array(o, size_t(out.w), activation);
    }
  return Status::Ok();
}
}  // namespace mdfi
