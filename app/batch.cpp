#include "arena_plan.h"
#include "mem_plot.h"
#include "batch.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <iostream>

#include "commands.h"
#include "draw.h"
#include "exit_codes.h"
#include "inputs.h"
#include "layer_table.h"
#include "output.h"
#include "progress.h"

namespace mdfi::app {

namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

Status make_dir(const std::string& dir) {
  std::string partial;
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = dir.find('/', pos + 1);
    partial = dir.substr(0, pos);
    if (partial.empty()) continue;
    if (::mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST)
      return Status(ErrorKind::kIo, dir + ": cannot create the --draw directory (" + std::strerror(errno) + ")");
  }
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return Status(ErrorKind::kIo, dir + ": --draw needs a directory");
  return Status::Ok();
}

Status draw_result(const ImageResult& r, Task task, DrawNamer& namer) {
  auto canvas = load_canvas(r.image);
  if (!canvas.ok()) return canvas.status();
  if (task == Task::kDetect)
    draw_detections(*canvas, r.detections);
  else
    draw_classes(*canvas, r.classes);
  return write_canvas(*canvas, namer.name_for(r.image));
}

}  // namespace

int run_batch(RunArgs& args, Task task, const char* default_net, const Postprocess& post) {
  const bool quiet = verbosity().quiet, verbose = verbosity().verbose;
  auto format = parse_format(args.format);
  if (!format.ok()) return report(format.status());
  if (args.list == "-" && ::isatty(STDIN_FILENO) && !quiet)
    std::fprintf(stderr, "mdfi: reading image paths from the terminal, one per line; end with Ctrl-D\n");
  auto inputs = expand_inputs(args.images, args.list, std::cin);
  if (!inputs.ok()) return report(inputs.status());
  if (args.images.empty() && args.list.empty())
    return report(Status(ErrorKind::kUsage, "no input images (give paths, directories or --list FILE)"));
  // An empty folder or an empty list (a `find` that matched nothing) is an empty batch, not a
  // usage error: the output is still well-formed (e.g. "[]") and the exit code 0.
  if (inputs->empty() && !verbosity().quiet) std::fprintf(stderr, "mdfi: warning: no images in the given inputs\n");
  args.images = std::move(*inputs);

  // Open everything that can fail as a whole before the (possibly long) model load.
  auto sink = OutputSink::open(args.output);
  if (!sink.ok()) return report(sink.status());
  OutputSink& out = **sink;
  if (!args.draw_dir.empty()) {
    Status st = make_dir(args.draw_dir);
    if (!st.ok()) return report(st);
  }
  DrawNamer namer(args.draw_dir, args.draw_ext);

  BatchStats stats;
  stats.total = args.images.size();
  const auto t_load = std::chrono::steady_clock::now();
  auto pm = prepare_model(args, default_net);
  if (!pm.ok()) return report(pm.status());
  stats.load_ms = ms_since(t_load);
  if (pm->device) {
    stats.host_layers = int(cl::Backend::host_layers(pm->net).size());
    stats.layers = int(pm->net.layers.size());
  }
  if (verbose) {
    print_layer_table(stderr, pm->net, &pm->plan);
    print_totals(stderr, pm->net);
  }

  auto writer = make_writer(*format, task);
  writer->begin(out.file());
  Progress progress(args.images.size(), !quiet && stderr_is_terminal());
  int result = kExitOk;
  // Every buffer comes from one planned arena, so pages touched once serve every layer (and every
  // image) without page faults: fresh mappings cost ~80,000 faults per YOLOv3 image, more time
  // than the forward pass on a VM. A batch keeps the whole arena through post-processing. A
  // single image has its network outputs planned at the arena's low end and frees the rest as
  // soon as the network has run, so its heap stays at the plan's peak while thousands of boxes
  // are collected.
  const bool single = args.images.size() == 1;
  Arena arena(plan_arena(pm->plan, single));
  for (size_t i = 0; i < args.images.size(); ++i) {
    const std::string& path = args.images[i];
    ImageResult rec;
    rec.image = path;
    MemoryTracker mem;
    mem.use_arena(&arena);
    auto run = run_image(*pm, args, path, mem, i);
    if (single && run.ok()) run->out.relocate(arena.shrink_to_split());
    stats.peak_heap = std::max(stats.peak_heap, mem.peak());
    stats.held_peak = arena.held_peak();
    stats.kept_weights = pm->resident ? pm->resident->tracker().peak() : 0;
    if (!run.ok()) {
      if (run.status().kind() != ErrorKind::kImage) {
        // Not this image's fault (weights, memory, dump files): the whole run is off.
        progress.finish();
        out.abandon();
        return report(run.status());
      }
      progress.finish();
      report(run.status());  // errors stay on stderr even with -q
      rec.ok = false;
      rec.error = run.status().message();
      // The record already names the image; keep the error field to the reason.
      if (rec.error.rfind(path + ": ", 0) == 0) rec.error.erase(0, path.size() + 2);
      ++stats.failed;
      writer->write(out.file(), rec);
      out.record_done();
      if (args.fail_fast) {
        if (!quiet) std::fprintf(stderr, "mdfi: --fail-fast: stopping after %zu of %zu images\n", i + 1, stats.total);
        result = kExitSomeInputs;
        break;
      }
      continue;
    }
    rec.width = run->img_w;
    rec.height = run->img_h;
    rec.time_ms = run->ms;
    post(*pm, args, *run, rec);
    ++stats.ok;
    stats.add_time(run->ms);
    writer->write(out.file(), rec);
    out.record_done();
    if (!args.draw_dir.empty()) {
      Status st = draw_result(rec, task, namer);
      if (!st.ok()) {
        progress.finish();
        out.abandon();
        return report(st);
      }
    }
    if (verbose) {
      progress.finish();
      std::fprintf(stderr, "mdfi: %s: predicted in %.1f ms\n", path.c_str(), run->ms);
      print_mem_report(stderr, *pm, *run, mem);
    }
    if (args.mem_report_on) {
      if (args.mem_report == "-" || args.mem_report.empty()) {
        if (!verbose) print_mem_report(stderr, *pm, *run, mem);
      } else {
        Status st = write_mem_report_json(args.mem_report, *pm, *run, mem);
        if (!st.ok()) {
          out.abandon();
          return report(st);
        }
      }
    }
    if (!args.mem_plot.empty()) {
      Status st = write_mem_plot(args.mem_plot, *pm, *run);
      if (!st.ok()) {
        out.abandon();
        return report(st);
      }
    }
    progress.update(i + 1, path, run->ms, stats.sum_ms / double(stats.ok));
  }
  progress.finish();
  writer->end(out.file());
  Status st = out.commit();
  if (!st.ok()) return report(st);
  if (stats.failed) result = kExitSomeInputs;
  if (!quiet) print_summary(stderr, stats, peak_rss_bytes());
  return result;
}

}  // namespace mdfi::app
