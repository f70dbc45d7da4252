// `mdfi detect`: YOLO detection over a batch of images. The YOLO decoding, letterbox correction,
// thresholds and NMS are the engine's (detect.h); this file turns them into result records.
#include <algorithm>

#include "batch.h"
#include "commands.h"
#include "detect.h"
#include "run_options.h"

namespace mdfi::app {

static void detections_of(const PreparedModel& pm, const RunArgs& args, const ImageRun& run, ImageResult& r) {
  const DetectOptions& opt = args.detect;
  // Post-processing's vectors are counted in the run's tracker while they live, so the reported
  // peak is the process's even when an untrained model yields 10^5 boxes.
  struct Counted {
    MemoryTracker* mem;
    size_t bytes = 0;
    void set(size_t b) {
      if (!mem) return;
      if (b > bytes) mem->account(b - bytes, MemCategory::kOther);
      else mem->unaccount(bytes - b, MemCategory::kOther);
      bytes = b;
    }
    ~Counted() { set(0); }
  } dets_mem{run.mem}, found_mem{run.mem}, records_mem{run.mem};
  std::vector<Detection> dets = network_detections(pm.net, run.out, run.img_w, run.img_h, opt);
  size_t det_bytes = dets.capacity() * sizeof(Detection);
  for (const Detection& d : dets) det_bytes += d.prob.capacity() * sizeof(float) + 16;  // + malloc's header
  dets_mem.set(det_bytes);
  const int ncls = dets.empty() ? 0 : int(dets[0].prob.size());
  if (opt.nms > 0) network_nms(pm.net, dets, ncls, opt.nms);
  std::vector<Found> found = collect_found(dets, run.img_w, run.img_h, opt.thresh);
  found_mem.set(found.capacity() * sizeof(Found));
  // Each stage is freed before the next is built: an untrained or odd model can yield 10^5
  // boxes, and post-processing must not outgrow the network's own peak.
  std::vector<Detection>().swap(dets);
  dets_mem.set(0);
  if (!args.keep_class.empty())
    found.erase(std::remove_if(found.begin(), found.end(),
                               [&](const Found& f) {
                                 return size_t(f.class_id) >= args.keep_class.size() || !args.keep_class[size_t(f.class_id)];
                               }),
                found.end());
  // Most confident first; stable, so equal confidences keep Darknet's order (and a rerun the
  // same order). --top keeps the head of this list.
  std::stable_sort(found.begin(), found.end(), [](const Found& a, const Found& b) { return a.prob > b.prob; });
  if (args.top > 0 && found.size() > size_t(args.top)) found.resize(size_t(args.top));
  r.detections.reserve(found.size());
  records_mem.set(r.detections.capacity() * sizeof(DetectionRecord));
  for (const Found& f : found) {
    DetectionRecord d;
    d.class_id = f.class_id;
    d.name = size_t(f.class_id) < pm.labels.size() ? pm.labels[size_t(f.class_id)] : "class " + std::to_string(f.class_id);
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
  std::vector<Found>().swap(found);
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
