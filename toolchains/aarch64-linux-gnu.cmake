# Cross toolchain for 64-bit Raspberry Pi OS (Pi 3/4/5, Cortex-A53/A72/A76) with Debian's
# crossbuild-essential-arm64. NEON is part of the aarch64 baseline, so no -mfpu is needed; the
# -mcpu is left generic so one binary runs on every 64-bit Pi.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

# Libraries and CMake packages come only from the target's multiarch root; programs from the host.
# Includes are BOTH: the header-only deps (CLI11, spdlog, fmt, stb, Catch2, nlohmann-json) live in
# the host's /usr/include and serve every target, while the target's own C library headers are
# found by the cross compiler itself (it never searches /usr/include).
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
# Compiled deps (libjpeg-turbo, libpng, zlib): Debian's multiarch -dev packages for arm64, in
# /usr/lib/aarch64-linux-gnu and /usr/include[/aarch64-linux-gnu].
# cmake/MdfiCrossImageLibs.cmake names their .a files and headers; nothing there is searched for.
set(MDFI_TARGET_MULTIARCH aarch64-linux-gnu)
set(MDFI_TARGET_DEBIAN_ARCH arm64)

set(CMAKE_C_FLAGS_INIT "-march=armv8-a")
set(CMAKE_CXX_FLAGS_INIT "-march=armv8-a")

# Test binaries run under qemu-user; ctest prefixes every test command with this.
# LD_LIBRARY_PATH keeps every shared library in the cross root, the same glibc build as its
# loader: with libc6:arm64 installed (a dependency of the multiarch -dev packages) the loader
# would follow the host's /etc/ld.so.cache to /lib/aarch64-linux-gnu/libc.so.6, another
# glibc build, in which the [layers] and [memory] tests hung.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L /usr/aarch64-linux-gnu
    -E LD_LIBRARY_PATH=/usr/aarch64-linux-gnu/lib)
