// Streams a run's convolution weights to the device ahead of the plan walk. Measured on the
// H200 (bench/sgemm/RESULTS.md): a walk that read a layer, queued its copy, then queued its
// kernels took 43 ms per YOLOv3 image although the reads took 16 ms, the copies 15 ms and the
// kernels 6.5 ms of device time; queueing the copies from the reader threads instead made the
// reads ~11 ms longer. So queueing a copy costs NVIDIA's driver host time close to the copy's
// own. Here two threads run ahead of the walk: a reader fills the staging slots through the
// ReadPool, an uploader queues each slot's copy on the upload queue; the walk only waits until a
// layer's copy is queued, then queues its preparation behind that copy's event (29.4 ms).
// Slots rotate: a slot's host side is reused once its copy is done, its device side once the
// preparation that read it is.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "read_pool.h"
#include "runtime.h"

namespace mdfi::cl {

// Retained events, released (after a wait, or not) by their owner.
struct EventList {
  std::vector<cl_event> events;
  void add(cl_event e) { events.push_back(e); }
  Status wait(const char* what);
  void reset();
  ~EventList();
};

// Pinned host memory (CL_MEM_ALLOC_HOST_PTR, mapped once) and the device buffer it is copied to.
class StagingSlot {
 public:
  ~StagingSlot() { reset(); }
  Status ensure(Runtime& rt, size_t bytes);  // grows both sides; waits for their users first
  float* host() { return static_cast<float*>(host_); }
  void reset();

  DevBuf device;
  EventList uploaded;  // the copy out of host()
  EventList consumed;  // the last kernel that read `device`

 private:
  Runtime* rt_ = nullptr;
  cl_mem buf_ = nullptr;
  void* host_ = nullptr;
  size_t bytes_ = 0;
};

class WeightStream {
 public:
  struct Job {
    const Layer* layer = nullptr;
    size_t begin = 0;  // the layer's offset in the file, in floats
  };
  // `slots` must already hold every job's parameters (ensure()d by the caller).
  WeightStream(Runtime& rt, ReadPool& pool, WeightsFile& file, std::vector<std::unique_ptr<StagingSlot>>& slots,
               std::vector<Job> jobs);
  ~WeightStream();  // stops both threads
  WeightStream(const WeightStream&) = delete;
  WeightStream& operator=(const WeightStream&) = delete;

  // Blocks until job j's copy is queued. `upload` gets its event (retained for the caller).
  Result<StagingSlot*> ready(size_t j, cl_event* upload);
  // Job j's preparation is queued; `last` is its last kernel (the slot's device side is free
  // after it).
  void consumed(size_t j, cl_event last);
  double read_ms() const { return read_ms_; }

 private:
  void read_loop();
  void upload_loop();
  StagingSlot& slot(size_t j) { return *slots_[j % slots_.size()]; }

  Runtime& rt_;
  ReadPool& pool_;
  WeightsFile& file_;
  std::vector<std::unique_ptr<StagingSlot>>& slots_;
  const std::vector<Job> jobs_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<int> state_;  // per job: 0 waiting, 1 read, 2 copy queued, -1 failed
  std::vector<Status> errors_;
  std::vector<cl_event> copies_;  // per job, retained until the destructor
  size_t released_ = 0;           // jobs whose preparation is queued
  bool stop_ = false;
  double read_ms_ = 0;
  std::thread reader_, uploader_;
};

}  // namespace mdfi::cl
