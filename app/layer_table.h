// Darknet's familiar layer table (index, type, filters/size/stride, input -> output, BFLOPs),
// with mdfi's extra columns: weight bytes, output bytes and the planned heap.
#pragma once

#include <cstdio>

#include "network.h"
#include "plan.h"

namespace mdfi::app {

void print_layer_table(std::FILE* out, const Network& net, const Plan* plan);
void print_totals(std::FILE* out, const Network& net);

}  // namespace mdfi::app
