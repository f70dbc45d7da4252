#include "conv.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "gemm.h"
#include "im2col.h"
#include "../kernels/conv_direct.h"
#include "../kernels/sgemm.h"
#include "batchnorm.h"
#include "../layer_registry.h"

namespace mdfi {

LayerRegistration register_conv() {
  LayerRegistration r;
  r.section = "convolutional";
  r.aliases = {"conv"};
  r.keys = "filters, size, stride, pad, padding, groups, batch_normalize, activation; AlexeyAB: dilation, share_index";
  r.doc = "grouped (and dilated) conv, batch-norm with the compat's epsilon, bias, activation; share_index: an earlier conv's weights";
  r.alexeyab_keys = {"antialiasing", "dilation", "stride_x", "stride_y", "share_index"};
  r.ignored = {"binary", "xnor", "flipped", "dot", "stopbackward", "train", "learning_rate"};
  r.create = &ConvLayer::create;
  return r;
}

LayerResult ConvLayer::create(const SectionReader& r, const BuildContext& ctx) {
  auto l = std::make_unique<ConvLayer>();
  MDFI_ASSIGN_OR_RETURN(auto filters, r.require_int("filters"));
  MDFI_ASSIGN_OR_RETURN(auto size, r.get_int("size", 1));
  MDFI_ASSIGN_OR_RETURN(auto stride, r.get_int("stride", 1));
  MDFI_ASSIGN_OR_RETURN(auto pad, r.get_int("pad", 0));
  MDFI_ASSIGN_OR_RETURN(auto padding, r.get_int("padding", 0));
  MDFI_ASSIGN_OR_RETURN(auto groups, r.get_int("groups", 1));
  MDFI_ASSIGN_OR_RETURN(auto bn, r.get_int("batch_normalize", 0));
  std::string act = r.get_string("activation", "logistic");
  MDFI_ASSIGN_OR_RETURN(auto dilation, r.get_int("dilation", 1));          // AlexeyAB
  MDFI_ASSIGN_OR_RETURN(auto share, r.get_int("share_index", -1000000000));  // AlexeyAB's "absent"
  // AlexeyAB keys that would change the result: refused rather than silently ignored.
  for (const char* k : {"stride_x", "stride_y", "antialiasing", "deform", "assisted_excitation"}) {
    if (!r.has(k)) continue;
    MDFI_ASSIGN_OR_RETURN(auto v, r.get_int(k, 0));
    const bool harmless = ((std::strcmp(k, "stride_x") == 0 || std::strcmp(k, "stride_y") == 0) && v == stride) ||
                          (std::strcmp(k, "stride_x") != 0 && std::strcmp(k, "stride_y") != 0 && v == 0);
    if (!harmless)
      return LayerResult(ErrorKind::kUnsupported, r.where(k) + ": [convolutional] " + k + "=" + std::to_string(v) +
                                                      " (AlexeyAB) is not supported");
  }

  l->compat = ctx.net.compat;
  l->filters = filters;
  l->size = size;
  l->stride = stride;
  l->groups = groups;
  l->batch_normalize = bn != 0;
  // Darknet: pad=1 means "same" padding of size/2 and overrides padding=.
  l->pad = pad ? l->size / 2 : padding;
  // AlexeyAB: a 1x1 kernel ignores dilation.
  l->dilation = l->size == 1 ? 1 : dilation;
  if (l->dilation <= 0) return LayerResult(ErrorKind::kCfg, r.where("dilation") + ": dilation must be > 0");
  if (!parse_activation(act, &l->activation))
    return LayerResult(ErrorKind::kCfg, r.where("activation") + ": unknown activation '" + act +
                                            "' (known: " + activation_names() + ")");
  if (l->filters <= 0) return LayerResult(ErrorKind::kCfg, r.where("filters") + ": filters must be > 0");
  if (l->size <= 0) return LayerResult(ErrorKind::kCfg, r.where("size") + ": size must be > 0");
  if (l->stride <= 0) return LayerResult(ErrorKind::kCfg, r.where("stride") + ": stride must be > 0");
  if (l->pad < 0) return LayerResult(ErrorKind::kCfg, r.where("padding") + ": padding must be >= 0");
  if (l->groups <= 0 || ctx.input.c % l->groups != 0 || l->filters % l->groups != 0)
    return LayerResult(ErrorKind::kCfg, r.where("groups") + ": groups=" + std::to_string(l->groups) +
                                            " must divide both input channels (" + std::to_string(ctx.input.c) +
                                            ") and filters (" + std::to_string(l->filters) + ")");
  l->in = ctx.input;
  l->out.c = l->filters;
  l->out.h = (ctx.input.h + 2 * l->pad - l->size) / l->stride + 1;
  l->out.w = (ctx.input.w + 2 * l->pad - l->size) / l->stride + 1;
  if (ctx.input.h + 2 * l->pad < l->size || ctx.input.w + 2 * l->pad < l->size || l->out.h <= 0 || l->out.w <= 0)
    return LayerResult(ErrorKind::kCfg, layer_error(ctx, "conv", "kernel " + std::to_string(l->size) +
                                                                     " larger than its padded input " +
                                                                     std::to_string(ctx.input.w) + "x" +
                                                                     std::to_string(ctx.input.h)));
  if (l->dilation > 1) {
    // AlexeyAB sizes the output without the dilation but runs im2col with the dilated kernel and
    // pad*dilation: the two agree for "same" padding (pad=1, odd size), not in general, and where
    // they disagree its result is misaligned. mdfi computes the agreeing cases only.
    const int span = l->dilation * (l->size - 1) + 1, p = l->pad * l->dilation;
    const int oh = (ctx.input.h + 2 * p - span) / l->stride + 1, ow = (ctx.input.w + 2 * p - span) / l->stride + 1;
    if (ctx.input.h + 2 * p < span || ctx.input.w + 2 * p < span || oh != l->out.h || ow != l->out.w)
      return LayerResult(ErrorKind::kUnsupported,
                         r.where("dilation") + ": dilation=" + std::to_string(l->dilation) + " with size=" +
                             std::to_string(l->size) + " and padding " + std::to_string(l->pad) +
                             " is not supported (AlexeyAB's output size and its dilated im2col disagree; use pad=1)");
  }
  if (share != -1000000000) {
    // AlexeyAB: share_index >= 0 is a layer index, a negative one relative to this layer.
    const int from = share >= 0 ? share : ctx.index + share;
    const ConvLayer* src = from >= 0 && from < ctx.index && std::strcmp(ctx.built[size_t(from)]->kind(), "conv") == 0
                               ? static_cast<const ConvLayer*>(ctx.built[size_t(from)].get())
                               : nullptr;
    if (!src)
      return LayerResult(ErrorKind::kCfg, r.where("share_index") + ": share_index=" + std::to_string(share) +
                                              " must name an earlier [convolutional] layer");
    if (src->share_from >= 0) src = static_cast<const ConvLayer*>(ctx.built[size_t(src->share_from)].get());
    if (src->size != l->size || src->filters != l->filters || src->in.c != ctx.input.c || src->groups != l->groups)
      return LayerResult(ErrorKind::kCfg, r.where("share_index") + ": layer " + std::to_string(src->index) +
                                              " shared by share_index has another size, filters, channels or groups");
    l->share_from = src->index;
    // Its weights come fused with its own batch-norm (AlexeyAB's fuse_conv_batchnorm turns this
    // layer's batch_normalize off): the source's flag is what is computed.
    l->batch_normalize = src->batch_normalize;
  }
  // Darknet would try to allocate whatever the cfg asks; a layer of more than 2^31 weights (8 GB)
  // is a typo or a hostile file, and its sizes would overflow the int arithmetic of the kernels.
  // (In double: the product of four ints overflows even 64 bits.)
  const double weights = double(ctx.input.c / l->groups) * l->size * l->size * l->filters;
  if (weights > double(int64_t(1) << 31)) {
    char count[32];
    std::snprintf(count, sizeof count, "%.3g", weights);
    return LayerResult(ErrorKind::kCfg, layer_error(ctx, "conv", std::to_string(l->filters) + " filters of " +
                                                                     std::to_string(l->size) + "x" + std::to_string(l->size) +
                                                                     " need " + count + " weights, over the limit of 2^31 per layer"));
  }
  return LayerResult(std::unique_ptr<Layer>(std::move(l)));
}

std::string ConvLayer::detail() const {
  char buf[64];
  if (groups > 1)
    std::snprintf(buf, sizeof buf, "%5d %2d x%2d /%2d g%d", filters, size, size, stride, groups);
  else
    std::snprintf(buf, sizeof buf, "%5d %2d x%2d /%2d", filters, size, size, stride);
  if (dilation > 1) return std::string(buf) + " d" + std::to_string(dilation);
  return buf;
}

size_t ConvLayer::param_floats() const { return share_from >= 0 ? 0 : own_param_floats(); }

std::vector<ParamSegment> ConvLayer::param_layout() const {
  if (share_from >= 0) return {};
  const size_t n = size_t(filters), fan_in = size_t(in.c / groups) * size * size;
  std::vector<ParamSegment> v{{ParamRole::kBias, n, 0}};
  if (batch_normalize)
    v.insert(v.end(), {{ParamRole::kScale, n, 0}, {ParamRole::kMean, n, 0}, {ParamRole::kVariance, n, 0}});
  v.push_back({ParamRole::kWeight, weight_floats(), fan_in});
  return v;
}

// The reference path's im2col tile gets the same scratch as the fast path's packed block, so
// the plan (made for the default fast path) bounds both; only depthwise layers differ (the fast
// direct kernel needs none, the reference path's tile is not planned).
int ConvLayer::tile_columns() const {
  const size_t n = size_t(out.h) * out.w;
  const size_t k = size_t(in.c / groups) * size * size;
  const size_t budget = kernels::sgemm_workspace_floats(int(k), int(n), kernels::planned_threads());
  return int(std::min(n, std::max<size_t>(1, budget / k)));
}

// im2col + SGEMM packs the whole im2col matrix once, as one weight block of all the filters
// would; direct_pays weighs that against the lanes the direct kernel computes in vain. Measured
// (1 thread, AVX-512, the 2-core EPYC VM): yolov3-tiny's 3 -> 16 layer 1.70-1.77 ms by im2col,
// 1.43-1.49 direct (2 threads: 0.99 and 0.84); Tiny Darknet's 3 -> 16 layer 0.50-0.52 and
// 0.39-0.42; yolov3's 3 -> 32 layer 2.74-2.84 either way.
bool ConvLayer::direct_whole() const {
  // Winograd candidates stay off it even when the choice left them on the GEMM path: that choice
  // (conv_choice.cpp) weighs Winograd's memory against the GEMM's workspace.
  if (winograd || winograd_candidate() || groups != 1 || depthwise() || direct_1x1()) return false;
  const kernels::KernelInfo& kern = kernels::active_kernel();
  return kernels::direct_suits(kern, size, stride, dilation, pad) &&
         kernels::direct_pays(kern.direct_lanes, size, out.w, filters, filters);
}

size_t ConvLayer::workspace_floats() const {
  if (winograd) return winograd_workspace_floats();
  if (depthwise() || direct_whole()) return 0;
  return kernels::sgemm_workspace_floats((in.c / groups) * size * size, out.h * out.w, kernels::planned_threads());
}

// The reference path never runs Winograd (the planner is told so), so a Winograd layer needs only
// what its own way holds, which may be less than the raw weights.
size_t ConvLayer::resident_param_floats() const {
  if (winograd) return winograd_weight_floats();
  return std::max(own_param_floats(), fast_resident_param_floats());
}

double ConvLayer::flops() const {
  return 2.0 * filters * size * size * (in.c / groups) * double(out.h) * out.w;
}

void batchnorm_inference(float* x, int channels, size_t spatial, const float* mean, const float* var,
                         const float* scales) {
  for (int f = 0; f < channels; ++f) {
    // Same mixed float/double evaluation as Darknet's normalize_cpu, for bit-exact parity.
    const double denom = std::sqrt(double(var[f])) + double(.000001f);
    float* p = x + size_t(f) * spatial;
    for (size_t i = 0; i < spatial; ++i) p[i] = float((p[i] - mean[f]) / denom);
    for (size_t i = 0; i < spatial; ++i) p[i] *= scales[f];
  }
}

void add_bias(float* x, int channels, size_t spatial, const float* bias) {
  for (int f = 0; f < channels; ++f) {
    float* p = x + size_t(f) * spatial;
    for (size_t i = 0; i < spatial; ++i) p[i] += bias[f];
  }
}

Status ConvLayer::forward(LayerIO& io) const {
  if (io.fast()) return forward_fast(io);
  // File order: biases, [scales, rolling_mean, rolling_variance], weights.
  const size_t n = size_t(filters);
  MDFI_ASSIGN_OR_RETURN(auto head, load_params(io, 0, n * (batch_normalize ? 4 : 1), "conv biases"));
  MDFI_ASSIGN_OR_RETURN(auto weights, load_params(io, n * (batch_normalize ? 4 : 1), weight_floats(), "conv weights"));

  const int M = filters / groups;
  const int N = out.h * out.w;
  const int K = (in.c / groups) * size * size;
  const float* input = io.inputs[0];
  std::fill(io.output, io.output + out.count(), 0.f);

  if (direct_1x1()) {
    for (int g = 0; g < groups; ++g)
      gemm_nn_ref(M, N, K, weights.data() + size_t(g) * M * K, K, input + size_t(g) * K * N, N,
                  io.output + size_t(g) * M * N, N);
  } else {
    const int tile = tile_columns();
    MDFI_ASSIGN_OR_RETURN(auto ws, Buffer::make(*io.mem, size_t(K) * tile, MemCategory::kWorkspace, "im2col tile"));
    const int cpg = in.c / groups;
    for (int g = 0; g < groups; ++g) {
      const float* im = input + size_t(g) * cpg * in.h * in.w;
      for (int c0 = 0; c0 < N; c0 += tile) {
        const int c1 = std::min(N, c0 + tile);
        im2col_tile(im, cpg, in.h, in.w, size, stride, pad * dilation, c0, c1, ws.data(), dilation);
        gemm_nn_ref(M, c1 - c0, K, weights.data() + size_t(g) * M * K, K, ws.data(), c1 - c0,
                    io.output + size_t(g) * M * N + c0, N);
      }
    }
  }
  weights.reset();
  const float* biases = head.data();
  if (batch_normalize)
    batchnorm_compat(io.output, filters, size_t(N), head.data() + 2 * n, head.data() + 3 * n, head.data() + n,
                     compat);
  add_bias(io.output, filters, size_t(N), biases);
  activate_array(io.output, out.count(), activation);
  return Status::Ok();
}

}  // namespace mdfi
