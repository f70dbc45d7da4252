#include "schedule.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

#include "arena_plan.h"
#include "kernels/conv_direct.h"
#include "kernels/sgemm.h"
#include "layer.h"
#include "layers/winograd_rows.h"

namespace mdfi {

bool Schedule::is_default() const {
  if (!groups.empty()) return false;
  for (int b : block)
    if (b) return false;
  for (SchedAlgo a : algo)
    if (a != SchedAlgo::kGemm) return false;
  return true;
}

const BandGroup* Schedule::group_of(int layer) const {
  for (const BandGroup& g : groups)
    if (layer >= g.first && layer <= g.last) return &g;
  return nullptr;
}

size_t blocked_weight_bytes(const SchedNode& node, int block) {
  if (!node.block_units || block <= 0 || block >= node.default_block) return node.plan.weight_bytes;
  const int m = node.block_multiple;
  const size_t rounded = size_t((block + m - 1) / m) * size_t(m);
  return node.block_fixed_bytes + rounded * node.block_unit_bytes;
}

void layer_bytes(const SchedNode& node, SchedAlgo algo, int block, size_t* weight_bytes, size_t* workspace_bytes) {
  if (algo == SchedAlgo::kWinogradInput && node.wino_tile) {
    *weight_bytes = node.wino_input_weight_bytes;
    *workspace_bytes = node.wino_input_workspace_bytes;
  } else if (algo == SchedAlgo::kWinogradWeights && node.wino_tile) {
    const int m = node.block_multiple, f = block > 0 && block < node.block_units ? block : node.block_units;
    *weight_bytes = node.wino_fixed_bytes + size_t((f + m - 1) / m) * size_t(m) * node.wino_unit_bytes;
    *workspace_bytes = node.wino_weights_workspace_bytes;
  } else if (block && node.band == SchedNode::Band::kConv) {  // conv_rows: chunked columns
    *weight_bytes = blocked_weight_bytes(node, block);
    *workspace_bytes = conv_workspace_bytes(node, node.out_h * node.out_w);
  } else {
    *weight_bytes = block ? blocked_weight_bytes(node, block) : node.plan.weight_bytes;
    *workspace_bytes = node.plan.workspace_bytes;
  }
}

int gemm_chunk_columns(int K, int N, int threads) {
  const int nr = kernels::active_kernel().nr;
  const int per_col = std::max(1, std::min(K, kernels::kKC)) * int(sizeof(float));
  const int per_thread = std::max(nr, int(kChunkBytes) / per_col / nr * nr);
  const int most = std::max(4 * nr, per_thread * std::max(1, threads));
  if (N <= most) return std::max(1, N);
  // Chunks of equal whole panels (169 columns: 96 + 73, not 128 + 41).
  const int chunks = (N + most - 1) / most, even = (N + chunks - 1) / chunks;
  return std::min(most, (even + nr - 1) / nr * nr);
}

size_t conv_workspace_bytes(const SchedNode& node, int columns) {
  if (node.band != SchedNode::Band::kConv || columns <= 0 || node.direct_whole) return 0;
  return kernels::sgemm_workspace_floats(node.gemm_k, gemm_chunk_columns(node.gemm_k, columns, kernels::planned_threads()),
                                         kernels::planned_threads()) *
         sizeof(float);
}

size_t band_conv_workspace_bytes(const SchedNode& node, int rows) {
  size_t most = 0;
  for (int r = 1; r <= rows; ++r) most = std::max(most, conv_workspace_bytes(node, r * node.out_w));
  return most;
}

// Input rows that output rows [y0, y1) of `c` read, clamped to the input's height.
static bool same_rows(const SchedNode& c) {
  return c.band == SchedNode::Band::kAdd || c.band == SchedNode::Band::kConcat || c.band == SchedNode::Band::kAlias;
}
static int lo_in(const SchedNode& c, int y0) {
  if (same_rows(c)) return y0;
  return std::max(0, y0 * c.s - c.pad_top);
}
static int hi_in(const SchedNode& c, int y1, int in_h) {
  if (y1 <= 0) return 0;
  if (same_rows(c)) return std::min(y1, in_h);
  return std::max(0, std::min(in_h, (y1 - 1) * c.s - c.pad_top + c.k));
}

// The last row y1 a consumer `c` can compute once `done` rows of its source (of height in_h) exist.
static int rows_allowed(const SchedNode& c, int done, int in_h) {
  if (done >= in_h) return 1 << 30;
  if (same_rows(c)) return done;
  const int num = done + c.pad_top - c.k;  // (y1 - 1) * s <= num
  if (num < 0) return 0;
  return num / c.s + 1;
}

// The tile of a group layer that `s` runs by Winograd in its band steps, or 0 (GEMM).
static int band_tile(const std::vector<SchedNode>& nodes, const Schedule& s, int l) {
  const SchedNode& n = nodes[size_t(l)];
  return n.band == SchedNode::Band::kConv && n.wino_tile && s.algo_of(l) != SchedAlgo::kGemm ? n.wino_tile : 0;
}

static int round_up(int v, int m) { return (v + m - 1) / m * m; }

namespace {

// A group's sweep sizes (window rows, rows per step, bands) depend only on the group and its
// band height. choose_schedule sizes the same groups hundreds of times over one set of nodes:
// while it runs, they are kept here (one planner call per thread at a time).
struct SweepSizes {
  std::vector<int> window_rows, max_new_rows;
  int band_count = 0;
};
// Keyed by the group, its band height and its layers' Winograd tiles (which align their steps).
using SweepCache = std::map<std::tuple<int, int, int, std::vector<int>>, SweepSizes>;
thread_local SweepCache* sweep_cache = nullptr;

struct SweepCacheScope {
  SweepCache cache;
  SweepCacheScope() { sweep_cache = &cache; }
  ~SweepCacheScope() { sweep_cache = nullptr; }
  SweepCacheScope(const SweepCacheScope&) = delete;
  SweepCacheScope& operator=(const SweepCacheScope&) = delete;
};

}  // namespace

static void step_sizes(const std::vector<SchedNode>& nodes, const Schedule& schedule, const BandGroup& g,
                       BandProgram& p);

BandProgram band_program(const std::vector<SchedNode>& nodes, const Schedule& schedule, const BandGroup& g,
                         bool with_steps) {
  std::vector<int> tiles;
  for (int l = g.first; l <= g.last; ++l) tiles.push_back(band_tile(nodes, schedule, l));
  const std::tuple<int, int, int, std::vector<int>> key{g.first, g.last, g.band_rows, tiles};
  if (!with_steps && sweep_cache) {
    auto it = sweep_cache->find(key);
    if (it != sweep_cache->end()) {
      BandProgram p;
      p.window_rows = it->second.window_rows;
      p.max_new_rows = it->second.max_new_rows;
      p.band_count = it->second.band_count;
      step_sizes(nodes, schedule, g, p);
      return p;
    }
  }
  const int first = g.first, count = g.last - g.first + 1;
  std::vector<std::vector<int>> consumers(static_cast<size_t>(count)), sources(static_cast<size_t>(count));
  for (int c = first; c <= g.last; ++c)
    for (int s : nodes[size_t(c)].plan.sources)
      if (s >= first && s <= g.last) {
        consumers[size_t(s - first)].push_back(c);
        sources[size_t(c - first)].push_back(s);
      }
  // The layers that read each layer's rows: an alias (dropout) holds no rows, so its consumers
  // read this layer's window.
  std::vector<std::vector<int>> readers(static_cast<size_t>(count));
  for (int l = 0; l < count; ++l) {
    std::vector<int> r = consumers[size_t(l)];
    for (size_t i = 0; i < r.size(); ++i) {
      const int c = r[i];
      if (nodes[size_t(c)].band == SchedNode::Band::kAlias)
        r.insert(r.end(), consumers[size_t(c - first)].begin(), consumers[size_t(c - first)].end());
      else
        readers[size_t(l)].push_back(c);
    }
  }
  BandProgram p;
  p.window_rows.assign(size_t(count), 0);
  p.max_new_rows.assign(size_t(count), 0);
  std::vector<int> done(static_cast<size_t>(count), 0), keep(done), target(done), chunk(done);
  const int H = nodes[size_t(g.last)].out_h;
  // A Winograd last layer bands in whole tile rows.
  const int R = tiles.back() ? round_up(std::max(1, g.band_rows), tiles.back()) : std::max(1, g.band_rows);
  // A layer computes at most its share of a band per step (R rows of the last layer's output
  // scaled to its height), and only rows whose inputs exist: the first band, whose receptive
  // field reaches many rows into the early layers, runs as several sweeps of these steps, so a
  // window holds about one step's rows plus the halo instead of the whole first pyramid.
  // A Winograd layer's targets and steps are whole tile rows (or end at its last row).
  auto aligned = [&](int l, int t) {
    const int m = tiles[size_t(l)];
    return m ? std::min(round_up(t, m), nodes[size_t(first + l)].out_h) : t;
  };
  for (int l = 0; l < count; ++l) {
    chunk[size_t(l)] = std::max(1, int((int64_t(R) * nodes[size_t(first + l)].out_h + H - 1) / H));
    if (tiles[size_t(l)]) chunk[size_t(l)] = round_up(chunk[size_t(l)], tiles[size_t(l)]);
  }
  for (int y = 0; y < H; y += R) {
    ++p.band_count;
    target[size_t(count - 1)] = aligned(count - 1, std::min(H, y + R));
    for (int l = count - 2; l >= 0; --l) {
      int t = done[size_t(l)];
      for (int c : consumers[size_t(l)])
        t = std::max(t, hi_in(nodes[size_t(c)], target[size_t(c - first)], nodes[size_t(first + l)].out_h));
      target[size_t(l)] = aligned(l, std::min(t, nodes[size_t(first + l)].out_h));
    }
    for (bool more = true, moved = true; more && moved;) {  // `moved`: never loops on a program bug
      more = moved = false;
      std::vector<BandStep> steps;
      for (int l = 0; l < count; ++l) {
        int to = std::min(target[size_t(l)], done[size_t(l)] + chunk[size_t(l)]);
        for (int s : sources[size_t(l)])
          to = std::min(to, rows_allowed(nodes[size_t(first + l)], done[size_t(s - first)], nodes[size_t(s)].out_h));
        if (tiles[size_t(l)] && to < target[size_t(l)]) to = to / tiles[size_t(l)] * tiles[size_t(l)];
        to = std::max(to, done[size_t(l)]);
        int k = done[size_t(l)];
        for (int c : readers[size_t(l)]) k = std::min(k, lo_in(nodes[size_t(c)], done[size_t(c - first)]));
        if (l == count - 1) k = 0;  // the group's output is whole
        k = std::max(k, keep[size_t(l)]);
        if (with_steps) steps.push_back({first + l, k, done[size_t(l)], to});
        p.window_rows[size_t(l)] = std::max(p.window_rows[size_t(l)], to - k);
        p.max_new_rows[size_t(l)] = std::max(p.max_new_rows[size_t(l)], to - done[size_t(l)]);
        keep[size_t(l)] = k;
        moved = moved || to > done[size_t(l)];
        done[size_t(l)] = to;
        if (to < target[size_t(l)]) more = true;
      }
      if (with_steps) p.bands.push_back(std::move(steps));
    }
  }
  p.window_rows[size_t(count - 1)] = H;
  for (int l = 0; l + 1 < count; ++l)
    if (nodes[size_t(first + l)].band == SchedNode::Band::kAlias) p.window_rows[size_t(l)] = 0;
  if (sweep_cache) (*sweep_cache)[key] = SweepSizes{p.window_rows, p.max_new_rows, p.band_count};
  step_sizes(nodes, schedule, g, p);
  return p;
}

// The windows' bytes and the largest step (weights and workspace) of a group's program.
static void step_sizes(const std::vector<SchedNode>& nodes, const Schedule& schedule, const BandGroup& g,
                       BandProgram& p) {
  const int first = g.first, count = g.last - g.first + 1;
  for (int l = 0; l + 1 < count; ++l) p.window_bytes += size_t(p.window_rows[size_t(l)]) * nodes[size_t(first + l)].row_bytes;
  // Held layers: their whole weights for the group's time, and a step's workspace at a time.
  // A Winograd layer (winograd_rows.h) holds its transformed weights (head, U and the rows it
  // packs from) or, streamed, its head and each thread's filter panel; each step its scratch
  // tensors and the way's workspace.
  const int threads = kernels::planned_threads();
  size_t held = 0, held_ws = 0;
  for (int l = 0; l < count; ++l) {
    const SchedNode& node = nodes[size_t(first + l)];
    if (!g.holds(first + l)) continue;
    if (band_tile(nodes, schedule, first + l)) {
      size_t wb = 0, ws = 0;
      layer_bytes(node, SchedAlgo::kWinogradWeights, 0, &wb, &ws);
      held += wb;
      held_ws = std::max(held_ws, winograd_rows_workspace_floats(node.wino_geo, p.max_new_rows[size_t(l)], true, threads) *
                                      sizeof(float));
      continue;
    }
    if (node.band == SchedNode::Band::kDepthwise || node.band == SchedNode::Band::kConv) held += node.plan.weight_bytes;
    held_ws = std::max(held_ws, band_conv_workspace_bytes(node, p.max_new_rows[size_t(l)]));
  }
  for (int l = 0; l < count; ++l) {
    const SchedNode& node = nodes[size_t(first + l)];
    if (g.holds(first + l)) continue;
    if (band_tile(nodes, schedule, first + l)) {
      const size_t w = node.wino_input_weight_bytes;
      const size_t step = w + winograd_rows_workspace_floats(node.wino_geo, p.max_new_rows[size_t(l)], false, threads,
                                                             w / sizeof(float)) * sizeof(float);
      if (step > p.step_bytes) {
        p.step_bytes = step;
        p.step_weight_bytes = w;
      }
      continue;
    }
    if (node.band == SchedNode::Band::kDepthwise && node.plan.weight_bytes > p.step_bytes) {
      p.step_bytes = p.step_weight_bytes = node.plan.weight_bytes;  // its whole weights, no workspace
      continue;
    }
    if (node.band != SchedNode::Band::kConv) continue;
    const int block = size_t(first + l) < schedule.block.size() ? schedule.block[size_t(first + l)] : 0;
    const size_t w = node.block_units ? blocked_weight_bytes(node, block ? block : node.default_block)
                                      : node.plan.weight_bytes;
    const size_t step = w + band_conv_workspace_bytes(node, p.max_new_rows[size_t(l)]);
    if (step > p.step_bytes) {
      p.step_bytes = step;
      p.step_weight_bytes = w;
    }
  }
  if (held_ws > p.step_bytes) {  // a held layer's step (its workspace alone) needs the most
    p.step_bytes = held_ws;
    p.step_weight_bytes = 0;
  }
  p.step_bytes += held;
  p.step_weight_bytes += held;
}

Plan plan_schedule(size_t input_bytes, const std::vector<SchedNode>& nodes, const Schedule& schedule) {
  std::vector<PlanNode> pn;
  pn.reserve(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    pn.push_back(nodes[i].plan);
    const int block = i < schedule.block.size() ? schedule.block[i] : 0;
    const SchedAlgo algo = schedule.algo_of(int(i));
    if (block || algo != SchedAlgo::kGemm)
      layer_bytes(scheduled_node(nodes, schedule, int(i)), algo, block, &pn.back().weight_bytes, &pn.back().workspace_bytes);
  }
  for (const BandGroup& g : schedule.groups) {
    const BandProgram prog = band_program(nodes, schedule, g, false);
    std::vector<int> external;
    for (int l = g.first; l <= g.last; ++l)
      for (int s : nodes[size_t(l)].plan.sources)
        if (s < g.first && std::find(external.begin(), external.end(), s) == external.end()) external.push_back(s);
    for (int l = g.first; l < g.last; ++l) pn[size_t(l)] = PlanNode{};
    PlanNode& last = pn[size_t(g.last)];
    last.sources = external;
    last.aliases_input = false;
    last.weight_bytes = prog.step_weight_bytes;
    last.workspace_bytes = prog.window_bytes + prog.step_bytes - prog.step_weight_bytes;
  }
  return plan_nodes(input_bytes, pn);
}

bool valid_group(const std::vector<SchedNode>& nodes, int first, int last) {
  if (first < 0 || last <= first || size_t(last) >= nodes.size()) return false;
  for (int l = first; l <= last; ++l) {
    const SchedNode& node = nodes[size_t(l)];
    if (node.band == SchedNode::Band::kNone) return false;
    if (node.plan.aliases_input && (node.band != SchedNode::Band::kAlias || l == last)) return false;
    if (l < last && (node.output_head || size_t(l) + 1 == nodes.size())) return false;
  }
  for (size_t c = size_t(last) + 1; c < nodes.size(); ++c)
    for (int s : nodes[c].plan.sources)
      if (s >= first && s < last) return false;
  return true;
}

namespace {

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
double winograd_gain(int tile) { return tile == 4 ? 1.9 : 1.15; }
// F(2x2) where the default takes F(4x4) (SchedNode::small_tile: maps of 26x26 and more on x86):
// there it reads fewer weights per product than on the 13x13 maps winograd_gain(2) was measured
// on. yolov4-tiny's 26x26 layers 18, 20, 21 and 35, 1 thread, EPYC VM, two rounds of `mdfi bench
// --winograd off|f2|f4`: F(2x2) 1.53-1.61x faster than GEMM (F(4x4) 1.65-1.89x).
constexpr double kSmallTileGain = 1.55;

// Weights "small beside a group's row windows": at most this fraction (1/kSmallWeights) of them.
constexpr size_t kSmallWeights = 4;

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

// A layer outside band groups: its extra cost under `algo` with `block` channels per block.
double layer_cost(const SchedNode& n, SchedAlgo algo, int block) {
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

double extra_cost(const std::vector<SchedNode>& nodes, const Schedule& s) {
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

// The most output channels whose block takes at most `bytes` (never fewer than one panel).
int block_within(const SchedNode& n, size_t bytes) {
  const int m = n.block_multiple;
  const size_t room = bytes > n.block_fixed_bytes ? bytes - n.block_fixed_bytes : 0;
  int u = int(std::min<size_t>(size_t(n.block_units), room / std::max<size_t>(1, n.block_unit_bytes))) / m * m;
  return std::max(u, m);
}

// The way a layer with a Winograd tile runs outside band groups: of the ways whose peak fits
// `target`, the cheapest (cost model); when none fits, the one with the least peak. `lp` is the
// layer's plan with whole GEMM weights.
void choose_way(const SchedNode& n, const LayerPlan& lp, size_t target, SchedAlgo* algo, int* block) {
  const size_t fixed = lp.peak_bytes - lp.weight_bytes - lp.workspace_bytes;
  struct Way {
    SchedAlgo algo;
    int block;
  };
  std::vector<Way> ways{{SchedAlgo::kGemm, 0}, {SchedAlgo::kWinogradInput, 0}, {SchedAlgo::kWinogradWeights, 0}};
  // The largest blocks under the target (at least one panel) of either path.
  const size_t room = target > fixed ? target - fixed : 0;
  const int gemm_block = block_within(n, room > n.plan.workspace_bytes ? room - n.plan.workspace_bytes : 0);
  if (gemm_block < n.default_block) ways.push_back({SchedAlgo::kGemm, gemm_block});
  const size_t wroom = room > n.wino_fixed_bytes + n.wino_weights_workspace_bytes
                           ? room - n.wino_fixed_bytes - n.wino_weights_workspace_bytes : 0;
  const int m = n.block_multiple;
  const int wino_block = std::max(m, int(std::min<size_t>(size_t(n.block_units), wroom / std::max<size_t>(1, n.wino_unit_bytes))) / m * m);
  if (wino_block < n.block_units) ways.push_back({SchedAlgo::kWinogradWeights, wino_block});
  bool have = false, fits = false;
  double best_cost = 0;
  size_t best_peak = 0;
  for (const Way& w : ways) {
    size_t wb = 0, ws = 0;
    layer_bytes(n, w.algo, w.block, &wb, &ws);
    const size_t peak = fixed + wb + ws;
    const double cost = layer_cost(n, w.algo, w.block);
    const bool f = peak <= target;
    const bool better = !have || (f && !fits) ||
                        (f == fits && (f ? cost < best_cost : (peak < best_peak || (peak == best_peak && cost < best_cost))));
    if (!better) continue;
    have = true, fits = f, best_cost = cost, best_peak = peak;
    *algo = w.algo;
    *block = w.block;
  }
}

// Blocks for `groups`: every layer whose step is over `target` gets the largest blocks that
// bring it under (the others keep whole weights). A layer's weights only live during its own
// step, so each layer is sized on its own.
Schedule fit_blocks(size_t input_bytes, const std::vector<SchedNode>& nodes, const std::vector<BandGroup>& groups,
                    size_t target) {
  Schedule s;
  s.block.assign(nodes.size(), 0);
  s.groups = groups;
  s.algo.assign(nodes.size(), SchedAlgo::kGemm);
  const Plan plan = plan_schedule(input_bytes, nodes, s);
  for (size_t i = 0; i < nodes.size(); ++i) {
    const SchedNode& n = nodes[i];
    const LayerPlan& lp = plan.layers[i];
    if (!n.block_units || s.group_of(int(i))) continue;
    if (n.wino_tile) {
      choose_way(n, lp, target, &s.algo[i], &s.block[i]);
      continue;
    }
    if (lp.peak_bytes <= target) continue;
    const size_t over = lp.peak_bytes - target;
    const int u = block_within(n, lp.weight_bytes > over ? lp.weight_bytes - over : 0);
    if (u < n.default_block) s.block[i] = u;
  }
  for (const BandGroup& g : groups) {
    const LayerPlan& lp = plan.layers[size_t(g.last)];
    if (lp.peak_bytes <= target || g.resident) continue;
    const BandProgram prog = band_program(nodes, s, g, false);
    const size_t over = lp.peak_bytes - target;
    const size_t step = prog.step_bytes > over ? prog.step_bytes - over : 0;
    for (int l = g.first; l <= g.last; ++l) {
      const SchedNode& n = nodes[size_t(l)];
      if (n.band != SchedNode::Band::kConv || !n.block_units || g.holds(l)) continue;
      // Blocks in a band are paid for in every band (the band's im2col packed again per block):
      // weights small beside the windows are never split (kSmallWeights).
      if (n.plan.weight_bytes * kSmallWeights <= prog.window_bytes) continue;
      const size_t ws = band_conv_workspace_bytes(n, prog.max_new_rows[size_t(l - g.first)]);
      // At least two panels: every block packs the band's input again in every band, and blocks
      // of one panel measured twice the time of two for the last panel's bytes (AlexNet's layer
      // 2 in one-row bands: 32 blocks in each of 13 bands).
      const int u = std::min(n.block_units, std::max(2 * n.block_multiple, block_within(n, step > ws ? step - ws : 0)));
      if (u < n.default_block) s.block[size_t(l)] = u;
    }
  }
  return s;
}

// A group whose weights all together are small beside its row windows holds them for all its
// bands (read and packed once, not once per band): that costs little memory, and a schedule
// that re-reads them per band measured several times slower (yolov3-tiny's layers 0-5 in
// one-row bands: 52 reads of each layer's weights).
bool small_group_weights(const std::vector<SchedNode>& nodes, const BandGroup& g) {
  size_t weights = 0;
  for (int l = g.first; l <= g.last; ++l) {
    const SchedNode& n = nodes[size_t(l)];
    if (n.band == SchedNode::Band::kConv || n.band == SchedNode::Band::kDepthwise) weights += n.plan.weight_bytes;
  }
  Schedule none;
  return weights * kSmallWeights <= band_program(nodes, none, g, false).window_bytes;
}

// Maximal valid groups of at most `max_len` layers (0: any), left to right, among layers [0, end].
std::vector<BandGroup> groups_up_to(const std::vector<SchedNode>& nodes, int end, int max_len) {
  std::vector<BandGroup> gs;
  for (int a = 0; a < end;) {
    int best = -1;
    for (int b = max_len ? std::min(end, a + max_len - 1) : end; b > a; --b)
      if (valid_group(nodes, a, b)) {
        best = b;
        break;
      }
    if (best < 0) {
      ++a;
      continue;
    }
    gs.push_back({a, best, 0, false, {}});
    a = best + 1;
  }
  return gs;
}

}  // namespace

size_t schedule_need(const Plan& plan, size_t beside_arena) {
  if (!beside_arena) return plan.peak_bytes;
  return std::max(plan.peak_bytes, plan_arena(plan, true).size + beside_arena);
}

bool schedule_fits(const Plan& plan, size_t beside_arena, size_t budget_bytes) {
  // The arena is at least the peak, so peak + beside_arena bounds the need from below: the arena
  // (the planner's slowest part) is placed only for plans that bound does not rule out.
  return plan.peak_bytes + beside_arena <= budget_bytes && schedule_need(plan, beside_arena) <= budget_bytes;
}

double schedule_cost(const std::vector<SchedNode>& nodes, const Schedule& s) { return extra_cost(nodes, s); }

Schedule rechoose_ways(size_t input_bytes, const std::vector<SchedNode>& nodes, const Schedule& start, size_t budget_bytes,
                       size_t beside_arena) {
  Schedule s = start;
  s.block.resize(nodes.size(), 0);
  s.algo.resize(nodes.size(), SchedAlgo::kGemm);
  s.small.resize(nodes.size(), 0);
  Plan plan = plan_schedule(input_bytes, nodes, s);
  auto fits = [&](const Plan& p) { return schedule_fits(p, beside_arena, budget_bytes); };
  if (!fits(plan)) return s;
  // The layers outside groups that can take another way, the costliest first: they gain the most
  // from the room the others leave.
  std::vector<int> order;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].block_units && !s.group_of(int(i))) order.push_back(int(i));
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return layer_cost(scheduled_node(nodes, s, a), s.algo[size_t(a)], s.block[size_t(a)]) >
           layer_cost(scheduled_node(nodes, s, b), s.algo[size_t(b)], s.block[size_t(b)]);
  });
  const int threads = kernels::planned_threads(), nr = kernels::active_kernel().nr;
  struct Way {
    SchedAlgo algo;
    int block;
    bool small;
    double cost;
  };
  for (int i : order) {
    const LayerPlan& lp = plan.layers[size_t(i)];
    // What the layer's step holds beside its own weights and workspace (live tensors, output).
    const size_t fixed = lp.peak_bytes - lp.weight_bytes - lp.workspace_bytes;
    const double now = layer_cost(scheduled_node(nodes, s, i), s.algo[size_t(i)], s.block[size_t(i)]);
    // Whole weights, then blocks of every count (equal blocks, rounded up to whole panels);
    // with the default's Winograd tile, its two ways too, its whole-weights way in blocks, and the
    // same with the smaller tile where the layer has one (SchedNode::small_tile). Where the cost
    // model ties (Winograd's two whole ways), the way the default would take first (conv_choice.h:
    // the whole-input way on few tiles).
    std::vector<Way> ways;
    for (int variant = 0; variant < 2; ++variant) {
      const SchedNode* np = variant ? nodes[size_t(i)].small_tile.get() : &nodes[size_t(i)];
      if (!np) continue;
      const SchedNode& n = *np;
      std::vector<SchedAlgo> algos;
      if (!variant) algos.push_back(SchedAlgo::kGemm);
      if (n.wino_tile) {
        const int tiles = n.wino_geo.tiles();
        const bool few = tiles <= 64 || (tiles + nr - 1) / nr <= threads;
        if (few) algos.insert(algos.end(), {SchedAlgo::kWinogradInput, SchedAlgo::kWinogradWeights});
        else algos.insert(algos.end(), {SchedAlgo::kWinogradWeights, SchedAlgo::kWinogradInput});
      }
      const int m = std::max(1, n.block_multiple), units = n.block_units;
      for (SchedAlgo a : algos) {
        int last = -1;
        for (int nb = 1; nb <= (units + m - 1) / m; ++nb) {
          const int b = nb == 1 ? 0 : (units + nb - 1) / nb;
          const int block = b ? std::max(m, (b + m - 1) / m * m) : 0;
          if (block == last || (block && block >= units)) continue;
          last = block;
          if (a == SchedAlgo::kWinogradInput && block) break;  // streams its filters: no blocks
          size_t wb = 0, ws = 0;
          layer_bytes(n, a, block, &wb, &ws);
          const double cost = layer_cost(n, a, block);
          if (cost < now && fixed + wb + ws + beside_arena <= budget_bytes) ways.push_back({a, block, variant == 1, cost});
        }
      }
    }
    std::stable_sort(ways.begin(), ways.end(), [](const Way& a, const Way& b) { return a.cost < b.cost; });
    // Each way's own step fits; the arena (an image's decoder beside it) may still refuse them, and
    // at the smallest budgets it refuses the cheapest several: their step's transient block, placed
    // beside long-lived tensors, raises the arena above the peak. So every way is tried, cheapest
    // first, until one fits (each try a plan and an arena, well under a millisecond): darknet53's
    // 32x32 layers at its smallest budget found F(2x2) in blocks of 24-40 filters only past the
    // fourth (GEMM blocks before: the network 111.5-112.3 -> 104.0-106.8 ms, VM, 1 thread).
    for (size_t k = 0; k < ways.size(); ++k) {
      Schedule t = s;
      t.algo[size_t(i)] = ways[k].algo;
      t.block[size_t(i)] = ways[k].block;
      t.small[size_t(i)] = ways[k].small && ways[k].algo != SchedAlgo::kGemm;
      Plan tp = plan_schedule(input_bytes, nodes, t);
      if (!fits(tp)) continue;
      s = std::move(t);
      plan = std::move(tp);
      break;
    }
  }
  return s;
}

Result<ScheduleChoice> choose_schedule(size_t input_bytes, const std::vector<SchedNode>& nodes, size_t budget_bytes,
                                       size_t* smallest, size_t beside_arena) {
  SweepCacheScope sweeps;
  ScheduleChoice choice;
  choice.schedule.block.assign(nodes.size(), 0);
  choice.plan = plan_schedule(input_bytes, nodes, choice.schedule);
  const size_t default_need = schedule_need(choice.plan, beside_arena);
  choice.smallest_fit = default_need;
  if (smallest) *smallest = default_need;
  if (budget_bytes == 0 || default_need <= budget_bytes) return choice;

  double base = 0;
  for (const SchedNode& n : nodes) base += n.winograd_default ? n.flops / winograd_gain(n.wino_tile) : n.flops;
  base = std::max(base, 1.0);
  // Group sets: maximal groups (of at most 4, 8 or any number of layers) up to each valid end;
  // each in bands of 1/2, 1/4, ... of its output.
  std::vector<std::vector<BandGroup>> sets{{}};
  std::set<std::vector<std::pair<int, int>>> seen;
  // Shorter groups hold fewer windows at once; longer ones keep fewer whole tensors.
  for (int max_len : {0, 4, 8})
  for (int end = 1; end < int(nodes.size()); ++end) {
    std::vector<BandGroup> gs = groups_up_to(nodes, end, max_len);
    std::vector<std::pair<int, int>> key;
    for (const BandGroup& g : gs) key.push_back({g.first, g.last});
    if (gs.empty() || !seen.insert(key).second) continue;
    sets.push_back(gs);
  }
  std::vector<std::vector<BandGroup>> layouts;
  for (const auto& gs : sets) {
    int max_h = 1;
    for (const BandGroup& g : gs) max_h = std::max(max_h, nodes[size_t(g.last)].out_h);
    for (int d = gs.empty() ? max_h : 2;; d *= 2) {
      std::vector<BandGroup> l = gs;
      for (BandGroup& g : l) {
        g.band_rows = std::max(1, (nodes[size_t(g.last)].out_h + d - 1) / d);
        g.resident = small_group_weights(nodes, g);
      }
      layouts.push_back(l);
      if (d >= max_h) break;
    }
  }
  // For each layout: blocks sized to the budget (the arena's own slack shrinks the target a few
  // times when an image's decoder sits beside it), the least it can reach, and its cost.
  size_t least = default_need;
  bool found = false;
  double best_cost = 0;
  auto fits = [&](const Plan& plan) { return schedule_fits(plan, beside_arena, budget_bytes); };
  // Layouts in the order of their cost without any weight block, a lower bound of their cost:
  // once that bound reaches the best cost found, no later layout can win.
  std::vector<std::pair<double, size_t>> order;
  for (size_t i = 0; i < layouts.size(); ++i) {
    Schedule unblocked;
    unblocked.block.assign(nodes.size(), 0);
    unblocked.groups = layouts[i];
    // Winograd's cheapest way outside the groups: a lower bound of what fit_blocks picks.
    unblocked.algo.assign(nodes.size(), SchedAlgo::kGemm);
    for (size_t j = 0; j < nodes.size(); ++j)
      if (nodes[j].wino_tile && !unblocked.group_of(int(j))) unblocked.algo[j] = SchedAlgo::kWinogradInput;
    order.push_back({extra_cost(nodes, unblocked), i});
  }
  std::stable_sort(order.begin(), order.end(),
                   [](const std::pair<double, size_t>& a, const std::pair<double, size_t>& b) { return a.first < b.first; });
  for (const auto& o : order) {
    if (found && o.first >= best_cost) break;
    const std::vector<BandGroup>& l = layouts[o.second];
    const Schedule finest = fit_blocks(input_bytes, nodes, l, 0);
    const Plan fp = plan_schedule(input_bytes, nodes, finest);
    if (fp.peak_bytes + beside_arena >= least && fp.peak_bytes + beside_arena > budget_bytes) continue;
    const size_t floor = schedule_need(fp, beside_arena);
    least = std::min(least, floor);
    if (floor > budget_bytes) continue;
    // The largest per-layer target whose blocks fit (the arena's slack can need less than the
    // budget): found by bisection, starting from the finest blocks, which fit.
    Schedule s = finest;
    Plan p = fp;
    size_t lo = 0, hi = budget_bytes;
    for (int step = 0; step < 10 && lo < hi; ++step) {
      const size_t mid = lo + (hi - lo + 1) / 2;
      Schedule t = fit_blocks(input_bytes, nodes, l, mid);
      Plan tp = plan_schedule(input_bytes, nodes, t);
      if (fits(tp)) {
        lo = mid;
        s = std::move(t);
        p = std::move(tp);
        if (mid == budget_bytes) break;
      } else {
        hi = mid - 1;
      }
    }
    const double cost = extra_cost(nodes, s);
    if (!found || cost < best_cost) {
      found = true;
      best_cost = cost;
      choice.schedule = std::move(s);
      choice.plan = std::move(p);
    }
  }
  if (found) {
    // The bisection sizes every layer's blocks to one target and every group's bands to one
    // fraction: layers and groups away from the peak can usually take more. Taller bands (fewer
    // steps) and larger blocks (fewer im2col repacks) only lower the cost; each is kept when the
    // whole schedule still fits.
    // Two orders, the cheaper kept: Winograd in the groups first (its transformed weights held
    // where they fit, else streamed), or the GEMM weights held first and Winograd where room is
    // left (darknet53's smallest budget: layer 14's GEMM weights held beat its filters streamed
    // and transformed in every band).
    const Schedule start = choice.schedule;
    const Plan start_plan = choice.plan;
    bool have_best = false;
    for (int order = 0; order < 2; ++order) {
      Schedule s = start;
      Plan plan = start_plan;
      // Winograd in the groups' band steps wherever the schedule still fits and the cost model
      // prefers it (the default's FLOPs against transforming streamed filters again per step),
      // the layers with the most FLOPs first: before the weights are held (GEMM weights held
      // could leave no room for it), and again after (held, it transforms its filters once).
      auto winograd_in_groups = [&]() {
        if (s.algo.size() < nodes.size()) s.algo.resize(nodes.size(), SchedAlgo::kGemm);
        std::vector<int> cands;
        for (const BandGroup& g : s.groups)
          for (int l = g.first; l <= g.last; ++l)
            if (nodes[size_t(l)].band == SchedNode::Band::kConv && nodes[size_t(l)].wino_tile &&
                s.algo[size_t(l)] == SchedAlgo::kGemm)
              cands.push_back(l);
        std::stable_sort(cands.begin(), cands.end(), [&](int a, int b) { return nodes[size_t(a)].flops > nodes[size_t(b)].flops; });
        double cost = extra_cost(nodes, s);
        for (int l : cands) {
          const size_t gi = size_t(s.group_of(l) - s.groups.data());
          Schedule held = s;
          held.algo[size_t(l)] = SchedAlgo::kWinogradInput;
          held.block[size_t(l)] = 0;
          std::vector<Schedule> ways{held};
          // Held, its transformed weights (4x or 16/9 the raw ones) may not fit where its GEMM
          // weights did: streamed instead, the group's other layers still held.
          BandGroup& g = held.groups[gi];
          if (g.holds(l)) {
            Schedule streamed = held;
            BandGroup& sg = streamed.groups[gi];
            if (sg.resident) {
              sg.resident = false;
              sg.held.clear();
              for (int k = sg.first; k <= sg.last; ++k)
                if (k != l && (nodes[size_t(k)].band == SchedNode::Band::kConv || nodes[size_t(k)].band == SchedNode::Band::kDepthwise))
                  sg.held.push_back(k);
            } else {
              sg.held.erase(std::find(sg.held.begin(), sg.held.end(), l));
            }
            ways.push_back(std::move(streamed));
          }
          // Each way also in lower bands, when its steps (whole tile rows of a taller band) need
          // more than the budget has left.
          bool done = false;
          for (Schedule& t : ways)
            for (; !done; t.groups[gi].band_rows = (t.groups[gi].band_rows + 1) / 2) {
              const double c = extra_cost(nodes, t);
              if (c >= cost) break;
              Plan tp = plan_schedule(input_bytes, nodes, t);
              if (fits(tp)) {
                s = std::move(t);
                plan = std::move(tp);
                cost = c;
                done = true;  // the held way is the cheaper when it fits
                break;
              }
              if (t.groups[gi].band_rows <= 1) break;
            }
        }
      };
      if (order == 0) winograd_in_groups();
      for (size_t gi = 0; gi < s.groups.size(); ++gi) {  // weights read once per group, not per step
        Schedule t = s;
        t.groups[gi].resident = true;
        for (int l = t.groups[gi].first; l <= t.groups[gi].last; ++l) t.block[size_t(l)] = 0;
        Plan tp = plan_schedule(input_bytes, nodes, t);
        if (fits(tp)) {
          s = std::move(t);
          plan = std::move(tp);
          continue;
        }
        // Else the most of its layers, smallest weights first (each saves its reads in every band,
        // and the small ones the most per byte: a step's fixed costs), that still fit.
        std::vector<int> order;
        for (int l = s.groups[gi].first; l <= s.groups[gi].last; ++l) {
          const SchedNode& n = nodes[size_t(l)];
          if (n.band == SchedNode::Band::kConv || n.band == SchedNode::Band::kDepthwise) order.push_back(l);
        }
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
          return nodes[size_t(a)].plan.weight_bytes < nodes[size_t(b)].plan.weight_bytes;
        });
        for (int l : order) {
          Schedule h = s;
          h.groups[gi].held.push_back(l);
          h.block[size_t(l)] = 0;
          Plan hp = plan_schedule(input_bytes, nodes, h);
          if (!fits(hp)) break;
          s = std::move(h);
          plan = std::move(hp);
        }
      }
      winograd_in_groups();
      for (size_t gi = 0; gi < s.groups.size(); ++gi) {
        const int h = nodes[size_t(s.groups[gi].last)].out_h;
        while (s.groups[gi].band_rows < h) {
          Schedule t = s;
          t.groups[gi].band_rows = std::min(h, s.groups[gi].band_rows * 2);
          Plan tp = plan_schedule(input_bytes, nodes, t);
          if (!fits(tp)) break;
          s = std::move(t);
          plan = std::move(tp);
        }
      }
      for (size_t i = 0; i < s.block.size(); ++i) {
        const BandGroup* g = s.group_of(int(i));
        if (g && g->holds(int(i))) s.block[i] = 0;
        if (!s.block[i]) continue;
        // The fewest equal blocks of whole panels that still fit (a layer's need grows with its
        // block, so the first fit counting up is the largest), not only doubled ones: YOLOv3's
        // layer 39 at its smallest budget took 5 blocks of 120 where 3 of 176 fit (doubling to
        // 240 did not), and the room the re-choice pass then has differs too.
        const SchedNode& n = nodes[i];
        const int m = std::max(1, n.block_multiple), now = s.block[i];
        for (int nb = 1, last = -1; nb < (n.block_units + now - 1) / now; ++nb) {
          const int b = nb == 1 ? 0 : ((n.block_units + nb - 1) / nb + m - 1) / m * m;
          const int block = b >= n.default_block ? 0 : b;
          if (block == last || (block && block <= now)) continue;
          last = block;
          Schedule t = s;
          t.block[i] = block;
          Plan tp = plan_schedule(input_bytes, nodes, t);
          if (!fits(tp)) continue;
          s = std::move(t);
          plan = std::move(tp);
          break;
        }
      }
      const double c = extra_cost(nodes, s);
      if (!have_best || c < best_cost) {
        have_best = true;
        best_cost = c;
        choice.schedule = std::move(s);
        choice.plan = std::move(plan);
      }
    }
  }
  if (found) {
    // Every layer outside the groups takes the cheapest way the room left by the others allows.
    Schedule r = rechoose_ways(input_bytes, nodes, choice.schedule, budget_bytes, beside_arena);
    const double c = extra_cost(nodes, r);
    if (c < best_cost) {
      best_cost = c;
      choice.plan = plan_schedule(input_bytes, nodes, r);
      choice.schedule = std::move(r);
    }
  }
  // `least` is exact when nothing fits (every layout was tried); otherwise a bound from above.
  choice.smallest_fit = least;
  if (smallest) *smallest = least;
  if (!found)
    return Result<ScheduleChoice>(ErrorKind::kBudget, "no schedule fits --max-mem " + format_bytes(budget_bytes) +
                                                          ": the smallest is " + format_bytes(least) + " (" +
                                                          std::to_string(least) + " bytes)");
  choice.cost_ratio = (base + best_cost) / base;
  return choice;
}

std::string describe_schedule(const Schedule& s) {
  std::string out;
  int blocked = 0;
  for (int b : s.block) blocked += b > 0;
  if (blocked) out += std::to_string(blocked) + " layers with weights in blocks of output channels";
  int wino = 0;
  for (SchedAlgo a : s.algo) wino += a != SchedAlgo::kGemm;
  if (wino) out += std::string(out.empty() ? "" : "; ") + std::to_string(wino) + " layers by Winograd";
  for (const BandGroup& g : s.groups) {
    if (!out.empty()) out += "; ";
    out += "layers " + std::to_string(g.first) + "-" + std::to_string(g.last) + " in bands of " +
           std::to_string(g.band_rows) + " rows" + (g.resident ? " (weights held)" : "") +
           (!g.resident && !g.held.empty() ? " (" + std::to_string(g.held.size()) + " layers' weights held)" : "");
  }
  return out.empty() ? "default (layer at a time, whole weights)" : out;
}

}  // namespace mdfi

namespace mdfi {

int scheduled_block(const ExecOptions* exec, int layer) {
  if (!exec || !exec->schedule || layer < 0 || size_t(layer) >= exec->schedule->block.size()) return 0;
  return exec->schedule->block[size_t(layer)];
}

}  // namespace mdfi
