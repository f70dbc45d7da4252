#include "maxpool.h"
#include "row_window.h"
#include "schedule.h"

#include <algorithm>
#include <cfloat>
#include <cstdint>
#include <cstdio>

#include "../kernels/maxpool2x2.h"
#include "../kernels/split_range.h"
#include "../layer_registry.h"

namespace mdfi {

LayerRegistration register_maxpool() {
  LayerRegistration r;
  r.section = "maxpool";
  r.aliases = {"max"};
  r.keys = "size, stride, padding, maxpool_depth, out_channels (AlexeyAB)";
  r.doc = "max pooling, or across channels";
  r.alexeyab_keys = {"maxpool_depth"};
  r.create = &MaxPoolLayer::create;
  return r;
}

LayerResult MaxPoolLayer::create(const SectionReader& r, const BuildContext& ctx) {
  auto l = std::make_unique<MaxPoolLayer>();
  MDFI_ASSIGN_OR_RETURN(auto stride, r.get_int("stride", 1));
  MDFI_ASSIGN_OR_RETURN(auto size, r.get_int("size", stride));
  MDFI_ASSIGN_OR_RETURN(auto padding, r.get_int("padding", size - 1));
  l->stride = stride;
  l->size = size;
  l->padding = padding;
  if (l->stride <= 0) return LayerResult(ErrorKind::kCfg, r.where("stride") + ": stride must be > 0");
  if (l->size <= 0) return LayerResult(ErrorKind::kCfg, r.where("size") + ": size must be > 0");
  if (l->padding < 0) return LayerResult(ErrorKind::kCfg, r.where("padding") + ": padding must be >= 0");
  MDFI_ASSIGN_OR_RETURN(auto depth, r.get_int("maxpool_depth", 0));
  if (depth) {
    MDFI_ASSIGN_OR_RETURN(auto out_channels, r.get_int("out_channels", 1));
    if (out_channels <= 0)
      return LayerResult(ErrorKind::kCfg, r.where("out_channels") + ": out_channels must be > 0");
    l->depth = true;
    l->in = ctx.input;
    l->out = Shape{out_channels, ctx.input.h, ctx.input.w};
    return LayerResult(std::unique_ptr<Layer>(std::move(l)));
  }
  l->in = ctx.input;
  l->out.c = ctx.input.c;
  l->out.w = (ctx.input.w + l->padding - l->size) / l->stride + 1;
  l->out.h = (ctx.input.h + l->padding - l->size) / l->stride + 1;
  if (ctx.input.w + l->padding < l->size || ctx.input.h + l->padding < l->size)
    return LayerResult(ErrorKind::kCfg, layer_error(ctx, "maxpool", "window larger than its input"));
  return LayerResult(std::unique_ptr<Layer>(std::move(l)));
}

std::string MaxPoolLayer::detail() const {
  char buf[64];
  std::snprintf(buf, sizeof buf, "      %2d x%2d /%2d", size, size, stride);
  return buf;
}

// Stride 1, windows of 3 or more (the SPP blocks of Yolo-Fastest and YOLOv3-SPP): a window's
// maximum is the maximum of its rows' maxima, so each input row's sliding maxima are taken once
// (size compares per output instead of size * size). Each pass keeps the first of equal values
// and never lets a NaN win, in row-major order, so the result is the direct loop's, bit for
// bit. Output rows [y0, y1) of one channel, row i at out + (i - y0) * out_w; row(y) is input
// row y; `hm` holds the row maxima (kSeparableFloats, when separable_fits), on the stack: small
// maps and bands only, no heap.
constexpr int kSeparableFloats = 4096;

// Output rows at least this wide split over the threads by rows (forward), narrower by channels.
constexpr int kRowSplitMinWidth = 32;

template <class Row>
static void pool_separable(Row row, int in_h, int in_w, int size, int off, float* out, int out_w, int y0, int y1,
                           float* hm) {
  const int first = std::max(0, off + y0), last = std::min(in_h, off + y1 - 1 + size);  // input rows read
  for (int y = first; y < last; ++y) {
    float* h = hm + size_t(y - first) * out_w;
    std::fill(h, h + out_w, -FLT_MAX);
    for (int m = 0; m < size; ++m) {
      const int j0 = std::max(0, -off - m), j1 = std::min(out_w, in_w - off - m);
      const float* src = row(y) + off + m;
      for (int j = j0; j < j1; ++j) h[j] = src[j] > h[j] ? src[j] : h[j];
    }
  }
  for (int i = y0; i < y1; ++i) {
    float* dst = out + size_t(i - y0) * out_w;
    std::fill(dst, dst + out_w, -FLT_MAX);
    for (int n = 0; n < size; ++n) {
      const int y = off + i + n;
      if (y < first || y >= last) continue;
      const float* h = hm + size_t(y - first) * out_w;
      for (int j = 0; j < out_w; ++j) dst[j] = h[j] > dst[j] ? h[j] : dst[j];
    }
  }
}

// Whether pool_separable's row maxima for output rows [y0, y1) fit its stack buffer.
static bool separable_fits(int in_h, int size, int off, int out_w, int y0, int y1) {
  const int first = std::max(0, off + y0), last = std::min(in_h, off + y1 - 1 + size);
  return int64_t(std::max(0, last - first)) * out_w <= kSeparableFloats;
}

Status MaxPoolLayer::forward(LayerIO& io) const {
  const float* x = io.inputs[0];
  if (depth) {
    const size_t plane = size_t(in.w) * in.h;
    for (int g = 0; g < out.c; ++g)
      for (size_t p = 0; p < plane; ++p) {
        float best = -FLT_MAX;
        for (int k = g; k < in.c; k += out.c) best = std::max(best, x[size_t(k) * plane + p]);
        io.output[size_t(g) * plane + p] = best;
      }
    return Status::Ok();
  }
  const int off = -padding / 2;
  const int threads = io.fast() ? std::max(1, io.exec->threads) : 1;
  // Every output is computed alone, so threads split channels or rows (below). Windows wholly
  // inside the input skip the bounds checks; the comparisons and their order are the same either
  // way (NaN never wins, the first of equal values stays), so both paths give Darknet's result.
  const bool pool2x2 = size == 2 && stride == 2 && io.fast();
  if (io.fast() && stride == 1 && size >= 3 && separable_fits(in.h, size, off, out.w, 0, out.h)) {
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int k = 0; k < out.c; ++k) {
      float hm[kSeparableFloats];  // [input row][output column]
      const float* plane = x + size_t(k) * in.h * in.w;
      pool_separable([&](int y) { return plane + size_t(y) * in.w; }, in.h, in.w, size, off,
                     io.output + size_t(k) * out.h * out.w, out.w, 0, out.h, hm);
    }
    return Status::Ok();
  }
  // Output rows [i0, i1) of channel k.
  auto pool_rows = [&](int k, int i0, int i1) {
    const float* plane = x + size_t(k) * in.h * in.w;
    for (int i = i0; i < i1; ++i) {
      const int y0 = off + i * stride;
      const bool rows_inside = y0 >= 0 && y0 + size <= in.h;
      float* dst = io.output + (size_t(k) * out.h + i) * out.w;
      // 2x2 stride 2: the windows wholly inside the row, [j0, j1), go through the vector kernel.
      int j0 = out.w, j1 = out.w;
      if (pool2x2 && rows_inside) {
        j0 = std::min(out.w, off < 0 ? (-off + 1) / 2 : 0);
        const int last = in.w - off - 2;  // 2*j may go up to this
        j1 = last < 0 ? j0 : std::max(j0, std::min(out.w, last / 2 + 1));
        kernels::max2x2_row(plane + size_t(y0) * in.w + off + 2 * j0, plane + size_t(y0 + 1) * in.w + off + 2 * j0,
                            dst + j0, j1 - j0);
      }
      for (int j = 0; j < out.w; ++j) {
        if (j == j0) j = j1;
        if (j >= out.w) break;
        const int x0 = off + j * stride;
        float best = -FLT_MAX;
        if (rows_inside && x0 >= 0 && x0 + size <= in.w) {
          for (int n = 0; n < size; ++n) {
            const float* row = plane + size_t(y0 + n) * in.w + x0;
            for (int m = 0; m < size; ++m)
              if (row[m] > best) best = row[m];
          }
        } else {
          for (int n = 0; n < size; ++n)
            for (int m = 0; m < size; ++m) {
              const int y = y0 + n, xx = x0 + m;
              if (y >= 0 && y < in.h && xx >= 0 && xx < in.w) {
                const float v = plane[size_t(y) * in.w + xx];
                if (v > best) best = v;
              }
            }
        }
        dst[j] = best;
      }
    }
  };
#if defined(__aarch64__)
  // NEON pools whole planes: threads split the channels.
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int k = 0; k < out.c; ++k) {
    if (io.fast() && kernels::maxpool_plane_neon(x + size_t(k) * in.h * in.w, in.h, in.w, size, stride, off,
                                                 io.output + size_t(k) * out.h * out.w, out.h, out.w))
      continue;
    pool_rows(k, 0, out.h);
  }
#else
  // Small maps split by channels: a row of a 13x13 map shares its cache lines with the next
  // row, which the other thread would be writing (yolov3-tiny's layer 11 took 1.5x as long).
  if (threads == 1 || out.w < kRowSplitMinWidth || out.h < 4 * threads) {
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
    for (int k = 0; k < out.c; ++k) pool_rows(k, 0, out.h);
    return Status::Ok();
  }
  // Threads split the output rows, all channels each: the convolutions around a pool split the
  // map the same way (GEMM by columns, Winograd by consecutive tile panels, a first layer's
  // direct kernel by rows), so a thread pools rows its own core just wrote.
  kernels::split_range(threads, out.h, [&](int, int i0, int i1) {
    for (int k = 0; k < out.c; ++k) pool_rows(k, i0, i1);
  });
#endif
  return Status::Ok();
}


// Bands of a spatial max pool; a pool across channels (maxpool_depth) keeps today's path.
void MaxPoolLayer::describe_schedule(SchedNode& n) const {
  if (depth) return;
  n.band = SchedNode::Band::kPool;
  n.k = size;
  n.s = stride;
  n.pad_top = padding / 2;
}

// Rows [y0, y1) with forward's window, bounds and comparison order (the fast 2x2 kernel and the
// separable stride-1 pool take the same maximum).
Status MaxPoolLayer::forward_rows(RowStep& step) const {
  const RowWindow& in = step.inputs[0];
  const RowWindow& out = step.out;
  const int y0 = step.y0, y1 = step.y1;
  const int threads = std::max(1, step.io.exec ? step.io.exec->threads : 1);

  const int off = -padding / 2;
  if (stride == 1 && size >= 3 && separable_fits(in.h, size, off, out.w, y0, y1)) {  // as forward
    auto channel = [&](int k) {
      float hm[kSeparableFloats];
      pool_separable([&](int y) { return static_cast<const float*>(in.row(k, y)); }, in.h, in.w, size, off,
                     out.row(k, y0), out.w, y0, y1, hm);
    };
    if (threads == 1) {  // a band step: no OpenMP region (one costs microseconds)
      for (int k = 0; k < out.c; ++k) channel(k);
      return Status::Ok();
    }
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int k = 0; k < out.c; ++k) channel(k);
    return Status::Ok();
  }
  const bool pool2x2 = size == 2 && stride == 2;  // rows are only run on the optimised path
  auto channel = [&](int k) {
    for (int i = y0; i < y1; ++i) {
      float* dst = out.row(k, i);
      const int ys = off + i * stride;
      // 2x2 stride 2: the windows wholly inside, [j0, j1), through forward's vector kernel.
      int j0 = out.w, j1 = out.w;
      if (pool2x2 && ys >= 0 && ys + 2 <= in.h) {
        j0 = std::min(out.w, off < 0 ? (-off + 1) / 2 : 0);
        const int last = in.w - off - 2;
        j1 = last < 0 ? j0 : std::max(j0, std::min(out.w, last / 2 + 1));
        kernels::max2x2_row(in.row(k, ys) + off + 2 * j0, in.row(k, ys + 1) + off + 2 * j0, dst + j0, j1 - j0);
      }
      for (int j = 0; j < out.w; ++j) {
        if (j == j0) j = j1;
        if (j >= out.w) break;
        const int x0 = off + j * stride;
        float best = -FLT_MAX;
        for (int n = 0; n < size; ++n) {
          const int y = ys + n;
          if (y < 0 || y >= in.h) continue;
          const float* row = in.row(k, y);
          for (int m = 0; m < size; ++m) {
            const int x = x0 + m;
            if (x >= 0 && x < in.w && row[x] > best) best = row[x];
          }
        }
        dst[j] = best;
      }
    }
  };
  // At one thread no OpenMP region: a band step of a few rows (yolov3-tiny's 2x2 pools in
  // one-row bands) costs about what the region's fork and join do.
  if (threads == 1) {
    for (int k = 0; k < out.c; ++k) channel(k);
    return Status::Ok();
  }
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int k = 0; k < out.c; ++k) channel(k);
  return Status::Ok();
}
}  // namespace mdfi
