#include "connected.h"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "gemm.h"
#include "../kernels/dot.h"
#include "../kernels/sgemm.h"
#include "resident_weights.h"
#include "schedule.h"
#include "batchnorm.h"
#include "conv.h"

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "../layer_registry.h"

namespace mdfi {

LayerRegistration register_connected() {
  LayerRegistration r;
  r.section = "connected";
  r.aliases = {"conn"};
  r.keys = "output, batch_normalize, activation";
  r.doc = "fully connected over the flattened input";
  r.create = &ConnectedLayer::create;
  return r;
}

// One streamed block of weight rows: 4 MiB.
static constexpr size_t kBlockFloats = 1024 * 1024;

LayerResult ConnectedLayer::create(const SectionReader& r, const BuildContext& ctx) {
  auto l = std::make_unique<ConnectedLayer>();
  MDFI_ASSIGN_OR_RETURN(auto outputs, r.require_int("output"));
  MDFI_ASSIGN_OR_RETURN(auto bn, r.get_int("batch_normalize", 0));
  std::string act = r.get_string("activation", "logistic");
  if (!parse_activation(act, &l->activation))
    return LayerResult(ErrorKind::kCfg, r.where("activation") + ": unknown activation '" + act +
                                            "' (known: " + activation_names() + ")");
  if (outputs <= 0) return LayerResult(ErrorKind::kCfg, r.where("output") + ": output must be > 0");
  l->compat = ctx.net.compat;
  l->outputs = outputs;
  l->batch_normalize = bn != 0;
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

// The fast path: a connected layer is a matrix-vector product bound by reading its weights (AlexNet's
// FC6 is 151 MB). Each thread reads its own cache-sized chunks of rows into its share of the
// block buffer and takes their dot products while they are still in L2, so the copy from the
// page cache runs on every core and the weights are read from memory once.
Status ConnectedLayer::forward_streamed(LayerIO& io, float* block, int block_rows) const {
  const size_t n = size_t(outputs), k = inputs();
  const int threads = std::max(1, std::min({io.exec->threads, kernels::planned_threads(), block_rows}));
  const int share = block_rows / threads;  // rows of the block buffer each thread owns
  const int chunk = int(std::max<size_t>(1, std::min<size_t>(size_t(share), (size_t(256) << 10) / (4 * k))));
  std::vector<Status> errors(size_t(threads), Status::Ok());
#pragma omp parallel num_threads(threads)
  {
#if defined(_OPENMP)
    const int tid = omp_get_thread_num();
#else
    const int tid = 0;
#endif
    float* mine = block + size_t(tid) * share * k;
    for (int r0 = tid * chunk; r0 < outputs; r0 += threads * chunk) {
      const int r1 = std::min(outputs, r0 + chunk);
      Status st = io.params->read(n + size_t(r0) * k, mine, size_t(r1 - r0) * k);
      if (!st.ok()) {
        errors[size_t(tid)] = std::move(st);
        break;
      }
      for (int r = r0; r < r1; ++r) io.output[r] += kernels::dot(io.inputs[0], mine + size_t(r - r0) * k, k);
    }
  }
  for (Status& st : errors)
    if (!st.ok()) return st;
  return Status::Ok();
}

size_t ConnectedLayer::kept_param_floats() const { return size_t(outputs) * (batch_normalize ? 4 : 1) + size_t(outputs) * inputs(); }

Status ConnectedLayer::forward(LayerIO& io) const {
  if (io.params->transposed())
    return Status(ErrorKind::kUnsupported,
                  "layer " + std::to_string(index) + " [connected]: transposed (major/minor > 1000) weights files are not supported");
  // File order: biases, weights (outputs x inputs), [scales, rolling_mean, rolling_variance].
  const size_t n = size_t(outputs), k = inputs();
  ResidentWeights* keep = io.fast() ? io.exec->resident : nullptr;
  if (keep)
    if (const std::vector<Buffer>* kept = keep->find(index)) {
      std::fill(io.output, io.output + n, 0.f);
      kernels::gemv_rows(io.inputs[0], (*kept)[0].data(), k, outputs, io.output, io.exec->threads);
      finish(io.output, (*kept)[1].data());
      return Status::Ok();
    }
  // head: biases, then (with batch-norm) scales, means, variances.
  MDFI_ASSIGN_OR_RETURN(auto head, Buffer::make(keep ? keep->tracker() : *io.mem, n * (batch_normalize ? 4 : 1), MemCategory::kWeights, "connected biases"));
  MDFI_RETURN_IF_ERROR(io.params->read(0, head.data(), n));
  if (batch_normalize) MDFI_RETURN_IF_ERROR(io.params->read(n + n * k, head.data() + n, 3 * n));
  std::fill(io.output, io.output + n, 0.f);
  if (keep) {
    // The whole matrix, once, for every later image of the batch.
    MDFI_ASSIGN_OR_RETURN(auto w, Buffer::make(keep->tracker(), n * k, MemCategory::kWeights, "connected weights"));
    MDFI_RETURN_IF_ERROR(io.params->read(n, w.data(), n * k));
    kernels::gemv_rows(io.inputs[0], w.data(), k, outputs, io.output, io.exec->threads);
    finish(io.output, head.data());
    std::vector<Buffer> kept;
    kept.push_back(std::move(w));
    kept.push_back(std::move(head));
    keep->store(index, std::move(kept));
    return Status::Ok();
  }
  const int scheduled = io.block;
  const int rows = scheduled > 0 ? std::min(scheduled, rows_per_block()) : rows_per_block();
  MDFI_ASSIGN_OR_RETURN(auto block, Buffer::make(*io.mem, size_t(rows) * k, MemCategory::kWeights, "connected weight block"));
  if (io.fast()) {
    MDFI_RETURN_IF_ERROR(forward_streamed(io, block.data(), rows));
  } else {
    for (int r0 = 0; r0 < outputs; r0 += rows) {
      const int r1 = std::min(outputs, r0 + rows);
      MDFI_RETURN_IF_ERROR(io.params->read(n + size_t(r0) * k, block.data(), size_t(r1 - r0) * k));
      gemm_nt_ref(1, r1 - r0, int(k), io.inputs[0], int(k), block.data(), int(k), io.output + r0, outputs);
    }
  }
  block.reset();
  finish(io.output, head.data());
  return Status::Ok();
}

// Batch-norm, bias and activation after the product; `head` is the file's order (biases, then
// scales, means, variances).
void ConnectedLayer::finish(float* y, const float* head) const {
  const size_t n = size_t(outputs);
  if (batch_normalize) batchnorm_compat(y, outputs, 1, head + 2 * n, head + 3 * n, head + n, compat);
  add_bias(y, outputs, 1, head);
  activate_array(y, n, activation);
}


// Weight blocks of rows of the matrix (the streamed path's row blocks, sized by the schedule).
void ConnectedLayer::describe_schedule(SchedNode& n) const {
  n.block_units = outputs;
  n.default_block = rows_per_block();
  n.block_unit_bytes = inputs() * sizeof(float);
  n.block_fixed_bytes = size_t(outputs) * (batch_normalize ? 4 : 1) * sizeof(float);
}
}  // namespace mdfi
