#include "executor.h"

#include <algorithm>
#include <chrono>
#include <memory>

#include "prefetcher.h"

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace mdfi {

int default_threads() {
#if defined(_OPENMP)
  return omp_get_max_threads();
#else
  return 1;
#endif
}

const float* RunOutput::output_of(const Network& net, int layer) const {
  while (layer >= 0 && net.layers[layer]->aliases_input()) layer = net.layers[layer]->sources[0];
  auto it = kept.find(layer);
  return it == kept.end() ? nullptr : it->second.data();
}

void RunOutput::relocate(const Arena::Move& move) {
  if (move.by == 0) return;
  const uintptr_t lo = reinterpret_cast<uintptr_t>(move.from), hi = lo + move.bytes;
  for (auto& kv : kept) {
    const uintptr_t p = reinterpret_cast<uintptr_t>(kv.second.data());
    if (p >= lo && p < hi) kv.second.moved_by(move.by);
  }
}

Result<RunOutput> run_network(const Network& net, const Plan& plan, WeightsFile& weights, Buffer input,
                              MemoryTracker& mem, const RunHooks& hooks, const ExecOptions& exec) {
  const int n = int(net.layers.size());
  if (input.size() != net.input_shape().count())
    return Result<RunOutput>(ErrorKind::kInternal, "input tensor does not match the network input");
  const std::vector<size_t> offsets = layer_param_offsets(net);
  // buffers[id + 1]: id -1 is the network input.
  std::vector<Buffer> buffers(size_t(n) + 1);
  buffers[0] = std::move(input);
  size_t live_activations = plan.input_bytes;
  // Read-ahead of the weights on a background thread (prefetcher.h); no heap.
  std::unique_ptr<Prefetcher> prefetch;
  if (exec.prefetch && offsets.back() > 0) prefetch = std::make_unique<Prefetcher>(weights, offsets.back());

  for (int i = 0; i < n; ++i) {
    const Layer& layer = *net.layers[i];
    const LayerPlan& lp = plan.layers[i];
    const auto t0 = std::chrono::steady_clock::now();
    mem.set_phase(i);
    if (lp.buffer == i) {
      auto out = Buffer::make(mem, layer.out.count(), MemCategory::kActivations, "a layer output");
      if (!out.ok())
        return Status(ErrorKind::kOutOfMemory, "layer " + std::to_string(i) + " [" + layer.kind() + "]: " + out.status().message());
      buffers[size_t(i) + 1] = std::move(*out);
      live_activations += layer.out.bytes();
    }
    LayerIO io;
    for (int s : layer.sources) {
      const int b = s < 0 ? -1 : plan.layers[s].buffer;
      io.inputs.push_back(buffers[size_t(b) + 1].data());
    }
    io.output = buffers[size_t(lp.buffer) + 1].data();
    if (prefetch) prefetch->consumer_at(offsets[size_t(i)]);
    LayerParams params(weights, layer, offsets[i]);
    io.params = &params;
    io.mem = &mem;
    io.exec = &exec;
    Status st = layer.forward(io);
    if (!st.ok()) {
      if (st.kind() == ErrorKind::kOutOfMemory)
        return Status(st.kind(), "layer " + std::to_string(i) + " [" + layer.kind() + "]: " + st.message());
      return st;
    }
    if (hooks.on_output) MDFI_RETURN_IF_ERROR(hooks.on_output(layer, io.output));

    LayerRunStats stats;
    stats.index = i;
    stats.weight_bytes = mem.phase_category_peak(MemCategory::kWeights);
    stats.workspace_bytes = mem.phase_category_peak(MemCategory::kWorkspace);
    stats.heap_peak = mem.phase_peak();
    for (int b : lp.frees) {
      Buffer& buf = buffers[size_t(b) + 1];
      live_activations -= buf.bytes();
      buf.reset();
      stats.freed.push_back(b);
    }
    stats.activation_bytes = live_activations;
    stats.heap_after = mem.current().total();
    stats.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (hooks.on_layer) hooks.on_layer(stats);
  }
  mem.set_phase(n);
  RunOutput out;
  for (int b = 0; b < n; ++b)
    if (!buffers[size_t(b) + 1].empty()) out.kept.emplace(b, std::move(buffers[size_t(b) + 1]));
  return out;
}

}  // namespace mdfi
