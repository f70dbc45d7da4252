// Threads that read one layer's parameter range from the weights file in parallel chunks, each
// through a WeightsFile handle of its own (pread: no shared file position). Streamed OpenCL
// inference is bound by reading the whole weights file from the page cache every image (248 MB
// for YOLOv3), which one thread cannot copy and check fast enough. The threads start once per
// backend and wait between layers: a fresh thread per chunk per layer cost ~20 us each time.
#pragma once

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "weights.h"

namespace mdfi::cl {

class ReadPool {
 public:
  // `threads` readers in all (the caller's thread is one of them); at least 1.
  explicit ReadPool(int threads);
  ~ReadPool();
  ReadPool(const ReadPool&) = delete;
  ReadPool& operator=(const ReadPool&) = delete;

  int threads() const { return threads_; }
  // `count` floats of `layer`'s parameters from float `begin` of the file (the layer's own
  // offset) into dst. Chunks under 256 Ki floats are not split.
  Status read(WeightsFile& weights, const Layer& layer, size_t begin, float* dst, size_t count);

 private:
  struct Job {
    const Layer* layer = nullptr;
    size_t begin = 0, count = 0, chunk = 0;
    float* dst = nullptr;
    int parts = 0;
  };
  Status read_part(WeightsFile& file, int part);
  void worker(int id);

  const int threads_;
  std::vector<WeightsFile> files_;  // files_[t] for reader t >= 1, opened on the first split read
  std::string path_;
  std::vector<std::thread> pool_;
  std::mutex mu_;
  std::condition_variable wake_, done_;
  Job job_;
  unsigned generation_ = 0;
  int pending_ = 0;
  bool stop_ = false;
  std::vector<Status> results_;
};

}  // namespace mdfi::cl
