#!/usr/bin/env bash
# Installs everything mdfi needs to build and test on Debian 12 (run as root or with sudo).
# Later features add their packages here, so a fresh machine (and CI) needs only this script.
set -euo pipefail
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
PKGS=(
  build-essential cmake ccache pkg-config
  libcli11-dev libspdlog-dev libfmt-dev libstb-dev catch2
  libjpeg62-turbo-dev libpng-dev  # row-by-row JPEG and PNG decoding (engine/image/row_decoder.h)
  nlohmann-json3-dev # JSON/JSONL results of the CLI
  ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo
  darknet            # reference implementation for the parity tests (libdarknet.so)
  heaptrack time     # memory benchmarks
  python3            # test helpers
  parallel           # the "Many machines" recipe of app/README.md (GNU parallel), run by a [cli] test
  strace curl        # install tests: which files a copied mdfi opens; get-weights.sh via file:// mirrors
  clang libclang-rt-14-dev  # libFuzzer + sanitizer runtimes for scripts/fuzz.sh
)
# Benchmarks only (bench/speed.sh, bench/memory.sh): OpenCV DNN as the reference, bc, perf.
if [ "${MDFI_SETUP_BENCH:-0}" = 1 ]; then
  PKGS+=(python3-opencv bc linux-perf)
fi
if [ "${MDFI_SETUP_CROSS:-0}" = 1 ]; then
  PKGS+=(crossbuild-essential-arm64 crossbuild-essential-armhf qemu-user)
  # The target's libjpeg/libpng/zlib, which cross builds link statically
  # (cmake/MdfiCrossImageLibs.cmake): Debian multiarch packages of the same version as the amd64
  # ones, so they co-install (apt upgrades the amd64 ones with them, in the same command).
  for arch in arm64 armhf; do
    dpkg --print-foreign-architectures | grep -qx "$arch" || $SUDO dpkg --add-architecture "$arch"
    PKGS+=("libjpeg62-turbo-dev:$arch" "libpng-dev:$arch" "zlib1g-dev:$arch")
  done
fi
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
echo "setup-debian: all packages present"
