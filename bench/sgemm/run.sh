#!/usr/bin/env bash
# Runs the SGEMM benchmark on the GPU machine: makes NVIDIA's OpenCL visible to the ICD loader
# (its vendor file is missing there), points the loader at a carried CLBlast, prints the table.
#   bench/sgemm/run.sh BIN_DIR [CLBLAST_DIR]   (BIN_DIR holds mdfi_bench_sgemm)
set -euo pipefail
bin=${1:?usage: run.sh BIN_DIR [CLBLAST_DIR]}
clblast=${2:-}
if [ -e /usr/local/nvidia/lib64/libnvidia-opencl.so.1 ] && [ -w /etc ]; then
  mkdir -p /etc/OpenCL/vendors
  echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
fi
if [ -n "$clblast" ]; then
  export LD_LIBRARY_PATH="$(cd "$clblast" && pwd)/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
export XDG_CACHE_HOME=${XDG_CACHE_HOME:-/tmp/mdfi-cache}
"$bin/mdfi_bench_sgemm" --device "${MDFI_BENCH_DEVICE:-NVIDIA}" --cfg cfg/yolov3.cfg "${@:3}"
