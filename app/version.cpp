#include "version.h"

#include <cstdlib>
#include <cstring>

#include "kernels/sgemm.h"

#ifndef MDFI_VERSION
#define MDFI_VERSION "unknown"
#endif
#ifndef MDFI_WITH_OPENCL
#define MDFI_WITH_OPENCL 0
#endif

namespace mdfi::app {

static std::string target_arch() {
#if defined(__aarch64__)
  return "aarch64";
#elif defined(__arm__)
#if defined(__ARM_ARCH)
  return "arm (ARMv" + std::to_string(__ARM_ARCH) + ")";
#else
  return "arm";
#endif
#elif defined(__x86_64__)
  return "x86_64";
#elif defined(__i386__)
  return "i386";
#elif defined(__riscv)
  return "riscv";
#else
  return "unknown";
#endif
}

std::string kernel_text() {
  const char* name = kernels::active_kernel().name;
  const char* simd = std::strcmp(name, "avx512") == 0 ? "AVX-512"
                     : std::strncmp(name, "avx2", 4) == 0 ? "AVX2+FMA"  // avx2 or avx2-8
                     : std::strcmp(name, "neon") == 0 ? "NEON"
                                                      : "generic (portable C++)";
  std::string others;
  for (const char* k : {"avx512", "avx2", "neon", "generic"})
    if (std::strcmp(k, name) != 0 && kernels::find_kernel(k)) others += std::string(others.empty() ? "" : ", ") + k;
  const char* forced = std::getenv("MDFI_KERNEL");
  const bool by_env = forced && std::strcmp(forced, name) == 0;
  return std::string(simd) + " (the '" + name + "' GEMM micro-kernel, " +
         (by_env ? "forced by MDFI_KERNEL" : "chosen at run time for this CPU") +
         (others.empty() ? std::string() : "; also usable here: " + others + ", via MDFI_KERNEL") + ")";
}

// The widest vector extension the compiler was allowed to use.
static std::string simd_level() {
#if defined(__AVX512F__)
  return "AVX-512";
#elif defined(__AVX2__) && defined(__FMA__)
  return "AVX2+FMA";
#elif defined(__AVX2__)
  return "AVX2";
#elif defined(__AVX__)
  return "AVX";
#elif defined(__SSE4_2__)
  return "SSE4.2";
#elif defined(__SSE2__)
  return "SSE2";
#elif defined(__ARM_NEON) && defined(__aarch64__)
  return "NEON (AArch64 Advanced SIMD)";
#elif defined(__ARM_NEON)
  return "NEON";
#else
  return "none (scalar)";
#endif
}

static std::string compiler() {
#if defined(__clang__)
  return std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
  return "GCC " + std::to_string(__GNUC__) + "." + std::to_string(__GNUC_MINOR__) + "." +
         std::to_string(__GNUC_PATCHLEVEL__);
#else
  return "unknown";
#endif
}

std::string version_text() {
  return std::string("mdfi ") + MDFI_VERSION + "\n" + "target: " + target_arch() + "\n" + "SIMD: " + kernel_text() +
         "\n" + "compiled for: " + simd_level() + " (baseline; wider kernels carry their own target attributes)\n" +
         "OpenCL: " + (MDFI_WITH_OPENCL ? "on" : "off") + "\n" + "compiler: " + compiler();
}

}  // namespace mdfi::app
