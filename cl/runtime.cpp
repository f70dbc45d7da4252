// Assembles the program text from the embedded kernels (one SGEMM copy per tile configuration),
// opens the context/queue/program, and the launch and transfer helpers with error messages.
#include "runtime.h"

#include <vector>

#include "sgemm.h"
#include "program_cache.h"

namespace mdfi::cl {

namespace src {
extern const char* const k_common;
extern const char* const k_gemm;
extern const char* const k_conv;
extern const char* const k_layers;
}  // namespace src

std::string program_source() {
  std::string s = src::k_common;
  // One copy of the SGEMM body per tile configuration, each under its own kernel name.
  for (const GemmConfig& c : gemm_configs()) {
    s += "\n#define NAME " + std::string(c.name) + "\n#define BM " + std::to_string(c.bm) + "\n#define BN " +
         std::to_string(c.bn) + "\n#define BK " + std::to_string(c.bk) + "\n#define TM " + std::to_string(c.tm) +
         "\n#define TN " + std::to_string(c.tn) + "\n";
    s += src::k_gemm;
    s += "\n#undef NAME\n#undef BM\n#undef BN\n#undef BK\n#undef TM\n#undef TN\n";
  }
  s += src::k_conv;
  s += src::k_layers;
  return s;
}

Result<std::unique_ptr<Runtime>> Runtime::open(const std::string& device_spec) {
  MDFI_ASSIGN_OR_RETURN(auto dev, select_device(device_spec));
  std::unique_ptr<Runtime> rt(new Runtime());
  rt->dev_ = dev;
  cl_int err = CL_SUCCESS;
  const cl_context_properties props[] = {CL_CONTEXT_PLATFORM, cl_context_properties(rt->dev_.platform), 0};
  rt->ctx_ = clCreateContext(props, 1, &rt->dev_.device, nullptr, nullptr, &err);
  if (err != CL_SUCCESS) return cl_error(err, "creating a context on " + rt->dev_.info.name);
  // Profiling on: per-layer times are device times (a few microseconds per command).
  rt->queue_ = clCreateCommandQueue(rt->ctx_, rt->dev_.device, CL_QUEUE_PROFILING_ENABLE, &err);
  if (err != CL_SUCCESS) return cl_error(err, "creating a command queue on " + rt->dev_.info.name);
  rt->upload_queue_ = clCreateCommandQueue(rt->ctx_, rt->dev_.device, CL_QUEUE_PROFILING_ENABLE, &err);
  if (err != CL_SUCCESS) return cl_error(err, "creating an upload queue on " + rt->dev_.info.name);
  MDFI_ASSIGN_OR_RETURN(auto prog, build_program(rt->ctx_, rt->dev_, program_source(), "-cl-std=CL1.2 -cl-mad-enable"));
  rt->program_ = prog.program;
  rt->from_cache_ = prog.from_cache;
  cl_uint nk = 0;
  MDFI_CL_CHECK(clCreateKernelsInProgram(rt->program_, 0, nullptr, &nk), "listing kernels");
  std::vector<cl_kernel> ks(nk);
  MDFI_CL_CHECK(clCreateKernelsInProgram(rt->program_, nk, ks.data(), nullptr), "creating kernels");
  for (cl_kernel k : ks) {
    char name[128] = {0};
    clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof name - 1, name, nullptr);
    rt->kernels_[name] = k;
  }
  return rt;
}

Runtime::~Runtime() {
  if (upload_queue_) clFinish(upload_queue_);
  if (queue_) clFinish(queue_);
  if (last_) clReleaseEvent(last_);
  if (upload_queue_) clReleaseCommandQueue(upload_queue_);
  for (auto& [name, k] : kernels_) clReleaseKernel(k);
  if (program_) clReleaseProgram(program_);
  if (queue_) clReleaseCommandQueue(queue_);
  if (ctx_) clReleaseContext(ctx_);
}

cl_kernel Runtime::kernel(const std::string& name) const {
  auto it = kernels_.find(name);
  return it == kernels_.end() ? nullptr : it->second;
}

cl_event* Runtime::event_slot() {
  pending_ = nullptr;
  return &pending_;
}

void Runtime::recorded(cl_event* slot) {
  if (!*slot) return;
  if (last_) clReleaseEvent(last_);
  last_ = *slot;
  if (sink_) {
    clRetainEvent(*slot);
    sink_->push_back(*slot);
  }
  *slot = nullptr;
}

Status Runtime::launch(const std::string& name, int dims, const size_t* global, const size_t* local,
                       std::initializer_list<Arg> args, const std::vector<cl_event>* wait) {
  cl_kernel k = kernel(name);
  if (!k) return Status(ErrorKind::kInternal, "OpenCL: kernel " + name + " is missing from mdfi's program");
  cl_uint i = 0;
  for (const Arg& a : args) {
    MDFI_CL_CHECK(clSetKernelArg(k, i, a.size, a.bytes), name + " argument " + std::to_string(i));
    ++i;
  }
  size_t g[3] = {1, 1, 1}, l[3] = {1, 1, 1};
  bool have_local = local != nullptr;
  for (int d = 0; d < dims; ++d) {
    if (local && local[d] == 0) have_local = false;
    l[d] = local && local[d] ? local[d] : 1;
    g[d] = (global[d] + l[d] - 1) / l[d] * l[d];
    if (g[d] == 0) return Status::Ok();  // nothing to do
  }
  cl_event* ev = event_slot();
  const bool waits = wait && !wait->empty();
  MDFI_CL_CHECK(clEnqueueNDRangeKernel(queue_, k, cl_uint(dims), nullptr, g, have_local ? l : nullptr,
                                       waits ? cl_uint(wait->size()) : 0, waits ? wait->data() : nullptr, ev),
                "launching " + name);
  recorded(ev);
  return Status::Ok();
}

Status Runtime::write(const DevBuf& dst, const void* src, size_t bytes, size_t offset, bool blocking) {
  if (bytes == 0) return Status::Ok();
  cl_event* ev = blocking ? nullptr : event_slot();
  MDFI_CL_CHECK(clEnqueueWriteBuffer(queue_, dst.get(), blocking ? CL_TRUE : CL_FALSE, offset, bytes, src, 0, nullptr, ev),
                "writing " + std::to_string(bytes) + " bytes to the device");
  if (ev) recorded(ev);
  return Status::Ok();
}

Status Runtime::read(const DevBuf& src, void* dst, size_t bytes, size_t offset) {
  if (bytes == 0) return Status::Ok();
  MDFI_CL_CHECK(clEnqueueReadBuffer(queue_, src.get(), CL_TRUE, offset, bytes, dst, 0, nullptr, nullptr),
                "reading " + std::to_string(bytes) + " bytes from the device");
  return Status::Ok();
}

Status Runtime::copy(const DevBuf& src, size_t src_off, const DevBuf& dst, size_t dst_off, size_t bytes) {
  if (bytes == 0) return Status::Ok();
  cl_event* ev = event_slot();
  MDFI_CL_CHECK(clEnqueueCopyBuffer(queue_, src.get(), dst.get(), src_off, dst_off, bytes, 0, nullptr, ev),
                "copying on the device");
  recorded(ev);
  return Status::Ok();
}

Status Runtime::finish() {
  MDFI_CL_CHECK(clFinish(upload_queue_), "waiting for the uploads");
  MDFI_CL_CHECK(clFinish(queue_), "waiting for the device");
  return Status::Ok();
}

}  // namespace mdfi::cl
