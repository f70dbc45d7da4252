#include "prefetcher.h"

#include <algorithm>

namespace mdfi {

Prefetcher::Prefetcher(const WeightsFile& file, size_t end_floats) : file_(file), end_bytes_(end_floats * 4) {
  thread_ = std::thread([this] { loop(); });
}

Prefetcher::~Prefetcher() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Prefetcher::consumer_at(size_t offset_floats) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    consumer_bytes_ = std::max(consumer_bytes_, offset_floats * 4);
  }
  cv_.notify_all();
}

void Prefetcher::loop() {
  size_t pos = 0;
  while (pos < end_bytes_) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stop_ || pos < consumer_bytes_ + kWindowBytes; });
      if (stop_) return;
      pos = std::max(pos, consumer_bytes_);  // never re-read what the executor already has
    }
    const size_t n = std::min(kStepBytes, end_bytes_ - pos);
    // Errors are the executor's to report when it reads the same range: a read-ahead just stops.
    if (!file_.read_ahead(pos, n)) return;
    pos += n;
  }
}

}  // namespace mdfi
