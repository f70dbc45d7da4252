// The scheduler's view of a built network: which layers can take weight blocks and bands, and
// their row geometry, as each layer describes itself (Layer::describe_schedule).
#include <algorithm>

#include "network.h"
#include "schedule.h"

namespace mdfi {

std::vector<int> winograd_tiles(const Network& net) {
  std::vector<int> t;
  for (const auto& l : net.layers) t.push_back(l->winograd_tile());
  return t;
}

std::vector<SchedNode> sched_nodes_for(const Network& net, const std::vector<int>& default_tiles) {
  const std::vector<PlanNode> plan = plan_nodes_for(net);
  std::vector<SchedNode> nodes(plan.size());
  for (size_t i = 0; i < plan.size(); ++i) {
    const Layer& l = *net.layers[i];
    SchedNode& n = nodes[i];
    n.plan = plan[i];
    n.out_h = l.out.h;
    n.out_w = l.out.w;
    n.row_bytes = size_t(l.out.c) * l.out.w * sizeof(float);
    n.flops = l.flops();
    n.output_head = l.is_output_head();
    n.winograd_default = i < default_tiles.size() && default_tiles[i] > 0;
    n.wino_tile = n.winograd_default ? default_tiles[i] : 0;  // kept by describe_schedule where it can run
    n.wino_default_tile = n.wino_tile;
    if (l.aliases_input() && l.sources.size() == 1 && l.out == l.source_shapes[0])
      n.band = SchedNode::Band::kAlias;  // dropout at inference: its source's rows
    else
      l.describe_schedule(n);  // what the layer itself can take (Layer::describe_schedule)
  }
  return nodes;
}

}  // namespace mdfi

namespace mdfi {

void apply_schedule_algorithms(Network& net, const std::vector<SchedNode>& nodes, const Schedule& schedule) {
  for (size_t i = 0; i < net.layers.size() && i < nodes.size(); ++i) {
    const SchedAlgo a = schedule.algo_of(int(i));
    const SchedNode& n = scheduled_node(nodes, schedule, int(i));
    if (a != SchedAlgo::kGemm && n.wino_tile) net.layers[i]->set_winograd(n.wino_tile, a == SchedAlgo::kWinogradInput);
  }
}

}  // namespace mdfi
