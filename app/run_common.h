// What detect and classify share: loading labels, preparing the model once for a batch, running
// one image, dumping layers, and the memory report.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "backend.h"
#include "detect.h"
#include "executor.h"
#include "image.h"
#include "image_input.h"
#include "plan_run.h"
#include "model_args.h"
#include "plan.h"
#include "postprocess.h"
#include "results.h"
#include "resident_weights.h"
#include "schedule.h"
#include "weights.h"

namespace mdfi::app {

// Everything `detect` and `classify` accept; run_options.cpp registers the options.
struct RunArgs {
  ModelArgs model;
  std::vector<std::string> images;  // positional paths; the batch replaces them with the expanded list
  std::string list;                 // --list FILE ("-" = stdin)
  std::string format = "text";      // --format
  std::string output;               // -o FILE ("" or "-" = stdout)
  std::string draw_dir;             // --draw DIR
  std::string draw_ext = "jpg";     // --draw-ext
  bool fail_fast = false;
  DetectOptions detect;             // --thresh, --hier, --nms
  int top = 0;                      // detect: best K boxes (0 = all); classify: K classes
  std::string dump_dir;
  std::string mem_report;  // "-" = stderr table, else a JSON file
  bool mem_report_on = false;
  std::string mem_plot;    // --mem-plot FILE.svg
  std::string max_mem;     // --max-mem SIZE ("" = no budget)
  int threads = 0;         // --threads (0 = all cores)
  bool reference = false;  // --reference: the plain reference kernels (parity oracle)
  bool no_prefetch = false;  // --no-prefetch: no read-ahead hints for the next layers' weights
  std::string backend = "cpu";  // --backend cpu|opencl
  std::string device;           // --device N|NAME (OpenCL)
  bool keep_weights = false;    // --keep-weights: prepared weights stay (on the device, or in RAM) across the batch
  bool fast_decode = false;     // --fast-decode: JPEG decoded at the smallest DCT scale still >= the input size
  bool exif_rotate = false;     // --exif-rotate: apply a JPEG's EXIF orientation (Darknet ignores it)
  long long max_pixels = 0;     // --max-pixels: refuse images declaring more (0: each decoder's default)
  std::string decoder = "auto"; // --decoder auto|stb: stb = stb_image for JPEG too (pjreddie's exact pixels)
  std::string stream;           // --stream PATH|-: concatenated JPEG frames (MJPEG)
  bool latest = false;          // --latest: with --stream, only the newest complete frame
  bool per_image_dumps = false; // set by the batch: --dump-layers gets a folder per image
  std::string classes;           // --classes person,car (names or ids): keep only these
  std::vector<bool> keep_class;  // --classes resolved against the labels (empty: all)
  std::string crops_dir;         // --crops DIR
  bool save_labels = false;      // --save-labels: YOLO label files beside the images (AlexeyAB's rule)
  std::string labels_dir;        // --labels-dir DIR: the label files there instead
  bool resume = false;           // --resume: skip inputs already recorded in the -o file
  std::string shard;             // --shard K/N|auto|auto/N: this run's share of the inputs (shard.h)
  bool force = false;            // --force: outputs may replace existing pictures (never an input)
  // Set by the Darknet command lines (darknet_cli.h) through hidden options:
  bool darknet_text = false;     // Darknet's text layout on stdout
  bool ext_output = false;       // -ext_output: boxes in that layout
  std::string darknet_json_out;  // -out FILE: AlexeyAB's JSON beside the text
  std::string predictions;       // Darknet's predictions.jpg: each image drawn there in turn
};

struct PreparedModel {
  ResolvedModel model;
  Network net;
  Plan plan;
  WeightsFile weights;
  std::vector<std::string> labels;
  std::shared_ptr<cl::Backend> device;  // set for --backend opencl
  std::shared_ptr<ResidentWeights> resident;  // set for --keep-weights on the CPU
  size_t budget = 0;  // --max-mem in bytes (0 = none)
  PostLimits post;    // detect: what post-processing may hold per image (detect_post_limits)
  mutable size_t post_capped = 0;  // images whose boxes went over those limits (said once on stderr)
  std::shared_ptr<const Schedule> schedule;  // --max-mem under the default peak: the schedule that fits (else none)
  std::vector<int> default_tiles;      // the default schedule's Winograd tiles (winograd_tiles), before any schedule
  bool planned_for_images = false;     // the schedule left room for images' decoders known when it was chosen
  // Under --max-mem, the one image known at planning time when no schedule left room for its
  // decoder (the network was then planned alone): its size, its decoder and the smallest budget
  // that runs it, which its refusal names (smallest 0: none such).
  struct UnfittedImage {
    int w = 0, h = 0;
    std::string decoder;
    size_t smallest = 0;
  } unfitted;
};

// Detection post-processing's limits for this network: the room its single-image arena leaves
// above the outputs, with each result's record (and a name of up to kNameBytes) counted.
constexpr size_t kNameBytes = 16;
PostLimits detect_post_limits(const Network& net, const Plan& plan);
// The heap of a single image while its post-processing is at its limit: the outputs kept in
// the shrunk arena plus the limit (at most the arena's size unless the minimum limits apply).
size_t post_peak_bytes(const Plan& plan, const PostLimits& limits);

// Reads at most `limit` names: ImageNet's shortnames list has 21,842 lines, of which a
// 1000-class network needs the first 1000; the rest would sit in memory through the run.
// `total`, when given, receives the number of names in the whole file (blank lines at its end
// are not names).
Result<std::vector<std::string>> load_labels(const std::string& path, size_t limit = size_t(-1),
                                             size_t* total = nullptr);
// The same over a label list's text (the built-in copies).
std::vector<std::string> parse_labels(std::string_view text, size_t limit = size_t(-1), size_t* total = nullptr);
// The classes a names list must cover: the detection head's, else the last layer's outputs.
size_t network_classes(const Network& net);
// `task`, when given, must be what the cfg is for (net_task.h), checked before weights are read.
Result<PreparedModel> prepare_model(const RunArgs& args, const char* default_net, const Task* task = nullptr);
// What the options ask of the planner (plan_run.h), for a budget and the decoders beside it.
PlanRequest plan_request(const RunArgs& args, size_t budget, std::vector<size_t> besides,
                         std::vector<int> default_tiles);

struct ImageRun {
  int img_w = 0, img_h = 0;
  RunOutput out;
  std::vector<LayerRunStats> stats;
  cl::DeviceMemStats device_mem;  // --backend opencl: device memory of this run
  double ms = 0;          // the whole pipeline: decode, letterbox, network
  double forward_ms = 0;  // the network alone (weights streamed in), as OpenCV's net.forward() is timed
  const char* decoder = "";  // which decoder read the image
  MemoryTracker* mem = nullptr;  // the run's tracker, for post-processing to count its buffers in
  size_t preprocess_peak = 0;  // predicted preprocessing heap: decoder, resizer, network input
  std::vector<std::string> warnings;  // the decoder's (corrupt data decoded past, EXIF orientation unapplied)
};

// Where an image's bytes come from: a path (a regular file, or a pipe, FIFO or /dev/stdin,
// which are read into memory first), "-" for stdin, or a frame already in memory.
struct ImageSource {
  std::string name;                 // the path, "-", or "frame N"
  const std::vector<uint8_t>* bytes = nullptr;  // set for a frame in memory
  bool count_bytes = false;         // `bytes` were read for this image (read_unseekable): heap of its run
};

// The bytes of an image that can be read only once (stdin as "-", a pipe, a FIFO), read whole
// now, so that a --max-mem run can plan for its decoder before decoding it; null for a regular
// file (read in place when it runs) and for anything that cannot be opened (its run says why).
std::shared_ptr<const std::vector<uint8_t>> read_unseekable(const std::string& name);

// What preprocessing `path` would need, from its header (no pixel decoded): the decoder's and
// resizer's memory plus the network input. For `mdfi plan IMAGE` and --max-mem.
struct PreprocessEstimate {
  int image_w = 0, image_h = 0, decoded_w = 0, decoded_h = 0;
  const char* decoder = "";
  size_t setup_bytes = 0, peak_bytes = 0;
  size_t coefficient_bytes = 0;  // a progressive JPEG's whole DCT coefficient buffer (part of setup_bytes)
};

// --max-mem: fits the network's plan (conv algorithms, and on the CPU a Schedule) to pm.budget with
// each of `besides` (images' decoders, bytes) working beside its arena; sets pm.plan, pm.schedule,
// pm.post. prepare_model calls it with the images named on the command line.
// `sole`: the one image known, whose size pm.unfitted records if no schedule leaves it room.
Status fit_budget(PreparedModel& pm, const RunArgs& args, std::vector<size_t> besides,
                  const PreprocessEstimate* sole = nullptr);
// A run planned before any of its images was known (--stream, --list -) is fitted again to the
// first one's decoder, once: a camera's frames are all of one size, and planned for the network
// alone a schedule may leave no room for them (each frame refused at the budget `mdfi plan
// --max-mem 1B FRAME` names).
Status fit_budget_to_first_image(PreparedModel& pm, const RunArgs& args, const ImageSource& src);

// The options of a run as the decoders take them.
DecodeOptions decode_options(const RunArgs& args);

// arena_bytes: the size of the run's arena (plan_arena), 0 when it runs without one.
Result<PreprocessEstimate> estimate_preprocess(const Network& net, const RunArgs& args, const std::string& path,
                                               size_t arena_bytes);
Result<PreprocessEstimate> estimate_preprocess(const Network& net, const RunArgs& args, const ImageSource& src,
                                               size_t arena_bytes);

// Decodes the image, letterboxes it to the network size and runs the network. With a budget
// (pm.budget), an image whose preprocessing would take the run over it is refused (kBudget)
// before any pixel is decoded.
Result<ImageRun> run_image(PreparedModel& pm, const RunArgs& args, const ImageSource& src, MemoryTracker& mem,
                           size_t image_index);

void print_mem_report(std::FILE* out, const PreparedModel& pm, const ImageRun& run, const MemoryTracker& mem);
Status write_mem_report_json(const std::string& path, const PreparedModel& pm, const ImageRun& run,
                             const MemoryTracker& mem);
size_t peak_rss_bytes();

}  // namespace mdfi::app
