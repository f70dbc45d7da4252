// Runs one banded group of a Schedule (schedule.h) on the host: the group's band program, step by
// step, with each intermediate layer's rows in a window of one slab and the last layer writing
// its whole output. Each conv step reads its weights again (conv_rows), so only one layer's
// weights are held at a time.
#pragma once

#include <map>
#include <vector>

#include "layer.h"
#include "network.h"
#include "schedule.h"
#include "weights.h"

namespace mdfi {

// external: the whole tensors the group reads from outside (layer index, -1 = network input).
Status run_band_group(const Network& net, const Schedule& schedule, const BandGroup& g,
                      const std::map<int, const float*>& external, float* output, WeightsFile& weights,
                      const std::vector<size_t>& offsets, MemoryTracker& mem, const ExecOptions& exec);

}  // namespace mdfi
