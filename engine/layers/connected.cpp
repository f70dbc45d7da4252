#include "connected.h"

#include <algorithm>
#include <cstdio>

#include "../gemm.h"
#include "../kernels/dot.h"
#include "batchnorm.h"
#include "conv.h"

namespace mdfi {

// One streamed block of weight rows: 4 MiB.
static constexpr size_t kBlockFloats = 1024 * 1024;

LayerResult ConnectedLayer::create(const SectionReader& r, const BuildContext& ctx) {
  auto l = std::make_unique<ConnectedLayer>();
  auto outputs = r.require_int("output");
  if (!outputs.ok()) return outputs.status();
  auto bn = r.get_int("batch_normalize", 0);
  if (!bn.ok()) return bn.status();
  std::string act = r.get_string("activation", "logistic");
  if (!parse_activation(act, &l->activation))
    return LayerResult(ErrorKind::kCfg, r.where("activation") + ": unknown activation '" + act +
                                            "' (known: " + activation_names() + ")");
  if (*outputs <= 0) return LayerResult(ErrorKind::kCfg, r.where("output") + ": output must be > 0");
  l->compat = ctx.net.compat;
  l->outputs = *outputs;
  l->batch_normalize = *bn != 0;
  l->in = ctx.input;
  l->out = Shape{l->outputs, 1, 1};
  return LayerResult(std::unique_ptr<Layer>(std::move(l)));
}

std::string ConnectedLayer::detail() const {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%zu -> %d", inputs(), outputs);
  return buf;
}

size_t ConnectedLayer::param_floats() const {
  return size_t(outputs) * (batch_normalize ? 4 : 1) + size_t(outputs) * inputs();
}

std::vector<ParamSegment> ConnectedLayer::param_layout() const {
  const size_t n = size_t(outputs);
  std::vector<ParamSegment> v{{ParamRole::kBias, n, 0}, {ParamRole::kWeight, n * inputs(), inputs()}};
  if (batch_normalize)
    v.insert(v.end(), {{ParamRole::kScale, n, 0}, {ParamRole::kMean, n, 0}, {ParamRole::kVariance, n, 0}});
  return v;
}

int ConnectedLayer::rows_per_block() const {
  return int(std::max<size_t>(1, std::min<size_t>(size_t(outputs), kBlockFloats / std::max<size_t>(1, inputs()))));
}

size_t ConnectedLayer::resident_param_floats() const {
  return size_t(outputs) * (batch_normalize ? 4 : 1) + size_t(rows_per_block()) * inputs();
}

Status ConnectedLayer::forward(LayerIO& io) const {
  if (io.params->transposed())
    return Status(ErrorKind::kUnsupported,
                  "layer " + std::to_string(index) + " [connected]: transposed (major/minor > 1000) weights files are not supported");
  // File order: biases, weights (outputs x inputs), [scales, rolling_mean, rolling_variance].
  const size_t n = size_t(outputs), k = inputs();
  auto bias = load_params(io, 0, n, "connected biases");
  if (!bias.ok()) return bias.status();
  Buffer bn;
  if (batch_normalize) {
    auto b = load_params(io, n + n * k, 3 * n, "connected batch-norm");
    if (!b.ok()) return b.status();
    bn = std::move(*b);
  }
  const int rows = rows_per_block();
  auto block = Buffer::make(*io.mem, size_t(rows) * k, MemCategory::kWeights, "connected weight block");
  if (!block.ok()) return block.status();
  std::fill(io.output, io.output + n, 0.f);
  for (int r0 = 0; r0 < outputs; r0 += rows) {
    const int r1 = std::min(outputs, r0 + rows);
    MDFI_RETURN_IF_ERROR(io.params->read(n + size_t(r0) * k, block->data(), size_t(r1 - r0) * k));
    if (io.fast())
      kernels::gemv_rows(io.inputs[0], block->data(), k, r1 - r0, io.output + r0, io.exec->threads);
    else
      gemm_nt_ref(1, r1 - r0, int(k), io.inputs[0], int(k), block->data(), int(k), io.output + r0, outputs);
  }
  block->reset();
  if (batch_normalize) batchnorm_compat(io.output, outputs, 1, bn.data() + n, bn.data() + 2 * n, bn.data(), compat);
  add_bias(io.output, outputs, 1, bias->data());
  activate_array(io.output, n, activation);
  return Status::Ok();
}

}  // namespace mdfi
