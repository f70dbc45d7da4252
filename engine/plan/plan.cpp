#include "plan.h"

#include "arena_plan.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace mdfi {

namespace {

// Views: node i's output lies in node view_of[i]'s, view_offset[i] floats in (-1: its own).
struct Views {
  std::vector<int> of;
  std::vector<size_t> offset;
};

// The plan with `views`: a view holds no memory; the buffer at the end of its chain (a concat,
// or a sliced source) is made at the first step any of the chain runs and lives until the last
// reader of any of them.
Plan plan_with_views(size_t input_bytes, const std::vector<PlanNode>& nodes, const Views& views) {
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
  std::vector<int> owner(nodes.size()), alloc_at(nodes.size());
  for (int i = 0; i < n; ++i) {
    int o = i;
    while (views.of[size_t(o)] >= 0) o = views.of[size_t(o)];
    owner[size_t(i)] = o;
    alloc_at[size_t(i)] = i;
  }
  for (int i = 0; i < n; ++i) {
    const int o = owner[size_t(i)];
    if (o == i) continue;
    alloc_at[size_t(o)] = std::min(alloc_at[size_t(o)], i);
    plan.last_use[size_t(o) + 1] = std::max(plan.last_use[size_t(o) + 1], plan.last_use[size_t(i) + 1]);
  }
  size_t live = input_bytes;
  for (int i = 0; i < n; ++i) {
    LayerPlan& lp = plan.layers[i];
    const PlanNode& node = nodes[i];
    lp.buffer = buffer_of[i];
    lp.view_of = views.of[size_t(i)];
    lp.view_offset = lp.view_of >= 0 ? views.offset[size_t(i)] : 0;
    lp.in_place = (node.concat && alloc_at[size_t(i)] < i) || (node.slice && lp.view_of >= 0);
    // This step's allocation: the buffer at the end of its view chain when this is the first
    // step of that chain (its own output's, unless an alias).
    const int o = owner[size_t(i)];
    if (alloc_at[size_t(o)] == i && (o != i || lp.buffer == i)) lp.alloc = o;
    lp.live_before = live;
    lp.output_bytes = lp.alloc >= 0 ? nodes[size_t(lp.alloc)].output_bytes : 0;
    lp.weight_bytes = node.weight_bytes;
    lp.workspace_bytes = node.workspace_bytes;
    lp.peak_bytes = live + lp.output_bytes + lp.weight_bytes + lp.workspace_bytes;
    live += lp.output_bytes;
    for (int b = -1; b < n; ++b) {
      if (plan.last_use[b + 1] != i) continue;
      // A buffer is released by the layer that reads it last, once it exists; a view holds no
      // memory of its own (its owner's goes with the owner).
      if (b >= 0 && alloc_at[size_t(b)] > i) continue;
      if (b >= 0 && buffer_of[b] != b) continue;
      lp.frees.push_back(b);
      if (b < 0 || views.of[size_t(b)] < 0) live -= b < 0 ? input_bytes : nodes[b].output_bytes;
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
  const Views none{std::vector<int>(nodes.size(), -1), std::vector<size_t>(nodes.size(), 0)};
  const Plan copies = plan_with_views(input_bytes, nodes, none);
  if (!concat_in_place) return copies;
  const int n = int(nodes.size());
  // Each concat or slice in turn, as views where the peak does not rise; with `arenas`, also
  // where neither arena laid out for the plan (a single image's and a batch's, arena_plan.h)
  // grows, since the other blocks must fit around the longer-lived buffer. Laying out arenas
  // costs time (yolov7-tiny's 30 routes: ~30 ms per plan), so they are checked per route only
  // when the result would hold larger ones.
  auto greedy = [&](bool arenas) {
    Views views = none;
    std::vector<bool> owns_sources(nodes.size(), false);  // a concat its sources were written into
    Plan plan = copies;
    size_t single = arenas ? plan_arena(plan, true).size : 0, batch = arenas ? plan_arena(plan, false).size : 0;
    for (int c = 0; c < n; ++c) {
      const PlanNode& node = nodes[size_t(c)];
      if (node.aliases_input || node.keep_to_end || (!node.concat && !node.slice) || node.sources.empty()) continue;
      Views trial = views;
      if (node.slice) {
        const int s = node.sources[0];
        if (s < 0 || nodes[size_t(s)].aliases_input) continue;
        trial.of[size_t(c)] = s;
        trial.offset[size_t(c)] = node.slice_offset;
      } else {
        bool ok = true;
        size_t at = 0;
        for (int s : node.sources) {
          ok = ok && s >= 0 && s < c && views.of[size_t(s)] < 0 && !owns_sources[size_t(s)] &&
               !nodes[size_t(s)].aliases_input && !nodes[size_t(s)].keep_to_end &&
               std::count(node.sources.begin(), node.sources.end(), s) == 1;
          if (!ok) break;
          trial.of[size_t(s)] = c;
          trial.offset[size_t(s)] = at;
          at += nodes[size_t(s)].output_bytes / sizeof(float);
        }
        if (!ok) continue;
      }
      Plan p = plan_with_views(input_bytes, nodes, trial);
      if (p.peak_bytes > plan.peak_bytes) continue;
      if (arenas) {
        const size_t s1 = plan_arena(p, true).size;
        if (s1 > single) continue;
        const size_t s2 = plan_arena(p, false).size;
        if (s2 > batch) continue;
        single = s1, batch = s2;
      }
      views = std::move(trial);
      if (node.concat) owns_sources[size_t(c)] = true;
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
    node.slice = l->slices_source(&node.slice_offset);
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
