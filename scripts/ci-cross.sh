#!/usr/bin/env bash
# CI for the Raspberry Pi targets (issue 7): cross-builds aarch64 and armhf, runs a chosen part
# of the test suite under qemu-user (ctest prefixes CMAKE_CROSSCOMPILING_EMULATOR), then runs
# real models from ../shared/models with each ARM binary and with the x86-64 one and checks
# they agree. Emulation is 10-50x slower than native, so only these groups run:
#   parser shapes weights layers plan memory detect image support  (NEON parity and both weights
#   header widths are in [layers]/[weights]; [image] compares decode, letterbox and resize bit for
#   bit with the x86-64 build's recorded results); the parity groups need libdarknet (no ARM build
#   of it), cli/robustness/models launch mdfi hundreds of times or run big nets: too slow emulated.
# Usage: scripts/ci-cross.sh [aarch64] [armhf]   (default both). .ci/run calls it.
set -euo pipefail
cd "$(dirname "$0")/.."
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(aarch64 armhf)
MDFI_SETUP_CROSS=1 scripts/setup-debian.sh
start=$SECONDS

host_mdfi=build/app/mdfi  # the x86-64 build of scripts/build.sh (the README test command)
[ -x "$host_mdfi" ] || scripts/build.sh
models=../shared/models

for t in "${targets[@]}"; do
  echo "== cross build: $t"
  t0=$SECONDS
  scripts/cross-build.sh "$t"
  echo "== $t: built in $((SECONDS - t0)) s"

  t0=$SECONDS
  (cd "build-$t" && ctest --output-on-failure -j1 -R '^(parser|shapes|weights|layers|plan|memory|detect|image|support)$')
  echo "== $t: unit tests under qemu in $((SECONDS - t0)) s"

  if [ ! -f "$models/README.txt" ]; then
    echo "== $t: ../shared/models absent, real-model comparison skipped"
    continue
  fi
  t0=$SECONDS
  arm_mdfi="build-$t/test/mdfi-emulated"
  out="build-$t/ci-cross"
  mkdir -p "$out"
  # name | mdfi arguments (json output compared field by field with the x86-64 run)
  runs=(
    "yolo-fastest-dog|detect -q -f json -c $models/yolo-fastest-1.1-coco/yolo-fastest-1.1.cfg -w $models/yolo-fastest-1.1-coco/yolo-fastest-1.1.weights --names $models/yolo-fastest-1.1-coco/coco.names $models/images/dog.png"
    # the same through the target's libjpeg-turbo (linked statically, with its NEON SIMD code)
    "yolo-fastest-dog-jpg|detect -q -f json -c $models/yolo-fastest-1.1-coco/yolo-fastest-1.1.cfg -w $models/yolo-fastest-1.1-coco/yolo-fastest-1.1.weights --names $models/yolo-fastest-1.1-coco/coco.names $models/images/dog.jpg"
    "tiny-darknet-eagle|classify -q -f json -c $models/tiny-darknet-imagenet/tiny.cfg -w $models/tiny-darknet-imagenet/tiny.weights --names $models/tiny-darknet-imagenet/imagenet.shortnames.list $models/images/eagle.png"
    "mnist-lenet|classify -q -f json --top 3 -c $models/mnist-lenet/mnist_lenet.cfg -w $models/mnist-lenet/mnist_lenet.weights --names $models/mnist-lenet/mnist.names.list $models/mnist-lenet/images"
  )
  for r in "${runs[@]}"; do
    name="${r%%|*}"
    args="${r#*|}"
    # shellcheck disable=SC2086  # args are plain words without spaces
    "$host_mdfi" $args > "$out/$name.x86-64.json"
    # shellcheck disable=SC2086
    "$arm_mdfi" $args > "$out/$name.$t.json"
    python3 scripts/compare-results.py "$out/$name.x86-64.json" "$out/$name.$t.json"
    echo "   $name: $t agrees with x86-64"
  done
  echo "== $t: real models under qemu in $((SECONDS - t0)) s"
done
echo "== cross CI total: $((SECONDS - start)) s"
