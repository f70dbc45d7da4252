// Where each buffer of a run lives inside the Arena, decided before the run from the Plan:
// TFLite Micro's greedy planner. Every buffer is a block with a lifetime in layer steps (the
// network input from before layer 0 to its last reader, each layer's output from that layer to
// its last reader, each layer's weights + workspace for that layer only). In a few greedy orders
// (largest first, ...), each block goes to the lowest offset that no block with an overlapping
// lifetime occupies; the smallest layout wins, and a local search over the order improves it
// while it is over the most bytes alive at once. The arena size is the highest end; it is at
// least the plan's peak and usually within a few percent of it, because blocks only share space
// with the blocks they never coexist with.
// A pure function, tested on its own like the plan.
#pragma once

#include <cstddef>
#include <vector>

#include "arena.h"
#include "plan.h"

namespace mdfi {

// A block's bytes in the arena: 64-byte aligned, and a layer's transients get room for the
// rounding of each of the few buffers they are made of.
size_t arena_block_bytes(size_t bytes);
size_t arena_transient_bytes(size_t bytes);

// outputs_first: the buffers kept to the end of the run (the network's outputs) are placed
// first, so they take the lowest offsets, [0, layout.split); other buffers may use that range
// before the outputs exist. Once the network has run, Arena::shrink_to_split() gives back
// everything above it and post-processing starts from the outputs alone. Used for single
// images, whose heap then never exceeds the plan's peak.
// When the greedy layouts are over the most bytes alive at one step, a local search of at most
// `search_steps` moves looks for a smaller one (0: the greedy layouts alone).
constexpr int kArenaSearchSteps = 200;
ArenaLayout plan_arena(const Plan& plan, bool outputs_first = false, int search_steps = kArenaSearchSteps);

}  // namespace mdfi
