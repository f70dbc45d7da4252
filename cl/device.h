// One OpenCL device opened for mdfi: its context and in-order queue, what it reports about
// itself, OpenCL error names for messages, and the device-memory accounting every cl_mem of
// the backend goes through (so the memory report can show a device peak next to the host one).
#pragma once

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <CL/cl_ext.h>

#include <string>
#include <vector>

#include "backend.h"
#include "status.h"

namespace mdfi::cl {

const char* error_name(cl_int err);
// "what: CL_OUT_OF_RESOURCES (-5)" as an Unsupported/OutOfMemory Status.
Status cl_error(cl_int err, const std::string& what);
#define MDFI_CL_CHECK(call, what)                                 \
  do {                                                            \
    cl_int _mdfi_err = (call);                                    \
    if (_mdfi_err != CL_SUCCESS) return ::mdfi::cl::cl_error(_mdfi_err, (what)); \
  } while (0)

struct DeviceHandle {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  DeviceSummary info;
  bool is_gpu = false;
};

Result<std::vector<DeviceHandle>> enumerate_devices();
Result<DeviceHandle> select_device(const std::string& spec);

// Counts live device bytes, their peak and the layer running at the peak.
class DeviceMemory {
 public:
  void add(size_t bytes) {
    current_ += bytes;
    if (current_ > peak_) {
      peak_ = current_;
      peak_phase_ = phase_;
    }
  }
  void remove(size_t bytes) { current_ -= bytes; }
  void set_phase(int p) { phase_ = p; }
  void restart_peak() {
    peak_ = current_;
    peak_phase_ = phase_;
  }
  DeviceMemStats stats() const { return {peak_, peak_phase_, current_}; }

 private:
  uint64_t current_ = 0, peak_ = 0;
  int phase_ = -1, peak_phase_ = -1;
};

// An owned cl_mem counted by a DeviceMemory. Releasing is safe while kernels that use it are
// still queued: OpenCL frees the storage once they complete.
class DevBuf {
 public:
  DevBuf() = default;
  ~DevBuf() { reset(); }
  DevBuf(DevBuf&& o) noexcept { *this = std::move(o); }
  DevBuf& operator=(DevBuf&& o) noexcept {
    if (this != &o) {
      reset();
      mem_ = o.mem_;
      bytes_ = o.bytes_;
      acct_ = o.acct_;
      o.mem_ = nullptr;
      o.bytes_ = 0;
    }
    return *this;
  }
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;

  static Result<DevBuf> make(cl_context ctx, DeviceMemory& acct, size_t bytes, const char* what);
  cl_mem get() const { return mem_; }
  size_t bytes() const { return bytes_; }
  bool empty() const { return mem_ == nullptr; }
  void reset();

 private:
  cl_mem mem_ = nullptr;
  size_t bytes_ = 0;
  DeviceMemory* acct_ = nullptr;
};

}  // namespace mdfi::cl
