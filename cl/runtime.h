// The backend's live OpenCL state for one device: context, two in-order queues (compute, and
// uploads so that weights cross the bus while kernels run), both with event profiling, mdfi's
// program (built from the embedded kernels, through the disk cache) and its kernels by name,
// plus the device-memory accounting. Also the small launch helpers every layer uses.
#pragma once

#include <cstring>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "device.h"

namespace mdfi::cl {

// A kernel argument: buffers, ints and floats are all mdfi's kernels take.
struct Arg {
  Arg(cl_mem m) : size(sizeof(cl_mem)) { std::memcpy(bytes, &m, sizeof m); }  // NOLINT
  Arg(const DevBuf& b) : Arg(b.get()) {}                                       // NOLINT
  Arg(int v) : size(sizeof(cl_int)) { std::memcpy(bytes, &v, sizeof v); }     // NOLINT
  Arg(float v) : size(sizeof(cl_float)) { std::memcpy(bytes, &v, sizeof v); } // NOLINT
  unsigned char bytes[8];
  size_t size;
};

class Runtime {
 public:
  static Result<std::unique_ptr<Runtime>> open(const std::string& device_spec);
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  const DeviceHandle& device() const { return dev_; }
  cl_context context() const { return ctx_; }
  cl_command_queue queue() const { return queue_; }
  // The second in-order queue, for weight uploads; commands on `queue()` that need an upload
  // wait for its event.
  cl_command_queue upload_queue() const { return upload_queue_; }
  DeviceMemory& memory() { return mem_; }
  bool program_from_cache() const { return from_cache_; }

  Result<DevBuf> alloc(size_t bytes, const char* what) { return DevBuf::make(ctx_, mem_, bytes, what); }
  cl_kernel kernel(const std::string& name) const;

  // Enqueues `name` over a global range rounded up to multiples of `local` (local[i] = 0 lets
  // the driver choose); kernels bound-check their own ids.
  // `wait`: events (e.g. uploads on the other queue) the kernel must wait for.
  Status launch(const std::string& name, int dims, const size_t* global, const size_t* local,
                std::initializer_list<Arg> args, const std::vector<cl_event>* wait = nullptr);
  Status write(const DevBuf& dst, const void* src, size_t bytes, size_t offset = 0, bool blocking = true);
  Status read(const DevBuf& src, void* dst, size_t bytes, size_t offset = 0);
  Status copy(const DevBuf& src, size_t src_off, const DevBuf& dst, size_t dst_off, size_t bytes);
  Status finish();

  // While set, every command queued on the compute queue (launch, copy, non-blocking write)
  // leaves its event here, retained, for the caller to time and release.
  void record_into(std::vector<cl_event>* sink) { sink_ = sink; }
  // The event of the last kernel launched (retained by the caller if it keeps it), or nullptr.
  cl_event last_event() const { return last_; }

 private:
  // The event out-parameter for the next command: into the sink, or none.
  cl_event* event_slot();
  void recorded(cl_event* slot);
  Runtime() = default;
  DeviceHandle dev_;
  cl_context ctx_ = nullptr;
  cl_command_queue queue_ = nullptr;
  cl_command_queue upload_queue_ = nullptr;
  std::vector<cl_event>* sink_ = nullptr;
  cl_event pending_ = nullptr;  // written by the last command when recording
  cl_event last_ = nullptr;
  cl_program program_ = nullptr;
  std::map<std::string, cl_kernel> kernels_;
  DeviceMemory mem_;
  bool from_cache_ = false;
};

// The whole program text: common helpers, every SGEMM tile configuration, convolution and
// layer kernels.
std::string program_source();

}  // namespace mdfi::cl
