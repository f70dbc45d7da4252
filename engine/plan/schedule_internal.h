// The planner's parts that its own files share (schedule_bands.cpp, schedule_cost.cpp,
// schedule_search.cpp): not for layers, kernels or executors, which read schedule.h.
#pragma once

#include <vector>

#include "schedule.h"

namespace mdfi::schedule_parts {

// The Winograd tile layer `l` steps by inside a band group (its rows come in whole tile rows),
// or 0 where it runs by GEMM there.
int band_tile(const std::vector<SchedNode>& nodes, const Schedule& s, int l);

// How many times faster the default's Winograd layers of this tile run than by GEMM (measured;
// schedule_cost.cpp says where).
double winograd_gain(int tile);
// The cost model (schedule_cost.cpp): a layer's extra time outside band groups under `algo` in
// blocks of `block` output channels, and a whole schedule's, in FLOP-equivalents over the default.
double layer_cost(const SchedNode& n, SchedAlgo algo, int block);
double extra_cost(const std::vector<SchedNode>& nodes, const Schedule& s);

// While one lives (on this thread), band_program keeps the sweep sizes it computes for a group,
// band height and tiles: choose_schedule sizes the same groups hundreds of times.
class SweepCacheScope {
 public:
  SweepCacheScope();
  ~SweepCacheScope();
  SweepCacheScope(const SweepCacheScope&) = delete;
  SweepCacheScope& operator=(const SweepCacheScope&) = delete;
};

}  // namespace mdfi::schedule_parts
