#include "run_options.h"

#include <cstdlib>

#include "usage_errors.h"

namespace mdfi::app {

void add_run_options(CLI::App& cmd, RunArgs& args, Task task, const char* default_net) {
  args.model.task = task == Task::kDetect ? "detect" : "classify";  // named networks of the other task are refused
  add_model_options(cmd, args.model, default_net, true);

  const char* in = "Input";
  cmd.add_option("images", args.images, "image files or directories (the images directly inside, sorted)")
      ->group(in);
  cmd.add_option("--list,-l", args.list,
                 "read image paths from FILE, one per line; '-' reads stdin, each path as its line arrives")
      ->group(in);
  cmd.add_option("--stream", args.stream,
                 "read concatenated JPEG frames (MJPEG: rpicam-vid --codec mjpeg -o -, ffmpeg -f mjpeg -) from "
                 "PATH or '-' (stdin); one record per frame, written as soon as it is done")
      ->group(in);
  cmd.add_flag("--latest", args.latest,
               "with --stream: when inference is slower than the camera, process only the newest complete frame "
               "(records say how many frames were skipped)")
      ->group(in);
  cmd.add_flag("--fast-decode", args.fast_decode,
               "decode a JPEG at the smallest DCT scale (1/2, 1/4, 1/8) still at least the network input size: "
               "much faster on camera photos, a slightly differently filtered input")
      ->group(in);
  cmd.add_flag("--exif-rotate", args.exif_rotate,
               "turn a JPEG by its EXIF orientation before letterboxing (Darknet ignores it); the resize turns "
               "it, so no decoded photo is held")
      ->group(in);
  add_max_pixels_option(cmd, args.max_pixels)->group(in);
  cmd.add_option("--decoder", args.decoder,
                 "JPEG decoder: auto (libjpeg-turbo, row by row) or stb (stb_image, as pjreddie's Darknet: its "
                 "exact pixels, the whole photo in memory)")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "stb"}))
      ->group(in);

  const char* out = "Output";
  if (task == Task::kDetect)
    cmd.add_option("--format,-f", args.format,
                   "result format on stdout (or -o): text, json, jsonl, csv, or darknet-json (AlexeyAB's -out layout)")
        ->capture_default_str()
        ->check(CLI::IsMember({"text", "json", "jsonl", "csv", "darknet-json"}))
        ->group(out);
  else
    cmd.add_option("--format,-f", args.format, "result format on stdout (or -o): text, json, jsonl, csv")
        ->capture_default_str()
        ->check(CLI::IsMember({"text", "json", "jsonl", "csv"}))
        ->group(out);
  cmd.add_option("--output,-o", args.output,
                 "write results to FILE instead of stdout (text, jsonl, csv: each record appended and flushed as it "
                 "completes; json: a temp file renamed into place when complete)")
      ->group(out);
  cmd.add_flag("--resume", args.resume,
               "skip the inputs already recorded in the -o FILE of an earlier, interrupted run and append the rest "
               "(text, jsonl, csv)")
      ->group(out);
  cmd.add_option("--shard", args.shard,
                 "K/N: run only shard K of N (from 1) of the inputs, split by a fixed hash of each input's canonical "
                 "path, so N machines running the same list cover every input once; auto: K and N from a Slurm job "
                 "array or a Kubernetes indexed Job (auto/N or MDFI_SHARD_COUNT there)")
      ->group(out);
  cmd.add_flag("--force", args.force,
               "let outputs (-o, --mem-report=FILE, --mem-plot, label files, --draw, --crops) replace existing "
               "pictures (an input is never replaced)")
      ->group(out);
  cmd.add_option("--draw", args.draw_dir,
                 task == Task::kDetect ? "write each image with boxes and labels as DIR/<stem>.<ext>"
                                       : "write each image with its top classes as DIR/<stem>.<ext>")
      ->group(out);
  cmd.add_option("--draw-ext", args.draw_ext, "picture format for --draw: jpg or png")
      ->capture_default_str()
      ->check(CLI::IsMember({"jpg", "png"}))
      ->group(out);
  cmd.add_flag("--fail-fast", args.fail_fast, "stop at the first image that fails (default: record it, go on)")
      ->group(out);

  if (task == Task::kDetect) {
    const char* det = "Detection";
    cmd.add_option("--thresh,-t", args.detect.thresh, "keep boxes with objectness x class probability above this")
        ->capture_default_str()
        ->check(number_in(0.0, 1.0, false))
        ->group(det);
    cmd.add_option("--hier", args.detect.hier_thresh, "hierarchical threshold (YOLOv2 region layers)")
        ->capture_default_str()
        ->check(number_in(0.0, 1.0, false))
        ->group(det);
    cmd.add_option("--nms", args.detect.nms, "NMS IoU threshold; 0 disables NMS")
        ->capture_default_str()
        ->check(number_in(0.0, 1.0, false))
        ->group(det);
    cmd.add_option("--classes", args.classes,
                   "keep only these classes: names or ids, comma-separated (e.g. person,car or 0,2)")
        ->group(det);
    cmd.add_option("--crops", args.crops_dir, "write each detection cut out of its image as DIR/<stem>_<n>_<class>.<ext>")
        ->group(out);
    cmd.add_flag("--save-labels", args.save_labels,
                 "write YOLO label files (class cx cy w h per box, relative) beside each image, named as AlexeyAB's "
                 "-save_labels names them (dog.jpg -> dog.txt, /JPEGImages/ -> /labels/)")
        ->group(out);
    cmd.add_option("--labels-dir", args.labels_dir, "write the YOLO label files as DIR/<stem>.txt instead")->group(out);
    args.top = 0;
    cmd.add_option("--top,-k", args.top, "keep only the K most confident boxes per image (0 = all)")
        ->capture_default_str()
        ->check(number_in(0, 1000000, true))
        ->group(det);
  } else {
    args.top = 5;
    cmd.add_option("--top,-k", args.top, "how many classes to report per image")
        ->capture_default_str()
        ->check(number_in(1, 1000000, true))
        ->group("Classification");
  }

  // The Darknet command lines (darknet_cli.h) are rewritten into these; not for typing.
  cmd.add_flag("--darknet-text", args.darknet_text)->group("");
  if (task == Task::kDetect) {
    cmd.add_flag("--ext-output", args.ext_output)->group("");
    cmd.add_option("--darknet-json-out", args.darknet_json_out)->group("");
    cmd.add_option("--darknet-predictions", args.predictions)->group("");
  }

  const char* diag = "Diagnostics";
  cmd.add_option("--dump-layers", args.dump_dir, "write the input and every layer's output as DIR/NNN.npy")
      ->group(diag);
  // A flag, not an option with an optional value: `--mem-report photo.jpg` must leave photo.jpg an
  // input (an optional value swallowed the next argument and overwrote a photo). FILE only as
  // --mem-report=FILE.
  // CLI11 stores "true" for the bare flag; the commands turn that into "-" (stderr), so a file
  // literally named true is --mem-report=./true.
  cmd.add_flag("--mem-report", args.mem_report,
               "per-layer memory report on stderr; --mem-report=FILE writes it as JSON to FILE")
      ->group(diag);
  cmd.add_option("--mem-plot", args.mem_plot, "draw per-layer heap (weights/activations/workspace) as an SVG file")
      ->group(diag);

  const char* perf = "Memory and speed";
  cmd.add_option("--max-mem", args.max_mem,
                 "fit the run in SIZE (e.g. 64M, 1.5G): below the default peak, weights in blocks and early layers in "
                 "bands (same results); refused (exit 4, naming the smallest that fits) when nothing fits")
      ->group(perf);
  cmd.add_option("--threads,-j", args.threads, "compute threads (0 = all cores)")
      ->capture_default_str()
      ->check(number_in(0, 1024, true))
      ->group(perf);
  cmd.add_flag("--reference", args.reference, "use the plain reference kernels (slow; the oracle the fast kernels are tested against)")
      ->group(perf);
  cmd.add_flag("--no-prefetch", args.no_prefetch,
               "no read-ahead thread bringing the next layers' weights (up to 64 MB ahead) into the page cache "
               "while a layer computes")
      ->group(perf);
  cmd.add_option("--backend", args.backend,
                 "cpu, or opencl: run on an OpenCL device (activations stay on it, weights streamed per layer)")
      ->capture_default_str()
      ->check(CLI::IsMember({"cpu", "opencl"}))
      ->group(perf);
  cmd.add_option("--device", args.device,
                 "OpenCL device: index or part of the platform/device name from `mdfi devices` (default: first GPU)")
      ->group(perf);
  cmd.add_flag("--keep-weights", args.keep_weights,
               "keep every layer's prepared weights across the batch (in RAM, or on the OpenCL device) instead of "
               "streaming them from the file for each image: faster, but the whole model stays in memory; "
               "checked against --max-mem")
      ->group(perf);
}

CLI::Option* add_max_pixels_option(CLI::App& cmd, long long& target) {
  return cmd
      .add_option_function<std::string>(
          "--max-pixels",
          [&target](const std::string& text) {
            char* end = nullptr;
            double v = std::strtod(text.c_str(), &end);
            const std::string unit = end ? end : "";
            if (unit == "M" || unit == "m") v *= 1e6;
            else if (unit == "G" || unit == "g") v *= 1e9;
            else if (!unit.empty()) v = -1;
            if (end == text.c_str() || !(v >= 1) || v > 4.3e9)
              throw CLI::ValidationError("--max-pixels", "'" + text +
                                                             "' is not a pixel count (e.g. 200M, 1G, 40000000; at most 4.3G)");
            target = (long long)v;
          },
          "refuse images whose header declares more pixels (e.g. 300M). Default: 1000M for JPEG (baseline) and "
          "PNG, decoded a few rows at a time; 64M for what is decoded whole (BMP, GIF, TGA, interlaced PNG, "
          "progressive JPEG, --decoder stb)")
      ->type_name("PIXELS");
}

}  // namespace mdfi::app
