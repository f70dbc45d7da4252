// `mdfi detect`: YOLO detection over one or more images, Darknet-style lines on stdout.
#include <cstdio>

#include "commands.h"
#include "detect.h"
#include "exit_codes.h"
#include "run_common.h"

namespace mdfi::app {

void add_run_options(CLI::App& cmd, RunArgs& args, const char* default_net);

void add_run_options(CLI::App& cmd, RunArgs& args, const char* default_net) {
  add_model_options(cmd, args.model, default_net, true);
  cmd.add_option("images", args.images, "image files")->required();
  cmd.add_option("--dump-layers", args.dump_dir, "write the input and every layer's output as DIR/NNN.npy");
  cmd.add_option("--mem-report", args.mem_report, "per-layer memory report on stderr, or as JSON to FILE")
      ->expected(0, 1)
      ->default_str("-");
}

Action add_detect_command(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  auto opt = std::make_shared<DetectOptions>();
  CLI::App* cmd = app.add_subcommand("detect", "detect objects (YOLO) in images");
  add_run_options(*cmd, *args, "yolov3");
  cmd->add_option("--thresh", opt->thresh, "detection threshold (objectness x class)")->capture_default_str();
  cmd->add_option("--hier", opt->hier_thresh, "hierarchical threshold (region layers)")->capture_default_str();
  cmd->add_option("--nms", opt->nms, "NMS IoU threshold, 0 disables")->capture_default_str();
  return [args, opt, cmd]() {
    args->mem_report_on = cmd->count("--mem-report") > 0;
    auto pm = prepare_model(*args, "yolov3");
    if (!pm.ok()) return report(pm.status());
    int classes = 0;
    for (const auto& l : pm->net.layers)
      if (std::string(l->kind()) == "yolo") classes = std::max(classes, l->out.c);  // refined below
    int failed = 0;
    for (size_t i = 0; i < args->images.size(); ++i) {
      const std::string& path = args->images[i];
      MemoryTracker mem;
      auto run = run_image(*pm, *args, path, mem, i);
      if (!run.ok()) {
        if (run.status().kind() != ErrorKind::kImage) return report(run.status());
        report(run.status());
        ++failed;
        continue;
      }
      std::vector<Detection> dets = yolo_detections(pm->net, run->out, run->img_w, run->img_h, *opt);
      const int ncls = dets.empty() ? 0 : int(dets[0].prob.size());
      if (opt->nms > 0) nms_sort(dets, ncls, opt->nms);
      std::printf("%s:\n", path.c_str());
      for (const Found& f : collect_found(dets, run->img_w, run->img_h, opt->thresh)) {
        const std::string name =
            size_t(f.class_id) < pm->labels.size() ? pm->labels[size_t(f.class_id)] : "class " + std::to_string(f.class_id);
        std::printf("%s: %.0f%%\t(left: %d top: %d width: %d height: %d)\n", name.c_str(), f.prob * 100, f.left, f.top,
                    f.right - f.left, f.bottom - f.top);
      }
      std::fflush(stdout);
      if (!verbosity().quiet) std::fprintf(stderr, "mdfi: %s: predicted in %.1f ms\n", path.c_str(), run->ms);
      if (args->mem_report_on) {
        if (args->mem_report == "-" || args->mem_report.empty()) {
          print_mem_report(stderr, *pm, *run, mem);
        } else {
          Status st = write_mem_report_json(args->mem_report, *pm, *run, mem);
          if (!st.ok()) return report(st);
        }
      }
    }
    (void)classes;
    return failed ? int(kExitSomeInputs) : int(kExitOk);
  };
}

}  // namespace mdfi::app
