// The run plan: a pure function from layer descriptions to buffer lifetimes and a per-layer
// memory prediction. Each activation lives from the layer that writes it to its last reader
// (ggml-style consumer counting); detection heads and the final output live to the end; layers
// that alias their input (dropout, cost) share its buffer. The executor follows the plan, and
// `mdfi plan` prints it without reading weights or images.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "network.h"

namespace mdfi {

// What the planner needs to know about one layer.
struct PlanNode {
  size_t output_bytes = 0;
  size_t weight_bytes = 0;     // parameters resident at once while it runs
  size_t workspace_bytes = 0;
  std::vector<int> sources;    // earlier node indices; -1 is the network input
  bool aliases_input = false;  // output is sources[0]'s buffer
  bool keep_to_end = false;
};

struct LayerPlan {
  int buffer = 0;             // buffer id of the output (= node index unless aliased; -1 = input)
  size_t live_before = 0;     // activation bytes live when the layer starts
  size_t output_bytes = 0;    // newly allocated for the output (0 when aliased)
  size_t weight_bytes = 0;
  size_t workspace_bytes = 0;
  size_t peak_bytes = 0;      // live_before + output + weights + workspace
  size_t live_after = 0;      // after the frees below
  std::vector<int> frees;     // buffer ids released after this layer
};

struct Plan {
  size_t input_bytes = 0;
  std::vector<LayerPlan> layers;
  std::vector<int> last_use;  // indexed by buffer id + 1; nodes.size() = kept to the end
  size_t peak_bytes = 0;
  int peak_layer = -1;
};

Plan plan_nodes(size_t input_bytes, const std::vector<PlanNode>& nodes);
std::vector<PlanNode> plan_nodes_for(const Network& net);
Plan make_plan(const Network& net);

}  // namespace mdfi

namespace mdfi {

// --max-mem: fails (kBudget) before any weights are read when the predicted peak is over
// `budget_bytes`, naming the layer that needs the most.
Status check_budget(const Network& net, const Plan& plan, size_t extra_bytes, size_t budget_bytes);

// "64M", "1.5g", "800k", "512MiB", "2000000" (k/M/G in either case, optionally with B, are
// powers of 1000; Ki/Mi/Gi and KiB/MiB/GiB of 1024). A bare number below 1 MB is refused as
// probably missing its unit ("64B" says bytes).
Result<size_t> parse_size(const std::string& text);

}  // namespace mdfi
