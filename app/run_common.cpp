#include "run_common.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>

#include "arena_plan.h"
#include "commands.h"
#include "conv_choice.h"
#include "net_task.h"
#include "npy.h"
#include "version.h"

namespace mdfi::app {

Result<std::vector<std::string>> load_labels(const std::string& path, size_t limit, size_t* total) {
  std::vector<std::string> labels;
  if (total) *total = 0;
  if (path.empty()) return labels;
  std::ifstream f(path);
  if (!f) return Result<std::vector<std::string>>(ErrorKind::kIo, path + ": cannot open label file");
  std::string line;
  size_t n = 0, counted = 0;
  while ((labels.size() < limit || total) && std::getline(f, line)) {
    ++n;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) counted = n;  // blank lines at the end are no names
    if (labels.size() < limit) labels.push_back(line);
  }
  if (total) *total = counted;
  labels.shrink_to_fit();
  return labels;
}

std::vector<std::string> parse_labels(std::string_view text, size_t limit, size_t* total) {
  std::vector<std::string> labels;
  size_t n = 0, counted = 0;
  for (size_t pos = 0; pos < text.size();) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    ++n;
    if (!line.empty()) counted = n;
    if (labels.size() < limit) labels.emplace_back(line);
    pos = end + 1;
  }
  if (total) *total = counted;
  return labels;
}

size_t network_classes(const Network& net) {
  for (const auto& l : net.layers)
    if (l->head_classes() > 0) return size_t(l->head_classes());
  return net.layers.empty() ? 0 : net.layers.back()->out.count();
}

PostLimits detect_post_limits(const Network& net, const Plan& plan) {
  return post_limits(post_room(plan), head_classes(net), head_boxes(net), sizeof(DetectionRecord) + kNameBytes);
}

size_t post_peak_bytes(const Plan& plan, const PostLimits& limits) {
  if (plan.layers.empty()) return 0;
  return plan_arena(plan, true).size - post_room(plan) + limits.budget_bytes;
}

bool budget_schedulable(const PreparedModel& pm, const RunArgs& args) {
  return schedules_allowed(plan_request(args, pm.budget, {}, {}));
}

PlanRequest plan_request(const RunArgs& args, size_t budget, std::vector<size_t> besides,
                         std::vector<int> default_tiles) {
  PlanRequest req;
  parse_winograd_mode(args.model.winograd, &req.winograd);  // checked when the network was built
  req.keep_weights = args.keep_weights;
  req.reference = args.reference;
  req.cpu = args.backend == "cpu";
  req.budget = budget;
  req.besides = std::move(besides);
  req.default_tiles = std::move(default_tiles);
  return req;
}

Status fit_budget(PreparedModel& pm, const RunArgs& args, std::vector<size_t> besides, const PreprocessEstimate* sole) {
  MDFI_ASSIGN_OR_RETURN(auto run, plan_run(pm.net, plan_request(args, pm.budget, std::move(besides), pm.default_tiles)));
  pm.plan = std::move(run.plan);
  pm.schedule = std::move(run.schedule);
  // The one image known beforehand did not fit beside any schedule: its refusal names what runs it.
  pm.unfitted = {};
  if (run.needs_for_largest_image && sole)
    pm.unfitted = {sole->image_w, sole->image_h, sole->decoder, run.needs_for_largest_image};
  if (pm.schedule && verbosity().verbose)
    std::fprintf(stderr, "mdfi: schedule for --max-mem %s: %s; predicted peak %s\n", format_bytes(pm.budget).c_str(),
                 describe_schedule(*pm.schedule).c_str(), format_bytes(pm.plan.peak_bytes).c_str());
  if (head_classes(pm.net) > 0) pm.post = detect_post_limits(pm.net, pm.plan);
  return Status::Ok();
}

Status fit_budget_to_first_image(PreparedModel& pm, const RunArgs& args, const ImageSource& src) {
  if (pm.planned_for_images || !budget_schedulable(pm, args)) return Status::Ok();
  pm.planned_for_images = true;
  // A path read from `--list -` or a frame: its header only, nothing decoded. What it cannot
  // tell (a missing or broken file) its own run reports.
  if (!src.bytes && src.name == "-") return Status::Ok();
  auto e = estimate_preprocess(pm.net, args, src, 0);
  if (!e.ok()) return Status::Ok();
  return fit_budget(pm, args, {e->setup_bytes}, &*e);
}

Result<PreparedModel> prepare_model(const RunArgs& args, const char* default_net, const Task* task) {
  PreparedModel pm;
  set_default_threads(args.threads);  // before anything is planned: workspaces are per thread
  MDFI_ASSIGN_OR_RETURN(auto m, resolve_model(args.model, default_net, true));
  pm.model = m;
  MDFI_ASSIGN_OR_RETURN(auto net, build_model(pm.model, args.model));
  pm.net = std::move(net);
  pm.net.concat_in_place = args.backend == "cpu";  // OpenCL's device buffers are not aliased
  if (task) MDFI_RETURN_IF_ERROR(check_task(pm.net, *task, pm.model.cfg_path));
  if (!verbosity().quiet)
    for (const auto& w : pm.net.warnings) std::fprintf(stderr, "mdfi: warning: %s\n", w.c_str());
  if (verbosity().verbose)
    std::fprintf(stderr, "mdfi: compat %s (%s); input %s; SIMD %s\n", to_string(pm.net.net.compat),
                 pm.net.net.compat_reason.c_str(), pm.net.net.letterbox ? "letterboxed" : "resized (no letterbox)",
                 args.reference ? "none (--reference kernels)" : kernel_text().c_str());
  if (!args.max_mem.empty()) {
    auto budget = parse_size(args.max_mem);
    if (!budget.ok()) return Status(budget.status().kind(), "--max-mem: " + budget.status().message());
    pm.budget = *budget;
  }
  pm.default_tiles = winograd_tiles(pm.net);  // the default schedule's Winograd layers
  // The images named on the command line: their decoders work beside the whole arena.
  std::vector<size_t> besides;
  Result<PreprocessEstimate> first(ErrorKind::kImage, "");
  for (size_t i = 0; budget_schedulable(pm, args) && i < args.images.size() && i < 64; ++i) {
    struct stat st {};
    if (::stat(args.images[i].c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    auto e = estimate_preprocess(pm.net, args, args.images[i], 0);
    if (e.ok()) besides.push_back(e->setup_bytes);
    if (e.ok() && besides.size() == 1) first = std::move(e);
  }
  pm.planned_for_images = !besides.empty();
  // A lone image (and no list) is the whole run: its refusal can name what would run it.
  const bool sole = besides.size() == 1 && args.images.size() == 1 && args.list.empty();
  MDFI_RETURN_IF_ERROR(fit_budget(pm, args, std::move(besides), sole ? &*first : nullptr));
  if (verbosity().verbose)
    std::fprintf(stderr, "mdfi: Winograd (--winograd %s) in %d of the convolutions\n", args.model.winograd.c_str(),
                 winograd_layer_count(pm.net));
  MDFI_ASSIGN_OR_RETURN(auto wf, WeightsFile::open(pm.model.weights_path));
  pm.weights = std::move(wf);
  MDFI_RETURN_IF_ERROR(pm.weights.validate(pm.net));
  const size_t classes = network_classes(pm.net);
  size_t names = 0;
  if (pm.model.labels_embedded.data() != nullptr) {
    pm.labels = parse_labels(pm.model.labels_embedded, classes, &names);
  } else {
    MDFI_ASSIGN_OR_RETURN(auto labels, load_labels(pm.model.labels_path, classes, &names));
    pm.labels = std::move(labels);
  }
  if (verbosity().verbose && !pm.model.labels_path.empty())
    std::fprintf(stderr, "mdfi: labels %s (%s)\n", pm.model.labels_path.c_str(), pm.model.labels_origin.c_str());
  if (!verbosity().quiet) {
    // Once per run: a names list for another network shifts or drops names silently otherwise.
    // A longer list is expected when a .data file says the network uses its first `classes`
    // names (Darknet's imagenet1k.data with the 21,842-line shortnames list).
    const bool prefix_declared = pm.model.data_classes > 0 && size_t(pm.model.data_classes) == classes;
    if (!pm.model.labels_path.empty() && (names < classes || (names > classes && !prefix_declared)))
      std::fprintf(stderr, "mdfi: warning: %s has %zu names, the network has %zu classes%s\n",
                   pm.model.labels_path.c_str(), names, classes,
                   names < classes ? "; the others print as 'class N'" : "; the first ones are used");
    if (pm.model.data_classes > 0 && size_t(pm.model.data_classes) != classes)
      std::fprintf(stderr, "mdfi: warning: %s says classes=%d, the network has %zu classes\n",
                   args.model.data.c_str(), pm.model.data_classes, classes);
  }
  if (!args.device.empty() && args.backend != "opencl") return Status(ErrorKind::kUsage, "--device needs --backend opencl");
  if (args.keep_weights && args.backend == "cpu") pm.resident = std::make_shared<ResidentWeights>();
  if (args.backend == "opencl") {
    cl::BackendOptions o;
    o.device = args.device;
    o.keep_weights = args.keep_weights;
    auto be = cl::Backend::open(o);
    if (!be.ok()) return Status(ErrorKind::kUnsupported, "--backend opencl: " + be.status().message());
    pm.device = std::move(*be);
    if (verbosity().verbose) {
      std::fprintf(stderr, "mdfi: OpenCL device %s / %s\n", pm.device->device().platform.c_str(),
                   pm.device->device().name.c_str());
      // What will not run on the device: each of these copies its inputs to the host and back.
      const std::vector<int> host = cl::Backend::host_layers(pm.net);
      std::fprintf(stderr, "mdfi: OpenCL: %zu of %zu layers have no device kernel and run on the CPU%s", host.size(),
                   pm.net.layers.size(), host.empty() ? "\n" : ":");
      for (size_t k = 0; k < host.size(); ++k)
        std::fprintf(stderr, " %d [%s]%s", host[k], pm.net.layers[size_t(host[k])]->kind(),
                     k + 1 < host.size() ? "," : "\n");
    }
  }
  return pm;
}

static std::string stem_of(const std::string& path) {
  std::string base = path.substr(path.find_last_of('/') + 1);
  return base.substr(0, base.find_last_of('.'));
}

DecodeOptions decode_options(const RunArgs& args) {
  DecodeOptions o;
  o.jpeg = args.decoder == "stb" ? JpegDecoder::kStb : JpegDecoder::kLibjpeg;
  o.fast = args.fast_decode;
  o.exif_rotate = args.exif_rotate;
  o.max_pixels = args.max_pixels;
  return o;
}

namespace {

// An open stream over the image's bytes, closed on destruction. Regular files are read in
// place; anything else (a pipe, a FIFO, /dev/stdin on a pipe, "-") cannot seek back to the
// header, so its bytes are read into memory first, counted.
struct OpenedImage {
  std::FILE* fp = nullptr;
  std::vector<uint8_t> held;
  size_t counted = 0;
  MemoryTracker* mem = nullptr;
  ~OpenedImage() {
    if (fp) std::fclose(fp);
    if (mem) mem->unaccount(counted, MemCategory::kOther);
  }
};

// Everything left in `f` (a pipe, a FIFO, stdin): what cannot be read twice.
std::vector<uint8_t> read_all(std::FILE* f) {
  std::vector<uint8_t> bytes;
  uint8_t buf[65536];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) bytes.insert(bytes.end(), buf, buf + n);
  return bytes;
}

Status open_image(const ImageSource& src, MemoryTracker& mem, OpenedImage& o) {
  const std::vector<uint8_t>* bytes = src.bytes;
  bool count = src.count_bytes;  // bytes read for this image alone: its run holds them
  if (!bytes) {
    const bool stdin_dash = src.name == "-";
    std::FILE* f = stdin_dash ? stdin : std::fopen(src.name.c_str(), "rb");
    if (!f) return Status(ErrorKind::kImage, src.name + ": cannot open image (" + std::strerror(errno) + ")");
    struct stat st {};
    const bool have = ::fstat(::fileno(f), &st) == 0;
    if (have && S_ISDIR(st.st_mode)) {
      std::fclose(f);
      return Status(ErrorKind::kImage, src.name + ": is a directory, not an image");
    }
    if (have && S_ISREG(st.st_mode) && !stdin_dash) {
      o.fp = f;
      return Status::Ok();
    }
    // Not seekable (or stdin, which stays open): read it whole.
    o.held = read_all(f);
    if (!stdin_dash) std::fclose(f);
    bytes = &o.held;
    count = true;
  }
  if (count) {
    if (!mem.account(bytes->size(), MemCategory::kOther))
      return Status(ErrorKind::kOutOfMemory, src.name + ": out of memory reading the image");
    o.mem = &mem;
    o.counted = bytes->size();
  }
  if (bytes->empty()) return Status(ErrorKind::kImage, src.name + ": empty input, not an image");
  o.fp = ::fmemopen(const_cast<uint8_t*>(bytes->data()), bytes->size(), "rb");
  if (!o.fp) return Status(ErrorKind::kOutOfMemory, src.name + ": cannot open the image bytes");
  return Status::Ok();
}

}  // namespace

std::shared_ptr<const std::vector<uint8_t>> read_unseekable(const std::string& name) {
  const bool stdin_dash = name == "-";
  struct stat st {};
  if (!stdin_dash && (::stat(name.c_str(), &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))) return nullptr;
  std::FILE* f = stdin_dash ? stdin : std::fopen(name.c_str(), "rb");
  if (!f) return nullptr;
  auto bytes = std::make_shared<std::vector<uint8_t>>(read_all(f));
  if (!stdin_dash) std::fclose(f);
  return bytes;
}

namespace {

NetworkInputSpec input_spec(const Network& net) {
  NetworkInputSpec s;
  s.w = net.net.w;
  s.h = net.net.h;
  s.c = net.net.c;
  s.letterbox = net.net.letterbox;
  return s;
}

}  // namespace

// The heap while an image is decoded: without an arena, the decoder, resizer and network input
// (and an image read from a pipe); with one, the arena is allocated whole as soon as the input
// is asked for, and the resizer rows fit in its free part, so the heap is the arena plus what
// the decoder holds outside it.
size_t preprocess_heap(const ImageInput& in, size_t held_bytes, size_t arena_bytes) {
  if (!arena_bytes) return in.peak_bytes() + held_bytes;
  return std::max(in.peak_bytes(), arena_bytes + in.decoder_bytes()) + held_bytes;
}

Result<PreprocessEstimate> estimate_preprocess(const Network& net, const RunArgs& args, const std::string& path,
                                               size_t arena_bytes) {
  return estimate_preprocess(net, args, ImageSource{path, nullptr}, arena_bytes);
}

Result<PreprocessEstimate> estimate_preprocess(const Network& net, const RunArgs& args, const ImageSource& src,
                                               size_t arena_bytes) {
  const std::string& path = src.name;
  MemoryTracker mem;
  OpenedImage o;
  MDFI_RETURN_IF_ERROR(open_image(src, mem, o));
  MDFI_ASSIGN_OR_RETURN(auto in, ImageInput::open(ImageBytes{path, o.fp}, input_spec(net), decode_options(args), mem));
  PreprocessEstimate e;
  e.image_w = in.image_width();
  e.image_h = in.image_height();
  e.decoded_w = in.decoded_width();
  e.decoded_h = in.decoded_height();
  e.decoder = in.decoder_name();
  e.setup_bytes = in.setup_bytes() + o.counted;
  e.coefficient_bytes = in.coefficient_bytes();
  e.peak_bytes = preprocess_heap(in, o.counted, arena_bytes);
  return e;
}

// "--max-mem X runs it; " where the budget was planned without room for this very image (the
// network's schedule alone, then this image refused): the figure `mdfi plan --max-mem 1B IMAGE`
// gives, not what it needs beside that schedule.
static std::string smallest_for(const PreparedModel::UnfittedImage& u, const ImageInput& in) {
  if (!u.smallest || u.w != in.image_width() || u.h != in.image_height() || u.decoder != in.decoder_name()) return "";
  return "--max-mem " + format_bytes(u.smallest) + " (" + std::to_string(u.smallest) + " bytes) runs it; ";
}

Result<ImageRun> run_image(PreparedModel& pm, const RunArgs& args, const ImageSource& src, MemoryTracker& mem,
                           size_t image_index) {
  ImageRun run;
  run.mem = &mem;
  const std::string& path = src.name;
  const auto t0 = std::chrono::steady_clock::now();
  mem.set_phase(-1);
  Buffer input;
  {
    OpenedImage opened;
    MDFI_RETURN_IF_ERROR(open_image(src, mem, opened));
    DecodeOptions decode = decode_options(args);
    if (pm.budget) {  // what the decoder may hold beside the arena (or the input) and the held bytes
      const size_t beside = std::max(mem.arena_capacity(), pm.net.input_shape().bytes()) + opened.counted;
      decode.max_working_bytes = pm.budget > beside ? pm.budget - beside : 1;
    }
    MDFI_ASSIGN_OR_RETURN(auto in, ImageInput::open(ImageBytes{path, opened.fp}, input_spec(pm.net), decode, mem));
    run.img_w = in.image_width();
    run.img_h = in.image_height();
    run.decoder = in.decoder_name();
    run.preprocess_peak = preprocess_heap(in, opened.counted, mem.arena_capacity());
    if (pm.budget && run.preprocess_peak > pm.budget) {
      // In bytes as well where the rounded figures would read the same ("needs 3.8 MB, over 3.8 MB").
      const bool same = format_bytes(run.preprocess_peak) == format_bytes(pm.budget);
      // --fast-decode is suggested only where it shrinks the decoder: a JPEG decoded by rows at
      // full scale. A progressive JPEG's coefficient buffer is the whole image's at any scale.
      std::string why = smallest_for(pm.unfitted, in);
      if (in.coefficient_bytes())
        why += "--fast-decode does not help: this progressive JPEG holds its whole DCT coefficient buffer, " +
               format_bytes(in.coefficient_bytes());
      else if (std::string(in.decoder_name()) == "libjpeg-turbo" && !args.fast_decode)
        why += "try --fast-decode";
      else if (!why.empty())
        why.resize(why.size() - 2);  // smallest_for's "; "
      return Result<ImageRun>(ErrorKind::kBudget,
                              path + ": decoding and letterboxing this " + std::to_string(run.img_w) + "x" +
                                  std::to_string(run.img_h) + " image needs " + format_bytes(run.preprocess_peak) +
                                  (same ? " (" + std::to_string(run.preprocess_peak) + " bytes)" : "") + " (" +
                                  in.decoder_name() + "), over --max-mem " + format_bytes(pm.budget) +
                                  (same ? " (" + std::to_string(pm.budget) + " bytes)" : "") +
                                  "; refused before decoding" + (why.empty() ? "" : " (" + why + ")"));
    }
    // The letterboxed (or, under AlexeyAB without letter_box=1, resized) image is the network
    // input itself (no copy).
    MDFI_ASSIGN_OR_RETURN(auto boxed, in.decode(MemCategory::kActivations));
    run.warnings = in.warnings();
    mem.raise_peak(run.preprocess_peak);
    input = std::move(boxed);
  }
  std::string dump;
  if (!args.dump_dir.empty()) {
    dump = args.dump_dir;
    if (args.per_image_dumps) dump += "/" + std::to_string(image_index) + "_" + stem_of(path);
    ::mkdir(args.dump_dir.c_str(), 0755);
    ::mkdir(dump.c_str(), 0755);
    const Shape s = pm.net.input_shape();
    MDFI_RETURN_IF_ERROR(write_npy(dump + "/input.npy", input.data(), {size_t(s.c), size_t(s.h), size_t(s.w)}));
  }
  RunHooks hooks;
  if (!dump.empty())
    hooks.on_output = [&dump](const Layer& l, const float* out) {
      char name[32];
      std::snprintf(name, sizeof name, "/%03d.npy", l.index);
      return write_npy(dump + name, out, {size_t(l.out.c), size_t(l.out.h), size_t(l.out.w)});
    };
  hooks.on_layer = [&run](const LayerRunStats& s) { run.stats.push_back(s); };
  ExecOptions exec;
  exec.reference = args.reference;
  exec.prefetch = !args.no_prefetch && !(pm.resident && pm.resident->tracker().peak() > 0);
  exec.resident = pm.resident.get();
  exec.schedule = pm.schedule.get();
  exec.threads = args.threads > 0 ? args.threads : default_threads();
  exec.heads_only_decoded = true;  // a hook that sees every output (--dump-layers) turns it off
  const auto t_forward = std::chrono::steady_clock::now();
  MDFI_ASSIGN_OR_RETURN(auto out, pm.device ? pm.device->run(pm.net, pm.plan, pm.weights, std::move(input), mem, hooks) : run_network(pm.net, pm.plan, pm.weights, std::move(input), mem, hooks, exec));
  const auto t_end = std::chrono::steady_clock::now();
  run.forward_ms = std::chrono::duration<double, std::milli>(t_end - t_forward).count();
  if (pm.device) run.device_mem = pm.device->device_memory();
  run.out = std::move(out);
  // Device time per layer from the backend's event profiling, when it measured it.
  for (LayerRunStats& s : run.stats)
    if (size_t(s.index) < run.out.device_ms.size()) s.device_ms = run.out.device_ms[size_t(s.index)];
  run.ms = std::chrono::duration<double, std::milli>(t_end - t0).count();
  return run;
}

size_t peak_rss_bytes() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmHWM:", 0) == 0) return size_t(std::stoull(line.substr(6))) * 1024;
  return 0;
}

// What `mdfi plan CFG IMAGE` predicts for this image: the network, its preprocessing and, for a
// detector, post-processing at its limits.
static size_t predicted_peak(const PreparedModel& pm, const ImageRun& run) {
  const size_t post = pm.post.budget_bytes ? post_peak_bytes(pm.plan, pm.post) : 0;
  return std::max({pm.plan.peak_bytes, run.preprocess_peak, post});
}

void print_mem_report(std::FILE* out, const PreparedModel& pm, const ImageRun& run, const MemoryTracker& mem) {
  std::fprintf(out, "layer     type      weights   workspace  activations  heap peak  heap after  freed\n");
  for (const LayerRunStats& s : run.stats) {
    std::string freed;
    for (int b : s.freed) freed += (freed.empty() ? "" : ",") + (b < 0 ? std::string("in") : std::to_string(b));
    // Under a --max-mem schedule: what it did to this layer.
    std::string sched;
    if (pm.schedule) {
      if (const BandGroup* g = pm.schedule->group_of(s.index))
        sched = s.index < g->last ? "  (rows only, in group " + std::to_string(g->first) + "-" + std::to_string(g->last) + ")"
                                  : "  (group " + std::to_string(g->first) + "-" + std::to_string(g->last) + " in bands of " +
                                        std::to_string(g->band_rows) + " rows)";
      if (size_t(s.index) < pm.schedule->block.size() && pm.schedule->block[size_t(s.index)])
        sched += "  (weights in blocks of " + std::to_string(pm.schedule->block[size_t(s.index)]) + ")";
      if (pm.schedule->algo_of(s.index) != SchedAlgo::kGemm)
        sched += "  (Winograd F(" + std::to_string(pm.net.layers[size_t(s.index)]->winograd_tile()) + "x" +
                 std::to_string(pm.net.layers[size_t(s.index)]->winograd_tile()) + ",3x3))";
    }
    std::fprintf(out, "%5d %8s %11s %11s %12s %10s %11s  %s%s\n", s.index, pm.net.layers[size_t(s.index)]->kind(),
                 format_bytes(s.weight_bytes).c_str(), format_bytes(s.workspace_bytes).c_str(),
                 format_bytes(s.activation_bytes).c_str(), format_bytes(s.heap_peak).c_str(),
                 format_bytes(s.heap_after).c_str(), freed.c_str(), sched.c_str());
  }
  if (pm.schedule) std::fprintf(out, "schedule (--max-mem): %s\n", describe_schedule(*pm.schedule).c_str());
  const MemSnapshot& p = mem.at_peak();
  std::fprintf(out,
               "peak tracked heap: %s at %s (weights %s, activations %s, workspace %s, other %s); predicted %s; "
               "peak RSS (VmHWM) %s\n",
               format_bytes(mem.peak()).c_str(),
               mem.peak_phase() < 0 ? "image preprocessing" : ("layer " + std::to_string(mem.peak_phase())).c_str(),
               format_bytes(p.of(MemCategory::kWeights)).c_str(), format_bytes(p.of(MemCategory::kActivations)).c_str(),
               format_bytes(p.of(MemCategory::kWorkspace)).c_str(), format_bytes(p.of(MemCategory::kOther)).c_str(),
               format_bytes(predicted_peak(pm, run)).c_str(), format_bytes(peak_rss_bytes()).c_str());
  if (pm.device)  // with --backend opencl the per-layer weights/workspace/activations columns are device bytes
    std::fprintf(out, "peak device memory: %s at %s on %s\n", format_bytes(run.device_mem.peak).c_str(),
                 run.device_mem.peak_layer < 0 ? "the input upload" : ("layer " + std::to_string(run.device_mem.peak_layer)).c_str(),
                 pm.device->device().name.c_str());
}

Status write_mem_report_json(const std::string& path, const PreparedModel& pm, const ImageRun& run,
                             const MemoryTracker& mem) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return Status(ErrorKind::kIo, path + ": cannot create the memory report");
  std::fprintf(f, "{\"layers\": [");
  for (size_t i = 0; i < run.stats.size(); ++i) {
    const LayerRunStats& s = run.stats[i];
    std::fprintf(f, "%s\n  {\"layer\": %d, \"type\": \"%s\", \"weight_bytes\": %zu, \"workspace_bytes\": %zu, "
                 "\"activation_bytes\": %zu, \"heap_peak\": %zu, \"heap_after\": %zu, \"predicted_peak\": %zu, \"freed\": [",
                 i ? "," : "", s.index, pm.net.layers[size_t(s.index)]->kind(), s.weight_bytes, s.workspace_bytes,
                 s.activation_bytes, s.heap_peak, s.heap_after, pm.plan.layers[size_t(s.index)].peak_bytes);
    for (size_t k = 0; k < s.freed.size(); ++k) std::fprintf(f, "%s%d", k ? ", " : "", s.freed[k]);
    std::fprintf(f, "]}");
  }
  const MemSnapshot& p = mem.at_peak();
  std::fprintf(f,
               "\n],\n\"peak_bytes\": %zu, \"peak_layer\": %d, \"peak_weights\": %zu, \"peak_activations\": %zu, "
               "\"peak_workspace\": %zu, \"peak_other\": %zu, \"predicted_peak_bytes\": %zu, \"predicted_peak_layer\": %d, "
               "\"peak_rss_bytes\": %zu, \"device_peak_bytes\": %llu, \"device_peak_layer\": %d}\n",
               mem.peak(), mem.peak_phase(), p.of(MemCategory::kWeights), p.of(MemCategory::kActivations),
               p.of(MemCategory::kWorkspace), p.of(MemCategory::kOther), predicted_peak(pm, run),
               run.preprocess_peak > pm.plan.peak_bytes ? -1 : pm.plan.peak_layer,
               peak_rss_bytes(), static_cast<unsigned long long>(run.device_mem.peak), run.device_mem.peak_layer);
  if (std::fclose(f) != 0) return Status(ErrorKind::kIo, path + ": write failed");
  return Status::Ok();
}

}  // namespace mdfi::app
