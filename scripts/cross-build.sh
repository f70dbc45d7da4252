#!/usr/bin/env bash
# Cross-compiles mdfi for a Raspberry Pi target on a Debian PC:
#   scripts/cross-build.sh aarch64|armhf [extra CMake arguments]
# Output: build-<target>/app/mdfi (plus the test binary, run under qemu-user by ctest).
# Needs crossbuild-essential-arm64/armhf (MDFI_SETUP_CROSS=1 scripts/setup-debian.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
target="${1:-}"
case "$target" in
  aarch64) toolchain=toolchains/aarch64-linux-gnu.cmake ;;
  armhf) toolchain=toolchains/armhf-raspberrypi.cmake ;;
  *) echo "usage: $0 aarch64|armhf [cmake args...]" >&2; exit 2 ;;
esac
shift
dir="build-$target"
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
# Same settings as the CMake preset of the same name (CMakePresets.json); the libdarknet
# reference helper is host-only, so its parity tests skip in cross builds.
cmake -S . -B "$dir" -DCMAKE_TOOLCHAIN_FILE="$PWD/$toolchain" -DCMAKE_BUILD_TYPE=Release \
  -DMDFI_DARKNET_TESTS=OFF "${launcher[@]}" "$@" >/dev/null
cmake --build "$dir" -j"$(nproc)"
file "$dir/app/mdfi" 2>/dev/null || echo "built $dir/app/mdfi"
# libjpeg, libpng and zlib are linked statically (cmake/MdfiCrossImageLibs.cmake). Checked here
# because qemu would not notice a dynamic one: the target's .so files are installed on this PC.
for bin in "$dir/app/mdfi" "$dir/test/mdfi_tests"; do
  [ -f "$bin" ] || continue
  needed=$(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
  echo "$bin needs: $needed"
  case " $needed" in
    *" libjpeg"* | *" libpng"* | *" libz."*)
      echo "error: $bin links an image library dynamically; the Pi may not have it" >&2; exit 1 ;;
  esac
done
