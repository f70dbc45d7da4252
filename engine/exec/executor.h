// Runs a network layer by layer as the Plan says: allocate the output, let the layer pull its
// parameters from the weights file, compute, drop the parameters, then free every activation
// whose last reader has run. Only the outputs needed after the run (detection heads, the final
// layer) survive it. run_plan is the one walk every backend shares (exec_backend.h);
// run_network is that walk on the CPU.
#pragma once

#include <functional>
#include <map>

#include "exec_backend.h"
#include "memory.h"
#include "network.h"
#include "plan.h"
#include "weights.h"

namespace mdfi {

struct LayerRunStats {
  int index = 0;
  size_t weight_bytes = 0;      // largest parameter bytes held during the layer
  size_t workspace_bytes = 0;   // largest workspace held during the layer
  size_t activation_bytes = 0;  // live activations after the layer's frees
  size_t heap_peak = 0;         // tracked heap peak during the layer
  size_t heap_after = 0;        // tracked heap after the layer
  std::vector<int> freed;       // buffers released (layer indices, -1 = input)
  double ms = 0;                // host time of the layer (queueing only, on a device backend)
  double device_ms = -1;        // device time from the backend's profiling; -1 = not measured
  bool on_host = false;         // a device backend ran this layer through the CPU reference
};

struct RunHooks {
  // Called with each layer's output before anything is freed (e.g. --dump-layers).
  std::function<Status(const Layer&, const float*)> on_output;
  std::function<void(const LayerRunStats&)> on_layer;
};

struct RunOutput {
  std::map<int, Buffer> kept;  // layer index -> output buffer, for heads and the final layer
  std::vector<char> only_decoded;  // per layer: a head run with LayerIO::only_decoded (else empty)
  std::vector<double> device_ms;  // per layer, when the backend measures device time (else empty)
  // The output of `layer` (following aliases), or nullptr when it was not kept.
  const float* output_of(const Network& net, int layer) const;
  // Re-points the kept buffers that lay in the arena block Arena::shrink_to_split() moved.
  void relocate(const Arena::Move& move);
  void relocate(const std::vector<Arena::Move>& moves) {
    for (const Arena::Move& m : moves) relocate(m);
  }
};

// The walk itself, on any backend. `prefetch` reads the weights file ahead (prefetcher.h).
Result<RunOutput> run_plan(const Network& net, const Plan& plan, WeightsFile& weights, Buffer input, MemoryTracker& mem,
                           ExecBackend& backend, const RunHooks& hooks = {}, bool prefetch = true);

Result<RunOutput> run_network(const Network& net, const Plan& plan, WeightsFile& weights, Buffer input,
                              MemoryTracker& mem, const RunHooks& hooks = {}, const ExecOptions& exec = {});

// The threads a run uses when it is not told otherwise: all hardware threads (OpenMP's view),
// or what set_default_threads gave.
int default_threads();
// Runs and plans made after this use `threads` threads (0: all hardware threads again). Plans
// size each thread's GEMM workspace (kernels::planned_threads), so `-j 1` must be set before a
// network is planned, or its budget and peak are those of all cores.
void set_default_threads(int threads);

}  // namespace mdfi
