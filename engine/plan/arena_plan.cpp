#include "arena_plan.h"

#include <algorithm>
#include <cstdint>

namespace mdfi {

size_t arena_block_bytes(size_t bytes) { return (bytes + 63) / 64 * 64; }
size_t arena_transient_bytes(size_t bytes) { return bytes ? arena_block_bytes(bytes) + 1024 : 0; }

namespace {

struct Block {
  size_t bytes;
  int first, last;  // inclusive layer steps; -1 is before layer 0
  size_t* offset;   // where the result goes
};

// The orders the greedy placement is tried in (the kept outputs first under outputs_first).
enum class Order { kSize, kArea, kLength, kStart, kLivedFirst };

// The greedy key of each order; blocks kept to the end (outputs_first) always come first.
double order_key(const Block& b, Order order) {
  const double len = double(b.last - b.first + 1);
  switch (order) {
    case Order::kArea: return double(b.bytes) * len;
    case Order::kLength: return len * 1e15 + double(b.bytes);
    case Order::kStart: return -double(b.first) * 1e15 + double(b.bytes);
    // Tensors that outlive their step first, then the steps' transients (weights + workspace)
    // into the gaps left: at the smallest budgets a large transient placed first pushed the
    // long-lived tensors up (darknet53's 32x32 layers: their F(2x2) blocks of 88 filters fit the
    // peak but raised the arena by 140-470 kB under every other order).
    case Order::kLivedFirst: return (b.last > b.first ? 1e15 : 0) + double(b.bytes);
    default: return double(b.bytes);
  }
}

std::vector<int> greedy_order(const std::vector<Block>& blocks, int n, bool outputs_first, Order order) {
  auto kept = [&](const Block& b) { return outputs_first && b.last >= n; };
  std::vector<int> perm(blocks.size());
  for (size_t i = 0; i < perm.size(); ++i) perm[i] = int(i);
  // Ties by earlier start so the layout does not depend on sort stability.
  std::sort(perm.begin(), perm.end(), [&](int x, int y) {
    const Block &a = blocks[size_t(x)], &b = blocks[size_t(y)];
    if (kept(a) != kept(b)) return kept(a);
    const double ka = order_key(a, order), kb = order_key(b, order);
    if (ka != kb) return ka > kb;
    if (a.bytes != b.bytes) return a.bytes > b.bytes;
    return a.first != b.first ? a.first < b.first : x < y;
  });
  return perm;
}

// Places the blocks in the order `perm` gives, each at the lowest offset that no block placed
// before it with an overlapping lifetime (`overlaps`) occupies; returns the layout's size. The
// blocks at positions before `start` keep their offsets in `at` (the same order up to there).
size_t place_blocks(const std::vector<Block>& blocks, const std::vector<std::vector<int>>& overlaps,
                    const std::vector<int>& perm, std::vector<size_t>& at, size_t start = 0) {
  at.resize(blocks.size(), 0);
  std::vector<size_t> rank(blocks.size());
  for (size_t k = 0; k < perm.size(); ++k) rank[size_t(perm[k])] = k;
  std::vector<std::pair<size_t, size_t>> below;  // [offset, end) of the placed overlapping blocks
  for (size_t k = start; k < perm.size(); ++k) {
    const size_t i = size_t(perm[k]);
    below.clear();
    for (int j : overlaps[i])
      if (rank[size_t(j)] < k) below.push_back({at[size_t(j)], at[size_t(j)] + blocks[size_t(j)].bytes});
    std::sort(below.begin(), below.end());
    size_t o = 0;
    for (const auto& r : below) {
      if (r.first >= o + blocks[i].bytes) break;  // the gap below this one fits
      o = std::max(o, r.second);
    }
    at[i] = o;
  }
  size_t size = 0;
  for (size_t i = 0; i < blocks.size(); ++i) size = std::max(size, at[i] + blocks[i].bytes);
  return size;
}

// The most bytes alive at one step: no layout is smaller.
size_t live_bound(const std::vector<Block>& blocks, int n) {
  std::vector<size_t> live(size_t(n) + 2, 0);
  for (const Block& b : blocks)
    for (int s = std::max(b.first, -1); s <= std::min(b.last, n); ++s) live[size_t(s + 1)] += b.bytes;
  return *std::max_element(live.begin(), live.end());
}

// The layout of `blocks`: the best of the greedy orders, then a local search while that is over
// the most bytes alive at one step.
struct Placement {
  size_t size = 0;
  std::vector<size_t> at;
  bool free_outputs = false;  // the kept outputs lie anywhere (ArenaLayout::compact)
};

Placement search_layout(const std::vector<Block>& blocks, int n, bool outputs_first, int steps) {
  // Largest first is usually within a few percent of the peak; when it is not (a memory
  // schedule's long-lived windows beside short-lived blocks), another order often is. The
  // smallest wins; a tie keeps largest-first. With outputs_first, the layouts that place the
  // outputs anywhere are tried too (holding them at the bottom from their first layer on can
  // cost a memory schedule a megabyte): the arena then moves them down once the network has run
  // (ArenaLayout::compact).
  std::vector<std::vector<int>> overlaps(blocks.size());
  for (size_t i = 0; i < blocks.size(); ++i)
    for (size_t j = 0; j < blocks.size(); ++j)
      if (i != j && blocks[j].first <= blocks[i].last && blocks[i].first <= blocks[j].last) overlaps[i].push_back(int(j));
  size_t best = ~size_t(0);
  std::vector<int> best_perm;
  std::vector<size_t> at, best_at;
  bool best_free = false;
  for (bool free_outputs : {false, true}) {
    if (free_outputs && !outputs_first) break;
    for (Order o : {Order::kSize, Order::kArea, Order::kLength, Order::kStart, Order::kLivedFirst}) {
      std::vector<int> perm = greedy_order(blocks, n, outputs_first && !free_outputs, o);
      const size_t size = place_blocks(blocks, overlaps, perm, at);
      if (size < best) best = size, best_perm = std::move(perm), best_at = at, best_free = free_outputs;
    }
  }
  // Still over the most bytes alive at once: a local search over the order. A block that ends at
  // the top goes earlier in the order (it then takes a lower gap, and the blocks after it fit
  // around it); a layout no larger is kept, so the search can cross plateaus. Deterministic (a
  // fixed seed), so the run lays out a plan as the planner did.
  const size_t bound = live_bound(blocks, n);
  if (best > bound && !blocks.empty()) {
    int fixed = 0;  // the kept outputs stay first (they make the split)
    if (outputs_first && !best_free)
      while (fixed < int(best_perm.size()) && blocks[size_t(best_perm[size_t(fixed)])].last >= n) ++fixed;
    std::vector<int> cur = best_perm;
    std::vector<size_t> cur_at = best_at;
    size_t cur_size = best;
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    auto next = [&rng]() {
      rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
      return rng;
    };
    std::vector<int> tops;
    for (int iter = 0; iter < steps && best > bound; ++iter) {
      tops.clear();
      for (size_t k = size_t(fixed); k < cur.size(); ++k)
        if (cur_at[size_t(cur[k])] + blocks[size_t(cur[k])].bytes == cur_size) tops.push_back(int(k));
      if (tops.empty()) break;
      const int from = tops[next() % tops.size()];
      if (from <= fixed) continue;
      const int to = fixed + int(next() % uint64_t(from - fixed));
      std::vector<int> cand = cur;
      const int moved = cand[size_t(from)];
      cand.erase(cand.begin() + from);
      cand.insert(cand.begin() + to, moved);
      at = cur_at;  // the blocks before `to` stay where they are
      const size_t size = place_blocks(blocks, overlaps, cand, at, size_t(to));
      if (size > cur_size) continue;
      cur = std::move(cand), cur_at = at, cur_size = size;
      if (size < best) best = size, best_perm = cur, best_at = cur_at;
    }
  }
  return Placement{best, std::move(best_at), best_free};
}

}  // namespace

ArenaLayout plan_arena(const Plan& plan, bool outputs_first, int search_steps) {
  const int n = int(plan.layers.size());
  ArenaLayout out;
  out.output_offset.assign(size_t(n), ArenaLayout::kNone);
  out.transient_offset.assign(size_t(n), ArenaLayout::kNone);
  out.transient_bytes.assign(size_t(n), 0);
  std::vector<Block> blocks;
  if (plan.input_bytes) blocks.push_back({arena_block_bytes(plan.input_bytes), -1, plan.last_use[0], &out.input_offset});
  for (int i = 0; i < n; ++i) {
    const LayerPlan& lp = plan.layers[size_t(i)];
    if (lp.alloc >= 0 && lp.output_bytes)  // made at this step: its own output, or a concat's
      blocks.push_back(
          {arena_block_bytes(lp.output_bytes), i, plan.last_use[size_t(lp.alloc) + 1], &out.output_offset[size_t(i)]});
    out.transient_bytes[size_t(i)] = arena_transient_bytes(lp.weight_bytes + lp.workspace_bytes);
    if (out.transient_bytes[size_t(i)]) blocks.push_back({out.transient_bytes[size_t(i)], i, i, &out.transient_offset[size_t(i)]});
  }
  const Placement layout = search_layout(blocks, n, outputs_first, search_steps);
  for (size_t i = 0; i < blocks.size(); ++i) *blocks[i].offset = layout.at[i];
  out.size = layout.size;
  out.split = 0;
  if (outputs_first)
    for (const Block& b : blocks)
      if (b.last >= n) out.split += b.bytes;  // kept at the bottom, or moved there (compact)
  out.compact = layout.free_outputs;
  return out;
}

}  // namespace mdfi
