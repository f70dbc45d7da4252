// The Winograd way of a 3x3 stride-1 convolution (kernels/winograd.h), when the planner chose it
// (conv_choice.h). Weights are read kMR filters at a time per thread, batch-norm scaled and
// transformed straight into U, so raw weights never sit whole in memory; with --keep-weights the
// whole U is kept. What each way holds is what winograd_weight_floats/workspace_floats tell the
// plan.
#include <algorithm>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "../kernels/sgemm.h"
#include "../resident_weights.h"
#include "conv.h"

namespace mdfi {

bool ConvLayer::winograd_candidate() const {
  // Few channels or filters leave too little to share the transforms' cost (ncnn's rule, too).
  return size == 3 && stride == 1 && groups == 1 && in.c > 8 && filters > 8 && out.h >= 2 && out.w >= 2;
}

kernels::WinogradGeo ConvLayer::winograd_geo() const {
  kernels::WinogradGeo g;
  g.m = winograd == 4 ? 4 : 2;
  g.channels = in.c;
  g.height = in.h;
  g.width = in.w;
  g.pad = pad;
  g.filters = filters;
  g.out_h = out.h;
  g.out_w = out.w;
  return g;
}

size_t ConvLayer::winograd_weight_floats() const {
  const kernels::WinogradGeo geo = winograd_geo();
  const size_t n = size_t(filters);
  const size_t head = n * (batch_normalize ? 4 : 1) + n;  // raw head + folded bias
  const size_t rows = size_t(pack_threads(kernels::planned_threads())) * kernels::kMR * in.c * 9;
  const size_t u = winograd_whole_input ? kernels::winograd_u_floats(geo, kernels::winograd_filter_block(geo))
                                        : kernels::winograd_u_floats(geo, filters);
  return head + u + rows;
}

size_t ConvLayer::winograd_workspace_floats() const {
  const kernels::WinogradGeo geo = winograd_geo();
  const int t = kernels::planned_threads();
  return winograd_whole_input ? kernels::winograd_input_workspace_floats(geo, t)
                              : kernels::winograd_panel_workspace_floats(geo, t);
}

namespace {

int thread_count(const LayerIO& io) { return io.exec->threads > 0 ? io.exec->threads : 1; }

// Filters [f0, f0 + count) read, scaled by `factor` (null: no batch-norm) and transformed into
// `u_block`, each thread through its own kMR-row buffer.
Status prepare_block(const ConvLayer& l, LayerIO& io, const kernels::WinogradGeo& geo, int f0, int count,
                     const float* factor, float* u_block) {
  const int per_filter = l.in.c * 9;
  const int pt = ConvLayer::pack_threads(thread_count(io));
  auto rows = Buffer::make(*io.mem, size_t(pt) * kernels::kMR * per_filter, MemCategory::kWeights, "conv weight rows");
  if (!rows.ok()) return rows.status();
  const size_t wbase = size_t(l.filters) * (l.batch_normalize ? 4 : 1);
  const int panels = (count + kernels::kMR - 1) / kernels::kMR;
  const size_t plane_stride = size_t(panels) * kernels::kMR * l.in.c;
  std::vector<Status> errors(size_t(pt), Status::Ok());
#pragma omp parallel for num_threads(pt) schedule(static)
  for (int q = 0; q < panels; ++q) {
#if defined(_OPENMP)
    const int tid = omp_get_thread_num();
#else
    const int tid = 0;
#endif
    if (!errors[size_t(tid)].ok()) continue;
    const int first = f0 + q * kernels::kMR, r = std::min(kernels::kMR, f0 + count - first);
    float* own = rows->data() + size_t(tid) * kernels::kMR * per_filter;
    Status st = io.params->read(wbase + size_t(first) * per_filter, own, size_t(r) * per_filter);
    if (!st.ok()) {
      errors[size_t(tid)] = std::move(st);
      continue;
    }
    kernels::winograd_transform_weights(geo, r, own, factor ? factor + first : nullptr, u_block, plane_stride, q);
  }
  for (Status& st : errors)
    if (!st.ok()) return st;
  return Status::Ok();
}

// The convolution from a whole U (prepared now or kept from an earlier image).
Status run_whole_u(const ConvLayer& l, LayerIO& io, const kernels::WinogradGeo& geo, const float* u,
                   const float* bias) {
  const int threads = thread_count(io);
  if (l.winograd_whole_input) {
    auto ws = Buffer::make(*io.mem, kernels::winograd_input_workspace_floats(geo, threads), MemCategory::kWorkspace,
                           "Winograd input tiles");
    if (!ws.ok()) return ws.status();
    kernels::winograd_transform_input(geo, io.inputs[0], ws->data(), threads);
    const size_t plane_stride = kernels::packed_a_floats(l.filters, l.in.c);
    kernels::winograd_multiply_block(geo, u, plane_stride, 0, l.filters, bias, l.activation, io.output, threads,
                                     ws->data());
    return Status::Ok();
  }
  auto ws = Buffer::make(*io.mem, kernels::winograd_panel_workspace_floats(geo, threads), MemCategory::kWorkspace,
                         "Winograd tile panels");
  if (!ws.ok()) return ws.status();
  kernels::winograd_conv_whole_weights(geo, io.inputs[0], u, bias, l.activation, io.output, threads, ws->data());
  return Status::Ok();
}

}  // namespace

Status ConvLayer::forward_winograd(LayerIO& io) const {
  const kernels::WinogradGeo geo = winograd_geo();
  ResidentWeights* keep = io.exec->resident;
  if (keep)
    if (const std::vector<Buffer>* kept = keep->find(index)) return run_whole_u(*this, io, geo, (*kept)[0].data(), (*kept)[1].data());
  MemoryTracker& wmem = keep ? keep->tracker() : *io.mem;
  std::vector<float> factor;
  Buffer bias;
  MDFI_RETURN_IF_ERROR(fold_head(io, wmem, &bias, &factor));
  const float* scale = batch_normalize ? factor.data() : nullptr;

  if (keep || !winograd_whole_input) {
    auto u = Buffer::make(wmem, kernels::winograd_u_floats(geo, filters), MemCategory::kWeights, "Winograd conv weights");
    if (!u.ok()) return u.status();
    MDFI_RETURN_IF_ERROR(prepare_block(*this, io, geo, 0, filters, scale, u->data()));
    MDFI_RETURN_IF_ERROR(run_whole_u(*this, io, geo, u->data(), bias.data()));
    if (keep) {
      std::vector<Buffer> kept;
      kept.push_back(std::move(*u));
      kept.push_back(std::move(bias));
      keep->store(index, std::move(kept));
    }
    return Status::Ok();
  }

  // Streamed through the whole input's tiles: one block of filters at a time.
  const int threads = thread_count(io);
  auto ws = Buffer::make(*io.mem, kernels::winograd_input_workspace_floats(geo, threads), MemCategory::kWorkspace,
                         "Winograd input tiles");
  if (!ws.ok()) return ws.status();
  kernels::winograd_transform_input(geo, io.inputs[0], ws->data(), threads);
  const int block = kernels::winograd_filter_block(geo);
  auto u = Buffer::make(wmem, kernels::winograd_u_floats(geo, block), MemCategory::kWeights, "Winograd weight block");
  if (!u.ok()) return u.status();
  for (int f0 = 0; f0 < filters; f0 += block) {
    const int count = std::min(block, filters - f0);
    MDFI_RETURN_IF_ERROR(prepare_block(*this, io, geo, f0, count, scale, u->data()));
    const size_t plane_stride = kernels::packed_a_floats(count, in.c);
    kernels::winograd_multiply_block(geo, u->data(), plane_stride, f0, count, bias.data(), activation, io.output,
                                     threads, ws->data());
  }
  return Status::Ok();
}

}  // namespace mdfi
