// `mdfi --version`: what this binary is and what it does on this machine: version, target
// architecture, the GEMM micro-kernel chosen at run time for this CPU (the SIMD that really
// runs), the baseline the compiler targeted, whether the OpenCL backend is built in, and the
// compiler.
#pragma once

#include <string>

namespace mdfi::app {

std::string version_text();
// "AVX-512 (the 'avx512' GEMM micro-kernel, chosen at run time ...)": for --version, -v and bench.
std::string kernel_text();

}  // namespace mdfi::app
