#include "weight_stream.h"

#include <chrono>

namespace mdfi::cl {

Status EventList::wait(const char* what) {
  if (events.empty()) return Status::Ok();
  const cl_int err = clWaitForEvents(cl_uint(events.size()), events.data());
  reset();
  MDFI_CL_CHECK(err, what);
  return Status::Ok();
}

void EventList::reset() {
  for (cl_event e : events) clReleaseEvent(e);
  events.clear();
}

EventList::~EventList() {
  if (!events.empty()) clWaitForEvents(cl_uint(events.size()), events.data());
  reset();
}

Status StagingSlot::ensure(Runtime& rt, size_t bytes) {
  if (bytes <= bytes_) return Status::Ok();
  MDFI_RETURN_IF_ERROR(uploaded.wait("waiting for a weights upload"));
  MDFI_RETURN_IF_ERROR(consumed.wait("waiting for a weights preparation"));
  reset();
  rt_ = &rt;
  cl_int err = CL_SUCCESS;
  buf_ = clCreateBuffer(rt.context(), CL_MEM_READ_ONLY | CL_MEM_ALLOC_HOST_PTR, bytes, nullptr, &err);
  if (err != CL_SUCCESS) return cl_error(err, "allocating a pinned staging buffer");
  host_ = clEnqueueMapBuffer(rt.upload_queue(), buf_, CL_TRUE, CL_MAP_WRITE, 0, bytes, 0, nullptr, nullptr, &err);
  if (err != CL_SUCCESS) return cl_error(err, "mapping the staging buffer");
  MDFI_ASSIGN_OR_RETURN(auto raw, rt.alloc(bytes, "raw layer parameters"));
  device = std::move(raw);
  bytes_ = bytes;
  return Status::Ok();
}

void StagingSlot::reset() {
  uploaded.reset();
  consumed.reset();
  if (buf_) {
    if (host_) clEnqueueUnmapMemObject(rt_->upload_queue(), buf_, host_, 0, nullptr, nullptr), clFinish(rt_->upload_queue());
    clReleaseMemObject(buf_);
  }
  device.reset();
  buf_ = nullptr;
  host_ = nullptr;
  bytes_ = 0;
}

WeightStream::WeightStream(Runtime& rt, ReadPool& pool, WeightsFile& file,
                           std::vector<std::unique_ptr<StagingSlot>>& slots, std::vector<Job> jobs)
    : rt_(rt), pool_(pool), file_(file), slots_(slots), jobs_(std::move(jobs)), state_(jobs_.size(), 0),
      errors_(jobs_.size()), copies_(jobs_.size(), nullptr) {
  if (jobs_.empty()) return;
  reader_ = std::thread([this] { read_loop(); });
  uploader_ = std::thread([this] { upload_loop(); });
}

WeightStream::~WeightStream() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (reader_.joinable()) reader_.join();
  if (uploader_.joinable()) uploader_.join();
  for (cl_event e : copies_)
    if (e) clWaitForEvents(1, &e), clReleaseEvent(e);
}

void WeightStream::read_loop() {
  const size_t n = slots_.size();
  for (size_t j = 0; j < jobs_.size(); ++j) {
    cl_event before = nullptr;  // the copy out of this slot by job j - n
    {
      std::unique_lock<std::mutex> lock(mu_);
      // The slot's previous job must have its preparation queued (so the uploader knows what
      // to wait for before overwriting the device side).
      cv_.wait(lock, [&] { return stop_ || j < released_ + n; });
      if (stop_) return;
      if (j >= n) before = copies_[j - n];
    }
    Status st = Status::Ok();
    if (before) {
      const cl_int err = clWaitForEvents(1, &before);
      if (err != CL_SUCCESS) st = cl_error(err, "waiting for a weights upload");
    }
    const auto t0 = std::chrono::steady_clock::now();
    if (st.ok()) st = pool_.read(file_, *jobs_[j].layer, jobs_[j].begin, slot(j).host(), jobs_[j].layer->param_floats());
    read_ms_ += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::lock_guard<std::mutex> lock(mu_);
    errors_[j] = st;
    state_[j] = st.ok() ? 1 : -1;
    cv_.notify_all();
    if (!st.ok()) return;  // the walk stops at this job
  }
}

void WeightStream::upload_loop() {
  for (size_t j = 0; j < jobs_.size(); ++j) {
    std::vector<cl_event> reused;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stop_ || state_[j] != 0; });
      if (stop_ || state_[j] < 0) return;
      reused = slot(j).consumed.events;  // set by consumed(j - n), which the reader waited for
    }
    const size_t bytes = jobs_[j].layer->param_floats() * 4;
    cl_event e = nullptr;
    const cl_int err = clEnqueueWriteBuffer(rt_.upload_queue(), slot(j).device.get(), CL_FALSE, 0, bytes, slot(j).host(),
                                            cl_uint(reused.size()), reused.empty() ? nullptr : reused.data(), &e);
    if (err == CL_SUCCESS) clFlush(rt_.upload_queue());
    std::lock_guard<std::mutex> lock(mu_);
    if (err != CL_SUCCESS) {
      errors_[j] = cl_error(err, "uploading weights");
      state_[j] = -1;
    } else {
      copies_[j] = e;
      state_[j] = 2;
    }
    cv_.notify_all();
    if (err != CL_SUCCESS) return;
  }
}

Result<StagingSlot*> WeightStream::ready(size_t j, cl_event* upload) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return state_[j] == 2 || state_[j] < 0; });
  if (state_[j] < 0) return errors_[j];
  clRetainEvent(copies_[j]);
  *upload = copies_[j];
  return &slot(j);
}

void WeightStream::consumed(size_t j, cl_event last) {
  std::lock_guard<std::mutex> lock(mu_);
  StagingSlot& s = slot(j);
  s.consumed.reset();
  if (last) {
    clRetainEvent(last);
    s.consumed.add(last);
  }
  released_ = j + 1;
  cv_.notify_all();
}

}  // namespace mdfi::cl
