#!/usr/bin/env bash
# mdfi against ncnn (the engine Raspberry Pi users pick) on the models built for the Pi, in one run,
# interleaved: each round runs mdfi streamed (the default), mdfi --keep-weights and ncnn one after
# another, ROUNDS rounds per model and thread count, medians. Not a unit test: timings on a shared
# machine are noisy, which is why the runs are interleaved and the medians reported.
#
#   mdfi: `mdfi bench` forward_ms (the network alone, after one warm-up, median of REPS repeats),
#   ncnn: bench/ncnn/ncnn_bench.cpp on mdfi's own input tensor, fp32 (fp16/bf16 storage and
#         arithmetic off), Winograd and sgemm convolutions on (ncnn's defaults), up to the blobs
#         that feed its Yolov3DetectionOutput layer (the last layer for the classifier); median of REPS
#         after one warm-up. ncnn comes from ../shared/peers/ncnn, unpacked into $WORK.
# Equal work: both engines get the same input tensor (mdfi --dump-layers writes it) and the
# tensors that feed the YOLO layers (classifier: the softmax output) are compared as a relative
# RMS, sqrt(sum (ncnn - mdfi)^2 / sum mdfi^2), printed per model.
#
# Usage: bench/ncnn.sh            (all models below, 1 and 2 threads, 5 rounds: ~25 min on 2 cores)
#   MODELS="yolo-fastest-1.1 yolov3-tiny" THREADS="2" ROUNDS=5 bench/ncnn.sh   (a quick run: < 3 min)
#   REPS=15 bench/ncnn.sh   (forward passes per sample, both engines; default 3: more smooth out a
#                            host whose speed drifts within seconds)
#   MDFI_BASE=path/to/older/mdfi bench/ncnn.sh   (also times that binary in the same rounds: before/after)
#   PIN=0,1 bench/ncnn.sh   (every engine run under `taskset -c 0,1`: both on the same cores, no
#                            migrations across a many-core host's other cores)
# Models: yolo-fastest-1.1 yolo-fastest-1.1-xl mobilenetv2-yolov3-nano tiny-darknet (real weights,
# ../shared/models, converted ncnn models from ../shared/peers/ncnn/models), yolov3-tiny yolov3
# (cfg/, generated weights) and yolov4-tiny (../shared/refs/cfg, AlexeyAB's, generated weights):
# those three are converted with ncnn's darknet2ncnn at run time.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/ncnn-models.sh
IMAGE=${IMAGE:-$SHARED/models/images/dog.jpg}
ROUNDS=${ROUNDS:-5}
REPS=${REPS:-3}
THREADS=${THREADS:-1 2}
PIN=${PIN:-}
pinned() { if [ -n "$PIN" ]; then taskset -c "$PIN" "$@"; else "$@"; fi; }
[ -f "$PEER/ncnn-x86_64-install.tgz" ] || { echo "needs $PEER/ncnn-x86_64-install.tgz" >&2; exit 2; }
[ -x "$MDFI" ] || { echo "needs $MDFI (scripts/build.sh)" >&2; exit 2; }

# ncnn and the timing program, in the scratch directory only.
BENCH=$(ncnn_bench_built)

field() { tr ',' '\n' <<<"$2" | awk -F= -v k="$1" '$1 == k {print $2}'; }

# Layer indices (mdfi's numbering: [net] excluded) whose outputs feed the YOLO layers, or the
# softmax layer of a classifier: the points ncnn_bench extracts.
compare_points() {
  awk '/^[ \t]*\[/ { gsub(/[][ \t\r]/, ""); if ($0 == "net" || $0 == "network") next; n++
         if ($0 == "yolo") print n - 2; if ($0 == "softmax") print n - 1 }' "$1"
}

host=$(lscpu | sed -n 's/^Model name: *//p')
BASE=${MDFI_BASE:-}
if [ -n "$BASE" ]; then
  echo "| model | input | threads | ncnn fp32 (ms) | mdfi streamed (ms) | mdfi --keep-weights (ms) | streamed/ncnn | kept/ncnn | base streamed (ms) | base kept (ms) | base streamed/ncnn | base kept/ncnn | rel. RMS ncnn vs mdfi |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
else
  echo "| model | input | threads | ncnn fp32 (ms) | mdfi streamed (ms) | mdfi --keep-weights (ms) | streamed/ncnn | kept/ncnn | rel. RMS ncnn vs mdfi |"
  echo "|---|---|---|---|---|---|---|---|---|"
fi
for model in ${MODELS:-$PEER_MODELS_ALL}; do
  ncnn_model "$model"
  # Equal work: mdfi's input tensor and its tensors at the compare points, then ncnn on the same input.
  dump="$WORK/dump-$model"
  rm -rf "$dump"
  "$MDFI" -q "$cmd" -c "$cfg" -w "$weights" -j 1 --dump-layers "$dump" "$IMAGE" >/dev/null
  refs=()
  for i in $(compare_points "$cfg"); do refs+=("$(printf '%s/%03d.npy' "$dump" "$i")"); done
  rms=$("$BENCH" "$param" "$bin" "$dump/input.npy" 1 1 "${refs[@]}" | sed -n 's/^relrms [^ ]* [^ ]*: //p' | paste -sd/ -)
  cp "$dump/input.npy" "$WORK/input-$model.npy"
  rm -rf "$dump"
  for t in $THREADS; do
    : > "$WORK/ms"; : > "$WORK/mk"; : > "$WORK/nc"; : > "$WORK/bs"; : > "$WORK/bk"
    mdfi_ms() {  # mdfi_ms BINARY [--keep-weights] -> forward_ms of one bench run
      local exe=$1; shift
      field forward_ms "$(pinned "$exe" bench "$@" -c "$cfg" -w "$weights" -j "$t" --warmup 1 -r "$REPS" -f csv "$IMAGE" | grep '^#')"
    }
    for _ in $(seq "$ROUNDS"); do
      mdfi_ms "$MDFI" >> "$WORK/ms"
      mdfi_ms "$MDFI" --keep-weights >> "$WORK/mk"
      pinned "$BENCH" "$param" "$bin" "$WORK/input-$model.npy" "$t" "$REPS" | sed -n 's/^ncnn_ms=\([0-9.]*\).*/\1/p' >> "$WORK/nc"
      if [ -n "$BASE" ]; then
        mdfi_ms "$BASE" >> "$WORK/bs"
        mdfi_ms "$BASE" --keep-weights >> "$WORK/bk"
      fi
    done
    ms=$(median < "$WORK/ms"); mk=$(median < "$WORK/mk"); nc=$(median < "$WORK/nc")
    if [ -n "$BASE" ]; then
      bs=$(median < "$WORK/bs"); bk=$(median < "$WORK/bk")
      awk -v m="$model" -v i="$size" -v t="$t" -v nc="$nc" -v ms="$ms" -v mk="$mk" -v bs="$bs" -v bk="$bk" -v r="$rms" \
        'BEGIN { printf "| %s | %s | %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %s |\n",
                 m, i, t, nc, ms, mk, ms / nc, mk / nc, bs, bk, bs / nc, bk / nc, r }'
    else
      awk -v m="$model" -v i="$size" -v t="$t" -v nc="$nc" -v ms="$ms" -v mk="$mk" -v r="$rms" \
        'BEGIN { printf "| %s | %s | %d | %.2f | %.2f | %.2f | %.2f | %.2f | %s |\n", m, i, t, nc, ms, mk, ms / nc, mk / nc, r }'
    fi
  done
done
echo
echo "host: $host, $(nproc) CPUs; mdfi=$MDFI${BASE:+, base=$BASE}; rounds=$ROUNDS of $REPS forward passes (medians; mdfi and ncnn alternate within each round); image=$IMAGE;" \
  "mdfi kernel=${MDFI_KERNEL:-auto}${PIN:+; pinned to CPUs $PIN}; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
