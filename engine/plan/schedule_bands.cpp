// Band programs: how a group of layers runs in bands of output rows (each layer's row window,
// the rows each step adds, what a step holds), the plan of a whole schedule, and which groups
// are valid.
#include <algorithm>
#include <map>
#include <tuple>

#include "arena_plan.h"
#include "kernels/sgemm.h"
#include "layers/winograd_rows.h"
#include "schedule.h"
#include "schedule_internal.h"

namespace mdfi {

using schedule_parts::band_tile;

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
int schedule_parts::band_tile(const std::vector<SchedNode>& nodes, const Schedule& s, int l) {
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


}  // namespace

schedule_parts::SweepCacheScope::SweepCacheScope() { sweep_cache = new SweepCache; }
schedule_parts::SweepCacheScope::~SweepCacheScope() {
  delete sweep_cache;
  sweep_cache = nullptr;
}

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

}  // namespace mdfi
