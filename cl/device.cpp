// Device enumeration and --device selection, OpenCL error names, and DevBuf's accounting.
#include "device.h"

#include <algorithm>
#include <cctype>

namespace mdfi::cl {

const char* error_name(cl_int err) {
  switch (err) {
#define N(x) \
  case x: return #x;
    N(CL_DEVICE_NOT_FOUND) N(CL_DEVICE_NOT_AVAILABLE) N(CL_COMPILER_NOT_AVAILABLE)
    N(CL_MEM_OBJECT_ALLOCATION_FAILURE) N(CL_OUT_OF_RESOURCES) N(CL_OUT_OF_HOST_MEMORY)
    N(CL_BUILD_PROGRAM_FAILURE) N(CL_MAP_FAILURE) N(CL_INVALID_VALUE) N(CL_INVALID_DEVICE)
    N(CL_INVALID_CONTEXT) N(CL_INVALID_COMMAND_QUEUE) N(CL_INVALID_MEM_OBJECT) N(CL_INVALID_BINARY)
    N(CL_INVALID_BUILD_OPTIONS) N(CL_INVALID_PROGRAM) N(CL_INVALID_PROGRAM_EXECUTABLE)
    N(CL_INVALID_KERNEL_NAME) N(CL_INVALID_KERNEL) N(CL_INVALID_ARG_INDEX) N(CL_INVALID_ARG_VALUE)
    N(CL_INVALID_ARG_SIZE) N(CL_INVALID_KERNEL_ARGS) N(CL_INVALID_WORK_DIMENSION)
    N(CL_INVALID_WORK_GROUP_SIZE) N(CL_INVALID_WORK_ITEM_SIZE) N(CL_INVALID_GLOBAL_OFFSET)
    N(CL_INVALID_EVENT_WAIT_LIST) N(CL_INVALID_EVENT) N(CL_INVALID_OPERATION)
    N(CL_INVALID_BUFFER_SIZE) N(CL_INVALID_GLOBAL_WORK_SIZE) N(CL_PLATFORM_NOT_FOUND_KHR)
#undef N
    default: return "CL error";
  }
}

Status cl_error(cl_int err, const std::string& what) {
  const bool oom = err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES || err == CL_OUT_OF_HOST_MEMORY;
  return Status(oom ? ErrorKind::kOutOfMemory : ErrorKind::kUnsupported,
                "OpenCL: " + what + ": " + error_name(err) + " (" + std::to_string(err) + ")");
}

static std::string platform_string(cl_platform_id p, cl_platform_info what) {
  size_t n = 0;
  if (clGetPlatformInfo(p, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return "";
  std::string s(n, '\0');
  clGetPlatformInfo(p, what, n, s.data(), nullptr);
  while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
  return s;
}

static std::string device_string(cl_device_id d, cl_device_info what) {
  size_t n = 0;
  if (clGetDeviceInfo(d, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return "";
  std::string s(n, '\0');
  clGetDeviceInfo(d, what, n, s.data(), nullptr);
  while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
  return s;
}

template <typename T>
static T device_value(cl_device_id d, cl_device_info what) {
  T v{};
  clGetDeviceInfo(d, what, sizeof v, &v, nullptr);
  return v;
}

Result<std::vector<DeviceHandle>> enumerate_devices() {
  cl_uint np = 0;
  cl_int err = clGetPlatformIDs(0, nullptr, &np);
  if (err == CL_PLATFORM_NOT_FOUND_KHR || (err == CL_SUCCESS && np == 0))
    return Status(ErrorKind::kUnsupported,
                  "no OpenCL platform found (no ICD in /etc/OpenCL/vendors; install e.g. pocl-opencl-icd or a GPU driver)");
  if (err != CL_SUCCESS) return cl_error(err, "clGetPlatformIDs");
  std::vector<cl_platform_id> platforms(np);
  clGetPlatformIDs(np, platforms.data(), nullptr);
  std::vector<DeviceHandle> out;
  for (cl_platform_id p : platforms) {
    cl_uint nd = 0;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) != CL_SUCCESS || nd == 0) continue;
    std::vector<cl_device_id> devs(nd);
    clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, nd, devs.data(), nullptr);
    for (cl_device_id d : devs) {
      DeviceHandle h;
      h.platform = p;
      h.device = d;
      h.info.index = int(out.size());
      h.info.platform = platform_string(p, CL_PLATFORM_NAME);
      h.info.name = device_string(d, CL_DEVICE_NAME);
      h.info.version = device_string(d, CL_DEVICE_VERSION);
      h.info.driver = device_string(d, CL_DRIVER_VERSION);
      const auto type = device_value<cl_device_type>(d, CL_DEVICE_TYPE);
      h.is_gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
      h.info.type = h.is_gpu ? "GPU"
                    : (type & CL_DEVICE_TYPE_CPU) ? "CPU"
                    : (type & CL_DEVICE_TYPE_ACCELERATOR) ? "accelerator"
                                                          : "other";
      h.info.compute_units = device_value<cl_uint>(d, CL_DEVICE_MAX_COMPUTE_UNITS);
      h.info.global_mem = device_value<cl_ulong>(d, CL_DEVICE_GLOBAL_MEM_SIZE);
      h.info.local_mem = device_value<cl_ulong>(d, CL_DEVICE_LOCAL_MEM_SIZE);
      h.info.max_alloc = device_value<cl_ulong>(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
      out.push_back(h);
    }
  }
  if (out.empty()) return Status(ErrorKind::kUnsupported, "OpenCL platforms were found but none has a device");
  return out;
}

static std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

Result<DeviceHandle> select_device(const std::string& spec) {
  MDFI_ASSIGN_OR_RETURN(auto all, enumerate_devices());
  if (spec.empty()) {
    for (const DeviceHandle& h : all)
      if (h.is_gpu) return h;
    return all.front();
  }
  const bool numeric = std::all_of(spec.begin(), spec.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  if (numeric) {
    const size_t i = std::stoul(spec);
    if (i < all.size()) return (all)[i];
    return Status(ErrorKind::kUsage, "--device " + spec + ": there are only " + std::to_string(all.size()) +
                                         " OpenCL devices (see `mdfi devices`)");
  }
  const std::string want = lower(spec);
  for (const DeviceHandle& h : all)
    if (lower(h.info.platform + " / " + h.info.name).find(want) != std::string::npos) return h;
  return Status(ErrorKind::kUsage, "--device " + spec + ": no OpenCL device or platform name contains it (see `mdfi devices`)");
}

Result<DevBuf> DevBuf::make(cl_context ctx, DeviceMemory& acct, size_t bytes, const char* what) {
  cl_int err = CL_SUCCESS;
  DevBuf b;
  b.mem_ = clCreateBuffer(ctx, CL_MEM_READ_WRITE, std::max<size_t>(bytes, 4), nullptr, &err);
  if (err != CL_SUCCESS) return cl_error(err, std::string("allocating ") + std::to_string(bytes) + " bytes for " + what);
  b.bytes_ = bytes;
  b.acct_ = &acct;
  acct.add(bytes);
  return b;
}

void DevBuf::reset() {
  if (mem_) {
    clReleaseMemObject(mem_);
    if (acct_) acct_->remove(bytes_);
  }
  mem_ = nullptr;
  bytes_ = 0;
}

}  // namespace mdfi::cl
