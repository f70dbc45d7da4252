#include "plan.h"

#include "arena_plan.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace mdfi {

namespace {

// The plan with the nodes of `view_of` (-1: none) written in place into that concat node.
Plan plan_with_views(size_t input_bytes, const std::vector<PlanNode>& nodes, const std::vector<int>& view_of) {
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
  // A concat's memory holds its views' outputs: it is allocated with the first of them and
  // lives until the last reader of any of them.
  std::vector<int> alloc_at(nodes.size());
  for (int i = 0; i < n; ++i) alloc_at[size_t(i)] = i;
  for (int i = 0; i < n; ++i) {
    const int c = view_of[size_t(i)];
    if (c < 0) continue;
    alloc_at[size_t(c)] = std::min(alloc_at[size_t(c)], i);
    plan.last_use[size_t(c) + 1] = std::max(plan.last_use[size_t(c) + 1], plan.last_use[size_t(i) + 1]);
  }
  size_t live = input_bytes;
  std::vector<size_t> offset(nodes.size(), 0);  // floats into the concat, by source order
  for (int c = 0; c < n; ++c) {
    size_t at = 0;
    for (int s : nodes[size_t(c)].sources) {
      if (s >= 0 && view_of[size_t(s)] == c) offset[size_t(s)] = at;
      at += s < 0 ? 0 : nodes[size_t(s)].output_bytes / sizeof(float);
    }
  }
  for (int i = 0; i < n; ++i) {
    LayerPlan& lp = plan.layers[i];
    const PlanNode& node = nodes[i];
    lp.buffer = buffer_of[i];
    lp.view_of = view_of[size_t(i)];
    lp.view_offset = lp.view_of >= 0 ? offset[size_t(i)] : 0;
    lp.in_place = node.concat && alloc_at[size_t(i)] < i;
    // This step's allocation: its own buffer (unless an alias, a view, or a concat made
    // earlier), or the concat its output is the first part of.
    if (lp.view_of >= 0) lp.alloc = alloc_at[size_t(lp.view_of)] == i ? lp.view_of : -1;
    else if (lp.buffer == i && alloc_at[size_t(i)] == i) lp.alloc = i;
    lp.live_before = live;
    lp.output_bytes = lp.alloc >= 0 ? nodes[size_t(lp.alloc)].output_bytes : 0;
    lp.weight_bytes = node.weight_bytes;
    lp.workspace_bytes = node.workspace_bytes;
    lp.peak_bytes = live + lp.output_bytes + lp.weight_bytes + lp.workspace_bytes;
    live += lp.output_bytes;
    for (int b = -1; b < n; ++b) {
      if (plan.last_use[b + 1] != i) continue;
      // A buffer is released by the layer that reads it last, once it exists; a view holds no
      // memory of its own (its concat's goes with the concat).
      if (b >= 0 && alloc_at[size_t(b)] > i) continue;
      if (b >= 0 && buffer_of[b] != b) continue;
      lp.frees.push_back(b);
      if (b < 0 || view_of[size_t(b)] < 0) live -= b < 0 ? input_bytes : nodes[b].output_bytes;
    }
    lp.live_after = live;
    if (lp.peak_bytes > plan.peak_bytes) {
      plan.peak_bytes = lp.peak_bytes;
      plan.peak_layer = i;
    }
  }
  return plan;
}

}  // namespace

Plan plan_nodes(size_t input_bytes, const std::vector<PlanNode>& nodes, bool concat_in_place) {
  const std::vector<int> none(nodes.size(), -1);
  const Plan copies = plan_with_views(input_bytes, nodes, none);
  if (!concat_in_place) return copies;
  const int n = int(nodes.size());
  // Each concat in turn, its sources in place where the peak does not rise (the concat's buffer
  // now lives from its first source on); with `arenas`, also where neither arena laid out for
  // the plan (a single image's and a batch's, arena_plan.h) grows, since the other blocks must
  // fit around that longer one. Laying out arenas costs time (yolov7-tiny's 30 routes: ~30 ms
  // per plan), so they are checked per route only when the result would hold larger ones.
  auto greedy = [&](bool arenas) {
    std::vector<int> view_of = none;
    std::vector<bool> has_views(nodes.size(), false);
    Plan plan = copies;
    size_t single = arenas ? plan_arena(plan, true).size : 0, batch = arenas ? plan_arena(plan, false).size : 0;
    for (int c = 0; c < n; ++c) {
      const PlanNode& node = nodes[size_t(c)];
      if (!node.concat || node.aliases_input) continue;
      bool ok = !node.sources.empty();
      for (size_t k = 0; ok && k < node.sources.size(); ++k) {
        const int s = node.sources[k];
        ok = s >= 0 && s < c && view_of[size_t(s)] < 0 && !has_views[size_t(s)] && !nodes[size_t(s)].aliases_input &&
             !nodes[size_t(s)].keep_to_end && std::count(node.sources.begin(), node.sources.end(), s) == 1;
      }
      if (!ok) continue;
      std::vector<int> trial = view_of;
      for (int s : node.sources) trial[size_t(s)] = c;
      Plan p = plan_with_views(input_bytes, nodes, trial);
      if (p.peak_bytes > plan.peak_bytes) continue;
      if (arenas) {
        const size_t s1 = plan_arena(p, true).size;
        if (s1 > single) continue;
        const size_t s2 = plan_arena(p, false).size;
        if (s2 > batch) continue;
        single = s1, batch = s2;
      }
      view_of = std::move(trial);
      has_views[size_t(c)] = true;
      plan = std::move(p);
    }
    return plan;
  };
  Plan plan = greedy(false);
  if (plan_arena(plan, true).size <= plan_arena(copies, true).size &&
      plan_arena(plan, false).size <= plan_arena(copies, false).size)
    return plan;
  return greedy(true);
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
    node.concat = l->concatenates_sources();
    nodes.push_back(std::move(node));
  }
  return nodes;
}

Plan make_plan(const Network& net) { return make_plan(net, net.concat_in_place); }

Plan make_plan(const Network& net, bool concat_in_place) {
  return plan_nodes(net.input_shape().bytes(), plan_nodes_for(net), concat_in_place);
}

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
