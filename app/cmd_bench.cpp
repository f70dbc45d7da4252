// `mdfi bench`: what users run to time a network themselves. Warm-up runs, then repeats of one
// image through the whole pipeline (decode, preprocess, streamed weights, forward), with
// min/median/max, GFLOP/s, and a per-layer median time table that shows where the time goes.
// With --backend opencl the per-layer times and their GFLOP/s are device times from event
// profiling (the host only queues the work), and layers run on the CPU are marked.
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "arena_plan.h"
#include "commands.h"
#include "exit_codes.h"
#include "kernels/sgemm.h"
#include "version.h"
#include "run_common.h"
#include "run_options.h"
#include "usage_errors.h"

namespace mdfi::app {

namespace {

struct BenchArgs {
  RunArgs run;
  std::string image;  // no default: mdfi ships no pictures and reads nothing of a Darknet install
  int warmup = 1;
  int repeat = 5;
  std::string format = "md";
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  if (v.empty()) return 0;
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

}  // namespace

Action add_bench_command(CLI::App& app) {
  auto a = std::make_shared<BenchArgs>();
  CLI::App* cmd = app.add_subcommand("bench", "time a network: warm-up, repeats, min/median/max, per-layer table");
  add_model_options(*cmd, a->run.model, "yolov3", true);
  cmd->add_option("image", a->image, "image to run (required; any photo, e.g. a camera frame)");
  cmd->add_option("--warmup", a->warmup, "untimed runs first")->capture_default_str()->check(number_in(0, 1000, true));
  cmd->add_option("--repeat,-r", a->repeat, "timed runs")->capture_default_str()->check(number_in(1, 100000, true));
  cmd->add_option("--format,-f", a->format, "md, csv or json")
      ->capture_default_str()
      ->check(CLI::IsMember({"md", "csv", "json"}));
  cmd->add_option("--threads,-j", a->run.threads, "compute threads (0 = all cores)")
      ->capture_default_str()
      ->check(number_in(0, 1024, true));
  cmd->add_option("--max-mem", a->run.max_mem, "time the schedule that fits SIZE (as detect --max-mem)");
  cmd->add_flag("--reference", a->run.reference, "time the plain reference kernels instead");
  cmd->add_flag("--no-prefetch", a->run.no_prefetch, "no read-ahead thread for the weights file");
  cmd->add_flag("--keep-weights", a->run.keep_weights,
                "keep prepared weights across the runs (as a batch with --keep-weights does) instead of streaming them");
  cmd->add_option("--backend", a->run.backend, "cpu or opencl")
      ->capture_default_str()
      ->check(CLI::IsMember({"cpu", "opencl"}));
  cmd->add_option("--device", a->run.device, "OpenCL device index or name");
  cmd->add_flag("--fast-decode", a->run.fast_decode, "as detect --fast-decode");
  add_max_pixels_option(*cmd, a->run.max_pixels);
  cmd->add_option("--decoder", a->run.decoder, "as detect --decoder")->check(CLI::IsMember({"auto", "stb"}));
  return [a]() {
    if (a->image.empty()) return report(Status(ErrorKind::kUsage, "bench needs an IMAGE to run, e.g. 'mdfi bench --net yolov3-tiny dog.jpg'"));
    a->run.images = {a->image};
    auto pm = prepare_model(a->run, "yolov3");
    if (!pm.ok()) return report(pm.status());
    std::vector<double> totals, forwards;
    std::vector<std::vector<double>> per_layer(pm->net.layers.size());
    std::vector<bool> on_host(pm->net.layers.size(), false);
    std::vector<double> device_totals;
    const bool device = pm->device != nullptr;
    size_t peak = 0;
    // As in batch runs: repeats reuse the memory of the run before. Under --max-mem, the layout
    // the budget was fitted to (a single image's; bench has no post-processing to shrink for).
    // An image from stdin or a pipe can be read once: its bytes serve every run (counted in each).
    const auto held = read_unseekable(a->image);
    if (held && pm->budget && !pm->planned_for_images)
      if (Status st = fit_budget_to_first_image(*pm, a->run, ImageSource{a->image, held.get(), true}); !st.ok())
        return report(st);
    Arena arena(plan_arena(pm->plan, pm->budget != 0));
    for (int i = 0; i < a->warmup + a->repeat; ++i) {
      MemoryTracker mem;
      mem.use_arena(&arena);
      auto run = run_image(*pm, a->run, ImageSource{a->image, held.get(), held != nullptr}, mem, 0);
      if (!run.ok()) return report(run.status());
      peak = std::max(peak, mem.peak());
      if (i < a->warmup) continue;
      totals.push_back(run->ms);
      forwards.push_back(run->forward_ms);
      double device_total = 0;
      for (const LayerRunStats& s : run->stats) {
        // A layer on the CPU has no device time: its host time is what it cost.
        const double ms = device && s.device_ms >= 0 && !s.on_host ? s.device_ms : s.ms;
        per_layer[size_t(s.index)].push_back(ms);
        on_host[size_t(s.index)] = s.on_host;
        device_total += ms;
      }
      device_totals.push_back(device_total);
    }
    const double gflop = pm->net.flops() / 1e9;
    const double med = median(totals);
    const double mn = *std::min_element(totals.begin(), totals.end());
    const double mx = *std::max_element(totals.begin(), totals.end());
    const double fwd = median(forwards);  // the network alone: what OpenCV's net.forward() times
    const int threads = a->run.threads > 0 ? a->run.threads : default_threads();
    if (a->format == "json") {
      nlohmann::json j;
      j["network"] = pm->model.name;
      j["image"] = a->image;
      j["threads"] = threads;
      j["backend"] = a->run.backend;
      j["kernel"] = a->run.reference ? "reference" : kernels::active_kernel().name;
      j["gflop"] = gflop;
      j["repeat"] = a->repeat;
      j["ms"] = {{"min", mn}, {"median", med}, {"max", mx}};
      j["forward_median_ms"] = fwd;
      j["gflops_per_s"] = gflop / (med / 1000);
      j["peak_heap_bytes"] = peak;
      j["held_peak_bytes"] = arena.held_peak();  // the arena, and any buffer that did not fit in it
      j["kept_weights_bytes"] = pm->resident ? pm->resident->tracker().peak() : 0;
      j["layer_times"] = device ? "device (OpenCL event profiling)" : "host";
      if (device) {
        j["device_median_ms"] = median(device_totals);
        j["device_gflops_per_s"] = gflop / (median(device_totals) / 1000);
        j["host_layers"] = std::count(on_host.begin(), on_host.end(), true);
      }
      for (size_t l = 0; l < per_layer.size(); ++l) {
        const double ms = median(per_layer[l]), f = pm->net.layers[l]->flops() / 1e9;
        j["layers"].push_back({{"layer", l}, {"type", pm->net.layers[l]->kind()}, {"gflop", f}, {"median_ms", ms},
                               {"gflops_per_s", ms > 0 ? f / (ms / 1000) : 0.0}, {"on_host", bool(on_host[l])}});
      }
      std::printf("%s\n", j.dump(1).c_str());
      return int(kExitOk);
    }
    const bool md = a->format == "md";
    const size_t kept = pm->resident ? pm->resident->tracker().peak() : 0;
    std::string kept_text = !kept ? "" : md ? "; kept weights " + format_bytes(kept) : ",kept=" + format_bytes(kept);
    const std::string kern = a->run.reference ? "reference" : kernels::active_kernel().name;
    kept_text += md ? "; SIMD " + (a->run.reference ? std::string("none (--reference kernels)") : kernel_text())
                    : ",kernel=" + kern;
    const char* ms_name = device ? "device" : "median";
    if (md)
      std::printf("| layer | type | GFLOP | %s ms | GFLOP/s | share |\n|---|---|---|---|---|---|\n", ms_name);
    else
      std::printf("layer,type,gflop,%s_ms,gflops_per_s,share\n", ms_name);
    for (size_t l = 0; l < per_layer.size(); ++l) {
      const double ms = median(per_layer[l]), f = pm->net.layers[l]->flops() / 1e9;
      const std::string type = std::string(pm->net.layers[l]->kind()) + (on_host[l] ? (md ? " (CPU)" : "(cpu)") : "");
      std::printf(md ? "| %zu | %s | %.3f | %.2f | %.1f | %.1f%% |\n" : "%zu,%s,%.4f,%.3f,%.2f,%.2f\n", l, type.c_str(), f,
                  ms, ms > 0 ? f / (ms / 1000) : 0.0, 100 * ms / med);
    }
    if (device) {
      const double dm = median(device_totals);
      const long host = std::count(on_host.begin(), on_host.end(), true);
      std::printf(md ? "\nOpenCL on %s: layer times are device times (event profiling); their sum %.2f ms -> %.1f GFLOP/s; "
                       "%ld of %zu layers ran on the CPU (marked)\n"
                     : "# device=%s,device_sum_ms=%.3f,device_gflops_per_s=%.2f,host_layers=%ld,layers=%zu\n",
                  pm->device->device().name.c_str(), dm, dm > 0 ? gflop / (dm / 1000) : 0.0, host, per_layer.size());
    }
    std::printf(md ? "\n%s on %s, %d thread(s), %s backend: %d runs after %d warm-up: min %.1f ms, median %.1f ms, "
                     "max %.1f ms (network alone: median %.1f ms); %.2f GFLOP -> %.1f GFLOP/s; peak heap %s, held %s (%zu of %zu buffers from the arena, %zu as planned)%s\n"
                   : "# %s,%s,threads=%d,backend=%s,runs=%d,warmup=%d,min_ms=%.2f,median_ms=%.2f,max_ms=%.2f,forward_ms=%.2f,gflop=%.3f,"
                     "gflops_per_s=%.2f,peak=%s,held=%s,arena=%zu/%zu,planned=%zu%s\n",
                pm->model.name.c_str(), a->image.c_str(), threads, a->run.backend.c_str(), a->repeat, a->warmup, mn, med,
                mx, fwd, gflop, gflop / (med / 1000), format_bytes(peak).c_str(), format_bytes(arena.held_peak()).c_str(),
                arena.in_arena(), arena.in_arena() + arena.outside(), arena.as_planned(), kept_text.c_str());
    return int(kExitOk);
  };
}

}  // namespace mdfi::app
