// Convolution under a memory schedule (schedule.h): weights read, packed and applied a block of
// output channels at a time, and output rows computed from a window of input rows (a band of a
// tiled group). Same packed panels, same SGEMM kernel and the same per-output accumulation
// order (K in kKC blocks, independent of M and N) as ConvLayer::forward_fast, so every output
// is bit-identical to the whole-layer path.
#pragma once

#include "../kernels/sgemm.h"
#include "row_window.h"
#include "conv.h"

namespace mdfi {

// The im2col matrix of output rows [y0, y0 + rows) read from a window.
class WindowIm2colB : public kernels::BSource {
 public:
  WindowIm2colB(const RowWindow& in, int ksize, int stride, int pad, int out_w, int y0, int rows);
  void pack(int k0, int kc, int n0, int nc, int nr, float* dst) const override;

 private:
  RowWindow in_;
  int k_, s_, p_, out_w_, y0_, n_;
};

// The same matrix as WindowIm2colB (and Im2colB on a whole tensor), packed by a gather: per
// panel, each kernel tap's input offsets and padding masks are worked out once, then every
// channel's rows are copied through them. On small maps (13x13, 26x26) a panel of 32 columns
// spans three or four output rows, and copying each run with its own bounds and memcpy cost
// several times the gather: a layer whose weights come in blocks packs its im2col once per
// block. Padding is written as +0.0 (the bits masked), as the copy path writes 0.f. Stride 2
// copies each output row's run of a tap as every other float of its input row (a strided copy,
// vectorised), its padding clipped once per panel. The per-panel tables step along the output
// pixels (no division per column and tap: sgemm packs every panel again for each K block).
class GatherIm2colB : public kernels::BSource {
 public:
  // The index tables live on the stack: ksize^2 * nr entries at most.
  static constexpr int kMaxEntries = 9 * 64;
  // Maps at least two panels wide copy long runs, which the copy path does faster.
  static bool suits(int ksize, int out_w, int nr) { return ksize * ksize * nr <= kMaxEntries && out_w < 2 * nr; }
  GatherIm2colB(const RowWindow& in, int ksize, int stride, int pad, int out_w, int y0, int rows);
  void pack(int k0, int kc, int n0, int nc, int nr, float* dst) const override;

 private:
  RowWindow in_;
  int k_, s_, p_, out_w_, y0_, n_;
};

// 1 / the batch-norm denominator of the layer's compat (conv_fast.cpp).
double bn_denominator(float var, Compat compat);

// Output rows [y0, y1) of `l` (groups == 1, not depthwise) into `out`, weights `block` filters
// at a time (block <= 0 or >= filters: all at once), or `prepared` ones (conv_rows_prepare).
// io.params, io.mem and io.exec are used.
Status conv_rows(const ConvLayer& l, LayerIO& io, const RowWindow& in, const RowWindow& out, int y0, int y1,
                 int block, const PreparedRows* prepared = nullptr);
// All of `l`'s filters read, folded and packed as conv_rows packs them (depthwise: the folded taps).
Status conv_rows_prepare(const ConvLayer& l, LayerIO& io, PreparedRows& out);

// Output rows [y0, y1) of a depthwise `l`, by the kernel the whole layer runs
// (kernels::depthwise_rows_kernel), each channel's rows read where they lie in the window.
Status depthwise_rows(const ConvLayer& l, LayerIO& io, const RowWindow& in, const RowWindow& out, int y0, int y1,
                      const PreparedRows* prepared = nullptr);

}  // namespace mdfi
