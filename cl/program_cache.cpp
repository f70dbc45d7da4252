// Program build with the on-disk binary cache (see program_cache.h for the key and why).
#include "program_cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace mdfi::cl {

uint64_t fnv1a64(const std::string& text, uint64_t h) {
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string cache_dir() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && *xdg) return std::string(xdg) + "/mdfi";
  const char* home = std::getenv("HOME");
  if (home && *home) return std::string(home) + "/.cache/mdfi";
  return "";
}

static bool make_dirs(const std::string& dir) {
  for (size_t i = 1; i <= dir.size(); ++i)
    if (i == dir.size() || dir[i] == '/') {
      const std::string part = dir.substr(0, i);
      if (::mkdir(part.c_str(), 0755) != 0 && errno != EEXIST) return false;
    }
  return true;
}

static bool read_file(const std::string& path, std::vector<unsigned char>* out) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  std::fseek(f, 0, SEEK_END);
  const long n = std::ftell(f);
  std::fseek(f, 0, SEEK_SET);
  out->resize(n > 0 ? size_t(n) : 0);
  const bool ok = n > 0 && std::fread(out->data(), 1, out->size(), f) == out->size();
  std::fclose(f);
  return ok;
}

// Writes through a temporary name and renames, so a concurrent run never reads half a binary.
static void write_file(const std::string& path, const std::vector<unsigned char>& data) {
  const std::string tmp = path + ".tmp" + std::to_string(::getpid());
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) return;
  const bool ok = std::fwrite(data.data(), 1, data.size(), f) == data.size();
  if (std::fclose(f) == 0 && ok) std::rename(tmp.c_str(), path.c_str());
  else std::remove(tmp.c_str());
}

static std::string build_log(cl_program p, cl_device_id d) {
  size_t n = 0;
  clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
  std::string log(n, '\0');
  if (n) clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
  if (log.size() > 4000) log = log.substr(0, 4000) + "...";
  return log;
}

Result<BuiltProgram> build_program(cl_context ctx, const DeviceHandle& dev, const std::string& source,
                                   const std::string& options) {
  BuiltProgram out;
  const std::string dir = cache_dir();
  char key[17];
  std::snprintf(key, sizeof key, "%016llx",
                static_cast<unsigned long long>(fnv1a64(dev.info.platform + "\n" + dev.info.name + "\n" + dev.info.driver +
                                                        "\n" + dev.info.version + "\n" + options + "\n" + source)));
  if (!dir.empty() && make_dirs(dir)) out.cache_file = dir + "/kernels-" + key + ".bin";

  std::vector<unsigned char> bin;
  if (!out.cache_file.empty() && read_file(out.cache_file, &bin)) {
    const unsigned char* ptr = bin.data();
    const size_t len = bin.size();
    cl_int status = CL_SUCCESS, err = CL_SUCCESS;
    cl_program p = clCreateProgramWithBinary(ctx, 1, &dev.device, &len, &ptr, &status, &err);
    if (err == CL_SUCCESS && status == CL_SUCCESS &&
        clBuildProgram(p, 1, &dev.device, options.c_str(), nullptr, nullptr) == CL_SUCCESS) {
      out.program = p;
      out.from_cache = true;
      return out;
    }
    if (p) clReleaseProgram(p);  // stale or foreign binary: rebuild below and overwrite it
  }

  const char* text = source.c_str();
  const size_t len = source.size();
  cl_int err = CL_SUCCESS;
  cl_program p = clCreateProgramWithSource(ctx, 1, &text, &len, &err);
  if (err != CL_SUCCESS) return cl_error(err, "clCreateProgramWithSource");
  err = clBuildProgram(p, 1, &dev.device, options.c_str(), nullptr, nullptr);
  if (err != CL_SUCCESS) {
    const std::string log = build_log(p, dev.device);
    clReleaseProgram(p);
    return Status(ErrorKind::kInternal, "OpenCL: building mdfi's kernels for " + dev.info.name + " failed (" +
                                            error_name(err) + "):\n" + log);
  }
  out.program = p;
  if (!out.cache_file.empty()) {
    size_t size = 0;
    if (clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr) == CL_SUCCESS && size > 0) {
      std::vector<unsigned char> data(size);
      unsigned char* ptr = data.data();
      if (clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof ptr, &ptr, nullptr) == CL_SUCCESS) write_file(out.cache_file, data);
    }
  }
  return out;
}

}  // namespace mdfi::cl
