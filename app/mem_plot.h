// --mem-plot: the per-layer live heap of one run as stacked SVG bars (weights, activations,
// workspace), with Darknet's all-resident total drawn as a line for scale. People look at
// memory rather than read about it.
#pragma once

#include <string>

#include "run_common.h"

namespace mdfi::app {

Status write_mem_plot(const std::string& path, const PreparedModel& pm, const ImageRun& run);

// Weights plus every layer output: a lower bound of what Darknet keeps resident all run long.
size_t all_resident_bytes(const Network& net);

}  // namespace mdfi::app
