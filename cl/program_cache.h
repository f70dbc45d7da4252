// Builds mdfi's OpenCL program for a device, caching the compiled binary on disk under
// $XDG_CACHE_HOME/mdfi (else ~/.cache/mdfi) so the second run does not recompile. The cache key
// hashes the platform, device, driver version, build options and the full source text, so a
// driver update or an edited kernel never reuses a stale binary; a binary the driver refuses is
// rebuilt from source and overwritten.
#pragma once

#include <string>

#include "device.h"

namespace mdfi::cl {

struct BuiltProgram {
  cl_program program = nullptr;
  bool from_cache = false;
  std::string cache_file;  // "" when the cache directory is not usable
};

// The cache directory mdfi uses ("" when neither XDG_CACHE_HOME nor HOME is set).
std::string cache_dir();
uint64_t fnv1a64(const std::string& text, uint64_t h = 1469598103934665603ull);

Result<BuiltProgram> build_program(cl_context ctx, const DeviceHandle& dev, const std::string& source,
                                   const std::string& options);

}  // namespace mdfi::cl
