#include "executor.h"

#include <algorithm>
#include <chrono>
#include <memory>

#include "band_exec.h"
#include "prefetcher.h"
#include "schedule.h"

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

void set_default_threads(int threads) {
#if defined(_OPENMP)
  // The OpenMP ICV is what kernels::planned_threads and every parallel region without a
  // num_threads clause read: one setting keeps the plan and the run in step. 0 restores the
  // count the process started with (all cores, or OMP_NUM_THREADS).
  static const int initial = omp_get_max_threads();
  omp_set_num_threads(threads > 0 ? threads : initial);
#else
  (void)threads;
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

namespace {

// The CPU backend: host Buffers from the run's MemoryTracker, each layer's own forward (the
// optimised kernels, or the reference loops with ExecOptions::reference).
class HostBackend : public ExecBackend {
 public:
  HostBackend(const Network& net, MemoryTracker& mem, const ExecOptions& exec, std::vector<char> only_decoded)
      : buffers_(net.layers.size() + 1), mem_(mem), exec_(exec), only_decoded_(std::move(only_decoded)) {}

  Status start(Buffer input) override {
    buffers_[0] = std::move(input);
    return Status::Ok();
  }
  Status allocate(int id, size_t floats) override {
    MDFI_ASSIGN_OR_RETURN(auto out, Buffer::make(mem_, floats, MemCategory::kActivations, "a layer output"));
    at(id) = std::move(out);
    return Status::Ok();
  }
  Status alias(int id, int into, size_t offset, size_t floats) override {
    if (offset + floats > at(into).size()) return Status(ErrorKind::kInternal, "a view outside the buffer it is part of");
    at(id) = Buffer::view(at(into).data() + offset, floats);
    return Status::Ok();
  }
  Status forward(const Layer& layer, const std::vector<int>& inputs, int output, ParamSource& params,
                 LayerRunStats& stats) override {
    LayerIO io;
    for (int b : inputs) io.inputs.push_back(at(b).data());
    io.output = at(output).data();
    io.params = &params;
    io.mem = &mem_;
    io.exec = &exec_;
    io.block = scheduled_block(&exec_, layer.index);
    io.only_decoded = !only_decoded_.empty() && only_decoded_[size_t(layer.index)];
    MDFI_RETURN_IF_ERROR(layer.forward(io));
    stats.weight_bytes = mem_.phase_category_peak(MemCategory::kWeights);
    stats.workspace_bytes = mem_.phase_category_peak(MemCategory::kWorkspace);
    return Status::Ok();
  }
  const Schedule* schedule() const override { return exec_.schedule; }
  Status forward_group(const Network& net, const BandGroup& group, const std::map<int, int>& sources, int output,
                       WeightsFile& weights, const std::vector<size_t>& offsets, LayerRunStats& stats) override {
    std::map<int, const float*> ext;
    for (const auto& kv : sources) ext[kv.first] = at(kv.second).data();
    MDFI_RETURN_IF_ERROR(run_band_group(net, *exec_.schedule, group, ext, at(output).data(), weights, offsets, mem_, exec_));
    stats.weight_bytes = mem_.phase_category_peak(MemCategory::kWeights);
    stats.workspace_bytes = mem_.phase_category_peak(MemCategory::kWorkspace);
    return Status::Ok();
  }
  Result<const float*> host_view(int id, size_t) override { return static_cast<const float*>(at(id).data()); }
  void release(int id) override { at(id).reset(); }
  Result<Buffer> take(int id, size_t, MemoryTracker&) override { return std::move(at(id)); }

 private:
  Buffer& at(int id) { return buffers_[size_t(id) + 1]; }
  std::vector<Buffer> buffers_;  // [id + 1]
  MemoryTracker& mem_;
  const ExecOptions& exec_;
  std::vector<char> only_decoded_;
};

// The heads ExecOptions::heads_only_decoded applies to: every detection head no later layer
// reads, unless a hook sees every output (--dump-layers writes them as Darknet has them).
std::vector<char> only_decoded_heads(const Network& net, const ExecOptions& exec, const RunHooks& hooks) {
  if (!exec.heads_only_decoded || hooks.on_output) return {};
  std::vector<char> only(net.layers.size(), 0);
  for (const auto& l : net.layers) only[size_t(l->index)] = l->is_output_head();
  for (const auto& l : net.layers)
    for (int s : l->sources)
      if (s >= 0) only[size_t(s)] = 0;
  return only;
}

}  // namespace

Result<RunOutput> run_plan(const Network& net, const Plan& plan, WeightsFile& weights, Buffer input, MemoryTracker& mem,
                           ExecBackend& backend, const RunHooks& hooks, bool prefetch_weights) {
  const int n = int(net.layers.size());
  if (input.size() != net.input_shape().count())
    return Result<RunOutput>(ErrorKind::kInternal, "input tensor does not match the network input");
  const std::vector<size_t> offsets = layer_param_offsets(net);
  // live[id + 1]: the buffer's size in bytes while it is allocated, 0 once freed.
  std::vector<size_t> live(size_t(n) + 1, 0);
  live[0] = input.bytes();
  size_t live_activations = plan.input_bytes;
  backend.at_layer(-1);
  MDFI_RETURN_IF_ERROR(backend.start(std::move(input)));
  // Read-ahead of the weights on a background thread (prefetcher.h); no heap.
  std::unique_ptr<Prefetcher> prefetch;
  if (prefetch_weights && offsets.back() > 0) prefetch = std::make_unique<Prefetcher>(weights, offsets.back());

  const Schedule* schedule = backend.schedule();
  for (int i = 0; i < n; ++i) {
    const Layer& layer = *net.layers[i];
    const LayerPlan& lp = plan.layers[i];
    // A banded group runs as a whole at its last layer; the others hold nothing of their own.
    const BandGroup* group = schedule ? schedule->group_of(i) : nullptr;
    if (group && i < group->last) {
      LayerRunStats stats;
      stats.index = i;
      stats.activation_bytes = live_activations;
      stats.heap_peak = stats.heap_after = mem.current().total();
      if (hooks.on_layer) hooks.on_layer(stats);
      continue;
    }
    const auto t0 = std::chrono::steady_clock::now();
    const std::string where = "layer " + std::to_string(i) + " [" + layer.kind() + "]: ";
    mem.set_phase(i);
    backend.at_layer(i);
    if (lp.alloc >= 0) {  // this layer's output, or the buffer its view chain ends in (plan.h)
      const Layer& owner = *net.layers[size_t(lp.alloc)];
      Status st = backend.allocate(lp.alloc, owner.out.count());
      if (!st.ok()) return Status(st.kind(), where + st.message());
      live[size_t(lp.alloc) + 1] = owner.out.bytes();
      live_activations += owner.out.bytes();
    }
    if (lp.view_of >= 0) MDFI_RETURN_IF_ERROR(backend.alias(i, lp.view_of, lp.view_offset, layer.out.count()));
    std::vector<int> ins;
    for (int s : layer.sources) ins.push_back(s < 0 ? -1 : plan.layers[s].buffer);
    if (prefetch) prefetch->consumer_at(offsets[size_t(i)]);
    const Layer& owner = layer.params_from() >= 0 ? *net.layers[size_t(layer.params_from())] : layer;
    LayerParams params(weights, owner, offsets[size_t(owner.index)]);
    LayerRunStats stats;
    stats.index = i;
    Status st = Status::Ok();
    if (group) {
      std::map<int, int> sources;
      for (int l = group->first; l <= group->last; ++l)
        for (int s : net.layers[size_t(l)]->sources)
          if (s < group->first) sources[s] = s < 0 ? -1 : plan.layers[size_t(s)].buffer;
      if (prefetch) prefetch->consumer_at(offsets[size_t(group->first)]);
      st = backend.forward_group(net, *group, sources, lp.buffer, weights, offsets, stats);
    } else if (!lp.in_place) {  // in place: its values are there already (its sources', its source's part)
      st = backend.forward(layer, ins, lp.buffer, params, stats);
    }
    if (!st.ok()) {
      if (st.kind() == ErrorKind::kOutOfMemory) return Status(st.kind(), where + st.message());
      return st;
    }
    if (hooks.on_output) {
      auto view = backend.host_view(lp.buffer, layer.out.count());
      if (!view.ok()) return Status(view.status().kind(), where + view.status().message());
      MDFI_RETURN_IF_ERROR(hooks.on_output(layer, *view));
    }
    stats.heap_peak = mem.phase_peak();
    for (int b : lp.frees) {
      live_activations -= live[size_t(b) + 1];
      live[size_t(b) + 1] = 0;
      backend.release(b);
      stats.freed.push_back(b);
    }
    stats.activation_bytes = live_activations;
    stats.heap_after = mem.current().total();
    stats.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (hooks.on_layer) hooks.on_layer(stats);
  }
  mem.set_phase(n);
  backend.at_layer(n);
  RunOutput out;
  for (int b = 0; b < n; ++b) {
    if (!live[size_t(b) + 1]) continue;
    MDFI_ASSIGN_OR_RETURN(auto kept, backend.take(b, net.layers[size_t(b)]->out.count(), mem));
    out.kept.emplace(b, std::move(kept));
  }
  MDFI_RETURN_IF_ERROR(backend.finish(out.device_ms));
  return out;
}

Result<RunOutput> run_network(const Network& net, const Plan& plan, WeightsFile& weights, Buffer input,
                              MemoryTracker& mem, const RunHooks& hooks, const ExecOptions& exec) {
  std::vector<char> only_decoded = only_decoded_heads(net, exec, hooks);
  HostBackend backend(net, mem, exec, only_decoded);
  MDFI_ASSIGN_OR_RETURN(auto out, run_plan(net, plan, weights, std::move(input), mem, backend, hooks, exec.prefetch));
  out.only_decoded = std::move(only_decoded);
  return out;
}

}  // namespace mdfi
