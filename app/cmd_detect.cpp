// `mdfi detect`: YOLO detection over a batch of images. The YOLO decoding, letterbox correction,
// thresholds and NMS are the engine's (detect.h); this file turns them into result records.
#include <algorithm>

#include "batch.h"
#include "commands.h"
#include "detect.h"
#include "run_options.h"

namespace mdfi::app {

static void detections_of(const PreparedModel& pm, const RunArgs& args, const ImageRun& run, ImageResult& r) {
  // Every buffer of post-processing is counted in the run's tracker and held to pm.post, the
  // room the network's own peak leaves (postprocess.h): an untrained model's 10^5 boxes cannot
  // take the heap past what `mdfi plan` predicts.
  PostHeap heap(run.mem);
  PostBytes found_bytes(heap), records_bytes(heap);
  PostStats st;
  const size_t top = args.top > 0 ? size_t(args.top) : 0;
  std::vector<Found> found = bounded_results(pm.net, run.out, run.img_w, run.img_h, args.detect, args.keep_class, top,
                                             pm.post, heap, found_bytes, &st);
  r.detections.reserve(found.size());
  size_t bytes = r.detections.capacity() * sizeof(DetectionRecord), names = 0;
  records_bytes.set(bytes);
  bool names_full = false;
  for (const Found& f : found) {
    DetectionRecord d;
    d.class_id = f.class_id;
    d.name = size_t(f.class_id) < pm.labels.size() ? pm.labels[size_t(f.class_id)] : "class " + std::to_string(f.class_id);
    // A name longer than the string's inline buffer is a heap block of its own: counted, and
    // held to the limit too (the limits assume kNameBytes a result, so long names rarely matter).
    const size_t name_heap = d.name.capacity() > 15 ? d.name.capacity() + 1 : 0;
    if (heap.bytes() + name_heap > pm.post.budget_bytes) {
      names_full = true;
      break;
    }
    names += name_heap;
    records_bytes.set(bytes + names);
    d.confidence = f.prob;
    // Both edges clipped to the image. Darknet clips only left/top from below and right/bottom
    // from above, so a box lying wholly outside the picture would get a negative size; here it
    // gets a zero-size box on the border instead (identical for every box that overlaps the image).
    const int l = std::clamp(f.left, 0, run.img_w - 1), rt = std::clamp(f.right, 0, run.img_w - 1);
    const int t = std::clamp(f.top, 0, run.img_h - 1), bt = std::clamp(f.bottom, 0, run.img_h - 1);
    d.left = l;
    d.top = t;
    d.width = std::max(0, rt - l);
    d.height = std::max(0, bt - t);
    d.cx = f.rel.x;
    d.cy = f.rel.y;
    d.w = f.rel.w;
    d.h = f.rel.h;
    r.detections.push_back(std::move(d));
  }
  const bool capped = st.candidates_kept < st.candidates ||
                      (st.results_kept < st.results && (top == 0 || st.results_kept < top)) || names_full;
  if (capped && pm.post_capped++ == 0 && !verbosity().quiet)
    std::fprintf(stderr,
                 "mdfi: warning: %s: %zu candidate boxes and %zu results are over post-processing's limits of %zu "
                 "boxes and %zu results per image (the memory the network's peak leaves free); the best-scoring "
                 "%zu boxes and the %zu most confident results were kept (said once per run)\n",
                 r.image.c_str(), st.candidates, st.results, pm.post.max_candidates, pm.post.max_results,
                 st.candidates_kept, r.detections.size());
}

Action add_detect_command(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand("detect", "detect objects (YOLO) in images");
  add_run_options(*cmd, *args, Task::kDetect, "yolov3");
  return [args, cmd]() {
    args->mem_report_on = cmd->count("--mem-report") > 0;
    if (args->mem_report.empty() || args->mem_report == "true") args->mem_report = "-";  // the bare flag
    return run_batch(*args, Task::kDetect, "yolov3", detections_of);
  };
}

}  // namespace mdfi::app
