#!/usr/bin/env bash
# `bench/arm-insn-count.sh peers`: instructions per inference of mdfi and ncnn on aarch64 (and of
# mdfi on armhf beside them), counted by qemu-user with bench/qemu-insn's TCG plugin, one thread,
# on bench/ncnn.sh's models. Per inference = run(image twice) - run(image once) for both engines:
# what remains is decoding the image, resizing it to the network, the network and box decoding /
# NMS (ncnn's Yolov3DetectionOutput; mdfi detect's YOLO decoding and NMS) - ncnn does this in
# bench/ncnn/ncnn_insn.cpp (stb_image decode, from_pixels_resize). mdfi letterboxes or resizes as
# its compat says. Instruction counts ignore caches, bandwidth and stalls: no Pi timing follows
# from them (no Pi was available here).
#   MODELS="yolo-fastest-1.1 yolov3-tiny" ARMHF=0 IMAGE=dog.png bench/arm-insn-count.sh peers
#   BASE_AARCH64=path/to/older/aarch64/mdfi ...   (adds that binary's count: before/after)
#   KEPT=0 ...   (drops the mdfi --keep-weights column: weights prepared once, as ncnn prepares
#                 its at load, where the default streams and transforms them for every image)
#   THRESH=1 ...   (mdfi -t 1 and ncnn's detection threshold just above 1 in a copy of its .param: no
#                   box passes, so NMS and printing drop out and what remains is decode, resize,
#                   network and the per-box threshold test. With generated weights thousands of
#                   boxes pass 0.25, and mdfi's per-class NMS and JSON printing of them (Darknet's
#                   semantics) dwarf the network, while ncnn keeps one class per box.)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/ncnn-models.sh  # SHARED, PEER, WORK, MDFI (the host binary: generated weights)
IMAGE=${IMAGE:-$SHARED/models/images/dog.png}
ARMHF=${ARMHF:-1}
[ -f "$PEER/ncnn-aarch64-install.tgz" ] || { echo "needs $PEER/ncnn-aarch64-install.tgz" >&2; exit 2; }
[ -x "$MDFI" ] || scripts/build.sh >/dev/null
ncnn_unpack
targets=(aarch64)
[ "$ARMHF" = 1 ] && targets+=(armhf)
for t in "${targets[@]}"; do [ -x "build-$t/app/mdfi" ] || scripts/cross-build.sh "$t" >/dev/null; done
if [ ! -f "$WORK/ncnn-aarch64/lib/libncnn.a" ]; then
  mkdir -p "$WORK/ncnn-aarch64" && tar xzf "$PEER/ncnn-aarch64-install.tgz" -C "$WORK/ncnn-aarch64"
fi
NI="$WORK/ncnn_insn_aarch64"
if [ ! -x "$NI" ] || [ bench/ncnn/ncnn_insn.cpp -nt "$NI" ]; then
  aarch64-linux-gnu-g++ -O2 -fopenmp -I"$WORK/ncnn-aarch64/include/ncnn" bench/ncnn/ncnn_insn.cpp \
    "$WORK/ncnn-aarch64/lib/libncnn.a" -lpthread -o "$NI"
fi
plugin="$WORK/insn_count.so"
if [ ! -f "$plugin" ] || [ bench/qemu-insn/insn_count.c -nt "$plugin" ] || [ bench/qemu-insn/qemu_plugin_api.h -nt "$plugin" ]; then
  cc -O2 -shared -fPIC -o "$plugin" bench/qemu-insn/insn_count.c
fi
emu() {  # emu aarch64|armhf PROGRAM ARGS... -> instructions
  local t=$1; shift
  if [ "$t" = aarch64 ]; then e=(qemu-aarch64 -L /usr/aarch64-linux-gnu -E LD_LIBRARY_PATH=/usr/aarch64-linux-gnu/lib)
  else e=(qemu-arm -L /usr/arm-linux-gnueabihf -E LD_LIBRARY_PATH=/usr/arm-linux-gnueabihf/lib); fi
  "${e[@]}" -plugin "$plugin" -d plugin -D "$WORK/insn.log" "$@" >/dev/null
  sed -n 's/^insns: //p' "$WORK/insn.log"
}
per_inference() {  # per_inference TARGET PROGRAM ARGS... (the image is appended once, then twice)
  local one two
  one=$(emu "$@" "$IMAGE")
  two=$(emu "$@" "$IMAGE" "$IMAGE")
  echo $((two - one))
}
KEPT=${KEPT:-1}
head="| model | input | mdfi aarch64 (M insns) | ncnn aarch64 (M insns) | mdfi/ncnn |"
sep="|---|---|---|---|---|"
[ "$KEPT" = 1 ] && head+=" mdfi --keep-weights aarch64 (M insns) | kept/ncnn |" && sep+="---|---|"
[ "$ARMHF" = 1 ] && head+=" mdfi armhf (M insns) |" && sep+="---|"
BASE=${BASE_AARCH64:-}
[ -n "$BASE" ] && head+=" base mdfi aarch64 (M insns) | base/ncnn |" && sep+="---|---|"
echo "$head"; echo "$sep"
for model in ${MODELS:-yolo-fastest-1.1 yolo-fastest-1.1-xl mobilenetv2-yolov3-nano tiny-darknet yolov3-tiny yolov4-tiny}; do
  ncnn_model "$model"
  margs=("$cmd" -c "$cfg" -w "$weights" -q -f json --threads 1)
  if [ -n "${THRESH:-}" ]; then
    [ "$cmd" = detect ] && margs+=(-t "$THRESH")
    # ncnn keeps a box whose score equals its threshold, Darknet needs more than it (and generated
    # weights saturate many sigmoids to exactly 1): ncnn's copy gets THRESH + 1e-6.
    nt=$(awk -v t="$THRESH" 'BEGIN { printf "%.6f", t + 1e-6 }')
    sed "s/ 2=0\.250000 / 2=$nt /" "$param" > "$WORK/thresh.param"
    param=$WORK/thresh.param
  fi
  m=$(per_inference aarch64 "build-aarch64/app/mdfi" "${margs[@]}")
  n=$(per_inference aarch64 "$NI" "$param" "$bin" "${size%x*}" "${size#*x}")
  line=$(awk -v m="$model" -v s="$size" -v a="$m" -v b="$n" 'BEGIN { printf "| %s | %s | %.1f | %.1f | %.2f |", m, s, a / 1e6, b / 1e6, a / b }')
  if [ "$KEPT" = 1 ]; then
    k=$(per_inference aarch64 "build-aarch64/app/mdfi" "${margs[@]}" --keep-weights)
    line+=$(awk -v k="$k" -v n="$n" 'BEGIN { printf " %.1f | %.2f |", k / 1e6, k / n }')
  fi
  if [ "$ARMHF" = 1 ]; then
    h=$(per_inference armhf "build-armhf/app/mdfi" "${margs[@]}")
    line+=$(awk -v h="$h" 'BEGIN { printf " %.1f |", h / 1e6 }')
  fi
  if [ -n "$BASE" ]; then
    b=$(per_inference aarch64 "$BASE" "${margs[@]}")
    line+=$(awk -v b="$b" -v n="$n" 'BEGIN { printf " %.1f | %.2f |", b / 1e6, b / n }')
  fi
  echo "$line"
done
echo
echo "image=$IMAGE; one compute thread; qemu TCG instruction counts (bench/qemu-insn), per inference = two images - one;" \
  "mdfi kernel=${MDFI_KERNEL:-auto}; ncnn fp32 ($PEER)${BASE:+; base=$BASE}${THRESH:+; detection threshold $THRESH on both}"
