// Winograd layers inside banded groups (schedule.h): a band step of a 3x3 stride-1 conv that the
// default runs by Winograd computes whole tile rows by the same per-tile kernels, so each output
// is bit-identical to the default's.
//
// A step computes output rows [y0, y1) with y0 a multiple of the tile m and y1 one too or the
// layer's last row (band_program aligns the steps). Its input rows [y0 - pad, y1 - pad + 2) are
// copied, with the zero padding written out, into a scratch tensor of width out_w + 2 that the
// existing whole-tensor functions (kernels/winograd.h) run on with pad 0: tile (ty, tx) of the
// step then reads exactly the input values (and +0.0 zeros) that tile (y0 / m + ty, tx) of the
// whole layer reads, and the same micro-kernel column arithmetic gives the same bits. The
// output pass stores the step's rows straight into the output window (WinogradGeo::out_plane:
// the window's distance between filters), with no scratch of the step's output.
//
// Weights: a group that holds the layer keeps its transformed U (winograd_rows_prepare; the
// whole-weights way per step); otherwise every step reads and transforms the filters panel by
// panel as the whole-input way streams them.
#pragma once

#include <cstddef>

#include "../kernels/winograd.h"
#include "row_window.h"
#include "conv.h"

namespace mdfi {

// The geometry the kernels see for a step of `rows` output rows of a layer of geometry `whole`.
kernels::WinogradGeo winograd_rows_geo(const kernels::WinogradGeo& whole, int rows);
// Floats a step of at most `rows` rows allocates at once besides `weight_floats` (the most over
// every step size up to it), so that weight_floats plus this is the step's peak. held: the
// whole-weights way on a prepared U (the scratch input and the tile panels); else the
// whole-input way with streamed panels (weight_floats: the head and the panels), whose scratch
// input is dropped once V is made, before the weights come. The output is the window's.
size_t winograd_rows_workspace_floats(const kernels::WinogradGeo& whole, int rows, bool held, int threads,
                                      size_t weight_floats = 0);

// U and the folded biases of all of `l`'s filters, for every step of a group that holds them.
Status winograd_rows_prepare(const ConvLayer& l, LayerIO& io, PreparedRows& out);
// Output rows [y0, y1) of `l` (l.winograd: its tile) into `out`, from the window `in`; with
// `prepared` (winograd_rows_prepare) or the filters read per step.
Status winograd_rows(const ConvLayer& l, LayerIO& io, const RowWindow& in, const RowWindow& out, int y0, int y1,
                     const PreparedRows* prepared);

// conv_winograd.cpp's helpers, shared with the rows path.
namespace winograd_detail {
// Filters [f0, f0 + count) read, scaled by `factor` (null: none) and transformed into `u_block`.
Status prepare_block(const ConvLayer& l, LayerIO& io, const kernels::WinogradGeo& geo, int f0, int count,
                     const float* factor, float* u_block);
// The whole-input way with the filters streamed a panel per thread, on input `in` (geo's layout)
// into `out`: allocates V and the panels from io.mem.
Status run_streamed(const ConvLayer& l, LayerIO& io, const kernels::WinogradGeo& geo, const float* in, const float* scale,
                    const float* bias, float* out);
// Its second half: `workspace` holds V of every tile (winograd_transform_input) and the
// per-thread products; allocates the panels from io.mem.
Status multiply_streamed(const ConvLayer& l, LayerIO& io, const kernels::WinogradGeo& geo, const float* scale,
                         const float* bias, float* out, float* workspace);
}  // namespace winograd_detail

}  // namespace mdfi
