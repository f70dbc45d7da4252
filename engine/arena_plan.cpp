#include "arena_plan.h"

#include <algorithm>

namespace mdfi {

size_t arena_block_bytes(size_t bytes) { return (bytes + 63) / 64 * 64; }
size_t arena_transient_bytes(size_t bytes) { return bytes ? arena_block_bytes(bytes) + 1024 : 0; }

namespace {

struct Block {
  size_t bytes;
  int first, last;  // inclusive layer steps; -1 is before layer 0
  size_t* offset;   // where the result goes
};

}  // namespace

namespace {

// One greedy placement of `blocks` in the order `rank` gives (the kept outputs first under
// outputs_first); fills the offsets and returns the layout's size and split.
enum class Order { kSize, kArea, kLength, kStart, kLivedFirst };

size_t place_blocks(std::vector<Block>& blocks, int n, bool outputs_first, Order order, size_t* split) {
  auto kept = [&](const Block& b) { return outputs_first && b.last >= n; };
  auto key = [&](const Block& b) -> double {
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
  };
  // Ties by earlier start so the layout does not depend on sort stability.
  std::sort(blocks.begin(), blocks.end(), [&](const Block& a, const Block& b) {
    if (kept(a) != kept(b)) return kept(a);
    const double ka = key(a), kb = key(b);
    if (ka != kb) return ka > kb;
    return a.bytes != b.bytes ? a.bytes > b.bytes : a.first < b.first;
  });
  *split = 0;
  for (const Block& b : blocks)
    if (kept(b)) *split += b.bytes;  // they all live at the end, so they sit side by side below split
  size_t size = 0;
  std::vector<const Block*> placed, overlapping;
  for (Block& b : blocks) {
    overlapping.clear();
    for (const Block* p : placed)
      if (p->first <= b.last && b.first <= p->last) overlapping.push_back(p);
    std::sort(overlapping.begin(), overlapping.end(),
              [](const Block* x, const Block* y) { return *x->offset < *y->offset; });
    size_t at = 0;
    for (const Block* p : overlapping) {
      if (*p->offset >= at + b.bytes) break;  // the gap below p fits
      at = std::max(at, *p->offset + p->bytes);
    }
    *b.offset = at;
    size = std::max(size, at + b.bytes);
    placed.push_back(&b);
  }
  return size;
}

}  // namespace

ArenaLayout plan_arena(const Plan& plan, bool outputs_first) {
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
  // Largest first is usually within a few percent of the peak; when it is not (a memory
  // schedule's long-lived windows beside short-lived blocks), another order often is. The
  // smallest wins; a tie keeps largest-first. With outputs_first, the layouts that place the
  // outputs anywhere are tried too (holding them at the bottom from their first layer on can
  // cost a memory schedule a megabyte): the arena then moves them down once the network has run
  // (ArenaLayout::compact).
  size_t best = ~size_t(0), split = 0;
  Order best_order = Order::kSize;
  bool best_free = false;
  for (bool free_outputs : {false, true}) {
    if (free_outputs && !outputs_first) break;
    for (Order o : {Order::kSize, Order::kArea, Order::kLength, Order::kStart, Order::kLivedFirst}) {
      const size_t size = place_blocks(blocks, n, outputs_first && !free_outputs, o, &split);
      if (size < best) best = size, best_order = o, best_free = free_outputs;
    }
  }
  out.size = place_blocks(blocks, n, outputs_first && !best_free, best_order, &out.split);
  if (best_free) {
    out.compact = true;
    for (const Block& b : blocks)
      if (b.last >= n) out.split += b.bytes;
  }
  return out;
}

}  // namespace mdfi
