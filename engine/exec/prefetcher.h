// Reads the weights file ahead of the executor on one background thread, so a cold file (an SD
// card on a Pi) streams into the page cache while layers compute. The thread asks the kernel
// for 1 MiB at a time (readahead(2), which waits for the data: the thread paces itself with the
// disk, not the executor) and stays at most kWindowBytes ahead of the layer that is running, so
// it never evicts what the next layers need. No heap: the data lands in the page cache, where
// the layer's own pread finds it. The same hint from the executor's thread (posix_fadvise
// WILLNEED, tried first) measured no gain, because submitting the reads blocks the caller.
// With a warm cache the thread finds everything present and costs nothing. --no-prefetch turns
// it off.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <thread>

#include "weights.h"

namespace mdfi {

class Prefetcher {
 public:
  static constexpr size_t kStepBytes = size_t(1) << 20;
  static constexpr size_t kWindowBytes = size_t(64) << 20;

  // Reads parameters [0, end_floats) of `file` ahead.
  Prefetcher(const WeightsFile& file, size_t end_floats);
  ~Prefetcher();  // stops and joins the thread
  Prefetcher(const Prefetcher&) = delete;
  Prefetcher& operator=(const Prefetcher&) = delete;

  // The executor is now reading from this parameter offset (floats).
  void consumer_at(size_t offset_floats);

 private:
  void loop();

  const WeightsFile& file_;
  const size_t end_bytes_;
  std::mutex mu_;
  std::condition_variable cv_;
  size_t consumer_bytes_ = 0;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace mdfi
