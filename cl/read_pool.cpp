#include "read_pool.h"

#include <algorithm>

namespace mdfi::cl {

ReadPool::ReadPool(int threads) : threads_(std::max(1, threads)), results_(size_t(threads_)) {
  for (int t = 1; t < threads_; ++t) pool_.emplace_back([this, t] { worker(t); });
}

ReadPool::~ReadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  for (auto& th : pool_) th.join();
}

Status ReadPool::read_part(WeightsFile& file, int part) {
  const size_t off = size_t(part) * job_.chunk, n = std::min(job_.chunk, job_.count - off);
  return LayerParams(file, *job_.layer, job_.begin).read(off, job_.dst + off, n);
}

void ReadPool::worker(int id) {
  unsigned seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
    }
    Status st = id < job_.parts ? read_part(files_[size_t(id)], id) : Status::Ok();
    std::lock_guard<std::mutex> lock(mu_);
    results_[size_t(id)] = st;
    if (--pending_ == 0) done_.notify_one();
  }
}

Status ReadPool::read(WeightsFile& weights, const Layer& layer, size_t begin, float* dst, size_t count) {
  const size_t chunk = std::max<size_t>(size_t(1) << 18, (count + size_t(threads_) - 1) / size_t(threads_));
  const int parts = int((count + chunk - 1) / chunk);
  if (parts <= 1) return LayerParams(weights, layer, begin).read(0, dst, count);
  if (path_ != weights.path()) {
    files_.clear();
    files_.resize(size_t(threads_));
    for (int t = 1; t < threads_; ++t) {
      MDFI_ASSIGN_OR_RETURN(auto f, WeightsFile::open(weights.path()));
      files_[size_t(t)] = std::move(f);
    }
    path_ = weights.path();
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    job_ = Job{&layer, begin, count, chunk, dst, parts};
    pending_ = threads_ - 1;
    ++generation_;
  }
  wake_.notify_all();
  Status mine = read_part(weights, 0);
  std::unique_lock<std::mutex> lock(mu_);
  done_.wait(lock, [&] { return pending_ == 0; });
  MDFI_RETURN_IF_ERROR(mine);
  for (int t = 1; t < threads_; ++t) MDFI_RETURN_IF_ERROR(results_[size_t(t)]);
  return Status::Ok();
}

}  // namespace mdfi::cl
