// The interface every layer implements. A Layer is a small, weight-free description built from
// one cfg section: its shapes, how many parameters it reads from the weights file, its FLOPs and
// scratch needs, and a const forward pass. Parameters are pulled from a ParamSource during
// forward and released before it returns, so the executor never holds more than one layer's.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cfg.h"
#include "memory.h"
#include "shape.h"
#include "status.h"

namespace mdfi {

class CandidateSink;   // detect.h
struct DetectOptions;  // detect.h

enum class Compat { kPjreddie, kAlexeyAB, kAuto };
const char* to_string(Compat c);

// [net] settings that matter at inference.
struct NetParams {
  int w = 0, h = 0, c = 0;
  Compat compat = Compat::kPjreddie;  // resolved: never kAuto once built
  std::string compat_reason;          // why that compat is in force (for -v)
  // Detector input: letterbox (aspect kept, grey pad) or plain resize. pjreddie always
  // letterboxes; AlexeyAB only with [net] letter_box=1. Boxes are corrected back only when set.
  bool letterbox = true;
};

// Reads this layer's parameters from the weights file; offsets are in floats from the start of
// the layer's own range.
class ParamSource {
 public:
  virtual ~ParamSource() = default;
  // May be called from several threads at once (the fast conv path packs rows in parallel).
  virtual Status read(size_t offset_floats, float* dst, size_t count) = 0;
  // The same floats where they already lie in memory (a mapped weights file), checked as read()
  // checks them: *st holds a refusal (null returned); null with *st Ok: no such memory here, read()
  // them. Consumers that only read their weights take this and skip a copy.
  virtual const float* view(size_t offset_floats, size_t count, Status* st) {
    (void)offset_floats, (void)count;
    *st = Status::Ok();
    return nullptr;
  }
  // The floats in place where view() has them, else read into `scratch` (count floats): for the
  // consumers that only read their weights. Null with *st the error.
  const float* view_or_read(size_t offset_floats, size_t count, float* scratch, Status* st) {
    const float* v = view(offset_floats, count, st);
    if (v || !st->ok()) return v;
    *st = read(offset_floats, scratch, count);
    return st->ok() ? scratch : nullptr;
  }
  // Old Darknet files (major or minor > 1000) store connected weights transposed.
  virtual bool transposed() const { return false; }
};

// One run of a layer's parameters in the weights file, for validation messages and for the
// weights generator (which needs to know what each value means).
enum class ParamRole { kBias, kScale, kMean, kVariance, kWeight };
struct ParamSegment {
  ParamRole role;
  size_t count;
  size_t fan_in;  // inputs per output, for kWeight scaling
};

// How layers compute: the plain reference loops (the parity oracle) or the optimised kernels.
class ResidentWeights;
struct SchedNode;  // schedule.h
struct RowStep;    // row_window.h
struct PreparedRows;  // row_window.h
struct Schedule;

struct ExecOptions {
  bool reference = false;
  int threads = 1;
  // Read the weights file ahead of the running layer on a background thread (prefetcher.h:
  // up to 64 MB ahead, 1 MiB of heap), so a cold file streams in behind the compute.
  bool prefetch = true;
  // --keep-weights: layers that prepare weights (conv, connected) keep them here after the
  // first image and reuse them (resident_weights.h). nullptr streams them per image.
  ResidentWeights* resident = nullptr;
  // --max-mem below the default peak: weight blocks and banded groups (schedule.h).
  const Schedule* schedule = nullptr;
  // detect without --dump-layers: a detection head's output is read by its box decoding alone
  // (when no later layer reads it either), so a head may leave work to decode_boxes that only
  // the boxes it keeps need (RunOutput::only_decoded, BoxFrame::only_decoded).
  bool heads_only_decoded = false;
};

struct LayerIO {
  std::vector<const float*> inputs;  // one per entry of Layer::sources
  float* output = nullptr;           // out.count() floats, owned by the executor
  ParamSource* params = nullptr;
  MemoryTracker* mem = nullptr;
  const ExecOptions* exec = nullptr;  // nullptr = reference
  // Output channels (connected: rows) per weight block that the run's schedule asks of this
  // layer (--max-mem); 0: whole weights. The executor sets it; layers do not read the schedule.
  int block = 0;
  // Only decode_boxes reads this head's output (ExecOptions::heads_only_decoded).
  bool only_decoded = false;
  bool fast() const { return exec && !exec->reference; }
  // Threads for a pass bound by memory traffic over `floats` values (copies, adds): all the run's
  // threads from 64k floats on (below, waking the team costs more than it saves), one otherwise.
  int memory_pass_threads(size_t floats) const {
    return fast() && floats >= (size_t(1) << 16) && exec->threads > 1 ? exec->threads : 1;
  }
};

// Where a detection head's boxes are mapped back to: the image, the network input, the options.
struct BoxFrame {
  int img_w = 0, img_h = 0;
  int net_w = 0, net_h = 0;
  const DetectOptions* opt = nullptr;
  bool only_decoded = false;  // the head's forward ran with LayerIO::only_decoded
};

// AlexeyAB's [yolo] nms_kind: default (IoU, do_nms_sort), greedynms (DIoU with exponent 0.6),
// diounms (DIoU with exponent beta_nms), cornersnms (not supported for inference).
enum class NmsKind { kDefault, kGreedy, kDiou };

class Layer {
 public:
  virtual ~Layer() = default;

  virtual const char* kind() const = 0;           // Darknet's short name: conv, max, route, ...
  virtual std::string detail() const { return ""; }  // e.g. "32  3 x 3 / 1"
  virtual size_t param_floats() const { return 0; }  // in the weights file
  // Parameters held at once while running (a connected layer streams its matrix in blocks).
  virtual size_t resident_param_floats() const { return param_floats(); }
  // Prepared parameters kept across images by --keep-weights (0: this layer re-reads its own).
  virtual size_t kept_param_floats() const { return 0; }
  virtual size_t workspace_floats() const { return 0; }
  // The parameters in file order; their counts sum to param_floats().
  virtual std::vector<ParamSegment> param_layout() const { return {}; }
  virtual double flops() const { return 0; }
  // The output is the input itself (dropout, cost at inference): no buffer of its own.
  virtual bool aliases_input() const { return false; }
  // The output is the sources' outputs side by side, whole (a [route] without groups): the plan
  // may have them written in place into it (plan.h, concat_in_place), and then it is not run.
  virtual bool concatenates_sources() const { return false; }
  // The output is one contiguous part of sources[0]'s, `*offset_floats` in (a [route] of one
  // source's channel group): the plan may make it a view of that part, and then it is not run.
  virtual bool slices_source(size_t* offset_floats) const {
    (void)offset_floats;
    return false;
  }
  // The output must survive to the end of the run (detection heads).
  virtual bool is_output_head() const { return false; }
  // Classes a detection head scores (0 for every other layer): what a names list must cover.
  virtual int head_classes() const { return 0; }
  // Detection heads hand the boxes `output` (this layer's, out.count() floats) predicts to `sink`, in
  // Darknet's order; detect.cpp asks every head, in layer order, as Darknet's fill_network_boxes.
  virtual void decode_boxes(const float* /*output*/, const BoxFrame& /*frame*/, CandidateSink& /*sink*/) const {}
  // The most boxes decode_boxes can give (one per anchor per cell; 0 for every other layer).
  virtual size_t head_boxes() const { return 0; }
  // The NMS a head asks for under AlexeyAB semantics ([yolo] nms_kind, beta_nms); the last head
  // that answers true decides. False: this layer has no say.
  virtual bool head_nms(NmsKind* /*kind*/, float* /*beta*/) const { return false; }
  // The planner's Winograd choice (conv_choice.h). Layers that can run Winograd (3x3 stride-1
  // convolutions) say so and take the chosen output tile (0: the GEMM path) and whether the whole
  // input is transformed with the weights streamed; every other layer keeps the defaults.
  virtual bool winograd_candidate() const { return false; }
  virtual void set_winograd(int tile, bool whole_input) { (void)tile, (void)whole_input; }
  // Filter panels per pass of the whole-input way (kernels::WinogradGeo::group): speed only, same bits.
  virtual void set_winograd_group(int panels) { (void)panels; }
  virtual int winograd_tile() const { return 0; }
  virtual bool winograd_streams_weights() const { return false; }
  // Under a --max-mem schedule (schedule.h): what this layer can take (weight blocks, bands),
  // written into the scheduler's node for it. The default takes neither.
  virtual void describe_schedule(SchedNode& node) const { (void)node; }
  // One band step (row_window.h), for layers whose describe_schedule offers a band.
  virtual Status forward_rows(RowStep& step) const;
  // Weights prepared once for every band step of a group that keeps them (BandGroup::resident);
  // layers without weights prepare nothing.
  virtual Status prepare_rows(LayerIO& io, PreparedRows& out) const { (void)io, (void)out; return Status::Ok(); }
  virtual Status forward(LayerIO& io) const = 0;
  // The layer whose parameters this one reads (AlexeyAB's share_index): that layer's range of the
  // weights file, not its own (then empty). -1: its own.
  virtual int params_from() const { return -1; }

  int index = 0;
  int cfg_line = 0;
  Shape in;                   // shape of the first source
  Shape out;
  std::vector<int> sources;   // indices of the layers read; -1 is the network input
  std::vector<Shape> source_shapes;
};

// What a layer factory sees while the network is being built.
struct BuildContext {
  const NetParams& net;
  const std::vector<std::unique_ptr<Layer>>& built;  // layers 0..index-1
  int index;
  Shape input;  // output of the previous layer (or the network input)
  // "file:line" of the section, for errors.
  std::string where;
};

using LayerResult = Result<std::unique_ptr<Layer>>;

// Loads a layer's whole parameter range into a tracked buffer.
Result<Buffer> load_params(LayerIO& io, size_t offset, size_t count, const char* what);

// A layer-level error message: "file:line: layer N [kind]: msg".
std::string layer_error(const BuildContext& ctx, const char* kind, const std::string& msg);

}  // namespace mdfi
