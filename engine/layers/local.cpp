#include "local.h"

#include <cstdio>
#include <cstring>

#include "im2col.h"
#include "../layer_registry.h"

namespace mdfi {

LayerRegistration register_local() {
  LayerRegistration r;
  r.section = "local";
  r.keys = "filters, size, stride, pad, activation";
  r.doc = "locally connected layer (unshared filters)";
  r.create = &LocalLayer::create;
  return r;
}

LayerResult LocalLayer::create(const SectionReader& r, const BuildContext& ctx) {
  auto l = std::make_unique<LocalLayer>();
  MDFI_ASSIGN_OR_RETURN(auto filters, r.require_int("filters"));
  MDFI_ASSIGN_OR_RETURN(auto size, r.get_int("size", 1));
  MDFI_ASSIGN_OR_RETURN(auto stride, r.get_int("stride", 1));
  MDFI_ASSIGN_OR_RETURN(auto pad, r.get_int("pad", 0));
  std::string act = r.get_string("activation", "logistic");
  if (!parse_activation(act, &l->activation))
    return LayerResult(ErrorKind::kCfg, r.where("activation") + ": unknown activation '" + act +
                                            "' (known: " + activation_names() + ")");
  l->filters = filters;
  l->size = size;
  l->stride = stride;
  l->pad = pad;
  if (l->filters <= 0 || l->size <= 0 || l->stride <= 0 || l->pad < 0)
    return LayerResult(ErrorKind::kCfg, r.where() + ": [local] needs filters, size, stride > 0 and pad >= 0");
  const Shape in = ctx.input;
  // Darknet's local_out_height: pad only shrinks the kernel's reach by one, whatever its value.
  const int oh = (l->pad ? in.h - 1 : in.h - l->size) / l->stride + 1;
  const int ow = (l->pad ? in.w - 1 : in.w - l->size) / l->stride + 1;
  // ...while its im2col pads by `pad`; the two must agree or Darknet reads out of bounds.
  const int ih = (in.h + 2 * l->pad - l->size) / l->stride + 1;
  const int iw = (in.w + 2 * l->pad - l->size) / l->stride + 1;
  if (oh <= 0 || ow <= 0 || oh != ih || ow != iw)
    return LayerResult(ErrorKind::kUnsupported,
                       layer_error(ctx, "local", "size=" + std::to_string(l->size) + " pad=" + std::to_string(l->pad) +
                                                     " stride=" + std::to_string(l->stride) + " on " +
                                                     std::to_string(in.w) + "x" + std::to_string(in.h) +
                                                     " gives inconsistent output sizes in Darknet (use pad=size/2)"));
  l->in = in;
  l->out = Shape{l->filters, oh, ow};
  return LayerResult(std::unique_ptr<Layer>(std::move(l)));
}

std::string LocalLayer::detail() const {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%5d %2d x%2d /%2d", filters, size, size, stride);
  return buf;
}

std::vector<ParamSegment> LocalLayer::param_layout() const {
  return {{ParamRole::kBias, out.count(), 0},
          {ParamRole::kWeight, weight_floats(), size_t(in.c) * size * size}};
}

Status LocalLayer::forward(LayerIO& io) const {
  // File order: one bias per output value, then per location a filters x k matrix.
  MDFI_ASSIGN_OR_RETURN(auto bias, load_params(io, 0, out.count(), "local biases"));
  std::memcpy(io.output, bias.data(), out.bytes());
  bias.reset();
  const size_t L = locations();
  const size_t k = size_t(in.c) * size * size;
  MDFI_ASSIGN_OR_RETURN(auto cols, Buffer::make(*io.mem, k * L, MemCategory::kWorkspace, "local im2col"));
  im2col_tile(io.inputs[0], in.c, in.h, in.w, size, stride, pad, 0, int(L), cols.data());
  // One location's matrix at a time keeps the resident weights to filters*k floats.
  MDFI_ASSIGN_OR_RETURN(auto a, Buffer::make(*io.mem, size_t(filters) * k, MemCategory::kWeights, "local weights (one location)"));
  for (size_t j = 0; j < L; ++j) {
    MDFI_RETURN_IF_ERROR(io.params->read(out.count() + j * filters * k, a.data(), size_t(filters) * k));
    for (int f = 0; f < filters; ++f) {
      const float* w = a.data() + size_t(f) * k;
      float& o = io.output[size_t(f) * L + j];  // accumulated in place, in Darknet's order
      for (size_t p = 0; p < k; ++p) o += w[p] * cols.data()[p * L + j];
    }
  }
  activate_array(io.output, out.count(), activation);
  return Status::Ok();
}

}  // namespace mdfi
