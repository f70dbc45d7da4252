// Whole-network forward time per image, mdfi's CPU path beside its OpenCL backend, in one run:
//  - cpu:      engine run_network with the optimised kernels on --threads threads;
//  - streamed: OpenCL, each layer's weights read from the file and uploaded every inference;
//  - resident: OpenCL, weights prepared on the device once and kept across the batch;
//  - streamed1: streamed, but the weights read by one thread;
//  - read:     only reading every layer's weights from the file (the floor under streamed).
// Each mode runs once to warm up (program build or cache load, SGEMM tuning, page cache),
// then --iters timed inferences on a fixed input; prints mean and best ms per image, and for the
// OpenCL modes where an inference's time went (means per inference): reading the weights (host
// clock, all read threads together as wall time), uploading them (device, upload queue) and
// computing (device, kernels) - uploads and reads overlap the kernels, so they need not add up.
//
//   mdfi_bench_forward --cfg cfg/yolov3.cfg --weights y3.weights [--modes cpu,streamed,resident]
//                      [--iters 10] [--threads N] [--device N|NAME] [--gen-weights 1]
//                      [--staging SLOTS] [--read-threads N]
// --gen-weights 1 first writes deterministic random weights to --weights (as `mdfi gen-weights`),
// for machines where the weights file cannot be carried.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "backend.h"
#include "plan.h"
#include "weights.h"

using namespace mdfi;

namespace {

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

Result<Buffer> make_input(const Network& net, MemoryTracker& mem) {
  auto in = Buffer::make(mem, net.input_shape().count(), MemCategory::kActivations, "input");
  if (!in.ok()) return in.status();
  for (size_t i = 0; i < in->size(); ++i) in->data()[i] = float((i * 2654435761u) % 1000) / 1000.f;
  return in;
}

}  // namespace

int main(int argc, char** argv) {
  std::string cfg, weights, modes = "cpu,streamed,resident", device;
  int iters = 10, threads = default_threads(), staging = 3, readers = 0;
  bool gen = false;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--cfg") cfg = v;
    else if (k == "--weights") weights = v;
    else if (k == "--modes") modes = v;
    else if (k == "--iters") iters = std::stoi(v);
    else if (k == "--threads") threads = std::stoi(v);
    else if (k == "--device") device = v;
    else if (k == "--staging") staging = std::stoi(v);
    else if (k == "--read-threads") readers = std::stoi(v);
    else if (k == "--gen-weights") gen = v == "1";
    else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      return 2;
    }
  }
  auto net = load_network_cfg(cfg, BuildOptions{});
  if (!net.ok()) return std::fprintf(stderr, "%s\n", net.status().message().c_str()), 1;
  if (gen) {
    const double t0 = now_ms();
    if (Status st = generate_weights(*net, weights, 1); !st.ok()) return std::fprintf(stderr, "%s\n", st.message().c_str()), 1;
    std::printf("generated %s in %.0f ms\n", weights.c_str(), now_ms() - t0);
  }
  auto wf = WeightsFile::open(weights);
  if (!wf.ok()) return std::fprintf(stderr, "%s\n", wf.status().message().c_str()), 1;
  if (Status st = wf->validate(*net); !st.ok()) return std::fprintf(stderr, "%s\n", st.message().c_str()), 1;
  const Plan plan = make_plan(*net);
  std::printf("network %s: %d layers, %.2f GFLOP, %.1f MB of weights\n", cfg.c_str(), int(net->layers.size()),
              net->flops() / 1e9, double(wf->file_bytes()) / 1e6);

  std::printf("\n%-10s %10s %10s  %s\n", "mode", "mean ms", "best ms", "notes");
  size_t start = 0;
  while (start < modes.size()) {
    size_t end = modes.find(',', start);
    if (end == std::string::npos) end = modes.size();
    const std::string mode = modes.substr(start, end - start);
    start = end + 1;
    std::unique_ptr<cl::Backend> be;
    std::string note;
    if (mode == "streamed" || mode == "resident" || mode == "streamed1") {
      cl::BackendOptions o;
      o.device = device;
      o.keep_weights = mode == "resident";
      o.staging_slots = staging;
      o.read_threads = mode == "streamed1" ? 1 : readers;
      const double t0 = now_ms();
      auto b = cl::Backend::open(o);
      if (!b.ok()) {
        std::printf("%-10s %s\n", mode.c_str(), b.status().message().c_str());
        continue;
      }
      be = std::move(*b);
      char buf[256];
      std::snprintf(buf, sizeof buf, "%s; open %.0f ms", be->device().name.c_str(), now_ms() - t0);
      note = buf;
    } else if (mode == "read") {
      note = "one thread, page cache";
    } else if (mode == "cpu") {
      note = std::to_string(threads) + " threads";
    } else {
      std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
      return 2;
    }
    double sum = 0, best = 1e300, warm = 0;
    cl::RunTiming parts;
    for (int it = -1; it < iters; ++it) {
      MemoryTracker mem;
      auto in = make_input(*net, mem);
      if (!in.ok()) return 1;
      const double t0 = now_ms();
      if (mode == "read") {
        const std::vector<size_t> off = layer_param_offsets(*net);
        std::vector<float> buf;
        for (const auto& l : net->layers) {
          buf.resize(std::max(buf.size(), l->param_floats()));
          LayerParams lp(*wf, *l, off[size_t(l->index)]);
          if (l->param_floats() && !lp.read(0, buf.data(), l->param_floats()).ok()) return 1;
        }
        const double ms = now_ms() - t0;
        if (it >= 0) sum += ms, best = std::min(best, ms);
        else warm = ms;
        continue;
      }
      Result<RunOutput> out = be ? be->run(*net, plan, *wf, std::move(*in), mem)
                                 : run_network(*net, plan, *wf, std::move(*in), mem, {}, ExecOptions{false, threads});
      const double ms = now_ms() - t0;
      if (!out.ok()) return std::fprintf(stderr, "%s: %s\n", mode.c_str(), out.status().message().c_str()), 1;
      if (it < 0) {
        warm = ms;
        continue;
      }
      sum += ms;
      best = std::min(best, ms);
      if (be) {
        const cl::RunTiming t = be->last_timing();
        parts.read_ms += t.read_ms / iters;
        parts.upload_ms += t.upload_ms / iters;
        parts.compute_ms += t.compute_ms / iters;
        parts.wait_ms += t.wait_ms / iters;
        parts.prep_ms += t.prep_ms / iters;
        parts.queue_ms += t.queue_ms / iters;
        parts.host_layers = t.host_layers;
      }
    }
    if (be) {
      char buf[320];
      std::snprintf(buf, sizeof buf, "; device peak %.1f MB; per inference: read %.2f ms, upload %.2f ms, compute %.2f ms; host: waits %.2f ms, prep %.2f ms, layers %.2f ms; %d layer(s) on the CPU",
                    double(be->device_memory().peak) / 1e6, parts.read_ms, parts.upload_ms, parts.compute_ms,
                    parts.wait_ms, parts.prep_ms, parts.queue_ms, parts.host_layers);
      note += buf;
    }
    std::printf("%-10s %10.2f %10.2f  %s; first run %.0f ms\n", mode.c_str(), sum / iters, best, note.c_str(), warm);
    std::fflush(stdout);
  }
  return 0;
}
