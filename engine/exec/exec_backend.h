// The seam between the one plan walk (run_plan in executor.cpp) and what computes: a backend
// decides where each buffer lives and how a layer runs; the walk decides everything else - the
// order, which buffer each layer writes and reads, when a buffer is freed, the hooks (dumps),
// the per-layer statistics and the error context. The CPU backend (host Buffers, the layer's
// own forward) lives in executor.cpp; the OpenCL one in cl/backend.cpp. A compat or lifetime
// rule therefore lives in one place and reaches both.
#pragma once

#include <map>
#include <vector>

#include "memory.h"
#include "network.h"
#include "status.h"

namespace mdfi {

struct LayerRunStats;
struct Schedule;
struct BandGroup;
class WeightsFile;

// Buffer ids are the plan's: -1 is the network input, i is layer i's output.
class ExecBackend {
 public:
  virtual ~ExecBackend() = default;
  // Takes the network input as buffer -1. Called once, before the first layer.
  virtual Status start(Buffer input) = 0;
  // Layer `layer` is about to run (`layer` = layers.size() once all have run).
  virtual void at_layer(int layer) { (void)layer; }
  // Gives buffer `id` room for `floats` values.
  virtual Status allocate(int id, size_t floats) = 0;
  // Makes buffer `id` the `floats` values at `offset` floats into buffer `into` (a route's
  // source written in place into it, or a channel-group route's part of its source: plan.h);
  // released with `into`, not on its own.
  virtual Status alias(int id, int into, size_t offset, size_t floats) {
    (void)id, (void)into, (void)offset, (void)floats;
    return Status(ErrorKind::kUnsupported, "this backend cannot alias one buffer inside another");
  }
  // out = layer(in...); fills the stats' weight and workspace bytes. Errors come back as they
  // are: the walk adds the layer to out-of-memory messages (others name it already).
  virtual Status forward(const Layer& layer, const std::vector<int>& inputs, int output, ParamSource& params,
                         LayerRunStats& stats) = 0;
  // A memory schedule (schedule.h) the backend follows; nullptr: layer at a time.
  virtual const Schedule* schedule() const { return nullptr; }
  // Runs a banded group whose last layer writes buffer `output`; `sources` maps each layer the
  // group reads from outside to its buffer id. Only backends that return a schedule get this.
  virtual Status forward_group(const Network& net, const BandGroup& group, const std::map<int, int>& sources,
                               int output, WeightsFile& weights, const std::vector<size_t>& offsets,
                               LayerRunStats& stats) {
    (void)net, (void)group, (void)sources, (void)output, (void)weights, (void)offsets, (void)stats;
    return Status(ErrorKind::kUnsupported, "this backend cannot run banded layer groups");
  }
  // The buffer's values on the host, valid until the next call (for the hooks).
  virtual Result<const float*> host_view(int id, size_t floats) = 0;
  virtual void release(int id) = 0;
  // The buffer as a host Buffer from `mem`, for the RunOutput (the backend lets go of it).
  virtual Result<Buffer> take(int id, size_t floats, MemoryTracker& mem) = 0;
  // After the last layer: waits for the work queued. `device_ms[i]`, when the backend measures
  // them, is the time layer i's commands took on the device (left empty otherwise).
  virtual Status finish(std::vector<double>& device_ms) {
    (void)device_ms;
    return Status::Ok();
  }
};

}  // namespace mdfi
