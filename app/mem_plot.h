// --mem-plot: the per-layer live heap of one run as stacked SVG bars (weights, activations,
// workspace) over layer indices, round y ticks, a marker on the peak, and Darknet's
// all-resident total as a line for scale (only written out when it is off the scale, never
// drawn at a height it does not have). People look at memory rather than read about it.
#pragma once

#include <string>

#include "run_common.h"

namespace mdfi::app {

Status write_mem_plot(const std::string& path, const PreparedModel& pm, const ImageRun& run);

// Weights plus every layer output: a lower bound of what Darknet keeps resident all run long.
size_t all_resident_bytes(const Network& net);

// The smallest 1, 2 or 5 x 10^k that is >= raw: round axis steps.
double nice_step(double raw);

}  // namespace mdfi::app
