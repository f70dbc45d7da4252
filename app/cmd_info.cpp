// `mdfi info`: the layer table and totals, optionally validating a weights file.
// `mdfi plan`: the predicted per-layer heap and peak, without weights or images.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "conv_choice.h"
#include "commands.h"
#include "executor.h"
#include "exit_codes.h"
#include "activation.h"
#include "layer_registry.h"
#include "layer_table.h"
#include "model_args.h"
#include "arena_plan.h"
#include "path_guard.h"
#include "plan.h"
#include "run_common.h"
#include "run_options.h"
#include "schedule.h"
#include "usage_errors.h"
#include "weights.h"

namespace mdfi::app {

static void print_warnings(const Network& net) {
  if (verbosity().quiet) return;
  for (const auto& w : net.warnings) std::fprintf(stderr, "mdfi: warning: %s\n", w.c_str());
}

// The schedule --max-mem chose, per layer: which weights go in blocks, which layers run in bands.
static void print_schedule(std::FILE* out, const Network& net, const std::vector<SchedNode>& nodes, const Schedule& s,
                           double cost_ratio) {
  std::fprintf(out, "schedule: %s\n", describe_schedule(s).c_str());
  for (size_t i = 0; i < s.block.size(); ++i) {
    const SchedAlgo a = s.algo_of(int(i));
    const SchedNode& n = scheduled_node(nodes, s, int(i));
    // A tile other than the default's: said, as it changes the layer's bits (schedule.h).
    const std::string other = n.wino_tile != n.wino_default_tile ? ", not the default's F(" +
                                                                       std::to_string(n.wino_default_tile) + "x" +
                                                                       std::to_string(n.wino_default_tile) + ")"
                                                                 : "";
    size_t held = 0, ws = 0;
    layer_bytes(n, a, s.block[i], &held, &ws);
    const std::string wino = a == SchedAlgo::kGemm ? "" : " (Winograd F(" + std::to_string(n.wino_tile) + "x" +
                                                              std::to_string(n.wino_tile) + ",3x3)" + other + ", transformed)";
    if (const BandGroup* g = s.group_of(int(i)); g && a != SchedAlgo::kGemm)
      std::fprintf(out, "  layer %zu [%s]: Winograd F(%dx%d,3x3) in its group's bands, whole tile rows per step (%s)\n", i,
                   net.layers[i]->kind(), n.wino_tile, n.wino_tile,
                   g->holds(int(i)) ? "transformed weights held" : "filters read and transformed every step");
    else if (s.block[i])
      std::fprintf(out, "  layer %zu [%s]: weights in blocks of %d of %d output channels%s (%s held instead of %s)\n", i,
                   net.layers[i]->kind(), s.block[i], nodes[i].block_units, wino.c_str(), format_bytes(held).c_str(),
                   format_bytes(nodes[i].plan.weight_bytes).c_str());
    else if (a == SchedAlgo::kWinogradInput)
      std::fprintf(out, "  layer %zu [%s]: Winograd F(%dx%d,3x3)%s, weights streamed a filter panel at a time through the "
                   "whole input's tiles (%s of weights, %s of workspace)\n", i, net.layers[i]->kind(), n.wino_tile,
                   n.wino_tile, other.c_str(), format_bytes(held).c_str(), format_bytes(ws).c_str());
    else if (a == SchedAlgo::kWinogradWeights)
      std::fprintf(out, "  layer %zu [%s]: Winograd F(%dx%d,3x3)%s, whole transformed weights (%s)\n", i,
                   net.layers[i]->kind(), n.wino_tile, n.wino_tile, other.c_str(), format_bytes(held).c_str());
  }
  for (const BandGroup& g : s.groups) {
    const BandProgram p = band_program(nodes, s, g);
    std::fprintf(out, "  layers %d-%d: %zu bands of %d rows of layer %d's output; row windows %s, one layer's weights and "
                 "workspace at a time (up to %s)\n", g.first, g.last, size_t(p.band_count), g.band_rows, g.last,
                 format_bytes(p.window_bytes).c_str(), format_bytes(p.step_bytes).c_str());
  }
  std::fprintf(out, "extra compute: 0.0%% of FLOPs (bands keep the halo rows instead of recomputing them); "
               "predicted time %.2fx the default schedule's (cost model)\n", cost_ratio);
}

Action add_info_command(CLI::App& app) {
  auto args = std::make_shared<ModelArgs>();
  CLI::App* cmd = app.add_subcommand("info", "print the layer table of a network (and check a weights file)");
  add_model_options(*cmd, *args, "yolov3", false);
  cmd->add_option("--weights,-w", args->weights, "check this weights file against the cfg");
  auto layers = std::make_shared<bool>(false);
  cmd->add_flag("--layers", *layers, "list the supported layer types and the keys read for each, then exit");
  return [args, layers]() {
    if (*layers) {
      auto print = [](const LayerRegistration& r) {
        std::printf("[%s]\n  keys: %s\n  %s\n", r.section, *r.keys ? r.keys : "(none)", r.doc);
      };
      print(net_registration());
      for (const LayerRegistration& r : registered_layers()) print(r);
      std::printf("activations: %s\n", activation_names().c_str());
      return int(kExitOk);
    }
    auto m = resolve_model(*args, "yolov3", false);
    if (!m.ok()) return report(m.status());
    auto net = build_model(*m, *args);
    if (!net.ok()) return report(net.status());
    print_warnings(*net);
    if (verbosity().verbose)
      std::fprintf(stderr, "mdfi: compat %s (%s)\n", to_string(net->net.compat), net->net.compat_reason.c_str());
    print_layer_table(stdout, *net, nullptr);
    print_totals(stdout, *net);
    if (!m->weights_path.empty()) {
      auto wf = WeightsFile::open(m->weights_path);
      if (!wf.ok()) return report(wf.status());
      Status st = wf->validate(*net);
      if (!st.ok()) return report(st);
      std::printf("weights: %s OK (version %d.%d.%d, %s seen, %llu bytes)\n", m->weights_path.c_str(),
                  wf->header().major, wf->header().minor, wf->header().revision,
                  wf->header().seen_is_64bit() ? "64-bit" : "32-bit", (unsigned long long)wf->file_bytes());
    }
    return int(kExitOk);
  };
}

namespace {

// What a run under `budget` would hold and run, as prepare_model decides (plan_run.h), with
// `beside` (an IMAGE's decoder) required to fit beside the schedule.
Result<RunPlan> plan_within(Network& net, const RunArgs& args, const std::vector<int>& default_tiles, size_t budget,
                            size_t beside) {
  PlanRequest req = plan_request(args, budget, beside ? std::vector<size_t>{beside} : std::vector<size_t>{}, default_tiles);
  req.besides_required = true;
  return plan_run(net, req);
}

// `mdfi plan --budgets N`: N budgets from the smallest that runs (with an IMAGE: beside its
// decoder) to what the default schedule needs, evenly spaced on a log scale, each with the peak
// and the time the planner predicts there: how much memory a model needs, and what less costs.
int print_budget_sweep(Network& net, const RunArgs& args, const std::vector<int>& default_tiles, size_t beside,
                       int count) {
  ConvChoice asked;
  parse_winograd_mode(args.model.winograd, &asked.mode);
  choose_conv_algorithms(net, asked);
  const size_t whole = schedule_need(make_plan(net), beside);
  choose_conv_algorithms(net, ConvChoice{WinogradMode::kOff, 0, false});
  size_t smallest = 0;
  auto refused = choose_schedule(net.input_shape().bytes(), sched_nodes_for(net, default_tiles), 1, &smallest, beside);
  if (refused.ok() || smallest == 0) return report(Status(ErrorKind::kInternal, "--budgets: no smallest budget found"));
  std::printf("\nbudgets from the smallest to the default schedule's%s (time: the planner's cost model against the "
              "default schedule, not a measurement):\n",
              beside ? ", with this image decoded beside the network" : "");
  std::printf("| --max-mem (bytes) | predicted peak | predicted time | schedule |\n|---|---|---|---|\n");
  size_t last = 0;
  for (int k = 0; k < count; ++k) {
    const double t = count > 1 ? double(k) / (count - 1) : 1.0;
    size_t budget = size_t(double(smallest) * std::pow(double(whole) / double(smallest), t));
    budget = std::max(smallest, std::min(whole, budget));
    if (k == count - 1) budget = whole;
    if (budget == last) continue;  // a network no schedule shrinks: one row
    last = budget;
    // The last row is the run without --max-mem (under a budget, Winograd may go where the default
    // keeps it off to hold the peak: not what the default runs).
    Result<RunPlan> b = RunPlan{};
    if (budget == whole) {
      choose_conv_algorithms(net, asked);
      b->plan = make_plan(net);
    } else {
      b = plan_within(net, args, default_tiles, budget, beside);
    }
    if (!b.ok()) return report(b.status());
    const size_t need = schedule_need(b->plan, beside);
    std::string what;
    if (budget == whole) {
      const std::string w = winograd_summary(net);
      what = "| 1.00x | default (no --max-mem): layer at a time" + (w.empty() ? std::string() : "; Winograd: " + w);
    } else if (!b->nodes.empty()) {
      char ratio[32];
      std::snprintf(ratio, sizeof ratio, "%.2fx", b->cost_ratio);
      what = std::string("| ") + ratio + " | " + describe_schedule(*b->schedule);
    } else {
      const std::string w = winograd_summary(net);
      what = "| - | layer at a time" + (w.empty() ? std::string() : "; Winograd: " + w);
    }
    std::printf("| %zu | %s (%zu bytes) %s |\n", budget, format_bytes(need).c_str(), need, what.c_str());
  }
  return int(kExitOk);
}

}  // namespace

Action add_plan_command(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  auto image = std::make_shared<std::string>();
  auto budgets = std::make_shared<int>(0);
  CLI::App* cmd = app.add_subcommand(
      "plan", "predict per-layer heap and the peak without weights; with an IMAGE, its decoding and letterboxing too");
  add_model_options(*cmd, args->model, "yolov3", false);
  cmd->add_option("image", *image, "an image: its header gives the preprocessing memory (nothing is decoded)");
  cmd->add_flag("--fast-decode", args->fast_decode, "as detect/classify --fast-decode");
  cmd->add_flag("--exif-rotate", args->exif_rotate, "as detect/classify --exif-rotate");
  add_max_pixels_option(*cmd, args->max_pixels);
  cmd->add_option("--decoder", args->decoder, "as detect/classify --decoder")->check(CLI::IsMember({"auto", "stb"}));
  cmd->add_option("--max-mem", args->max_mem,
                  "plan for this budget: the fastest schedule (weight blocks, banded layer groups) whose peak fits it");
  cmd->add_option("--threads,-j", args->threads,
                  "plan for this many compute threads, as detect/classify -j (0 = all cores): each has its own GEMM workspace")
      ->capture_default_str()
      ->check(number_in(0, 1024, true));
  cmd->add_option("--budgets", *budgets,
                  "also print N budgets from the smallest that runs to the default schedule's need, each with its "
                  "predicted peak, time (cost model) and schedule")
      ->check(number_in(2, 64, true));
  return [args, image, budgets]() {
    set_default_threads(args->threads);
    auto m = resolve_model(args->model, "yolov3", false);
    if (!m.ok()) return report(m.status());
    auto net = build_model(*m, args->model);
    if (!net.ok()) return report(net.status());
    print_warnings(*net);
    const std::vector<int> default_tiles = winograd_tiles(*net);  // the default schedule's Winograd layers
    Plan plan = make_plan(*net);
    Schedule schedule;
    std::vector<SchedNode> nodes;
    double cost_ratio = 1;
    size_t beside = 0;  // with an IMAGE, its decoder works beside the whole arena
    if (!image->empty() && (!args->max_mem.empty() || *budgets)) {
      auto e = estimate_preprocess(*net, *args, *image, 0);
      if (!e.ok()) return report(e.status());
      beside = e->setup_bytes;
    }
    if (!args->max_mem.empty()) {
      auto budget = parse_size(args->max_mem);
      if (!budget.ok()) return report(Status(budget.status().kind(), "--max-mem: " + budget.status().message()));
      // As a run decides (prepare_model): Winograd where the budget allows; when even that is
      // over, a schedule of weight blocks and bands, which runs without Winograd.
      auto b = plan_within(*net, *args, default_tiles, *budget, beside);
      if (!b.ok()) return report(b.status());
      plan = std::move(b->plan);
      if (b->schedule) schedule = *b->schedule;
      nodes = std::move(b->nodes);
      cost_ratio = b->cost_ratio;
    }
    print_layer_table(stdout, *net, &plan);
    print_totals(stdout, *net);
    const std::string winograd = winograd_summary(*net);
    if (!winograd.empty())
      std::printf("winograd: %s (s: weights streamed through the whole input's tiles; --winograd off for none)\n",
                  winograd.c_str());
    if (!args->max_mem.empty()) {
      if (nodes.empty()) nodes = sched_nodes_for(*net);
      print_schedule(stdout, *net, nodes, schedule, cost_ratio);
      std::printf("arena for this schedule: %s (%zu bytes; what the process holds for the network)\n",
                  format_bytes(plan_arena(plan, true).size).c_str(), plan_arena(plan, true).size);
    }
    const auto& peak = net->layers[size_t(plan.peak_layer)];
    std::printf("predicted peak: %s at layer %d [%s] (%zu bytes; the network)\n", format_bytes(plan.peak_bytes).c_str(),
                plan.peak_layer, peak->kind(), plan.peak_bytes);
    auto finish = [&]() { return *budgets ? print_budget_sweep(*net, *args, default_tiles, beside, *budgets) : int(kExitOk); };
    if (image->empty()) return finish();
    auto e = estimate_preprocess(*net, *args, *image, plan_arena(plan, true).size);  // a single image's arena
    if (!e.ok()) return report(e.status());
    std::printf("image %s: %dx%d, decoded at %dx%d by %s; preprocessing heap %s (decoder and resize %s beside the "
                "network's arena)\n",
                image->c_str(), e->image_w, e->image_h, e->decoded_w, e->decoded_h, e->decoder,
                format_bytes(e->peak_bytes).c_str(), format_bytes(e->setup_bytes).c_str());
    if (e->coefficient_bytes)
      std::printf("this progressive JPEG holds its whole DCT coefficient buffer while it is decoded: %s (%zu bytes; "
                  "libjpeg reads every scan before the first row, and --fast-decode does not shrink it)\n",
                  format_bytes(e->coefficient_bytes).c_str(), e->coefficient_bytes);
    size_t whole = std::max(plan.peak_bytes, e->peak_bytes);
    std::string at =
        e->peak_bytes > plan.peak_bytes ? "image preprocessing" : "layer " + std::to_string(plan.peak_layer);
    if (head_classes(*net) > 0) {
      const PostLimits post = detect_post_limits(*net, plan);
      const size_t post_peak = post_peak_bytes(plan, post);
      std::printf("post-processing: at most %zu candidate boxes and %zu results per image, %s beside the network's "
                  "outputs (%s in all)\n",
                  post.max_candidates, post.max_results, format_bytes(post.budget_bytes).c_str(),
                  format_bytes(post_peak).c_str());
      if (post_peak > whole) {
        whole = post_peak;
        at = "post-processing";
      }
    }
    std::printf("predicted peak with this image: %s at %s (%zu bytes)\n", format_bytes(whole).c_str(), at.c_str(),
                whole);
    return finish();
  };
}

Action add_gen_weights_command(CLI::App& app) {
  auto args = std::make_shared<ModelArgs>();
  auto out = std::make_shared<std::string>();
  auto seed = std::make_shared<uint64_t>(1);
  auto old_header = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("gen-weights", "write deterministic random weights of exactly the right size");
  add_model_options(*cmd, *args, nullptr, false);
  cmd->add_option("--output,-o", *out, "weights file to write")->required();
  cmd->add_option("--seed", *seed, "random seed")->capture_default_str();
  cmd->add_flag("--old-header", *old_header, "write the old 16-byte header (version 0.1, 32-bit seen)");
  auto force = std::make_shared<bool>(false);
  cmd->add_flag("--force", *force, "let -o replace an existing picture (never the cfg it reads)");
  return [args, out, seed, old_header, force]() {
    auto m = resolve_model(*args, nullptr, false);
    if (!m.ok()) return report(m.status());
    InputFiles read;
    read.add(m->cfg_path);
    Status guard = read.check_output(*out, "-o", *force);
    if (!guard.ok()) return report(guard);
    auto net = build_model(*m, *args);
    if (!net.ok()) return report(net.status());
    WeightsHeader h;
    if (*old_header) h.minor = 1;
    Status st = generate_weights(*net, *out, *seed, h);
    if (!st.ok()) return report(st);
    if (!verbosity().quiet)
      std::fprintf(stderr, "mdfi: wrote %s: %zu parameters, %zu bytes\n", out->c_str(), net->param_floats(),
                   h.bytes() + net->param_floats() * 4);
    return int(kExitOk);
  };
}

}  // namespace mdfi::app
