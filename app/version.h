// `mdfi --version`: what this binary is: version, target architecture, the SIMD level it was
// compiled for, whether the OpenCL backend is built in, and the compiler. Taken from compiler
// macros and CMake definitions, so it describes the build, not the machine it runs on.
#pragma once

#include <string>

namespace mdfi::app {

std::string version_text();

}  // namespace mdfi::app
