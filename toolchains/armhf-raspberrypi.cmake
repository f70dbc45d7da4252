# Cross toolchain for 32-bit Raspberry Pi OS on ARMv7 boards with NEON (Pi 2 v1.1, Pi 3, Pi 4 in
# 32-bit mode) with Debian's crossbuild-essential-armhf (arm-linux-gnueabihf). The Pi 1 / Zero
# (ARMv6, no NEON) is not a target. NEON and VFPv4 are enabled explicitly: Debian's armhf
# baseline is ARMv7 + VFPv3-D16 without NEON.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR armv7l)

set(CMAKE_C_COMPILER arm-linux-gnueabihf-gcc)
set(CMAKE_CXX_COMPILER arm-linux-gnueabihf-g++)

# Same find modes as the aarch64 file: target libraries only, host header-only deps visible.
set(CMAKE_FIND_ROOT_PATH /usr/arm-linux-gnueabihf)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
# Compiled deps (libjpeg-turbo, libpng, zlib): Debian's multiarch -dev packages for armhf, in
# /usr/lib/arm-linux-gnueabihf and /usr/include[/arm-linux-gnueabihf].
# cmake/MdfiCrossImageLibs.cmake names their .a files and headers; nothing there is searched for.
set(MDFI_TARGET_MULTIARCH arm-linux-gnueabihf)
set(MDFI_TARGET_DEBIAN_ARCH armhf)

set(CMAKE_C_FLAGS_INIT "-march=armv7-a -mfpu=neon-vfpv4 -mfloat-abi=hard")
set(CMAKE_CXX_FLAGS_INIT "-march=armv7-a -mfpu=neon-vfpv4 -mfloat-abi=hard")

# LD_LIBRARY_PATH keeps every shared library in the cross root, the same glibc build as its
# loader: with libc6:armhf installed (a dependency of the multiarch -dev packages) the loader
# would follow the host's /etc/ld.so.cache to /lib/arm-linux-gnueabihf/libc.so.6, another
# glibc build (under qemu-aarch64 that made the [layers] and [memory] tests hang).
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-arm -L /usr/arm-linux-gnueabihf
    -E LD_LIBRARY_PATH=/usr/arm-linux-gnueabihf/lib)
