#include "version.h"

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
  return std::string("mdfi ") + MDFI_VERSION + "\n" + "target: " + target_arch() + "\n" + "SIMD: " + simd_level() +
         "\n" + "OpenCL: " + (MDFI_WITH_OPENCL ? "on" : "off") + "\n" + "compiler: " + compiler();
}

}  // namespace mdfi::app
