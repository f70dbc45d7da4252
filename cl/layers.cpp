// Device implementations of the supported layers: which layers run on the device, convolution
// weight preparation into owned buffers or the arena, and each layer's kernel launches.
#include "layers.h"

#include <cstring>

#include "layers/conv.h"
#include "layers/maxpool.h"
#include "layers/route.h"
#include "layers/shortcut.h"
#include "layers/upsample.h"
#include "layers/yolo.h"

namespace mdfi::cl {

// common.cl numbers the activations as the enum does; a new one must be added there too.
static_assert(int(Activation::kGelu) == 18, "cl/kernels/common.cl's ACT_ list must follow mdfi::Activation");

namespace {

// The device kernels, keyed by the kind() of the layer they implement: the one place that says
// which layers run on the device. A new kernel is a row here and a method of DeviceLayers.
struct Kernel {
  const char* kind;
  Status (DeviceLayers::*run)(const Layer&, const std::vector<const DevBuf*>&, const DevBuf&, const ConvWeights*);
  bool (*runs)(const Layer&);  // nullptr: every layer of the kind
  bool conv_weights;           // its parameters are prepared by prepare_conv
};

bool not_reverse(const Layer& l) { return !static_cast<const UpsampleLayer&>(l).reverse; }
// The im2col kernel has no dilation, and the weight stream reads each layer's own range:
// AlexeyAB's dilated and weight-sharing (share_index) convolutions run on the CPU.
bool plain_conv(const Layer& l) {
  const auto& c = static_cast<const ConvLayer&>(l);
  return c.dilation == 1 && c.share_from < 0;
}

// maxpool.cl takes the maximum over a window of one channel, not AlexeyAB's maxpool_depth.
bool spatial_maxpool(const Layer& l) { return !static_cast<const MaxPoolLayer&>(l).depth; }
// shortcut.cl adds one source with pjreddie's rule (alpha, beta, sampling across sizes). AlexeyAB's
// form agrees with it only as the plain residual add: one source of the output's shape, no weights.
bool two_way_shortcut(const Layer& l) {
  const auto& s = static_cast<const ShortcutLayer&>(l);
  return !s.alexeyab || (s.sources.size() == 2 && s.nweights == 0 && s.source_shapes[1] == s.out &&
                         s.alpha == 1 && s.beta == 1);
}

const Kernel kKernels[] = {
    {"conv", &DeviceLayers::conv, &plain_conv, true},
    {"max", &DeviceLayers::maxpool, &spatial_maxpool, false},
    {"upsample", &DeviceLayers::upsample, &not_reverse, false},
    {"route", &DeviceLayers::route, nullptr, false},
    {"res", &DeviceLayers::shortcut, &two_way_shortcut, false},
    {"yolo", &DeviceLayers::yolo, nullptr, false},
};

const Kernel* kernel_for(const Layer& l) {
  for (const Kernel& k : kKernels)
    if (std::strcmp(k.kind, l.kind()) == 0) return (!k.runs || k.runs(l)) ? &k : nullptr;
  return nullptr;
}

}  // namespace

bool DeviceLayers::on_device(const Layer& l) { return kernel_for(l) != nullptr; }

bool DeviceLayers::takes_conv_weights(const Layer& l) {
  const Kernel* k = kernel_for(l);
  return k && k->conv_weights;
}

Status DeviceLayers::ensure(DevBuf& buf, size_t bytes, const char* what) {
  if (buf.bytes() >= bytes) return Status::Ok();
  buf.reset();
  MDFI_ASSIGN_OR_RETURN(auto b, rt_.alloc(bytes, what));
  buf = std::move(b);
  return Status::Ok();
}

Status DeviceLayers::place(ConvWeights& cw, bool own, DevBuf& own_buf, DevBuf& arena, cl_mem* where, size_t bytes,
                           const char* what) {
  if (own) {
    MDFI_ASSIGN_OR_RETURN(auto b, rt_.alloc(bytes, what));
    own_buf = std::move(b);
    *where = own_buf.get();
  } else {
    MDFI_RETURN_IF_ERROR(ensure(arena, bytes, what));
    *where = arena.get();
  }
  cw.bytes += bytes;
  return Status::Ok();
}

Result<ConvWeights> DeviceLayers::prepare_conv(const Layer& layer, const DevBuf& raw, bool own,
                                               const std::vector<cl_event>* ready) {
  const auto& l = static_cast<const ConvLayer&>(layer);
  ConvWeights cw;
  // The kernels' batch-norm form: 0 none, 1 pjreddie, 2 AlexeyAB (see conv.cl's bn_inv).
  const int bn = !l.batch_normalize ? 0 : l.compat == Compat::kAlexeyAB ? 2 : 1;
  const int M = l.filters, K = (l.in.c / l.groups) * l.size * l.size;
  MDFI_RETURN_IF_ERROR(place(cw, own, cw.own_bias, bias_arena_, &cw.bias, size_t(M) * 4, "conv biases"));
  const size_t gm = size_t(M);
  // The first kernel waits for the upload; the in-order queue orders the rest after it.
  MDFI_RETURN_IF_ERROR(rt_.launch("prep_bias", 1, &gm, nullptr, {raw.get(), M, bn, cw.bias}, ready));
  if (l.groups > 1) {
    cw.direct = true;
    MDFI_RETURN_IF_ERROR(place(cw, own, cw.own_w, w_arena_, &cw.w, size_t(M) * K * 4, "conv weights"));
    const size_t g = size_t(M) * K;
    MDFI_RETURN_IF_ERROR(rt_.launch("prep_weights_direct", 1, &g, nullptr, {raw.get(), M, K, bn, cw.w}));
    return cw;
  }
  MDFI_ASSIGN_OR_RETURN(auto plan, tuner_.plan_for(M, l.out.h * l.out.w, K));
  cw.plan = plan;
  MDFI_RETURN_IF_ERROR(place(cw, own, cw.own_w, w_arena_, &cw.w, cw.plan.at_floats() * 4, "conv weights"));
  const size_t g[2] = {size_t(cw.plan.Mp), size_t(cw.plan.Kp)}, lo[2] = {64, 1};
  MDFI_RETURN_IF_ERROR(rt_.launch("prep_weights_t", 2, g, lo, {raw.get(), M, K, bn, cw.plan.Mp, cw.w}));
  return cw;
}

Status DeviceLayers::conv(const Layer& layer, const std::vector<const DevBuf*>& inputs, const DevBuf& out,
                          const ConvWeights* weights) {
  if (!weights) return Status(ErrorKind::kInternal, "conv on the device without prepared weights");
  const auto& l = static_cast<const ConvLayer&>(layer);
  const ConvWeights& w = *weights;
  const DevBuf& in = *inputs[0];
  const int act = int(l.activation);
  if (w.direct) {
    const size_t g[3] = {size_t(l.out.w), size_t(l.out.h), size_t(l.out.c)}, lo[3] = {16, 4, 1};
    return rt_.launch("conv_direct", 3, g, lo,
                      {in.get(), l.in.c, l.in.h, l.in.w, w.w, w.bias, l.filters, l.groups, l.size, l.stride,
                       l.pad, l.out.h, l.out.w, act, out.get()});
  }
  const GemmPlan& p = w.plan;
  cl_mem B = in.get();
  // A 1x1 stride-1 convolution whose input already has the padded shape needs no im2col.
  if (!(l.direct_1x1() && p.Np == p.N && p.Kp == p.K)) {
    MDFI_RETURN_IF_ERROR(ensure(cols_, p.b_floats() * 4, "the im2col matrix"));
    const size_t g[2] = {size_t(p.Np), size_t(p.Kp)}, lo[2] = {64, 1};
    MDFI_RETURN_IF_ERROR(rt_.launch("im2col_pad", 2, g, lo,
                                    {in.get(), l.in.c, l.in.h, l.in.w, l.size, l.stride, l.pad, l.out.w, p.K, p.N, p.Np,
                                     cols_.get()}));
    B = cols_.get();
  }
  if (p.splits > 1) MDFI_RETURN_IF_ERROR(ensure(partial_, p.partial_floats() * 4, "split-K partial sums"));
  return enqueue_gemm(rt_, p, w.w, B, out.get(), w.bias, act, partial_.get());
}

Status DeviceLayers::maxpool(const Layer& layer, const std::vector<const DevBuf*>& inputs, const DevBuf& out,
                             const ConvWeights*) {
  const auto* m = static_cast<const MaxPoolLayer*>(&layer);
  const size_t g[3] = {size_t(m->out.w), size_t(m->out.h), size_t(m->out.c)}, lo[3] = {16, 4, 1};
  return rt_.launch("maxpool", 3, g, lo,
                    {inputs[0]->get(), m->in.h, m->in.w, m->size, m->stride, m->padding, m->out.h, m->out.w, out.get()});
}

Status DeviceLayers::upsample(const Layer& layer, const std::vector<const DevBuf*>& inputs, const DevBuf& out,
                              const ConvWeights*) {
  const auto* u = static_cast<const UpsampleLayer*>(&layer);
  const size_t g[3] = {size_t(u->out.w), size_t(u->out.h), size_t(u->out.c)}, lo[3] = {16, 4, 1};
  return rt_.launch("upsample_nn", 3, g, lo,
                    {inputs[0]->get(), u->in.h, u->in.w, u->stride, u->scale, u->out.h, u->out.w, out.get()});
}

Status DeviceLayers::route(const Layer& layer, const std::vector<const DevBuf*>& inputs, const DevBuf& out,
                           const ConvWeights*) {
  // AlexeyAB's groups/group_id: each source contributes its group_id-th of `groups` equal
  // channel slices (RouteLayer::forward), which is one contiguous range of it in CHW.
  const auto* r = static_cast<const RouteLayer*>(&layer);
  size_t off = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const size_t bytes = layer.source_shapes[i].bytes() / size_t(r->groups);
    MDFI_RETURN_IF_ERROR(rt_.copy(*inputs[i], bytes * size_t(r->group_id), out, off, bytes));
    off += bytes;
  }
  if (off != layer.out.bytes())
    return Status(ErrorKind::kInternal, "route on the device: sources give " + std::to_string(off) + " bytes for an output of " +
                                            std::to_string(layer.out.bytes()));
  return Status::Ok();
}

Status DeviceLayers::shortcut(const Layer& layer, const std::vector<const DevBuf*>& inputs, const DevBuf& out,
                              const ConvWeights*) {
  const auto* s = static_cast<const ShortcutLayer*>(&layer);
  const Shape& o = s->out;
  const Shape& a = s->source_shapes[1];
  const size_t g = o.count(), lo = 256;
  return rt_.launch("shortcut", 1, &g, &lo,
                    {inputs[0]->get(), inputs[1]->get(), o.c, o.h, o.w, a.c, a.h, a.w, s->alpha, s->beta,
                     int(s->activation), out.get()});
}

Status DeviceLayers::yolo(const Layer& layer, const std::vector<const DevBuf*>& inputs, const DevBuf& out,
                          const ConvWeights*) {
  const auto* y = static_cast<const YoloLayer*>(&layer);
  const size_t g = y->out.count(), lo = 256;
  // The same float bias and shift rule as YoloLayer::forward.
  const float bias = float(-0.5 * (double(y->scale_x_y) - 1));
  const int shift = y->scale_x_y != 1 || y->new_coords;
  return rt_.launch("yolo_logistic", 1, &g, &lo,
                    {inputs[0]->get(), y->out.h * y->out.w, y->classes, y->n(), y->scale_x_y, bias, shift,
                     int(y->new_coords), out.get()});
}

Status DeviceLayers::forward(const Layer& layer, const std::vector<const DevBuf*>& inputs, const DevBuf& out,
                             const ConvWeights* w) {
  const Kernel* k = kernel_for(layer);
  if (!k) return Status(ErrorKind::kInternal, std::string("no device kernel for layer type ") + layer.kind());
  return (this->*(k->run))(layer, inputs, out, w);
}

}  // namespace mdfi::cl
