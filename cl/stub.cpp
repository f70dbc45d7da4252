// The backend when mdfi is built with MDFI_OPENCL=OFF: every entry point explains that the
// OpenCL backend was not compiled in, so `--backend opencl` fails cleanly instead of linking
// against a loader that is not there.
#include "backend.h"

namespace mdfi::cl {

static const char* kNotBuilt =
    "this mdfi was built without the OpenCL backend (MDFI_OPENCL=OFF; install ocl-icd-opencl-dev and "
    "opencl-headers and rebuild)";

bool compiled_in() { return false; }

Result<std::vector<DeviceSummary>> list_devices() { return Status(ErrorKind::kUnsupported, kNotBuilt); }

struct Backend::Impl {};

Result<std::unique_ptr<Backend>> Backend::open(const BackendOptions&) { return Status(ErrorKind::kUnsupported, kNotBuilt); }
Backend::Backend(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Backend::~Backend() = default;

const DeviceSummary& Backend::device() const {
  static const DeviceSummary none;
  return none;
}
Result<RunOutput> Backend::run(const Network&, const Plan&, WeightsFile&, Buffer, MemoryTracker&, const RunHooks&) {
  return Status(ErrorKind::kUnsupported, kNotBuilt);
}
DeviceMemStats Backend::device_memory() const { return {}; }
RunTiming Backend::last_timing() const { return {}; }
std::vector<int> Backend::host_layers(const Network&) { return {}; }
Result<std::vector<float>> Backend::forward_layer(const Layer&, const std::vector<const float*>&, ParamSource&) {
  return Status(ErrorKind::kUnsupported, kNotBuilt);
}
Status Backend::gemm(int, int, int, const float*, const float*, float*) { return Status(ErrorKind::kUnsupported, kNotBuilt); }

}  // namespace mdfi::cl
