# CPU flags per target, chosen without running anything (no try_run: cross builds can't) and
# never from the build machine (-march=native would leak the host ISA into the binary).
# - x86-64: none; the AVX2/AVX-512 micro-kernels carry target attributes and are picked at run
#   time, so one binary runs on any x86-64.
# - aarch64: none; NEON is part of the baseline.
# - 32-bit ARM built natively on a Pi (Raspberry Pi OS armhf): its compiler defaults to ARMv6 +
#   VFP for the Pi 1/Zero, which leaves NEON off; on an ARMv7/ARMv8 CPU it is turned on here
#   (uname -m says aarch64 when a 32-bit userland runs on the Pi 4's default 64-bit kernel).
#   Cross builds get the same flags from toolchains/armhf-raspberrypi.cmake.
include(CheckCXXSourceCompiles)
check_cxx_source_compiles("
#if !defined(__ARM_NEON) && !defined(__aarch64__)
#error no NEON
#endif
int main() { return 0; }" MDFI_COMPILER_HAS_NEON)
option(MDFI_ARM_NEON "32-bit ARM: build for ARMv7 + NEON (off only for ARMv6 Pi 1/Zero)" ON)
if(NOT MDFI_COMPILER_HAS_NEON AND NOT CMAKE_CROSSCOMPILING AND MDFI_ARM_NEON
   AND CMAKE_SIZEOF_VOID_P EQUAL 4 AND CMAKE_SYSTEM_PROCESSOR MATCHES "^(armv7|armv8|aarch64|arm64)")
  add_compile_options(-march=armv7-a -mfpu=neon-vfpv4 -mfloat-abi=hard)
  message(STATUS "mdfi: native 32-bit ARM: ARMv7 + NEON flags added")
endif()

# 32-bit targets (armhf): 64-bit file offsets and inode numbers. Without them readdir() and
# stat() fail with EOVERFLOW on large filesystems and under a 64-bit kernel (qemu-user, a Pi 4
# running the 32-bit userland on its 64-bit kernel), so directory inputs came back empty.
if(CMAKE_SIZEOF_VOID_P EQUAL 4)
  add_compile_definitions(_FILE_OFFSET_BITS=64)
endif()
