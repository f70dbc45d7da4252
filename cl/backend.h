// The OpenCL backend's public face, free of OpenCL headers so the CLI and tests compile the same
// way with MDFI_OPENCL on or off. With it off (stub.cpp) every entry point returns a Status
// saying so; with it on, Backend runs a network through the engine's own plan walk
// (engine/executor.h run_plan) with activations kept on the device.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "executor.h"

namespace mdfi::cl {

// false when mdfi was built with MDFI_OPENCL=OFF.
bool compiled_in();

struct DeviceSummary {
  int index = 0;             // position in the flat list that --device N refers to
  std::string platform;      // platform name
  std::string name;          // device name
  std::string type;          // "GPU", "CPU", "accelerator", ...
  std::string version;       // CL_DEVICE_VERSION, e.g. "OpenCL 3.0 CUDA"
  std::string driver;        // CL_DRIVER_VERSION
  unsigned compute_units = 0;
  uint64_t global_mem = 0;   // bytes
  uint64_t local_mem = 0;    // bytes
  uint64_t max_alloc = 0;    // bytes, largest single buffer
};

// Every device of every platform. An error when the loader finds no platform at all.
Result<std::vector<DeviceSummary>> list_devices();

struct BackendOptions {
  // "" = the first GPU (else the first device); a number = index into list_devices(); anything
  // else = a case-insensitive substring of "platform name / device name".
  std::string device;
  // Keep each layer's prepared weights on the device after the first run (batch mode); off,
  // every run streams each layer's weights from the file and frees them after the layer.
  bool keep_weights = false;
  // Time SGEMM tile configurations per shape on GPUs (cached on disk); off = a fixed heuristic.
  bool autotune = true;
  // Threads that read a large layer's parameter range from the file in parallel chunks (each
  // through its own WeightsFile handle); 0 = up to 16, as many as there are cores.
  int read_threads = 0;
  // Staging slots (pinned host buffer + device buffer, each the size of the largest streamed
  // layer) that rotate: how many layers the reads may run ahead of the walk.
  int staging_slots = 3;
};

// Where the time of the last run went, from the host clock (reads) and the devices' event
// profiling (uploads on the upload queue, kernels and copies on the compute queue). Uploads and
// reads overlap the kernels, so the parts add up to more than the run's wall time.
struct RunTiming {
  double read_ms = 0;     // host: reading (and checking) the streamed weights from the file (wall
                          // time of the reader, all read threads together)
  double upload_ms = 0;   // device: copying them from the pinned staging buffers
  double compute_ms = 0;  // device: every kernel and on-device copy
  double wait_ms = 0;     // host: the walk waiting for a layer's weights to be read and queued
  double prep_ms = 0;     // host: queueing the weight preparation (and any wait that implies)
  double queue_ms = 0;    // host: every layer's whole turn on the host (reads included)
  int host_layers = 0;    // layers without a device kernel, run through the CPU reference
};

// Device memory seen by the backend's accounting (every cl_mem it creates).
struct DeviceMemStats {
  uint64_t peak = 0;
  int peak_layer = -1;       // layer running at the peak (-1 = before the first layer)
  uint64_t current = 0;
};

class Backend {
 public:
  static Result<std::unique_ptr<Backend>> open(const BackendOptions& opts);
  ~Backend();
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;

  const DeviceSummary& device() const;

  // The same contract as mdfi::run_network (it is the same walk): kept outputs come back as host
  // Buffers from `mem`, hooks see each layer's output (read back from the device only when a
  // hook wants it). In the LayerRunStats, weight/workspace/activation bytes are device bytes
  // and heap figures are the host's; ms is the host time to queue the layer, on_host marks the
  // layers run through the CPU reference; RunOutput::device_ms has each layer's device time.
  Result<RunOutput> run(const Network& net, const Plan& plan, WeightsFile& weights, Buffer input, MemoryTracker& mem,
                        const RunHooks& hooks = {});
  // Device memory for the last run (peak restarts with each run).
  DeviceMemStats device_memory() const;
  RunTiming last_timing() const;

  // The layers of `net` that have no device kernel and run through the CPU reference (layers
  // that alias their input need none and are not listed).
  static std::vector<int> host_layers(const Network& net);

  // One layer on the device from host inputs (tests compare it with the CPU reference layer).
  Result<std::vector<float>> forward_layer(const Layer& layer, const std::vector<const float*>& inputs,
                                           ParamSource& params);
  // C[M x N] = A[M x K] * B[K x N], row-major host arrays, through the tiled SGEMM.
  Status gemm(int M, int N, int K, const float* A, const float* B, float* C);

  struct Impl;

 private:
  explicit Backend(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace mdfi::cl
