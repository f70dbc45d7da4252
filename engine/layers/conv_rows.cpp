#include "conv_rows.h"
#include "schedule.h"
#include "../kernels/conv_direct.h"
#include "../kernels/depthwise.h"
#include "../kernels/im2col_neon.h"
#include "../kernels/im2col_x86.h"
#include "../kernels/split_range.h"
#include "winograd_rows.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace mdfi {

WindowIm2colB::WindowIm2colB(const RowWindow& in, int ksize, int stride, int pad, int out_w, int y0, int rows)
    : in_(in), k_(ksize), s_(stride), p_(pad), out_w_(out_w), y0_(y0), n_(out_w * rows) {}

// As Im2colB::pack (runs of consecutive output pixels along a row, padding clipped at the ends),
// with rows addressed through the window.
void WindowIm2colB::pack(int k0, int kc, int n0, int nc, int nr, float* dst) const {
  kernels::Im2colRun runs[65];
  for (int p = 0; p < nc; p += nr) {
    const int cols = std::max(0, std::min(nr, n_ - (n0 + p)));
    int n_runs = 0;
    for (int j = 0; j < cols;) {
      const int col = n0 + p + j, oy = y0_ + col / out_w_, ox = col % out_w_;
      const int len = std::min(cols - j, out_w_ - ox);
      runs[n_runs++] = {j, len, oy, ox};
      j += len;
    }
    float* panel = dst + size_t(p) * kc;
    if (kernels::im2col_panel_x86({in_.data, size_t(in_.cap) * in_.w, in_.lo, in_.h, in_.w}, k_, s_, p_, 1, runs,
                                  n_runs, k0, kc, nr, cols, panel))
      continue;
    int kx = k0 % k_, ky = (k0 / k_) % k_, ch = k0 / k_ / k_;
    const int w = in_.w;
    for (int r = 0; r < kc; ++r) {
      float* d = panel + size_t(r) * nr;
      for (int q = 0; q < n_runs; ++q) {
        const kernels::Im2colRun& run = runs[q];
        float* out = d + run.j0;
        const int iy = run.oy * s_ - p_ + ky;
        if (unsigned(iy) >= unsigned(in_.h)) {
          std::memset(out, 0, size_t(run.len) * sizeof(float));
          continue;
        }
        const float* src = in_.row(ch, iy);
        const int ix0 = run.ox * s_ - p_ + kx;
        if (!kernels::im2col_run_inside(src, ix0, s_, w, run.len, out)) kernels::im2col_row_run(src, ix0, s_, w, run.len, out);
      }
      for (int j = cols; j < nr; ++j) d[j] = 0.f;
      if (++kx == k_) {
        kx = 0;
        if (++ky == k_) ky = 0, ++ch;
      }
    }
  }
}

GatherIm2colB::GatherIm2colB(const RowWindow& in, int ksize, int stride, int pad, int out_w, int y0, int rows)
    : in_(in), k_(ksize), s_(stride), p_(pad), out_w_(out_w), y0_(y0), n_(out_w * rows) {}

void GatherIm2colB::pack(int k0, int kc, int n0, int nc, int nr, float* dst) const {
  const int kk = k_ * k_;
  int32_t idx[kMaxEntries];
  uint32_t mask[kMaxEntries];
  // Stride 1 with the output as wide as the input ("same" padding): a tap's offsets run
  // consecutively across the panel (input row y of output row y - ky + pad), so its rows are
  // plain loads of consecutive floats under the mask, which the compiler vectorises. Where the
  // run leaves the channel's window (the first and last rows' padding, all masked) it writes
  // zeros instead of reading.
  int run[64];  // per tap: the window offset of column 0 of the consecutive run
  int run_lo[64], run_hi[64];  // per tap: the columns [lo, hi) whose offsets lie in the window
  const bool consecutive = s_ == 1 && out_w_ == in_.w && kk <= 64;
  // Stride 2: a panel's columns fall into a few runs along output rows, and within a run a tap
  // reads every other float of one input row: per tap and run, its offset and the part inside
  // the row, worked out once per panel; each channel's row is then a strided copy the compiler
  // vectorises (shuffles), not a gather of single floats.
  const bool strided = s_ == 2;
  struct Seg {
    int j0, len, oy, ox;
  };
  Seg segs[64];
  struct TapSeg {
    int32_t off;  // window offset that the run's column lo reads
    int lo, hi;   // the run's columns [lo, hi) read inside the window; the rest is padding
  };
  TapSeg tap_segs[kMaxEntries];
  int iy0[64], ix0[64];  // per column: the input row and column under tap (0, 0)
  const size_t channel = size_t(in_.cap) * in_.w;  // floats between channels of the window
  for (int p = 0; p < nc; p += nr) {
    const int cols = std::max(0, std::min(nr, n_ - (n0 + p)));
    // Output pixels stepped along the panel (one division per panel, not per column and tap).
    {
      const int col = n0 + p;
      int oy = y0_ + col / out_w_, ox = col % out_w_;
      for (int j = 0; j < nr; ++j) {
        if (j < cols) {
          iy0[j] = oy * s_ - p_;
          ix0[j] = ox * s_ - p_;
          if (++ox == out_w_) ox = 0, ++oy;
        } else {
          iy0[j] = -(1 << 24), ix0[j] = 0;  // padding columns: below the image for every tap
        }
      }
    }
    int n_segs = 0;
    if (strided) {
      const int col = n0 + p;
      int oy = y0_ + col / out_w_, ox = col % out_w_;
      for (int j = 0; j < cols;) {
        const int len = std::min(cols - j, out_w_ - ox);
        segs[n_segs++] = {j, len, oy, ox};
        j += len;
        ox = 0, ++oy;
      }
    }
    // Tap t = (ky, kx): column j reads window offset idx[t * nr + j], or is padding (mask 0;
    // it then reads the window's first element, whose bits the mask drops).
    for (int t = 0; t < kk; ++t) {
      const int ky = t / k_, kx = t % k_;
      if (strided) {
        for (int q = 0; q < n_segs; ++q) {
          const Seg& g = segs[q];
          TapSeg& ts = tap_segs[t * n_segs + q];
          const int iy = g.oy * 2 - p_ + ky, ix = g.ox * 2 - p_ + kx;
          if (unsigned(iy) >= unsigned(in_.h)) {
            ts = {0, 0, 0};
            continue;
          }
          // Columns j with 0 <= ix + 2j < w.
          const int lo = ix >= 0 ? 0 : std::min(g.len, (-ix + 1) / 2);
          const int hi = ix >= in_.w ? 0 : std::min(g.len, (in_.w - 1 - ix) / 2 + 1);
          ts = {int32_t((iy - in_.lo) * in_.w + ix + 2 * lo), lo, std::max(lo, hi)};
        }
        continue;
      }
      for (int j = 0; j < nr; ++j) {
        const int iy = iy0[j] + ky, ix = ix0[j] + kx;
        const bool inside = unsigned(iy) < unsigned(in_.h) && unsigned(ix) < unsigned(in_.w);
        idx[t * nr + j] = inside ? int32_t((iy - in_.lo) * in_.w + ix) : 0;
        mask[t * nr + j] = inside ? ~0u : 0u;
      }
      if (consecutive) {
        const int64_t first = int64_t(y0_ - in_.lo + ky - p_) * in_.w + (n0 + p) + kx - p_;
        run[t] = int(first);
        run_lo[t] = int(std::min<int64_t>(nr, std::max<int64_t>(0, -first)));
        run_hi[t] = int(std::max<int64_t>(run_lo[t], std::min<int64_t>(nr, int64_t(channel) - first)));
      }
    }
    float* panel = dst + size_t(p) * kc;
    int t = k0 % kk, ch = k0 / kk;
    for (int r = 0; r < kc; ++r) {
      const float* base = in_.data + size_t(ch) * channel;
      float* d = panel + size_t(r) * nr;
      if (strided) {
        const TapSeg* ts = tap_segs + t * n_segs;
        for (int q = 0; q < n_segs; ++q) {
          float* o = d + segs[q].j0;
          const int lo = ts[q].lo, hi = ts[q].hi, len = segs[q].len;
          const float* src = base + ts[q].off;
          for (int j = 0; j < lo; ++j) o[j] = 0.f;
          for (int j = 0; j < hi - lo; ++j) o[lo + j] = src[2 * j];
          for (int j = hi; j < len; ++j) o[j] = 0.f;
        }
        for (int j = cols; j < nr; ++j) d[j] = 0.f;
      } else if (consecutive) {
        // Columns outside [lo, hi) are masked (rows outside the window are padding).
        const uint32_t* mk = mask + t * nr;
        const int lo = run_lo[t], hi = run_hi[t];
        const float* src = base + run[t] + lo;
        for (int j = 0; j < lo; ++j) d[j] = 0.f;
        for (int j = 0; j < hi - lo; ++j) {
          uint32_t v;
          std::memcpy(&v, src + j, sizeof v);
          v &= mk[lo + j];
          std::memcpy(d + lo + j, &v, sizeof v);
        }
        for (int j = hi; j < nr; ++j) d[j] = 0.f;
      } else {
        const uint32_t* mk = mask + t * nr;
        const int32_t* ix = idx + t * nr;
        for (int j = 0; j < nr; ++j) {
          uint32_t v;
          std::memcpy(&v, base + ix[j], sizeof v);
          v &= mk[j];
          std::memcpy(d + j, &v, sizeof v);
        }
      }
      if (++t == kk) t = 0, ++ch;
    }
  }
}

namespace {

// Columns [n0, n0 + n) of another source, as columns [0, n): one chunk of a conv's GEMM.
class ColumnsOf : public kernels::BSource {
 public:
  ColumnsOf(const kernels::BSource& b, int n0) : b_(b), n0_(n0) {}
  // A partial last panel may carry the next chunk's columns: each output column is computed on
  // its own (micro-kernel lanes), and sgemm_packed writes only columns below n.
  void pack(int k0, int kc, int n0, int nc, int nr, float* dst) const override { b_.pack(k0, kc, n0_ + n0, nc, nr, dst); }
  const float* rows(int k0, int* ldb) const override {
    const float* r = b_.rows(k0, ldb);
    return r ? r + n0_ : nullptr;
  }

 private:
  const kernels::BSource& b_;
  int n0_;
};

// Folded biases into `bias` and the batch-norm factors of `l` (as forward_fast: the same double
// expression, rounded once).
Status fold_bias(const ConvLayer& l, LayerIO& io, Buffer& bias, std::vector<float>& factor) {
  const size_t n = size_t(l.filters);
  // File order: biases, [scales, rolling_mean, rolling_variance], weights.
  auto head = load_params(io, 0, n * (l.batch_normalize ? 4 : 1), "conv biases");
  if (!head.ok()) return head.status();
  auto b = Buffer::make(*io.mem, n, MemCategory::kWeights, "conv folded bias");
  if (!b.ok()) return b.status();
  bias = std::move(*b);
  factor.assign(n, 1.f);
  for (size_t f = 0; f < n; ++f) {
    float v = head->data()[f];
    if (l.batch_normalize) {
      const float scale = head->data()[n + f], mean = head->data()[2 * n + f], var = head->data()[3 * n + f];
      const double d = bn_denominator(var, l.compat);
      factor[f] = float(scale / d);
      v = float(v - double(scale) * mean / d);
    }
    bias.data()[f] = v;
  }
  return Status::Ok();
}

// Reads filters [m0, m0 + rb) and packs them into `packed` (panels of kMR), `rows` holding pt
// panels' raw rows. As forward_small_streamed: each thread reads its panels' raw rows with one
// pread straight into `packed` (a panel's packed rows occupy exactly the floats its raw rows
// did), then copies each panel out to its row buffer and packs it back in place. One system call
// per thread instead of one per panel: on a VM a pread costs microseconds, and the layers a
// schedule holds are prepared on every run.
Status pack_filters(const ConvLayer& l, LayerIO& io, const std::vector<float>& factor, int m0, int rb, int pt,
                    float* rows, float* packed) {
  const int K = l.in.c * l.size * l.size;
  const size_t wbase = size_t(l.filters) * (l.batch_normalize ? 4 : 1);
  const int panels = (rb + kernels::kMR - 1) / kernels::kMR;
  // A small block is packed by this thread alone: a parallel region per block costs more than
  // its packing on a busy machine.
  const int pack = panels >= 4 * pt ? pt : 1;
  std::vector<Status> errors(size_t(pack), Status::Ok());
  auto pack_range = [&](int tid, int t_begin, int t_end) {
    if (t_begin >= t_end) return;
    const int f_begin = t_begin * kernels::kMR, f_end = std::min(rb, t_end * kernels::kMR);
    // Where the file is mapped (a band group's range, or MDFI_MMAP=1) the panels pack straight
    // from it: the same pack_a_panel on the same floats, without the copy out of the page cache.
    Status st;
    const float* v = io.params->view(wbase + size_t(m0 + f_begin) * K, size_t(f_end - f_begin) * K, &st);
    if (!v && st.ok())
      st = io.params->read(wbase + size_t(m0 + f_begin) * K, packed + size_t(f_begin) * K, size_t(f_end - f_begin) * K);
    if (!st.ok()) {
      errors[size_t(tid)] = std::move(st);
      return;
    }
    float* own = rows + size_t(tid) * kernels::kMR * K;
    for (int t = t_begin; t < t_end; ++t) {
      const int f0 = t * kernels::kMR, r = std::min(kernels::kMR, rb - f0);
      const float* src = own;
      if (v) src = v + size_t(f0 - f_begin) * K;
      else std::memcpy(own, packed + size_t(f0) * K, size_t(r) * K * sizeof(float));
      kernels::pack_a_panel(r, K, src, K, packed + size_t(f0) * K, l.batch_normalize ? factor.data() + m0 + f0 : nullptr);
    }
  };
  kernels::split_range(pack, panels, pack_range);
  for (Status& st : errors)
    if (!st.ok()) return st;
  return Status::Ok();
}

// Depthwise taps with the batch-norm factor folded in, and the folded biases.
Status fold_depthwise(const ConvLayer& l, LayerIO& io, Buffer& bias, Buffer& w) {
  const size_t n = size_t(l.filters);
  const int kk = l.size * l.size;
  auto head = load_params(io, 0, n * (l.batch_normalize ? 4 : 1), "conv biases");
  if (!head.ok()) return head.status();
  auto b = Buffer::make(*io.mem, n, MemCategory::kWeights, "conv folded bias");
  if (!b.ok()) return b.status();
  bias = std::move(*b);
  auto wb = Buffer::make(*io.mem, n * kk, MemCategory::kWeights, "conv weights");
  if (!wb.ok()) return wb.status();
  w = std::move(*wb);
  MDFI_RETURN_IF_ERROR(io.params->read(n * (l.batch_normalize ? 4 : 1), w.data(), n * kk));
  for (size_t f = 0; f < n; ++f) {  // as forward_fast's folding
    float v = head->data()[f], factor = 1.f;
    if (l.batch_normalize) {
      const float scale = head->data()[n + f], mean = head->data()[2 * n + f], var = head->data()[3 * n + f];
      const double d = bn_denominator(var, l.compat);
      factor = float(scale / d);
      v = float(v - double(scale) * mean / d);
      for (int i = 0; i < kk; ++i) w.data()[f * kk + i] *= factor;
    }
    bias.data()[f] = v;
  }
  return Status::Ok();
}

}  // namespace

Status conv_rows_prepare(const ConvLayer& l, LayerIO& io, PreparedRows& out) {
  if (l.depthwise()) return fold_depthwise(l, io, out.bias, out.weights);
  const int M = l.filters, K = l.in.c * l.size * l.size;
  const int threads = io.exec && io.exec->threads > 0 ? io.exec->threads : 1;
  const int pt = ConvLayer::pack_threads(threads);
  std::vector<float> factor;
  MDFI_RETURN_IF_ERROR(fold_bias(l, io, out.bias, factor));
  auto packed = Buffer::make(*io.mem, kernels::packed_a_floats(M, K), MemCategory::kWeights, "conv packed weights");
  if (!packed.ok()) return packed.status();
  auto rows = Buffer::make(*io.mem, size_t(pt) * kernels::kMR * K, MemCategory::kWeights, "conv weight rows");
  if (!rows.ok()) return rows.status();
  MDFI_RETURN_IF_ERROR(pack_filters(l, io, factor, 0, M, pt, rows->data(), packed->data()));
  out.weights = std::move(*packed);
  return Status::Ok();
}

Status conv_rows(const ConvLayer& l, LayerIO& io, const RowWindow& in, const RowWindow& out, int y0, int y1,
                 int block, const PreparedRows* prepared) {
  if (y1 <= y0) return Status::Ok();
  const int M = l.filters, K = l.in.c * l.size * l.size, N = (y1 - y0) * l.out.w;
  const int threads = io.exec && io.exec->threads > 0 ? io.exec->threads : 1;
  const int mb = prepared || block <= 0 || block >= M ? M
                                                      : std::min(M, (block + kernels::kMR - 1) / kernels::kMR * kernels::kMR);
  Buffer bias, packed, rows;
  std::vector<float> factor;
  const int pt = ConvLayer::pack_threads(threads);
  if (!prepared) {
    MDFI_RETURN_IF_ERROR(fold_bias(l, io, bias, factor));
    auto p = Buffer::make(*io.mem, kernels::packed_a_floats(mb, K), MemCategory::kWeights, "conv weight block");
    if (!p.ok()) return p.status();
    packed = std::move(*p);
    auto r = Buffer::make(*io.mem, size_t(pt) * kernels::kMR * K, MemCategory::kWeights, "conv weight rows");
    if (!r.ok()) return r.status();
    rows = std::move(*r);
  }
  // Weight blocks of a stride-1 k x k conv read its input rows where they lie (conv_direct.h)
  // rather than packing the im2col matrix again for every block: the same bits, no workspace. So
  // does a layer the default runs that way whole (ConvLayer::direct_whole: few channels, such as
  // a first layer), in its band steps too.
  const kernels::KernelInfo& kern = kernels::active_kernel();
  if ((mb < M || l.direct_whole()) && kernels::direct_suits(kern, l.size, l.stride, l.dilation, l.pad) &&
      kernels::direct_pays(kern.direct_lanes, l.size, l.out.w, M, mb)) {
    kernels::DirectJob job{in.data, size_t(in.cap) * in.w, in.lo, in.h, in.w, l.size, l.pad, K};
    job.ldc = size_t(out.cap) * out.w, job.out_w = l.out.w, job.y0 = y0, job.y1 = y1;
    const float* bias_of = prepared ? prepared->bias.data() : bias.data();
    for (int m0 = 0; m0 < M; m0 += mb) {
      job.filters = std::min(mb, M - m0), job.bias = bias_of + m0, job.out = out.row(0, y0) + size_t(m0) * job.ldc;
      if (prepared) {
        job.a = prepared->weights.data();  // mb = M: one block, packed once for the group
      } else {
        MDFI_RETURN_IF_ERROR(pack_filters(l, io, factor, m0, job.filters, pt, rows.data(), packed.data()));
        job.a = packed.data();
      }
      kernels::conv_direct(kern, job, l.activation, threads);
    }
    return Status::Ok();
  }
  const int chunk = gemm_chunk_columns(K, N, threads);
  auto ws = Buffer::make(*io.mem, kernels::sgemm_workspace_floats(K, chunk, threads), MemCategory::kWorkspace,
                         "packed im2col block");
  if (!ws.ok()) return ws.status();

  const bool whole = in.is_whole() && out.is_whole() && y0 == 0 && y1 == l.out.h;
  // A 1x1 stride-1 conv's B row c is channel c's rows from y0, consecutive in the window: read
  // in place as the whole layer reads its input (sgemm's strided kernel), not packed.
  const kernels::MatrixB direct(in.row(0, y0), K, N, in.cap * in.w);
  const kernels::Im2colB im2col(in.data, l.in.c, l.in.h, l.in.w, l.size, l.stride, l.pad);
  const WindowIm2colB window(in, l.size, l.stride, l.pad, l.out.w, y0, y1 - y0);
  const GatherIm2colB gather(in, l.size, l.stride, l.pad, l.out.w, y0, y1 - y0);
  const bool gathers = GatherIm2colB::suits(l.size, l.out.w, kernels::active_kernel().nr);
  const kernels::BSource& b = l.direct_1x1()          ? static_cast<const kernels::BSource&>(direct)
                              : gathers               ? static_cast<const kernels::BSource&>(gather)
                              : !whole                ? static_cast<const kernels::BSource&>(window)
                                                      : static_cast<const kernels::BSource&>(im2col);
  // A band's few columns (a 40-wide map in 1-row bands: 40) rarely fill whole panels: a last
  // panel of up to 8 columns goes through the 8-wide AVX2 kernel rather than a 32- or 24-wide
  // one mostly computing padding. The x86 FMA kernels give the same bits whatever their width
  // (test_kernels.cpp), so this changes no result; other kernels keep their panels.
  const kernels::KernelInfo& wide = kernels::active_kernel();
  const kernels::KernelInfo* narrow = std::strcmp(wide.name, "avx512") == 0 || std::strcmp(wide.name, "avx2") == 0
                                          ? kernels::find_kernel("avx2-8")
                                          : nullptr;
  auto narrow_tail = [&](int nc) {
    const int t = nc % wide.nr;
    return t <= narrow->nr ? t : 0;
  };
  const int ldc = out.cap * out.w;  // between output channels
  float* C = out.data + size_t(y0 - out.lo) * out.w;
  const float* bias_data = prepared ? prepared->bias.data() : bias.data();
  for (int m0 = 0; m0 < M; m0 += mb) {
    const int rb = std::min(mb, M - m0);
    const float* a = prepared ? prepared->weights.data() : packed.data();
    if (!prepared) MDFI_RETURN_IF_ERROR(pack_filters(l, io, factor, m0, rb, pt, rows.data(), packed.data()));
    for (int n0 = 0; n0 < N; n0 += chunk) {
      const int nc = std::min(chunk, N - n0);
      const int tail = narrow ? narrow_tail(nc) : 0;
      const ColumnsOf part(b, n0);
      if (nc > tail)
        kernels::sgemm_packed(rb, nc - tail, K, a, part, C + size_t(m0) * ldc + n0, ldc, bias_data + m0, l.activation,
                              threads, ws->data());
      if (tail) {
        const ColumnsOf rest(b, n0 + nc - tail);
        kernels::sgemm_packed(rb, tail, K, a, rest, C + size_t(m0) * ldc + n0 + nc - tail, ldc, bias_data + m0,
                              l.activation, threads, ws->data(), narrow);
      }
    }
  }
  return Status::Ok();
}

Status depthwise_rows(const ConvLayer& l, LayerIO& io, const RowWindow& in, const RowWindow& out, int y0, int y1,
                      const PreparedRows* prepared) {
  if (y1 <= y0) return Status::Ok();
  Buffer own_bias, own_w;
  if (!prepared) MDFI_RETURN_IF_ERROR(fold_depthwise(l, io, own_bias, own_w));
  const float* wdata = prepared ? prepared->weights.data() : own_w.data();
  const float* bdata = prepared ? prepared->bias.data() : own_bias.data();
  const int threads = io.exec && io.exec->threads > 0 ? io.exec->threads : 1;
  // The whole-layer path's kernel (depthwise_conv), over this step's rows of the window.
  kernels::DepthwiseRows g;
  g.in = in.data, g.in_channel = size_t(in.cap) * in.w, g.in_lo = in.lo, g.h = in.h, g.w = in.w;
  g.out = out.row(0, y0), g.out_channel = size_t(out.cap) * out.w, g.oy0 = y0, g.oy1 = y1, g.out_w = l.out.w;
  g.ksize = l.size, g.stride = l.stride, g.pad = l.pad, g.weights = wdata, g.bias = bdata, g.act = l.activation;
  kernels::depthwise_channels(kernels::depthwise_rows_kernel(l.size, l.stride), g, l.filters, threads);
  return Status::Ok();
}

// The scheduler's view of a convolution: depthwise ones band with the direct kernel and whole
// weights (they are small); ungrouped ones take weight blocks and bands (conv_rows); grouped,
// dilated or weight-sharing ones keep today's path.
void ConvLayer::describe_schedule(SchedNode& n) const {
  if (depthwise()) {
    n.band = SchedNode::Band::kDepthwise;
    n.k = size;
    n.s = stride;
    n.pad_top = pad;
    return;
  }
  if (groups != 1 || dilation != 1 || share_from >= 0) return;
  const int K = in.c * size * size;
  n.block_units = filters;
  n.block_multiple = kernels::kMR;
  n.default_block = filters;
  n.block_unit_bytes = size_t(K) * sizeof(float);
  n.block_fixed_bytes =
      (size_t(filters) * (batch_normalize ? 5 : 2) + size_t(pack_threads(kernels::planned_threads())) * kernels::kMR * K) *
      sizeof(float);
  n.band = SchedNode::Band::kConv;
  n.k = size;
  n.s = stride;
  n.pad_top = pad;
  n.gemm_k = K;
  const kernels::KernelInfo& kern = kernels::active_kernel();
  n.direct_lanes = kernels::direct_suits(kern, size, stride, dilation, pad) ? kern.direct_lanes : 0;
  n.direct_whole = direct_whole();
  if (n.wino_tile && winograd_candidate()) {
    // What forward_winograd holds in each way for a tile (winograd_weight_floats,
    // winograd_workspace_floats), so that a schedule's plan is what the run holds.
    auto figures = [&](SchedNode& x, int tile) {
      kernels::WinogradGeo geo = winograd_geo();
      geo.m = tile;
      const int t = kernels::planned_threads();
      const size_t head = size_t(filters) * (batch_normalize ? 4 : 1) + size_t(filters);
      x.wino_tile = tile;
      x.wino_input_weight_bytes = (head + kernels::winograd_stream_weight_floats(geo, t)) * sizeof(float);
      x.wino_input_workspace_bytes = kernels::winograd_input_workspace_floats(geo, t) * sizeof(float);
      x.wino_fixed_bytes = (head + size_t(pack_threads(t)) * kernels::kMR * in.c * 9) * sizeof(float);
      x.wino_unit_bytes = size_t(geo.n2()) * in.c * sizeof(float);
      x.wino_weights_workspace_bytes = kernels::winograd_panel_workspace_floats(geo, t) * sizeof(float);
      x.wino_transform_floats = double(geo.n2()) * in.c * geo.tiles();
      geo.group = 1;
      x.wino_geo = geo;  // for its band steps (winograd_rows.h)
    };
    figures(n, n.wino_tile);
    if (n.wino_tile == 4) {
      auto small = std::make_shared<SchedNode>(n);
      figures(*small, 2);
      n.small_tile = std::move(small);
    }
  } else {
    n.wino_tile = 0;
  }
}

Status ConvLayer::forward_rows(RowStep& step) const {
  const PreparedRows* prep = step.prepared && step.prepared->ready() ? step.prepared : nullptr;
  if (depthwise()) return depthwise_rows(*this, step.io, step.inputs[0], step.out, step.y0, step.y1, prep);
  if (winograd) return winograd_rows(*this, step.io, step.inputs[0], step.out, step.y0, step.y1, prep);
  return conv_rows(*this, step.io, step.inputs[0], step.out, step.y0, step.y1, step.block, prep);
}

Status ConvLayer::prepare_rows(LayerIO& io, PreparedRows& out) const {
  if (!depthwise() && (groups != 1 || dilation != 1 || share_from >= 0)) return Status::Ok();  // never banded
  return winograd ? winograd_rows_prepare(*this, io, out) : conv_rows_prepare(*this, io, out);
}
}  // namespace mdfi
