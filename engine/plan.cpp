#include "plan.h"

#include <cctype>
#include <cstdlib>

namespace mdfi {

Plan plan_nodes(size_t input_bytes, const std::vector<PlanNode>& nodes) {
  const int n = int(nodes.size());
  Plan plan;
  plan.input_bytes = input_bytes;
  plan.layers.resize(nodes.size());
  // Which buffer each node's output lives in.
  std::vector<int> buffer_of(nodes.size());
  for (int i = 0; i < n; ++i) {
    const PlanNode& node = nodes[i];
    buffer_of[i] = i;
    if (node.aliases_input && !node.sources.empty())
      buffer_of[i] = node.sources[0] < 0 ? -1 : buffer_of[node.sources[0]];
  }
  // Last reader of each buffer; the final node's output and the heads are read after the run.
  plan.last_use.assign(nodes.size() + 1, -1);
  plan.last_use[0] = 0;
  for (int i = 0; i < n; ++i) {
    int& own = plan.last_use[buffer_of[i] + 1];
    if (own < i) own = i;
    for (int s : nodes[i].sources) {
      const int b = s < 0 ? -1 : buffer_of[s];
      if (plan.last_use[b + 1] < i) plan.last_use[b + 1] = i;
    }
    if (nodes[i].keep_to_end || i == n - 1) plan.last_use[buffer_of[i] + 1] = n;
  }
  size_t live = input_bytes;
  for (int i = 0; i < n; ++i) {
    LayerPlan& lp = plan.layers[i];
    const PlanNode& node = nodes[i];
    lp.buffer = buffer_of[i];
    lp.live_before = live;
    lp.output_bytes = lp.buffer == i ? node.output_bytes : 0;
    lp.weight_bytes = node.weight_bytes;
    lp.workspace_bytes = node.workspace_bytes;
    lp.peak_bytes = live + lp.output_bytes + lp.weight_bytes + lp.workspace_bytes;
    live += lp.output_bytes;
    for (int b = -1; b < n; ++b) {
      if (plan.last_use[b + 1] != i) continue;
      // A buffer is released by the layer that reads it last, once it exists.
      if (b >= 0 && b > i) continue;
      if (b >= 0 && buffer_of[b] != b) continue;
      lp.frees.push_back(b);
      live -= b < 0 ? input_bytes : nodes[b].output_bytes;
    }
    lp.live_after = live;
    if (lp.peak_bytes > plan.peak_bytes) {
      plan.peak_bytes = lp.peak_bytes;
      plan.peak_layer = i;
    }
  }
  return plan;
}

std::vector<PlanNode> plan_nodes_for(const Network& net) {
  std::vector<PlanNode> nodes;
  nodes.reserve(net.layers.size());
  for (const auto& l : net.layers) {
    PlanNode node;
    node.output_bytes = l->out.bytes();
    node.weight_bytes = l->resident_param_floats() * sizeof(float);
    node.workspace_bytes = l->workspace_floats() * sizeof(float);
    node.sources = l->sources;
    node.aliases_input = l->aliases_input();
    node.keep_to_end = l->is_output_head();
    nodes.push_back(std::move(node));
  }
  return nodes;
}

Plan make_plan(const Network& net) { return plan_nodes(net.input_shape().bytes(), plan_nodes_for(net)); }

}  // namespace mdfi

namespace mdfi {

Status check_budget(const Network& net, const Plan& plan, size_t extra_bytes, size_t budget_bytes) {
  const size_t need = plan.peak_bytes + extra_bytes;
  if (need <= budget_bytes) return Status::Ok();
  const Layer& l = *net.layers[size_t(plan.peak_layer)];
  return Status(ErrorKind::kBudget, "predicted peak " + format_bytes(need) + " is over --max-mem " +
                                        format_bytes(budget_bytes) + ": layer " + std::to_string(plan.peak_layer) +
                                        " [" + l.kind() + "] needs the most (" + format_bytes(plan.peak_bytes) +
                                        " with the activations live at that point)");
}

Result<size_t> parse_size(const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end == text.c_str() || !(v >= 0))
    return Result<size_t>(ErrorKind::kUsage, "bad size '" + text + "' (e.g. 64M, 1.5G, 512MiB)");
  std::string unit(end);
  for (char& c : unit) c = char(std::tolower(static_cast<unsigned char>(c)));
  // k/m/g in either case, with or without B, are decimal (as disks and Darknet's prints count);
  // Ki/Mi/Gi (KiB, MiB, GiB) are binary.
  double mult = 1;
  if (unit == "b") mult = 1;
  else if (unit == "k" || unit == "kb") mult = 1e3;
  else if (unit == "m" || unit == "mb") mult = 1e6;
  else if (unit == "g" || unit == "gb") mult = 1e9;
  else if (unit == "ki" || unit == "kib") mult = 1024.;
  else if (unit == "mi" || unit == "mib") mult = 1024. * 1024;
  else if (unit == "gi" || unit == "gib") mult = 1024. * 1024 * 1024;
  else if (!unit.empty())
    return Result<size_t>(ErrorKind::kUsage, "bad size unit in '" + text + "' (use k, M, G, KiB, MiB, GiB, or B)");
  // No network runs in under a megabyte: a bare "64" means 64M far more often than 64 bytes.
  if (unit.empty() && v < 1e6)
    return Result<size_t>(ErrorKind::kUsage, "size '" + text + "' has no unit, so it would mean " + text +
                                                 " bytes; write " + text + "M (or " + text + "MiB), or " + text +
                                                 "B if bytes are really meant");
  return size_t(v * mult);
}

}  // namespace mdfi
