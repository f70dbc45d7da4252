// The Winograd way of a 3x3 stride-1 convolution (kernels/winograd.h), when the planner chose it
// (conv_choice.h). Weights are read kMR filters at a time per thread, batch-norm scaled and
// transformed straight into U, so raw weights never sit whole in memory; with --keep-weights the
// whole U is kept. What each way holds is what winograd_weight_floats/workspace_floats tell the
// plan.
#include <algorithm>
#include <mutex>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "../kernels/sgemm.h"
#include "resident_weights.h"
#include "conv.h"
#include "winograd_rows.h"

namespace mdfi {

bool ConvLayer::winograd_candidate() const {
  // Few channels or filters leave too little to share the transforms' cost (ncnn's rule, too).
  // Dilated taps and borrowed weights (share_index) stay on the GEMM path.
  return size == 3 && stride == 1 && dilation == 1 && share_from < 0 && groups == 1 && in.c > 8 && filters > 8 && out.h >= 2 && out.w >= 2;
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
  g.group = winograd_whole_input ? winograd_group : 1;
  return g;
}

size_t ConvLayer::winograd_weight_floats() const {
  const kernels::WinogradGeo geo = winograd_geo();
  const size_t n = size_t(filters);
  const size_t head = n * (batch_normalize ? 4 : 1) + n;  // raw head + folded bias
  const size_t rows = size_t(pack_threads(kernels::planned_threads())) * kernels::kMR * in.c * 9;
  if (winograd_whole_input) return head + kernels::winograd_stream_weight_floats(geo, kernels::planned_threads());
  return head + kernels::winograd_u_floats(geo, filters) + rows;
}

size_t ConvLayer::winograd_workspace_floats() const {
  const kernels::WinogradGeo geo = winograd_geo();
  const int t = kernels::planned_threads();
  return winograd_whole_input ? kernels::winograd_input_workspace_floats(geo, t)
                              : kernels::winograd_panel_workspace_floats(geo, t);
}

namespace {

int thread_count(const LayerIO& io) { return io.exec->threads > 0 ? io.exec->threads : 1; }

}  // namespace

namespace winograd_detail {

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
    const size_t at = wbase + size_t(first) * per_filter, n = size_t(r) * per_filter;
    Status st;
    const float* w = io.params->view_or_read(at, n, own, &st);  // in place where the file is mapped
    if (!st.ok()) {
      errors[size_t(tid)] = std::move(st);
      continue;
    }
    kernels::winograd_transform_weights(geo, r, w, factor ? factor + first : nullptr, u_block, plane_stride, q);
  }
  for (Status& st : errors)
    if (!st.ok()) return st;
  return Status::Ok();
}

}  // namespace winograd_detail

namespace {

// Reads, scales and transforms filter panels for the streamed whole-input way: a pass's panels
// with one read (consecutive filters lie one after another in the file). Called from several
// threads at once (ParamSource::read allows it); the first error is kept.
class StreamedPanels : public kernels::WinogradPanelSource {
 public:
  StreamedPanels(const ConvLayer& l, LayerIO& io, const kernels::WinogradGeo& geo, const float* scale)
      : l_(l), io_(io), geo_(geo), scale_(scale) {}
  bool panel(int q, float* u_panel, float* raw) override { return panels(q, 1, u_panel, 0, raw); }
  bool panels(int q0, int count, float* u, size_t u_stride, float* raw) override {
    const int per_filter = l_.in.c * 9, first = q0 * kernels::kMR;
    const int last = std::min(l_.filters, (q0 + count) * kernels::kMR);
    const size_t wbase = size_t(l_.filters) * (l_.batch_normalize ? 4 : 1);
    const size_t at = wbase + size_t(first) * per_filter, n = size_t(last - first) * per_filter;
    // The mapped file's floats where it has them (no copy out of the page cache), else read.
    Status st;
    const float* w = io_.params->view_or_read(at, n, raw, &st);
    if (!st.ok()) {
      std::lock_guard<std::mutex> lock(mu_);
      if (status_.ok()) status_ = std::move(st);
      return false;
    }
    for (int i = 0; i < count; ++i) {
      const int f = first + i * kernels::kMR, r = std::min(kernels::kMR, l_.filters - f);
      kernels::winograd_transform_weights(geo_, r, w + size_t(i) * kernels::kMR * per_filter,
                                          scale_ ? scale_ + f : nullptr, u + size_t(i) * u_stride,
                                          size_t(kernels::kMR) * l_.in.c, 0);
    }
    return true;
  }
  Status status() {
    std::lock_guard<std::mutex> lock(mu_);
    return status_;
  }

 private:
  const ConvLayer& l_;
  LayerIO& io_;
  const kernels::WinogradGeo& geo_;
  const float* scale_;
  std::mutex mu_;
  Status status_ = Status::Ok();
};

// The convolution from a whole U (prepared now or kept from an earlier image).
Status run_whole_u(const ConvLayer& l, LayerIO& io, const kernels::WinogradGeo& geo, const float* u,
                   const float* bias) {
  const int threads = thread_count(io);
  if (l.winograd_whole_input) {
    auto ws = Buffer::make(*io.mem, kernels::winograd_input_workspace_floats(geo, threads), MemCategory::kWorkspace,
                           "Winograd input tiles");
    if (!ws.ok()) return ws.status();
    kernels::winograd_transform_input(geo, io.inputs[0], ws->data(), threads);
    kernels::winograd_multiply_all(geo, u, bias, l.activation, io.output, threads, ws->data());
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

  // A memory schedule (--max-mem) may ask for the whole-weights way a block of filters at a time:
  // each block's U is made and used, then the next replaces it; the input tiles are transformed
  // again for each block. Every output is computed as the whole-weights way computes it.
  const int block = keep ? 0 : io.block;
  if (!winograd_whole_input && block > 0 && block < filters) {
    const int threads = thread_count(io);
    const int mb = (block + kernels::kMR - 1) / kernels::kMR * kernels::kMR;
    auto ws = Buffer::make(*io.mem, kernels::winograd_panel_workspace_floats(geo, threads), MemCategory::kWorkspace,
                           "Winograd tile panels");
    if (!ws.ok()) return ws.status();
    auto u = Buffer::make(*io.mem, kernels::winograd_u_floats(geo, mb), MemCategory::kWeights, "Winograd weight block");
    if (!u.ok()) return u.status();
    const size_t plane = size_t(out.h) * out.w;
    for (int f0 = 0; f0 < filters; f0 += mb) {
      const int rb = std::min(mb, filters - f0);
      MDFI_RETURN_IF_ERROR(winograd_detail::prepare_block(*this, io, geo, f0, rb, scale, u->data()));
      kernels::WinogradGeo part = geo;
      part.filters = rb;
      kernels::winograd_conv_whole_weights(part, io.inputs[0], u->data(), bias.data() + f0, activation,
                                           io.output + size_t(f0) * plane, threads, ws->data());
    }
    return Status::Ok();
  }

  if (keep || !winograd_whole_input) {
    auto u = Buffer::make(wmem, kernels::winograd_u_floats(geo, filters), MemCategory::kWeights, "Winograd conv weights");
    if (!u.ok()) return u.status();
    MDFI_RETURN_IF_ERROR(winograd_detail::prepare_block(*this, io, geo, 0, filters, scale, u->data()));
    MDFI_RETURN_IF_ERROR(run_whole_u(*this, io, geo, u->data(), bias.data()));
    if (keep) {
      std::vector<Buffer> kept;
      kept.push_back(std::move(*u));
      kept.push_back(std::move(bias));
      keep->store(index, std::move(kept));
    }
    return Status::Ok();
  }

  // Streamed: each thread reads and transforms one filter panel at a time, right before using it.
  return winograd_detail::run_streamed(*this, io, geo, io.inputs[0], scale, bias.data(), io.output);
}

Status winograd_detail::run_streamed(const ConvLayer& l, LayerIO& io, const kernels::WinogradGeo& geo, const float* in,
                                     const float* scale, const float* bias, float* out) {
  const int threads = thread_count(io);
  auto ws = Buffer::make(*io.mem, kernels::winograd_input_workspace_floats(geo, threads), MemCategory::kWorkspace,
                         "Winograd input tiles");
  if (!ws.ok()) return ws.status();
  auto panels = Buffer::make(*io.mem, kernels::winograd_stream_weight_floats(geo, threads), MemCategory::kWeights,
                             "Winograd weight panels");
  if (!panels.ok()) return panels.status();
  kernels::winograd_transform_input(geo, in, ws->data(), threads);
  StreamedPanels source(l, io, geo, scale);
  kernels::winograd_multiply_streamed(geo, source, bias, l.activation, out, threads, ws->data(), panels->data());
  return source.status();
}

Status winograd_detail::multiply_streamed(const ConvLayer& l, LayerIO& io, const kernels::WinogradGeo& geo,
                                          const float* scale, const float* bias, float* out, float* workspace) {
  const int threads = thread_count(io);
  auto panels = Buffer::make(*io.mem, kernels::winograd_stream_weight_floats(geo, threads), MemCategory::kWeights,
                             "Winograd weight panels");
  if (!panels.ok()) return panels.status();
  StreamedPanels source(l, io, geo, scale);
  kernels::winograd_multiply_streamed(geo, source, bias, l.activation, out, threads, workspace, panels->data());
  return source.status();
}

}  // namespace mdfi
