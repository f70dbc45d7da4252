// The one budget policy: how a run of `net` is planned from what the user asked (Winograd mode,
// kept weights, kernels, backend, --max-mem and the decoders of the images known beforehand).
// detect, classify and bench (app/run_common.cpp) and plan and info (app/cmd_info.cpp) fill a
// PlanRequest and read the RunPlan; none of them restates the policy.
//
// The policy, in order: the asked Winograd mode, which may use the budget (conv_choice.h); on the
// CPU's optimised path with streamed weights, when that plan is over the budget, the fastest
// schedule of weight blocks and bands that fits with the largest known decoder beside it (then
// the next largest, then the network alone, whose image is refused on its own); with
// --keep-weights, the choices that leave room for the kept weights (the no-raise Winograd choice,
// F(2x2) below 26x26, then none).
#pragma once

#include <memory>
#include <vector>

#include "conv_choice.h"
#include "network.h"
#include "plan.h"
#include "schedule.h"
#include "status.h"

namespace mdfi {

struct PlanRequest {
  WinogradMode winograd = WinogradMode::kAuto;
  bool keep_weights = false;  // the weights are prepared once and kept for the whole run
  bool reference = false;     // the plain reference kernels: no Winograd, no schedules
  bool cpu = true;            // the CPU backend (only it runs schedules and Winograd)
  size_t budget = 0;          // --max-mem in bytes; 0: none
  // Working bytes of the decoders of the images known before the run, each beside the whole
  // arena (any order; duplicates are fine).
  std::vector<size_t> besides;
  // winograd_tiles(net) with the asked choice, before any schedule changed it.
  std::vector<int> default_tiles;
  // The largest decoder must fit beside the schedule (`mdfi plan --max-mem SIZE IMAGE`): when it
  // cannot, kBudget, rather than the network planned alone.
  bool besides_required = false;
};

// Whether the request can be met by a schedule of weight blocks and bands (the optimised CPU
// kernels with streamed weights, under a budget): only then do the images' decoders matter.
bool schedules_allowed(const PlanRequest& req);

struct RunPlan {
  Plan plan;
  std::shared_ptr<const Schedule> schedule;  // null: layer at a time with whole weights
  std::vector<SchedNode> nodes;              // the schedule's nodes (empty without one)
  double cost_ratio = 1;                     // the schedule's predicted time over the default's
  // No schedule left room for the largest known decoder and the network was planned alone:
  // the smallest budget that runs that image (0 when every known decoder fits).
  size_t needs_for_largest_image = 0;
};

// Plans the run; leaves `net`'s convolutions set to the chosen algorithms (the layers still carry
// them; the RunPlan does not yet). kBudget when nothing fits, with the smallest figure in the
// message.
Result<RunPlan> plan_run(Network& net, const PlanRequest& req);

}  // namespace mdfi
