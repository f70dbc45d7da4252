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
  // The output is the sources' outputs side by side (a [route] of whole layers, channel-major):
  // plan_nodes may have the sources write theirs in place into it (concat_in_place).
  bool concat = false;
  // The output is sources[0]'s, `slice_offset` floats in (a [route] of one channel group):
  // plan_nodes may make it a view of that part (concat_in_place).
  bool slice = false;
  size_t slice_offset = 0;
};

struct LayerPlan {
  int buffer = 0;             // buffer id of the output (= node index unless aliased; -1 = input)
  int alloc = -1;             // the buffer this step allocates: its own, or the concat its output is part of
  // The output lies in buffer `view_of`, `view_offset` floats in: a concat's source written in
  // place into it, or a channel-group route that is a part of its source.
  int view_of = -1;
  size_t view_offset = 0;
  bool in_place = false;      // a concat its sources wrote into, or a part of its source: nothing to run
  size_t live_before = 0;     // activation bytes live when the layer starts
  size_t output_bytes = 0;    // newly allocated at this step (0 when aliased or a view; a concat's
                              // whole buffer at its first source's step)
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

// concat_in_place: the sources of a concat node write their outputs where the concat's holds
// them (no copy, one buffer instead of two), and a slice node is a view of its source's part,
// where that lowers or keeps the peak: a concat's buffer then lives from its first source on, a
// sliced source's as long as its slice is read. A source can be in one concat only, and not when
// it is an alias, a kept output, a slice view or a concat in place itself.
Plan plan_nodes(size_t input_bytes, const std::vector<PlanNode>& nodes, bool concat_in_place = false);
std::vector<PlanNode> plan_nodes_for(const Network& net);
// With net.concat_in_place (the CPU backend's layer-at-a-time runs), or as asked.
Plan make_plan(const Network& net);
Plan make_plan(const Network& net, bool concat_in_place);

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
