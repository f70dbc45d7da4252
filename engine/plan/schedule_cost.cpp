// The planner's cost model: the time of a schedule relative to the default's, in
// FLOP-equivalents, from constants measured on the hosts named below.
#include <algorithm>

#include "kernels/conv_direct.h"
#include "schedule.h"
#include "schedule_internal.h"

namespace mdfi {

using schedule_parts::band_tile;
using schedule_parts::winograd_gain;

// Time of a schedule relative to the default, in FLOP-equivalents, calibrated on YOLOv3 and
// Yolo-Fastest-1.1-XL on a 2-core x86 box (mdfi bench --max-mem, per-layer medians, one
// thread): packing one im2col element again costs what ~100 FLOPs of the SGEMM do, reading and
// packing a weight again ~150, a band step of a conv ~5e5 (~10 us: Yolo-Fastest's one-row steps).
// Each extra weight block packs the layer's im2col matrix again; each extra band re-reads and
// re-packs the group's weights (unless it holds them) and pays for its GEMM calls; Winograd
// layers of the default run by GEMM. Orders the schedules and predicts their time within a
// factor of ~1.5 on a loaded box; bench/memory.sh measures the real ratio.
// The default's Winograd layers run winograd_gain(tile) times faster than by GEMM, weights
// streamed, one thread: per-layer medians of `mdfi bench -j 1` with --winograd auto and off, in
// sum over each network's layers of that tile. F(4x4): YOLOv3, darknet53, YOLOv4-tiny 2.09x,
// 2.42x, 1.90x on the 2-core EPYC box (load 3-6, three rounds), 1.85x, 1.84x, 1.27x on a 16-core
// Xeon (two rounds); F(2x2) (13x13 and 8x8 maps, where reading the weights weighs more): 1.38x,
// 1.10x, 1.13x and 1.15x, 1.04x, 0.88x. A single 1.25x for both had the planner run F(4x4)
// layers by GEMM in blocks rather than by Winograd with more weight blocks: YOLOv3's 52x52
// layers at its smallest budget took 12 ms instead of 4-10.
double schedule_parts::winograd_gain(int tile) { return tile == 4 ? 1.9 : 1.15; }

namespace {

// F(2x2) where the default takes F(4x4) (SchedNode::small_tile: maps of 26x26 and more on x86):
// there it reads fewer weights per product than on the 13x13 maps winograd_gain(2) was measured
// on. yolov4-tiny's 26x26 layers 18, 20, 21 and 35, 1 thread, EPYC VM, two rounds of `mdfi bench
// --winograd off|f2|f4`: F(2x2) 1.53-1.61x faster than GEMM (F(4x4) 1.65-1.89x).
constexpr double kSmallTileGain = 1.55;

// Making the transformed input of a Winograd layer again for each block of its filters costs, per
// float, about what packing an im2col element again does.
constexpr double kTransformCost = 100;
// An extra block of the whole-weights way costs at least this share of the layer's FLOPs: besides
// the input's tiles transformed again, each block reads its U panels once per tile panel and runs
// the output pass of its filters. Measured on YOLOv3's F(4x4) layers at its smallest budget (1
// thread, EPYC VM, load ~2, minimum of two interleaved runs of 5, against the default's run of
// them): 0.40-0.44 ms per extra block on layers 17, 20-35 (52x52, 128 channels, 779k floats of V
// per transform) and 45-57 (26x26, 256 channels, 452k floats), all of 1.6 GFLOP: ~4.5% of such a
// layer's time by GEMM, and not in proportion to the floats transformed, which charged the 26x26
// layers 40% less and kept 45, 51 and 57 in 16 Winograd blocks (10.9 ms each) where their
// neighbours in 5 GEMM blocks took 9.7-9.9 ms. Scaled by FLOPs (the simplest form those two shapes
// allow), it exceeds the per-float term only for layers of more than ~280 filters (F(4x4)).
constexpr double kWinogradBlockShare = 0.045;

// A conv in `nb` weight blocks: each extra block packs the im2col matrix again, or, where that
// costs more (kernels::direct_pays, as conv_rows decides), the direct path's extra work, less the
// one packing the default does. Never more for larger blocks.
double conv_block_cost(const SchedNode& n, int nb) {
  const double pack = double(n.gemm_k) * n.out_h * n.out_w * 100;
  const double repack = double(nb - 1) * pack;
  if (!n.direct_lanes || nb < 2) return repack;
  const double direct = 2.0 * n.block_units * n.gemm_k * double(n.out_h) * n.out_w *
                        kernels::direct_cost_factor(n.direct_lanes, n.k, n.out_w) - pack;
  return std::max(0.0, std::min(repack, direct));
}

}  // namespace

// A layer outside band groups: its extra cost under `algo` with `block` channels per block.
double schedule_parts::layer_cost(const SchedNode& n, SchedAlgo algo, int block) {
  const int nb = n.block_units && block ? (n.block_units + block - 1) / block : 1;
  if (algo != SchedAlgo::kGemm && n.wino_tile) {
    // A tile other than the default's (small_tile) runs at its own gain.
    const double tile =
        n.wino_tile == n.wino_default_tile ? 0 : n.flops * (1 / kSmallTileGain - 1 / winograd_gain(n.wino_default_tile));
    return tile + (algo == SchedAlgo::kWinogradWeights
                       ? double(nb - 1) * std::max(n.wino_transform_floats * kTransformCost, kWinogradBlockShare * n.flops)
                       : 0);
  }
  double extra = n.winograd_default ? n.flops * (1 - 1 / winograd_gain(n.wino_tile)) : 0;
  if (n.band == SchedNode::Band::kConv) extra += conv_block_cost(n, nb);
  else if (n.block_units && nb > 1) extra += double(nb) * 1e5;
  return extra;
}

// Reading and transforming the filters again for a Winograd band step, per float of U: measured
// on darknet53's layer 14 (F(4x4), 128 -> 256 at 32x32) in four steps of 8 rows, weights
// streamed, against the default's one pass (1 thread, EPYC VM): 2.7 ms more for three more
// transforms of its 295k raw weights, ~3 ns (~450 FLOP-equivalents, 36/9 floats of U) each.
constexpr double kRetransformCost = 112;

double schedule_parts::extra_cost(const std::vector<SchedNode>& nodes, const Schedule& s) {
  double extra = 0;
  std::vector<int> bands(nodes.size(), 1);
  std::vector<bool> resident(nodes.size(), false), grouped(nodes.size(), false);
  for (const BandGroup& g : s.groups) {
    const int b = (nodes[size_t(g.last)].out_h + g.band_rows - 1) / std::max(1, g.band_rows);
    for (int l = g.first; l <= g.last; ++l) bands[size_t(l)] = b, resident[size_t(l)] = g.holds(l), grouped[size_t(l)] = true;
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    const SchedNode& n = scheduled_node(nodes, s, int(i));
    const int block = i < s.block.size() ? s.block[i] : 0;
    const SchedAlgo algo = s.algo_of(int(i));
    if (grouped[i] && band_tile(nodes, s, int(i))) {
      // Winograd in whole tile rows: no FLOPs lost to GEMM; a step per tile row at most, each
      // transforming the filters again unless the group holds them.
      const int m = n.wino_tile, steps = std::min(bands[i], (n.out_h + m - 1) / m);
      const double retransform = resident[i] ? 0 : double(n.block_units) * n.wino_geo.channels * n.wino_geo.n2() * kRetransformCost;
      extra += double(steps - 1) * (retransform + 5e5);
      continue;
    }
    extra += layer_cost(n, algo, block);
    if (algo != SchedAlgo::kGemm && n.wino_tile) continue;
    const int nb = n.block_units && block ? (n.block_units + block - 1) / block : 1;
    if (n.band == SchedNode::Band::kConv)
      extra += double(bands[i] - 1) * ((resident[i] ? 0 : double(n.block_units) * n.gemm_k * 150) + 5e5 * nb);
    else if (!(n.block_units && nb > 1))
      extra += double(bands[i] - 1) * 1e5;
  }
  return extra;
}

double schedule_cost(const std::vector<SchedNode>& nodes, const Schedule& s) { return schedule_parts::extra_cost(nodes, s); }

}  // namespace mdfi
