#include "crnn.h"

#include <algorithm>
#include <cstdio>

#include "../layer_registry.h"

namespace mdfi {

LayerRegistration register_crnn() {
  LayerRegistration r;
  r.section = "crnn";
  r.keys = "output, hidden, size, stride, pad, padding, dilation, groups, batch_normalize, activation, shortcut";
  r.doc = "convolutional RNN, one step from a zero state (each image is a first frame)";
  r.create = &CrnnLayer::create;
  return r;
}
namespace {

// One sub-convolution's view of the layer's parameter range.
class OffsetParams : public ParamSource {
 public:
  OffsetParams(ParamSource& base, size_t offset) : base_(base), offset_(offset) {}
  Status read(size_t offset_floats, float* dst, size_t count) override {
    return base_.read(offset_ + offset_floats, dst, count);
  }
  bool transposed() const override { return base_.transposed(); }

 private:
  ParamSource& base_;
  size_t offset_;
};

std::unique_ptr<ConvLayer> make_conv(const ConvLayer& proto, Shape in, int filters) {
  auto c = std::make_unique<ConvLayer>(proto);
  c->filters = filters;
  c->in = in;
  c->out = Shape{filters, (in.h + 2 * c->pad - c->size) / c->stride + 1, (in.w + 2 * c->pad - c->size) / c->stride + 1};
  return c;
}

}  // namespace

LayerResult CrnnLayer::create(const SectionReader& r, const BuildContext& ctx) {
  auto size = r.get_int("size", 3);
  if (!size.ok()) return size.status();
  auto stride = r.get_int("stride", 1);
  if (!stride.ok()) return stride.status();
  auto dilation = r.get_int("dilation", 1);
  if (!dilation.ok()) return dilation.status();
  auto pad = r.get_int("pad", 0);
  if (!pad.ok()) return pad.status();
  auto padding = r.get_int("padding", 0);
  if (!padding.ok()) return padding.status();
  auto output = r.get_int("output", 1);
  if (!output.ok()) return output.status();
  auto hidden = r.get_int("hidden", 1);
  if (!hidden.ok()) return hidden.status();
  auto groups = r.get_int("groups", 1);
  if (!groups.ok()) return groups.status();
  auto bn = r.get_int("batch_normalize", 0);
  if (!bn.ok()) return bn.status();
  auto shortcut = r.get_int("shortcut", 0);
  if (!shortcut.ok()) return shortcut.status();
  auto xnor = r.get_int("xnor", 0);
  if (!xnor.ok()) return xnor.status();
  const std::string act = r.get_string("activation", "logistic");
  if (*xnor) return LayerResult(ErrorKind::kUnsupported, r.where("xnor") + ": [crnn] xnor=1 is not supported");

  ConvLayer proto;
  proto.compat = ctx.net.compat;
  proto.size = *size;
  proto.stride = *stride;
  proto.pad = *pad ? *size / 2 : *padding;
  proto.groups = *groups;
  proto.batch_normalize = *bn != 0;
  proto.dilation = *size == 1 ? 1 : *dilation;
  if (!parse_activation(act, &proto.activation))
    return LayerResult(ErrorKind::kCfg, r.where("activation") + ": unknown activation '" + act +
                                            "' (known: " + activation_names() + ")");
  if (proto.size <= 0 || proto.stride <= 0 || proto.pad < 0 || proto.dilation <= 0)
    return LayerResult(ErrorKind::kCfg, r.where("size") + ": [crnn] needs size, stride, dilation > 0 and padding >= 0");
  if (*output <= 0 || *hidden <= 0 || *output > 65536 || *hidden > 65536)
    return LayerResult(ErrorKind::kCfg, r.where("hidden") + ": [crnn] output and hidden must be 1..65536");
  const Shape in = ctx.input;
  if (proto.groups <= 0 || in.c % proto.groups || *hidden % proto.groups || *output % proto.groups)
    return LayerResult(ErrorKind::kCfg, r.where("groups") + ": groups=" + std::to_string(proto.groups) +
                                            " must divide the input channels, hidden and output");
  // The state is added to the input convolution's output and fed back through convolutions of
  // the input's size (AlexeyAB asserts the sizes agree): only size-preserving ones fit.
  const int span = proto.dilation * (proto.size - 1) + 1, p = proto.pad * proto.dilation;
  if (proto.stride != 1 || in.h + 2 * p - span + 1 != in.h || in.w + 2 * p - span + 1 != in.w ||
      in.h + 2 * proto.pad - proto.size + 1 != in.h)
    return LayerResult(ErrorKind::kCfg, layer_error(ctx, "crnn", "its convolutions must keep the input size "
                                                                 "(stride=1 and pad=1 with an odd size)"));
  auto l = std::make_unique<CrnnLayer>();
  l->shortcut = *shortcut != 0;
  l->input_conv = make_conv(proto, in, *hidden);
  l->self_conv = make_conv(proto, Shape{*hidden, in.h, in.w}, *hidden);
  l->output_conv = make_conv(proto, Shape{*hidden, in.h, in.w}, *output);
  l->in = in;
  l->out = l->output_conv->out;
  return LayerResult(std::unique_ptr<Layer>(std::move(l)));
}

std::string CrnnLayer::detail() const {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%5d %2d x%2d /%2d h%d", out.c, input_conv->size, input_conv->size, input_conv->stride,
                input_conv->filters);
  return buf;
}

size_t CrnnLayer::param_floats() const {
  return input_conv->param_floats() + self_conv->param_floats() + output_conv->param_floats();
}

// One sub-convolution's parameters at a time.
size_t CrnnLayer::resident_param_floats() const {
  return std::max({input_conv->resident_param_floats(), self_conv->resident_param_floats(),
                   output_conv->resident_param_floats()});
}

// Two hidden-state planes (the input convolution's output and the state) beside the largest
// sub-convolution's own scratch.
size_t CrnnLayer::workspace_floats() const {
  return 2 * input_conv->out.count() +
         std::max({input_conv->workspace_floats(), self_conv->workspace_floats(), output_conv->workspace_floats()});
}

std::vector<ParamSegment> CrnnLayer::param_layout() const {
  std::vector<ParamSegment> v;
  for (const ConvLayer* c : {input_conv.get(), self_conv.get(), output_conv.get()}) {
    const auto part = c->param_layout();
    v.insert(v.end(), part.begin(), part.end());
  }
  return v;
}

double CrnnLayer::flops() const { return input_conv->flops() + self_conv->flops() + output_conv->flops(); }

Status CrnnLayer::forward(LayerIO& io) const {
  const size_t hidden = input_conv->out.count();
  auto x_out = Buffer::make(*io.mem, hidden, MemCategory::kWorkspace, "crnn input conv output");
  if (!x_out.ok()) return x_out.status();
  auto state = Buffer::make(*io.mem, hidden, MemCategory::kWorkspace, "crnn state");
  if (!state.ok()) return state.status();
  // --keep-weights keys prepared weights by layer index: the sub-convolutions stream theirs.
  ExecOptions sub_exec;
  if (io.exec) sub_exec = *io.exec;
  sub_exec.resident = nullptr;
  size_t offset = 0;
  auto run = [&](const ConvLayer& c, const float* in, float* out) -> Status {
    OffsetParams params(*io.params, offset);
    offset += c.param_floats();
    LayerIO sub;
    sub.inputs = {in};
    sub.output = out;
    sub.params = &params;
    sub.mem = io.mem;
    sub.exec = io.exec ? &sub_exec : nullptr;
    return c.forward(sub);
  };
  // The self convolution of the zero first-frame state goes first (its input buffer is then
  // free for the input convolution's output), in the file order of the weights nonetheless.
  const size_t self_at = input_conv->param_floats();
  std::fill(x_out->data(), x_out->data() + hidden, 0.f);
  offset = self_at;
  MDFI_RETURN_IF_ERROR(run(*self_conv, x_out->data(), state->data()));
  offset = 0;
  MDFI_RETURN_IF_ERROR(run(*input_conv, io.inputs[0], x_out->data()));
  // Darknet: new state = (shortcut ? old state : 0) + input conv + self conv; the old state is 0.
  // Summed in its order: 0 + input, then + self.
  for (size_t i = 0; i < hidden; ++i) state->data()[i] = x_out->data()[i] + state->data()[i];
  x_out->reset();
  offset = self_at + self_conv->param_floats();
  return run(*output_conv, state->data(), io.output);
}

}  // namespace mdfi
