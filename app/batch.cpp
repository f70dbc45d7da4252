#include "arena_plan.h"
#include "mem_plot.h"
#include "batch.h"
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <chrono>
#include <cstring>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>

#include "commands.h"
#include "core_share.h"
#include "det_files.h"
#include "draw.h"
#include "exit_codes.h"
#include "input_feed.h"
#include "inputs.h"
#include "interrupt.h"
#include "layer_table.h"
#include "net_task.h"
#include "output.h"
#include "path_guard.h"
#include "progress.h"
#include "resume.h"
#include "shard.h"
#include "usage_errors.h"

namespace mdfi::app {

namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// --classes "person,car" or "0,2" against the network's labels: a mask by class id.
Result<std::vector<bool>> resolve_classes(const std::string& spec, const std::vector<std::string>& labels,
                                          const Network& net) {
  size_t n = labels.size();
  for (const auto& l : net.layers)
    if (l->is_output_head()) n = std::max(n, size_t(l->out.c));  // an upper bound on class ids
  std::vector<bool> keep(n, false);
  std::string item;
  std::istringstream in(spec);
  while (std::getline(in, item, ',')) {
    const size_t b = item.find_first_not_of(' '), e = item.find_last_not_of(' ');
    if (b == std::string::npos) continue;
    item = item.substr(b, e - b + 1);
    auto it = std::find(labels.begin(), labels.end(), item);
    if (it != labels.end()) {
      keep[size_t(it - labels.begin())] = true;
      continue;
    }
    if (item.find_first_not_of("0123456789") == std::string::npos && item.size() < 7 &&
        size_t(std::stoul(item)) < (labels.empty() ? n : labels.size())) {
      keep[std::stoul(item)] = true;
      continue;
    }
    const std::string m = did_you_mean(item, labels);
    return Result<std::vector<bool>>(ErrorKind::kUsage, "--classes: '" + item + "' is not a class of this network" +
                                                            (m.empty() ? "" : " (did you mean '" + m + "'?)") +
                                                            (labels.empty() ? "; without --names give class ids" : ""));
  }
  return keep;
}

Status make_dir(const std::string& dir) {
  std::string partial;
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = dir.find('/', pos + 1);
    partial = dir.substr(0, pos);
    if (partial.empty()) continue;
    if (::mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST)
      return Status(ErrorKind::kIo, dir + ": cannot create the output directory (" + std::strerror(errno) + ")");
  }
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return Status(ErrorKind::kIo, dir + ": is not a directory (--draw, --crops and --labels-dir take one)");
  return Status::Ok();
}

Status draw_result_to(const ImageResult& r, Task task, const std::string& path) {
  MDFI_ASSIGN_OR_RETURN(auto canvas, load_canvas(r.image));
  if (task == Task::kDetect)
    draw_detections(canvas, r.detections);
  else
    draw_classes(canvas, r.classes);
  return write_canvas(canvas, path);
}

Status draw_result(const ImageResult& r, Task task, DrawNamer& namer) {
  MDFI_ASSIGN_OR_RETURN(auto name, namer.claim(r.image));
  return draw_result_to(r, task, name);
}

InputFiles files_read(const RunArgs& args, const ResolvedModel& m) {
  InputFiles read;
  read.add_all(args.images);
  for (const std::string& p : {args.list, m.cfg_path, m.weights_path, m.labels_path, args.model.data}) read.add(p);
  return read;
}

// Every output whose name is known before the run, against the inputs: exit 2 before writing.
Status check_outputs(const RunArgs& args, const InputFiles& read) {
  std::vector<std::pair<std::string, const char*>> outs = {
      {args.output, "-o"}, {args.mem_plot, "--mem-plot"}, {args.darknet_json_out, "-out"},
      {args.predictions, "Darknet's picture"}};
  if (args.mem_report != "-") outs.push_back({args.mem_report, "--mem-report"});
  if (args.save_labels || !args.labels_dir.empty())
    for (const std::string& img : args.images) outs.push_back({label_path_for(img, args.labels_dir), "the label file"});
  // Darknet's predictions.jpg is a picture rewritten by every Darknet run, as Darknet does; every
  // other output may replace an existing picture only with --force.
  for (const auto& [path, what] : outs)
    MDFI_RETURN_IF_ERROR(read.check_output(path, what, args.force || path == args.predictions));
  return Status::Ok();
}

// --resume --shard K/N: the -o file must hold this shard's records (or none), not another's.
Status check_shard_file(const Recorded& done, const Shard& shard, const std::string& file) {
  for (const std::string& s : done.shards)
    if (!shard.active() || s != shard.label())
      return Status(ErrorKind::kUsage, "--resume: " + file + " holds records of shard " + s + ", this run is " +
                                           (shard.active() ? "shard " + shard.label() : "not sharded") +
                                           " (give each shard its own -o file)");
  return Status::Ok();
}

// --resume: drops the inputs already recorded in the -o file; `append` says whether the file
// already holds data (then a CSV header is not written again).
// Records are matched by input key (path_guard.h), not by the string given.
Status skip_recorded(RunArgs& args, Format format, const Shard& shard, bool& append) {
  MDFI_ASSIGN_OR_RETURN(auto done, read_recorded(args.output, format));
  MDFI_RETURN_IF_ERROR(check_shard_file(done, shard, args.output));
  append = done.file_has_data;
  std::vector<std::string> todo;
  for (std::string& p : args.images)
    if (!done.keys.count(input_key(p))) todo.push_back(std::move(p));
  if (!verbosity().quiet)
    std::fprintf(stderr, "mdfi: --resume: %zu of %zu inputs already in %s; running the other %zu\n",
                 args.images.size() - todo.size(), args.images.size(), args.output.c_str(), todo.size());
  args.images = std::move(todo);
  return Status::Ok();
}

}  // namespace

int run_batch(RunArgs& args, Task task, const char* default_net, const Postprocess& post) {
  const bool quiet = verbosity().quiet, verbose = verbosity().verbose;
  auto format = parse_format(args.format);
  if (!format.ok()) return report(format.status());
  if (args.images.empty() && args.list.empty() && args.stream.empty())
    return report(Status(ErrorKind::kUsage, "no input images (give paths, directories, --list FILE or --stream PATH)"));
  const bool dash_image = std::find(args.images.begin(), args.images.end(), "-") != args.images.end();
  if (!args.stream.empty() && (!args.images.empty() || !args.list.empty()))
    return report(Status(ErrorKind::kUsage, "--stream reads its frames alone: give no image paths or --list with it"));
  if (args.latest && args.stream.empty())
    return report(Status(ErrorKind::kUsage, "--latest needs --stream PATH (it picks the newest frame of a stream)"));
  if (dash_image && (args.list == "-" || args.stream == "-"))
    return report(Status(ErrorKind::kUsage, "stdin can feed only one of: the image '-', --list -, --stream -"));
  Shard shard;
  if (!args.shard.empty()) {
    if (!args.stream.empty())
      return report(Status(ErrorKind::kUsage, "--shard splits a batch of files by their paths; a --stream is one source "
                                              "whose frames have none (run one mdfi per stream)"));
    auto parsed = parse_shard(args.shard, [](const char* name) {
      const char* v = std::getenv(name);
      return std::string(v ? v : "");
    });
    if (!parsed.ok()) return report(parsed.status());
    shard = *parsed;
  }
  // A stream can be resumed only from a file read again from its start: its frames are then
  // skipped up to the last one recorded. A pipe or stdin sends new frames.
  struct stat stream_st {};
  const bool stream_replayable = !args.stream.empty() && args.stream != "-" &&
                                 ::stat(args.stream.c_str(), &stream_st) == 0 && S_ISREG(stream_st.st_mode);
  if (args.resume && !args.stream.empty() && !stream_replayable)
    return report(Status(ErrorKind::kUsage, "--resume --stream needs a regular file to read again from its first frame; " +
                                                (args.stream == "-" ? std::string("stdin") : args.stream) +
                                                " is a pipe or device whose frames cannot be read again"));
  // `--list -` and --stream are read as they arrive (a camera, `inotifywait -m`): their inputs
  // are not known in advance. Everything else is expanded now.
  const bool lazy = args.list == "-" || !args.stream.empty();
  if (args.list == "-" && ::isatty(STDIN_FILENO) && !quiet)
    std::fprintf(stderr, "mdfi: reading image paths from the terminal, one per line; end with Ctrl-D\n");
  for (const std::string& p : args.images)
    if (Status st = refuse_model_file(p); !st.ok()) return report(st);
  std::istringstream no_stdin;
  auto inputs = expand_inputs(args.images, args.list == "-" ? "" : args.list, no_stdin);
  if (!inputs.ok()) return report(inputs.status());
  // An empty folder or an empty list (a `find` that matched nothing) is an empty batch, not a
  // usage error: the output is still well-formed (e.g. "[]") and the exit code 0.
  if (!lazy && inputs->empty() && !verbosity().quiet) std::fprintf(stderr, "mdfi: warning: no images in the given inputs\n");
  args.images = std::move(*inputs);

  // The wrong command for the network is refused from the cfg alone, before weights are looked for.
  if (auto cfg_only = resolve_model(args.model, default_net, false); cfg_only.ok()) {
    auto net = build_model(*cfg_only, args.model);
    if (net.ok()) {
      Status st = check_task(*net, task, cfg_only->name);
      if (!st.ok()) return report(st);
    }
  }
  // Every file the run reads, so that no output can replace one of them.
  auto resolved = resolve_model(args.model, default_net, true);
  if (!resolved.ok()) return report(resolved.status());
  InputFiles read = files_read(args, *resolved);
  if (Status st = check_outputs(args, read); !st.ok()) return report(st);
  // --shard: this run's share of the expanded inputs (the whole list stays guarded above).
  auto in_shard = [&shard](const std::string& p) {
    return !shard.active() || shard_of_key(input_key(p), shard.count) == shard.index;
  };
  if (shard.active()) {
    const size_t all = args.images.size();
    std::vector<std::string> mine;
    for (std::string& p : args.images)
      if (in_shard(p)) mine.push_back(std::move(p));
    args.images = std::move(mine);
    if (!quiet && !lazy)
      std::fprintf(stderr, "mdfi: --shard %s: %zu of %zu inputs are this shard's\n", shard.label().c_str(),
                   args.images.size(), all);
  }
  if (task != Task::kDetect && (!args.classes.empty() || !args.crops_dir.empty() || args.save_labels))
    return report(Status(ErrorKind::kUsage, "--classes, --crops and --save-labels are for detect"));

  const bool to_file = !args.output.empty() && args.output != "-";
  const bool line_format = *format != Format::kJson && *format != Format::kDarknetJson;
  if (args.resume && !to_file) return report(Status(ErrorKind::kUsage, "--resume needs -o FILE (the file to complete)"));
  if (args.resume && !line_format)
    return report(Status(ErrorKind::kUsage, "--resume needs a line format (--format jsonl, csv or text): a JSON array "
                                            "is written all-or-nothing, so an interrupted run leaves nothing to resume"));
  bool append_to_data = false;
  if (args.resume) {
    Status st = Status::Ok();
    if (args.stream.empty()) {
      st = skip_recorded(args, *format, shard, append_to_data);
    } else {  // a stream's frames are skipped as they are read again (`recorded` below)
      auto done = read_recorded(args.output, *format, true);
      if (done.ok()) append_to_data = done->file_has_data;
      st = done.status();
    }
    if (!st.ok()) return report(st);
  }

  // Everything that can fail as a whole is checked before the (possibly long) model load.
  for (const std::string& o : {args.output, args.darknet_json_out}) {
    Status writable = OutputSink::check_writable(o);
    if (!writable.ok()) return report(writable);
  }
  if (!args.draw_dir.empty()) {
    Status st = make_dir(args.draw_dir);
    if (!st.ok()) return report(st);
  }
  DrawNamer namer(args.draw_dir, args.draw_ext, &read);
  namer.guard("--draw", args.force);
  for (const std::string& d : {args.crops_dir, args.labels_dir}) {
    if (d.empty()) continue;
    Status st = make_dir(d);
    if (!st.ok()) return report(st);
  }
  DrawNamer crop_namer(args.crops_dir, args.draw_ext, &read);
  crop_namer.guard("--crops", args.force);

  // --resume drops recorded inputs from the expanded list (skip_recorded) and, for `--list -`,
  // from the lines as they arrive.
  // A stream's recorded frames are keyed "KEY#N" (resume.h).
  std::set<std::string> recorded;
  if (args.resume && (args.list == "-" || !args.stream.empty())) {
    auto done_before = read_recorded(args.output, *format, !args.stream.empty());
    if (!done_before.ok()) return report(done_before.status());
    recorded = std::move(done_before->keys);
  }
  const std::string stream_key = args.stream.empty() ? "" : input_key(args.stream);
  size_t frames_skipped = 0;
  auto opened_feed = args.stream.empty()
                         ? open_path_feed(args.images, args.list == "-",
                                          [&recorded, &in_shard](const std::string& p) {
                                            return !in_shard(p) || recorded.count(input_key(p)) > 0;
                                          })
                         : open_mjpeg_feed(args.stream, args.latest);
  if (!opened_feed.ok()) return report(opened_feed.status());
  InputFeed& feed = **opened_feed;
  args.per_image_dumps = lazy || feed.total() > 1;

  BatchStats stats;
  stats.total = feed.total();
  const auto t_load = std::chrono::steady_clock::now();
  auto pm = prepare_model(args, default_net, &task);
  if (!pm.ok()) return report(pm.status());
  stats.load_ms = ms_since(t_load);
  if (!args.classes.empty()) {
    auto keep = resolve_classes(args.classes, pm->labels, pm->net);
    if (!keep.ok()) return report(keep.status());
    args.keep_class = std::move(*keep);
  }
  if (pm->device) {
    stats.host_layers = int(cl::Backend::host_layers(pm->net).size());
    stats.layers = int(pm->net.layers.size());
  }
  if (verbose) {
    print_layer_table(stderr, pm->net, &pm->plan);
    print_totals(stderr, pm->net);
  }

  const OutputSink::Mode mode = !line_format ? OutputSink::Mode::kAtomic
                                : args.resume ? OutputSink::Mode::kAppend
                                              : OutputSink::Mode::kLines;
  auto sink = OutputSink::open(args.output, mode);
  if (!sink.ok()) return report(sink.status());
  OutputSink& out = **sink;
  auto writer = args.darknet_text ? make_darknet_text_writer(task, args.ext_output) : make_writer(*format, task);
  if (!append_to_data) writer->begin(out.file());
  // Darknet's -out FILE: AlexeyAB's JSON beside the text, all-or-nothing as any JSON array.
  std::unique_ptr<OutputSink> json_out;
  auto json_writer = make_darknet_json_writer();
  if (!args.darknet_json_out.empty()) {
    auto s = OutputSink::open(args.darknet_json_out, OutputSink::Mode::kAtomic);
    if (!s.ok()) return report(s.status());
    json_out = std::move(*s);
    json_writer->begin(json_out->file());
  }
  Progress progress(feed.total(), !quiet && stderr_is_terminal());
  // A record on the terminal must not land in the middle of the progress line.
  auto write_record = [&](const ImageResult& rec) {
    if (out.is_stdout()) progress.finish();
    writer->write(out.file(), rec);
    out.record_done();
    if (json_out) json_writer->write(json_out->file(), rec);
  };
  install_interrupt_handlers();
  int result = kExitOk;
  // Every buffer comes from one planned arena, so pages touched once serve every layer (and every
  // image) without page faults: fresh mappings cost ~80,000 faults per YOLOv3 image, more time
  // than the forward pass on a VM. A batch keeps the whole arena through post-processing. A
  // single image has its network outputs planned at the arena's low end and frees the rest as
  // soon as the network has run, so its heap stays at the plan's peak while thousands of boxes
  // are collected.
  // Under --max-mem every image runs as a single one, in an arena of its own: the budget was
  // fitted to that layout (choose_schedule), and the batch's shared arena, kept through
  // post-processing, can need more (yolov3-tiny -j 2 at its smallest budget refused every image
  // of a two-image batch that it ran alone). Re-mapping the arena per image is the price.
  const bool per_image = pm->budget != 0;
  const bool single = per_image || (!lazy && feed.total() == 1);
  std::unique_ptr<Arena> arena;
  size_t done = 0;
  auto say_frames_skipped = [&, said = false]() mutable {
    if (said || !frames_skipped || quiet) return;
    said = true;
    std::fprintf(stderr, "mdfi: --resume: %zu frames of %s were already in %s; skipped\n", frames_skipped,
                 args.stream.c_str(), args.output.c_str());
  };
  // With the thread count left to mdfi, each image runs on the cores others leave free
  // (core_share.h); a count the user gave is kept.
  const bool share_cores = args.threads == 0 && args.backend == "cpu";
  CoreShare cores(default_threads());
  int threads_now = default_threads();
  FeedItem item;
  for (size_t i = 0; !interrupt_signal() && feed.next(item); ++i) {
    const std::string& path = item.name;
    if (share_cores) {
      const int t = cores.next();
      if (t != threads_now) {
        if (verbose)
          std::fprintf(stderr, "mdfi: other processes keep %.1f cores busy: %d threads from image %zu\n",
                       std::max(0.0, cores.others_busy()), t, i + 1);
        set_default_threads(t);
        threads_now = t;
      }
    }
    if (!recorded.empty() && item.frame >= 0 && recorded.count(stream_key + "#" + std::to_string(item.frame))) {
      ++frames_skipped;  // --resume: this frame's record is in the file already
      --i;               // (wraps at 0; the loop's ++i brings it back)
      continue;
    }
    say_frames_skipped();
    if (lazy && !item.bytes && item.error.ok()) {  // a path read from stdin: never an output of this run
      InputFiles this_one;
      this_one.add(path);
      if (Status st = check_outputs(args, this_one); !st.ok()) item.error = Status(ErrorKind::kImage, path + ": " + st.message());
    }
    ImageResult rec;
    rec.image = path;
    if (shard.active()) {
      rec.key = input_key(path);
      rec.shard = shard.label();
    }
    rec.frame = item.frame;
    rec.read_at = item.read_at;
    rec.skipped = item.skipped;
    if (item.garbage)
      rec.warnings.push_back(std::to_string(item.garbage) + " bytes that were no JPEG data skipped before this frame");
    if (item.skipped && verbose) std::fprintf(stderr, "mdfi: --latest: skipped %zu frames\n", item.skipped);
    stats.skipped += item.skipped;
    // Under --max-mem, an image that can be read only once (stdin, a pipe) and that no plan has
    // seen yet is read now, so the schedule is fitted to its decoder before it is decoded.
    bool counted = false;
    if (pm->budget && !pm->planned_for_images && !item.bytes && item.error.ok())
      if (auto bytes = read_unseekable(path)) item.bytes = std::move(bytes), counted = true;
    const ImageSource source{path, item.bytes.get(), counted};
    if (item.error.ok()) {
      if (Status st = fit_budget_to_first_image(*pm, args, source); !st.ok()) {
        progress.finish();
        out.abandon();
        return report(st);
      }
    }
    if (!arena || per_image) {
      arena.reset();  // the image before's (shrunk) arena goes before the next is mapped
      arena = std::make_unique<Arena>(plan_arena(pm->plan, single));
    }
    MemoryTracker mem;
    mem.use_arena(arena.get());
    auto run = item.error.ok() ? run_image(*pm, args, source, mem, i)
                               : Result<ImageRun>(item.error);
    if (single && run.ok()) run->out.relocate(arena->shrink_to_split());
    stats.peak_heap = std::max(stats.peak_heap, mem.peak());
    stats.held_peak = std::max(stats.held_peak, arena->held_peak());
    stats.kept_weights = pm->resident ? pm->resident->tracker().peak() : 0;
    if (!run.ok()) {
      const bool image_fault = run.status().kind() == ErrorKind::kImage || run.status().kind() == ErrorKind::kBudget;
      if (run.status().kind() == ErrorKind::kBudget) ++stats.over_budget;
      if (!image_fault) {
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
      write_record(rec);
      done = i + 1;
      if (args.fail_fast) {
        if (!quiet) std::fprintf(stderr, "mdfi: --fail-fast: stopping after %zu images\n", i + 1);
        result = kExitSomeInputs;
        break;
      }
      continue;
    }
    rec.width = run->img_w;
    rec.height = run->img_h;
    rec.time_ms = run->ms;
    rec.warnings.insert(rec.warnings.end(), run->warnings.begin(), run->warnings.end());
    if (!quiet)
      for (const std::string& w : rec.warnings) {
        progress.finish();
        std::fprintf(stderr, "mdfi: warning: %s: %s\n", path.c_str(), w.c_str());
      }
    post(*pm, args, *run, rec);
    stats.peak_heap = std::max(stats.peak_heap, mem.peak());  // post-processing counts too
    ++stats.ok;
    stats.add_time(run->ms);
    write_record(rec);
    done = i + 1;
    {
      Status st = Status::Ok();
      if (!args.draw_dir.empty()) st = draw_result(rec, task, namer);
      if (st.ok() && !args.predictions.empty()) st = draw_result_to(rec, task, args.predictions);
      if (st.ok() && !args.crops_dir.empty()) st = write_crops(rec, crop_namer);
      if (st.ok() && (args.save_labels || !args.labels_dir.empty())) {
        const std::string label = label_path_for(path, args.labels_dir);
        st = read.check_output(label, "the label file", args.force);
        if (st.ok()) st = write_label_file(label, rec);
      }
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
  say_frames_skipped();
  if (!feed.error().ok()) {
    out.abandon();
    return report(feed.error());
  }
  const int sig = interrupt_signal();
  if (sig && !(to_file && !line_format)) {
    // Stdout JSON is closed so what was printed parses; a JSON -o file is all-or-nothing.
    writer->end(out.file());
  } else if (!sig) {
    writer->end(out.file());
  }
  if (json_out) {
    if (sig) {
      json_out->abandon();
    } else {
      json_writer->end(json_out->file());
      Status st = json_out->commit();
      if (!st.ok()) return report(st);
    }
  }
  if (sig && to_file && !line_format) {
    out.abandon();
  } else {
    Status st = out.commit();
    if (!st.ok()) return report(st);
  }
  if (stats.failed) result = kExitSomeInputs;
  if (stats.over_budget) result = kExitBudget;
  if (lazy) stats.total = stats.ok + stats.failed;  // a stream or stdin list: known only now
  if (sig) {
    const char* name = sig == SIGINT ? "SIGINT" : "SIGTERM";
    if (!quiet) print_summary(stderr, stats, peak_rss_bytes());
    const std::string then =
        !to_file ? "the records above are complete"
        : !line_format ? "a JSON array is all-or-nothing: nothing was written to " + args.output
        : !args.stream.empty() && !stream_replayable
            ? "the frames done are in " + args.output + "; " + (args.stream == "-" ? std::string("stdin") : args.stream) +
                  " is a pipe whose frames cannot be read again, so there is nothing to resume"
            : "rerun with --resume to finish " + args.output;
    std::fprintf(stderr, "mdfi: interrupted by %s after %zu of %zu %s; %s\n", name, done, stats.total,
                 args.stream.empty() ? "images" : "frames", then.c_str());
    return 128 + sig;
  }
  if (!quiet) print_summary(stderr, stats, peak_rss_bytes());
  return result;
}

}  // namespace mdfi::app
