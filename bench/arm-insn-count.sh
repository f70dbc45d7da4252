#!/usr/bin/env bash
# Instructions per inference for the Raspberry Pi builds, counted under qemu-user, so ARM kernel
# changes can be compared honestly without a Pi (no Pi timings are measured here: instruction
# counts ignore caches, memory bandwidth and pipeline stalls; use them for before/after).
#
#   bench/arm-insn-count.sh [aarch64|armhf|x86-64] [yolo-fastest|tiny|mnist]
#   MDFI_KERNEL=generic bench/arm-insn-count.sh aarch64     # the same run with another kernel
#   bench/arm-insn-count.sh peers    # mdfi vs ncnn on aarch64 (and mdfi armhf) on bench/ncnn.sh's
#                                    # models: MODELS="yolo-fastest-1.1 ..." ARMHF=0 to narrow it
#
# ARM: a small TCG plugin (bench/qemu-insn/insn_count.c; Debian's qemu-user loads plugins but
# ships none) counts every guest instruction. x86-64: valgrind's callgrind Ir count, as a proxy.
# Per inference = run(image twice) - run(image once): start-up, cfg parsing and opening the
# weights cancel out; decoding, preprocessing, the forward pass (with its per-layer weight
# reads) and box decoding remain. One compute thread, so the count is exact and repeatable.
# Builds what is missing (scripts/cross-build.sh, scripts/build.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
target="${1:-aarch64}"
if [ "$target" = peers ]; then exec bench/arm-insn-peers.sh; fi
model="${2:-yolo-fastest}"
M=../shared/models
[ -f "$M/README.txt" ] || { echo "needs ../shared/models" >&2; exit 2; }
case "$model" in
  yolo-fastest) args=(detect -c "$M/yolo-fastest-1.1-coco/yolo-fastest-1.1.cfg" -w "$M/yolo-fastest-1.1-coco/yolo-fastest-1.1.weights"); img="$M/images/dog.png" ;;
  tiny) args=(classify -c "$M/tiny-darknet-imagenet/tiny.cfg" -w "$M/tiny-darknet-imagenet/tiny.weights"); img="$M/images/eagle.png" ;;
  mnist) args=(classify -c "$M/mnist-lenet/mnist_lenet.cfg" -w "$M/mnist-lenet/mnist_lenet.weights"); img="$M/mnist-lenet/images/t_00000_c5.png" ;;
  *) echo "unknown model $model (yolo-fastest|tiny|mnist)" >&2; exit 2 ;;
esac
args+=(-q -f json --threads 1)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

case "$target" in
  aarch64 | armhf)
    [ -x "build-$target/app/mdfi" ] || scripts/cross-build.sh "$target" >/dev/null
    plugin="build-$target/insn_count.so"
    if [ ! -f "$plugin" ] || [ bench/qemu-insn/insn_count.c -nt "$plugin" ] || [ bench/qemu-insn/qemu_plugin_api.h -nt "$plugin" ]; then
      cc -O2 -shared -fPIC -o "$plugin" bench/qemu-insn/insn_count.c
    fi
    if [ "$target" = aarch64 ]; then emu=(qemu-aarch64 -L /usr/aarch64-linux-gnu -E LD_LIBRARY_PATH=/usr/aarch64-linux-gnu/lib)
    else emu=(qemu-arm -L /usr/arm-linux-gnueabihf -E LD_LIBRARY_PATH=/usr/arm-linux-gnueabihf/lib); fi
    count() {  # count IMAGES... -> instructions
      "${emu[@]}" -plugin "$PWD/$plugin" -d plugin -D "$work/log" "build-$target/app/mdfi" "${args[@]}" "$@" >/dev/null
      sed -n 's/^insns: //p' "$work/log"
    }
    ;;
  x86-64)
    command -v valgrind >/dev/null || { echo "needs valgrind" >&2; exit 2; }
    [ -x build/app/mdfi ] || scripts/build.sh >/dev/null
    count() {
      valgrind --tool=callgrind --callgrind-out-file=/dev/null build/app/mdfi "${args[@]}" "$@" 2>"$work/log" >/dev/null
      sed -n 's/.*Collected : //p' "$work/log"
    }
    ;;
  *) echo "usage: $0 [aarch64|armhf|x86-64] [yolo-fastest|tiny|mnist]" >&2; exit 2 ;;
esac

one=$(count "$img")
two=$(count "$img" "$img")
per=$((two - one))
kernel="${MDFI_KERNEL:-default}"
awk -v t="$target" -v m="$model" -v k="$kernel" -v p="$per" -v o="$one" \
  'BEGIN { printf "%s %s kernel=%s: %.0f instructions per inference (%.1f M); whole one-image run %.0f\n", t, m, k, p, p / 1e6, o }'
