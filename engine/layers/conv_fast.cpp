// The optimised convolution path. Weights are read eight filter rows at a time, scaled by the
// folded batch-norm factor and packed straight into the SGEMM panel layout, so the packed copy
// replaces the raw one instead of sitting beside it. Bias and activation are applied while each
// output tile is still in cache.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "../kernels/conv_direct.h"
#include "../kernels/depthwise.h"
#include "../kernels/sgemm.h"
#include "../kernels/split_range.h"
#include "../kernels/winograd.h"
#include "resident_weights.h"
#include "conv.h"
#include "conv_rows.h"

namespace mdfi {

// 1 / the batch-norm denominator of each compat (see batchnorm.h for the two forms).
double bn_denominator(float var, Compat compat) {
  if (compat == Compat::kAlexeyAB) return std::sqrt(double(var) + .00001);
  return std::sqrt(double(var)) + double(.000001f);
}

size_t ConvLayer::fast_resident_param_floats() const {
  if (winograd) return winograd_weight_floats();
  const size_t n = size_t(filters);
  const size_t head = n * (batch_normalize ? 4 : 1) + n;  // raw head + folded bias
  if (depthwise()) return head + weight_floats();
  const int K = (in.c / groups) * size * size;
  return head + size_t(groups) * kernels::packed_a_floats(filters / groups, K) +
         size_t(pack_threads(kernels::planned_threads())) * kernels::kMR * K;
}

// Below this many weights a layer is read and packed on the calling thread.
constexpr size_t kParallelPackFloats = size_t(1) << 16;
// Raw weight rows read at once before they are packed: WeightsFile::read's piece, so a large
// layer makes no more system calls than one read of its whole range did, and the run is still
// in the core's L2 cache when it is packed.
constexpr size_t kPackRunBytes = size_t(256) << 10;

// Threads that read and pack weight rows, each into its own kMR-row buffer: never more than the
// plan assumed, so the prediction above holds for any --threads.
int ConvLayer::pack_threads(int threads) { return std::max(1, std::min(threads, kernels::planned_threads())); }

size_t ConvLayer::kept_param_floats() const {
  if (winograd) return size_t(filters) + kernels::winograd_u_floats(winograd_geo(), filters);
  const size_t n = size_t(filters);
  if (depthwise()) return n + weight_floats();
  const int K = (in.c / groups) * size * size;
  return n + size_t(groups) * kernels::packed_a_floats(filters / groups, K);
}

// Reads the biases (and batch-norm terms) and folds them: y = scale*(x - mean)/d + bias =
// (scale/d)*x + (bias - scale*mean/d). `factor` receives scale/d per filter (1 without BN).
Status ConvLayer::fold_head(LayerIO& io, MemoryTracker& wmem, Buffer* folded_bias, std::vector<float>* factor) const {
  const size_t n = size_t(filters);
  auto head = load_params(io, 0, n * (batch_normalize ? 4 : 1), "conv biases");
  if (!head.ok()) return head.status();
  return fold_values(head->data(), wmem, folded_bias, factor);
}

Status ConvLayer::fold_values(const float* head, MemoryTracker& wmem, Buffer* folded_bias,
                              std::vector<float>* factor) const {
  const size_t n = size_t(filters);
  auto bias = Buffer::make(wmem, n, MemCategory::kWeights, "conv folded bias");
  if (!bias.ok()) return bias.status();
  factor->assign(n, 1.f);
  for (size_t f = 0; f < n; ++f) {
    float b = head[f];
    if (batch_normalize) {
      const float scale = head[n + f], mean = head[2 * n + f], var = head[3 * n + f];
      const double d = bn_denominator(var, compat);
      (*factor)[f] = float(scale / d);
      b = float(b - double(scale) * mean / d);
    }
    bias->data()[f] = b;
  }
  *folded_bias = std::move(*bias);
  return Status::Ok();
}

Status ConvLayer::forward_fast(LayerIO& io) const {
  if (winograd) return forward_winograd(io);
  ResidentWeights* keep = io.exec->resident;
  if (keep)
    if (const std::vector<Buffer>* kept = keep->find(index)) return compute_fast(io, (*kept)[0].data(), (*kept)[1].data());
  // Kept weights belong to the batch-long tracker; streamed ones to this image's.
  MemoryTracker& wmem = keep ? keep->tracker() : *io.mem;
  // A memory schedule (--max-mem) may ask for the weights a block of filters at a time.
  if (const int block = io.block; block > 0 && !keep && groups == 1)
    return conv_rows(*this, io, RowWindow::whole(const_cast<float*>(io.inputs[0]), in), RowWindow::whole(io.output, out),
                     0, out.h, block);
  const size_t n = size_t(filters);
  const int M = filters / groups, K = (in.c / groups) * size * size;
  const int threads = io.exec->threads > 0 ? io.exec->threads : 1;
  std::vector<float> factor;
  Buffer folded;
  const size_t wbase = n * (batch_normalize ? 4 : 1);
  if (!keep && (depthwise() || (groups == 1 && size_t(M) * K < kParallelPackFloats)))
    return forward_small_streamed(io, wbase);
  MDFI_RETURN_IF_ERROR(fold_head(io, wmem, &folded, &factor));

  Buffer prepared;
  if (depthwise()) {
    MDFI_ASSIGN_OR_RETURN(auto w, Buffer::make(wmem, weight_floats(), MemCategory::kWeights, "conv weights"));
    MDFI_RETURN_IF_ERROR(io.params->read(wbase, w.data(), weight_floats()));
    const int kk = size * size;
    for (size_t f = 0; f < n; ++f)
      for (int i = 0; i < kk; ++i) w.data()[f * kk + i] *= factor[f];
    prepared = std::move(w);
  } else {
    const size_t per_group = kernels::packed_a_floats(M, K);
    MDFI_ASSIGN_OR_RETURN(auto packed, Buffer::make(wmem, per_group * groups, MemCategory::kWeights, "packed conv weights"));
    // Reading, batch-norm scaling and packing are spread over the threads (pread needs no shared
    // file position): a 13x13 YOLOv3 layer spends as long on its 19 MB of weights as on its GEMM.
    // Small layers stay on this thread: a parallel region costs more than packing a few kB.
    const int pt = size_t(groups) * M * K >= kParallelPackFloats ? pack_threads(threads) : 1;
    MDFI_ASSIGN_OR_RETURN(auto rows, Buffer::make(*io.mem, size_t(pt) * kernels::kMR * K, MemCategory::kWeights, "conv weight rows"));
    const int m_panels = (M + kernels::kMR - 1) / kernels::kMR;
    const int tasks = groups * m_panels;
    // Each thread reads its range of raw rows straight into the packed buffer, a run of panels
    // (kPackRunBytes) per read: a panel of packed rows occupies exactly the floats its raw rows
    // did (every group starts at a panel boundary: one group, or whole panels per group). Each
    // panel is then copied out to the thread's row buffer and packed back in place while the run
    // is still in the core's cache (one read of a thread's whole range left a 13x13 YOLOv3
    // layer's 9 MB to come back from memory). Small layers still take one read per thread: on a
    // VM a pread costs microseconds, and Yolo-Fastest has 600 panels.
    const bool in_place = groups == 1 || M % kernels::kMR == 0;
    const int run_panels = std::max<int>(1, int(kPackRunBytes / (size_t(kernels::kMR) * K * sizeof(float))));
    std::vector<Status> errors(size_t(pt), Status::Ok());
    // Where the weights file is mapped, each run's rows are packed straight from the mapping
    // (ParamSource::view): no copy out of the page cache, no copy to the row buffer.
    auto pack_range = [&](int tid, int t_begin, int t_end) {
      float* own = rows.data() + size_t(tid) * kernels::kMR * K;
      const float* run_view = nullptr;  // the current run's rows in the mapping, from filter run_first
      size_t run_first = 0;
      for (int t = t_begin; t < t_end; ++t) {
        if (in_place && (t - t_begin) % run_panels == 0) {
          const int last = std::min(t_end, t + run_panels) - 1;
          const size_t f_begin = size_t(t / m_panels) * M + size_t(t % m_panels) * kernels::kMR;
          const size_t f_end = size_t(last / m_panels) * M + std::min(M, (last % m_panels + 1) * kernels::kMR);
          Status st;
          run_view = io.params->view(wbase + f_begin * K, (f_end - f_begin) * K, &st);
          run_first = f_begin;
          if (!run_view && st.ok())
            st = io.params->read(wbase + f_begin * K, packed.data() + f_begin * K, (f_end - f_begin) * K);
          if (!st.ok()) {
            errors[size_t(tid)] = std::move(st);
            return;
          }
        }
        const int g = t / m_panels, m0 = (t % m_panels) * kernels::kMR;
        const int r = std::min(kernels::kMR, M - m0);
        const size_t f0 = size_t(g) * M + m0;
        const float* src = own;
        if (run_view) {
          src = run_view + (f0 - run_first) * K;
        } else if (in_place) {
          std::memcpy(own, packed.data() + f0 * K, size_t(r) * K * sizeof(float));
        } else {
          Status st;
          src = io.params->view_or_read(wbase + f0 * K, size_t(r) * K, own, &st);
          if (!st.ok()) {
            errors[size_t(tid)] = std::move(st);
            return;
          }
        }
        // Batch-norm scaling happens inside the packing (one pass over the rows instead of two).
        kernels::pack_a_panel(r, K, src, K, packed.data() + g * per_group + size_t(m0) * K,
                              batch_normalize ? factor.data() + f0 : nullptr);
      }
    };
    kernels::split_range(pt, tasks, pack_range);
    for (Status& st : errors)
      if (!st.ok()) return st;
    prepared = std::move(packed);
  }
  MDFI_RETURN_IF_ERROR(compute_fast(io, prepared.data(), folded.data()));
  if (keep) {
    std::vector<Buffer> kept;
    kept.push_back(std::move(prepared));
    kept.push_back(std::move(folded));
    keep->store(index, std::move(kept));
  }
  return Status::Ok();
}

// A streamed depthwise or small single-group layer, with one read for all its parameters: the
// head and the raw weights lie one after the other in the file, and land one after the other in
// one buffer (the head's floats, then the weights, packed in place for the GEMM). The buffer holds
// what fast_resident_param_floats counts for the head and the prepared weights, so the plan holds.
// One system call per layer instead of two: on a VM a pread costs microseconds.
Status ConvLayer::forward_small_streamed(LayerIO& io, size_t head_floats) const {
  const size_t n = size_t(filters);
  const int K = (in.c / groups) * size * size;
  const size_t body = depthwise() ? weight_floats() : kernels::packed_a_floats(filters, K);
  MDFI_ASSIGN_OR_RETURN(auto all, Buffer::make(*io.mem, head_floats + body, MemCategory::kWeights, "conv parameters"));
  MDFI_RETURN_IF_ERROR(io.params->read(0, all.data(), head_floats + weight_floats()));
  std::vector<float> factor;
  Buffer folded;
  MDFI_RETURN_IF_ERROR(fold_values(all.data(), *io.mem, &folded, &factor));
  float* w = all.data() + head_floats;
  if (depthwise()) {
    const int kk = size * size;
    for (size_t f = 0; f < n; ++f)
      for (int i = 0; i < kk; ++i) w[f * kk + i] *= factor[f];
  } else {
    MDFI_ASSIGN_OR_RETURN(auto rows, Buffer::make(*io.mem, size_t(kernels::kMR) * K, MemCategory::kWeights, "conv weight rows"));
    // Each panel's packed rows occupy exactly the floats its raw rows did: copy out, pack back.
    for (int m0 = 0; m0 < filters; m0 += kernels::kMR) {
      const int r = std::min(kernels::kMR, filters - m0);
      std::memcpy(rows.data(), w + size_t(m0) * K, size_t(r) * K * sizeof(float));
      kernels::pack_a_panel(r, K, rows.data(), K, w + size_t(m0) * K, batch_normalize ? factor.data() + m0 : nullptr);
    }
  }
  return compute_fast(io, w, folded.data());
}

// The convolution itself, from prepared weights: depthwise weights scaled by the folded
// batch-norm factor, or packed SGEMM panels per group.
Status ConvLayer::compute_fast(LayerIO& io, const float* weights, const float* bias) const {
  const int M = filters / groups, N = out.h * out.w, K = (in.c / groups) * size * size;
  // Every layer gets the requested threads, however small: running the small ones on this thread
  // alone was tried (a cost model) and measured far slower on a loaded 2-core host, because each
  // later parallel region then has to wake a worker that went to sleep meanwhile.
  const int threads = io.exec->threads > 0 ? io.exec->threads : 1;
  if (depthwise()) {
    kernels::depthwise_conv(io.inputs[0], in.c, in.h, in.w, weights, size, stride, pad, io.output, out.h, out.w, bias,
                            activation, threads);
    return Status::Ok();
  }
  if (direct_whole()) {
    kernels::DirectJob job{io.inputs[0], size_t(in.h) * in.w, 0, in.h, in.w, size, pad, K};
    job.ldc = size_t(N), job.out_w = out.w, job.y0 = 0, job.y1 = out.h;
    job.a = weights, job.filters = M, job.bias = bias, job.out = io.output;
    kernels::conv_direct(kernels::active_kernel(), job, activation, threads);
    return Status::Ok();
  }
  const size_t per_group = kernels::packed_a_floats(M, K);
  MDFI_ASSIGN_OR_RETURN(auto ws, Buffer::make(*io.mem, kernels::sgemm_workspace_floats(K, N, threads), MemCategory::kWorkspace, "packed im2col block"));
  const int cpg = in.c / groups;
  for (int g = 0; g < groups; ++g) {
    const float* im = io.inputs[0] + size_t(g) * cpg * in.h * in.w;
    float* C = io.output + size_t(g) * M * N;
    const float* A = weights + g * per_group;
    const float* gb = bias + size_t(g) * M;
    if (direct_1x1()) {
      kernels::sgemm_packed(M, N, K, A, kernels::MatrixB(im, K, N), C, N, gb, activation, threads, ws.data());
    } else {
      kernels::sgemm_packed(M, N, K, A, kernels::Im2colB(im, cpg, in.h, in.w, size, stride, pad * dilation, dilation), C, N, gb, activation,
                            threads, ws.data());
    }
  }
  return Status::Ok();
}

}  // namespace mdfi
