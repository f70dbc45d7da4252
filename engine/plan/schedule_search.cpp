// The search: the fastest schedule (weight blocks, Winograd ways, band groups) whose peak fits a
// budget, by the cost model of schedule_cost.cpp.
#include <algorithm>
#include <cstdio>
#include <set>

#include "arena_plan.h"
#include "kernels/sgemm.h"
#include "layers/winograd_rows.h"
#include "schedule.h"
#include "schedule_internal.h"

namespace mdfi {

using schedule_parts::extra_cost;
using schedule_parts::layer_cost;
using schedule_parts::SweepCacheScope;
using schedule_parts::winograd_gain;

namespace {

// Weights "small beside a group's row windows": at most this fraction (1/kSmallWeights) of them.
constexpr size_t kSmallWeights = 4;

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

}  // namespace mdfi
