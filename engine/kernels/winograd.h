// Winograd convolution F(m x m, 3x3) for 3x3 stride-1 layers (Lavin & Gray's minimal filtering),
// m = 2 (4x4 transformed tiles) or 4 (6x6). Each output tile of m x m pixels costs (m+2)^2
// multiply-adds per input channel and filter instead of 9 m^2: 2.25x fewer for F(2x2), 4x for
// F(4x4). The element-wise products over channels are (m+2)^2 small GEMMs, run by the SGEMM
// micro-kernels (microkernel.h: AVX-512, AVX2, NEON or generic, chosen at run time), so this
// file holds only the transforms, the layouts and the tile loops.
//
// Layouts (n = m + 2, n2 = n * n):
// - transformed weights U: n2 planes, each the packed-A layout of sgemm.h for (filters x C):
//   plane p, filter panel q (kMR filters), channel c, row i at [p][q][c][i]. A block of filter
//   panels has the same layout with fewer panels.
// - transformed input V: per panel of NR tiles, [p][c][j] (the packed-B layout of one NR panel
//   for K = C), panels one after another.
// Two ways to run a layer, so its memory can follow what the planner can afford:
// - whole weights: all of U is prepared first; each thread transforms one tile panel at a time
//   (small scratch) and multiplies it by every filter. Suits large images with few channels.
// - whole input: V of every tile is transformed first; the weights then pass in blocks of
//   filters (read, folded, transformed, used, dropped). Suits small images with many channels:
//   a 13x13 layer of 512 -> 1024 holds 1.6 MB of V instead of 19 MB of packed weights.
#pragma once

#include <cstddef>

#include "../activation.h"
#include "microkernel.h"

namespace mdfi::kernels {

struct WinogradGeo {
  int m = 2;                  // output tile: 2 or 4
  int channels = 0, height = 0, width = 0, pad = 0;
  int filters = 0, out_h = 0, out_w = 0;
  // Whole-input way: filter panels multiplied per pass over V (kWinogradTilePanels tile panels at
  // a time). 1 reads all of V once per filter panel; G reads it once per G panels, for G times
  // the product tiles (and, streamed, G panels of U) per thread. Same products, same bits.
  int group = 1;
  // Floats from one filter's output plane to the next; 0: out_h * out_w (a whole tensor). A band
  // step (winograd_rows.h) writes its rows straight into a row window, whose channels lie
  // cap * out_w floats apart.
  size_t out_plane = 0;
  size_t plane() const { return out_plane ? out_plane : size_t(out_h) * out_w; }
  int tiles_x() const { return (out_w + m - 1) / m; }
  int tiles_y() const { return (out_h + m - 1) / m; }
  int tiles() const { return tiles_x() * tiles_y(); }
  int n2() const { return (m + 2) * (m + 2); }
};

// The per-tile work (transforms, output pass) for one instruction set: winograd_tiles.inc built
// as generic C++ (NEON where the target has it: aarch64; armhf needs -ffast-math for GCC to
// vectorise floats, so it runs scalar), and with AVX2 and AVX-512 targets on x86-64, picked at
// run time like the micro-kernels. Every variant gives the same bits.
struct WinogradOps {
  const char* name;
  void (*input)(const WinogradGeo& geo, const float* in, int panel, int nr, float* dst);
  void (*output)(const WinogradGeo& geo, const float* mbuf, int nr, int f_first, int t_first, const float* bias,
                 Activation act, float* out);
  void (*weights)(const WinogradGeo& geo, int rows, const float* raw, const float* scale, float* u_block,
                  size_t plane_stride, int panel);
};
WinogradOps winograd_ops_generic();
#if defined(__x86_64__) || defined(__i386__)
WinogradOps winograd_ops_avx2();
WinogradOps winograd_ops_avx512();
#endif
#if defined(__aarch64__)
WinogradOps winograd_ops_neon();  // gathers, transforms and scatters in NEON (winograd_neon.cpp)
#endif
const WinogradOps& winograd_ops();                        // the best this CPU runs
const WinogradOps* find_winograd_ops(const char* name);  // nullptr when not built or not supported

// Tile panels whose products a pass of the whole-input way holds at once (with geo.group).
constexpr int kWinogradTilePanels = 2;

// The micro-kernel the tile loops use for `geo`. The planner and the run ask the same question.
const KernelInfo& winograd_kernel(const WinogradGeo& geo);

// Floats of U for `filters` filters (rounded up to whole kMR panels).
size_t winograd_u_floats(const WinogradGeo& geo, int filters);
// Scratch of the whole-weights way, for `threads` threads.
size_t winograd_panel_workspace_floats(const WinogradGeo& geo, int threads);
// Scratch of the whole-input way: V of every tile plus each thread's product tiles.
size_t winograd_input_workspace_floats(const WinogradGeo& geo, int threads);
// What each thread of the streamed whole-input way holds of the weights: the U of a pass's
// geo.group filter panels and their raw rows.
size_t winograd_stream_weight_floats(const WinogradGeo& geo, int threads);

// Transforms `rows` (<= kMR) filters of raw 3x3 weights (rows x channels x 9, Darknet order)
// into filter panel `panel` of a U block whose planes are `plane_stride` floats apart; with
// `scale`, filter i is multiplied by scale[i] first (batch-norm folding, as the GEMM path does).
void winograd_transform_weights(const WinogradGeo& geo, int rows, const float* raw, const float* scale, float* u_block,
                                size_t plane_stride, int panel, const WinogradOps* ops = nullptr);

// The whole-weights way: `u` holds every filter (winograd_u_floats(geo, filters)).
void winograd_conv_whole_weights(const WinogradGeo& geo, const float* in, const float* u, const float* bias,
                                 Activation act, float* out, int threads, float* workspace,
                                 const WinogradOps* ops = nullptr);

// The whole-input way: transform the input into the front of `workspace` (first step), then
// multiply by every filter, from a whole U (multiply_all) or from U made pass by pass as each
// thread gets to it (multiply_streamed: no barrier between passes, each thread reads and
// transforms its own geo.group filter panels into `weight_scratch`, winograd_stream_weight_floats).
void winograd_transform_input(const WinogradGeo& geo, const float* in, float* workspace, int threads,
                              const WinogradOps* ops = nullptr);
void winograd_multiply_all(const WinogradGeo& geo, const float* u, const float* bias, Activation act, float* out,
                           int threads, float* workspace, const WinogradOps* ops = nullptr);

// Makes U of filter panel q (kMR filters from q * kMR; planes kMR * channels apart) in `u_panel`,
// with `raw` as room for the panel's raw weights. False: failed (the source keeps the error).
class WinogradPanelSource {
 public:
  virtual ~WinogradPanelSource() = default;
  virtual bool panel(int q, float* u_panel, float* raw) = 0;
  // Panels q0 .. q0 + count - 1, panel i's U at u + i * u_stride, with `raw` as room for all their
  // raw weights: a source that reads a file can fetch them with one read (panels(): one by one).
  virtual bool panels(int q0, int count, float* u, size_t u_stride, float* raw) {
    for (int i = 0; i < count; ++i)
      if (!panel(q0 + i, u + size_t(i) * u_stride, raw)) return false;
    return true;
  }
};
void winograd_multiply_streamed(const WinogradGeo& geo, WinogradPanelSource& source, const float* bias, Activation act,
                                float* out, int threads, float* workspace, float* weight_scratch,
                                const WinogradOps* ops = nullptr);

}  // namespace mdfi::kernels
