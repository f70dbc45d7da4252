#include "plan_run.h"

#include <algorithm>
#include <functional>

#include "resident_weights.h"

namespace mdfi {

namespace {

// The Winograd choices to try, first to last (conv_choice.h); none when the network's own (made
// when it was built, from the same mode) stands.
std::vector<ConvChoice> choices_for(const PlanRequest& req) {
  if (req.reference || !req.cpu) return {ConvChoice{WinogradMode::kOff, 0, false}};
  ConvChoice asked;
  asked.mode = req.winograd;
  asked.kept_weights = req.keep_weights;
  if (!req.budget) return req.keep_weights ? std::vector<ConvChoice>{asked} : std::vector<ConvChoice>{};
  // The budget may be used where Winograd saves time; then the choice that never raises the
  // peak; with kept weights, that choice with F(2x2) on every map under 26x26 (smaller
  // transformed weights to keep); then none.
  ConvChoice within = asked;
  within.budget_bytes = req.budget;
  std::vector<ConvChoice> choices = {within, asked};
  if (asked.kept_weights) choices.push_back(ConvChoice{asked.mode, 0, true, false});
  choices.push_back(ConvChoice{WinogradMode::kOff, 0, false});
  return choices;
}

// Why a plan over the budget could not be made smaller.
const char* why_not_smaller(const PlanRequest& req) {
  return !req.cpu          ? " (smaller schedules run on the CPU backend only)"
         : req.reference   ? " (smaller schedules need the optimised kernels: drop --reference)"
         : req.keep_weights ? " (smaller schedules stream the weights: drop --keep-weights)"
                            : "";
}

}  // namespace

bool schedules_allowed(const PlanRequest& req) {
  // Weight blocks and bands run the im2col + SGEMM kernels on the CPU, streaming the weights.
  return req.budget && req.cpu && !req.reference && !req.keep_weights;
}

Result<RunPlan> plan_run(Network& net, const PlanRequest& req) {
  RunPlan run;
  const bool schedulable = schedules_allowed(req);
  std::vector<size_t> besides = req.besides;
  std::sort(besides.begin(), besides.end(), std::greater<size_t>());
  besides.erase(std::unique(besides.begin(), besides.end()), besides.end());
  const size_t beside = besides.empty() ? 0 : besides.front();
  const std::vector<ConvChoice> choices = choices_for(req);
  run.plan = make_plan(net);  // no choice to make: the network was built with the asked one
  for (size_t k = 0; k < choices.size(); ++k) {
    choose_conv_algorithms(net, choices[k]);
    run.plan = make_plan(net);
    run.schedule.reset();
    run.nodes.clear();
    run.cost_ratio = 1;
    run.needs_for_largest_image = 0;
    if (!req.budget) break;
    const bool last = k + 1 == choices.size();
    if (schedulable && !schedule_fits(run.plan, beside, req.budget)) {
      // The schedule gives the default's Winograd tile back to the layers outside the bands
      // where it fits (schedule.h).
      choose_conv_algorithms(net, ConvChoice{WinogradMode::kOff, 0, false});
      std::vector<SchedNode> nodes = sched_nodes_for(net, req.default_tiles);
      const size_t input = net.input_shape().bytes();
      size_t with_images = 0;
      auto choice = choose_schedule(input, nodes, req.budget, &with_images, beside);
      // Not room for every image's decoder: the schedule that leaves room for the most of them
      // (the largest decoder that fits), else the network alone; an image too big for the
      // schedule is then refused on its own (a record; the batch goes on).
      for (size_t b = 1; !choice.ok() && b < besides.size(); ++b)
        choice = choose_schedule(input, nodes, req.budget, nullptr, besides[b]);
      if (!choice.ok() && beside && !req.besides_required) {
        size_t alone = 0;
        choice = choose_schedule(input, nodes, req.budget, &alone);
        if (!choice.ok())
          return Result<RunPlan>(ErrorKind::kBudget,
                                 "no schedule fits --max-mem " + format_bytes(req.budget) + ": the smallest is " +
                                     format_bytes(with_images) + " (" + std::to_string(with_images) +
                                     " bytes) with the largest of these images decoded beside the network (" +
                                     std::to_string(alone) + " bytes for the network alone)");
        run.needs_for_largest_image = with_images;
      }
      if (!choice.ok()) return choice.status();
      auto schedule = std::make_shared<Schedule>(choice->schedule);
      apply_schedule_algorithms(net, nodes, *schedule);  // Winograd outside the bands, where it fits
      run.schedule = std::move(schedule);
      run.nodes = std::move(nodes);
      run.plan = std::move(choice->plan);
      run.cost_ratio = choice->cost_ratio;
    }
    // The first choice has the lowest peak (it lowers layers over the budget where Winograd
    // can): when even it is over, so are the others.
    if (Status st = check_budget(net, run.plan, 0, req.budget); !st.ok())
      return Status(st.kind(), st.message() + why_not_smaller(req));
    if (req.keep_weights && req.cpu) {
      const size_t kept = kept_weights_floats(net) * sizeof(float);
      if (run.plan.peak_bytes + kept > req.budget) {
        if (!last) continue;
        return Result<RunPlan>(ErrorKind::kBudget, "--keep-weights keeps " + format_bytes(kept) +
                                                       " of prepared weights; with the run's own peak of " +
                                                       format_bytes(run.plan.peak_bytes) + " that is over --max-mem " +
                                                       format_bytes(req.budget) +
                                                       " (without --keep-weights they are streamed)");
      }
    }
    break;
  }
  return run;
}

}  // namespace mdfi
