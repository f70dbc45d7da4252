#!/usr/bin/env bash
# mdfi against ncnn one convolution shape at a time (issue 18): where bench/ncnn-layers.sh
# subtracts two whole-network runs of ncnn per layer (noise of the whole run in each difference),
# this times a network of two layers per shape, interleaved, medians of ROUNDS rounds:
#   layer 0: a 1x1 convolution of stride s on the 416x416 image (few FLOPs) that makes the shape's
#            input (e.g. 52x52x128 for a 52x52 layer of 128 channels);
#   layer 1: the shape itself (3x3 or 1x1, stride 1 or 2, batch-norm, leaky).
# mdfi: layer 1's median from `mdfi bench -f csv` (streamed and --keep-weights). It runs with
# `--max-mem 1G`, a budget far above these networks' peaks, so that the planner picks each layer's
# algorithm (Winograd tile and way) as it would inside a larger network: without a budget it
# takes Winograd only where it costs no peak memory, and in a two-layer network layer 1 is the peak.
# ncnn: ncnn_bench up to layer 1's blob minus up to layer 0's (NCNN_BLOB), on mdfi's own input.
# What this compares is kernels on data the caches can hold between repeats: a kept layer's
# transformed weights stay in the L3 cache from one repeat to the next here, while inside a
# network they come from memory (yolov3's 52x52 F(4x4) layers, kept, one thread, on the 2-core
# EPYC VM: 3.4-3.5 ms in the network against 2.75 ms here); ncnn keeps transformed weights too.
#
# Usage: [THREADS=2] [ROUNDS=3] [REPS=15] [SHAPES="c3s1-52-128-256 ..."] bench/ncnn-shapes.sh
# A shape is KIND-SIZE-IN-OUT: KIND c3s1 (3x3 stride 1), c3s2 (3x3 stride 2; SIZE is the input's),
# c1s1 (1x1); SIZE divides 416 (13, 26, 52, 104, 208).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/ncnn-models.sh
IMAGE=${IMAGE:-$SHARED/models/images/dog.jpg}
THREADS=${THREADS:-2}
ROUNDS=${ROUNDS:-3}
REPS=${REPS:-15}
SHAPES=${SHAPES:-c3s1-13-512-1024 c3s1-26-256-512 c3s1-52-128-256 c3s1-104-64-128 c3s1-52-128-128 c3s1-26-128-128 c1s1-13-1024-512 c1s1-52-256-128 c3s2-52-256-512 c3s2-208-32-64}
[ -f "$PEER/ncnn-x86_64-install.tgz" ] || { echo "needs $PEER/ncnn-x86_64-install.tgz" >&2; exit 2; }
[ -x "$MDFI" ] || { echo "needs $MDFI (scripts/build.sh)" >&2; exit 2; }
BENCH=$(ncnn_bench_built)
D="$WORK/shapes"
mkdir -p "$D"
layer1_ms() { awk -F, '$1 == 1 {print $4}'; }

echo "| shape | input | mdfi algorithm (streamed run) | mdfi streamed (ms) | mdfi --keep-weights (ms) | ncnn fp32 (ms) | streamed/ncnn | kept/ncnn |"
echo "|---|---|---|---|---|---|---|---|"
for shape in $SHAPES; do
  IFS=- read -r kind size cin cout <<<"$shape"
  case "$kind" in
    c3s1) k=3 s=1 in=$size ;;
    c3s2) k=3 s=2 in=$size ;;
    c1s1) k=1 s=1 in=$size ;;
    *) echo "unknown shape kind $kind (c3s1, c3s2, c1s1)" >&2; exit 2 ;;
  esac
  (( 416 % in == 0 )) || { echo "$shape: $in does not divide 416" >&2; exit 2; }
  cfg="$D/$shape.cfg" w="$D/$shape.weights" p="$D/$shape.param" b="$D/$shape.bin" x="$D/$shape.npy"
  cat > "$cfg" <<EOF
[net]
width=416
height=416
channels=3

[convolutional]
batch_normalize=1
filters=$cin
size=1
stride=$((416 / in))
pad=0
activation=leaky

[convolutional]
batch_normalize=1
filters=$cout
size=$k
stride=$s
pad=1
activation=leaky
EOF
  [ -f "$w" ] || "$MDFI" -q gen-weights -c "$cfg" -o "$w"
  if [ ! -f "$p" ]; then
    "$WORK/ncnn/bin/darknet2ncnn" "$cfg" "$w" "$p" "$b" 1 >"$D/convert.log" 2>&1 ||
      { echo "darknet2ncnn failed on $cfg (see $D/convert.log)" >&2; exit 1; }
  fi
  if [ ! -f "$x" ]; then
    rm -rf "$D/dump"
    "$MDFI" -q classify -c "$cfg" -w "$w" -j 1 --dump-layers "$D/dump" "$IMAGE" >/dev/null
    cp "$D/dump/input.npy" "$x"
    rm -rf "$D/dump"
  fi
  read -r b0 b1 < <(awk 'NR > 2 { split($2, a, "_"); if (a[1] ~ /^[0-9]+$/) last[a[1]] = $(5 + $3) } END { print last[0], last[1] }' "$p")
  # The streamed run's choice as `mdfi plan` prints it: the tile, and "wi" where the weights are
  # streamed through the whole input's tiles (else "ww": whole transformed weights).
  algo=$("$MDFI" plan -c "$cfg" -j "$THREADS" --max-mem 1G 2>&1 |
    sed -n 's/^winograd: F(\([0-9]\)x[0-9],3x3) in layers 1\(s\{0,1\}\) .*/F(\1x\1) \2/p' | sed 's/ s$/ wi/; s/ $/ ww/')
  : > "$D/s" ; : > "$D/k" ; : > "$D/n"
  for _ in $(seq "$ROUNDS"); do
    m=("$MDFI" bench -c "$cfg" -w "$w" -j "$THREADS" --max-mem 1G --warmup 2 -r "$REPS" -f csv)
    "${m[@]}" "$IMAGE" 2>/dev/null | layer1_ms >> "$D/s"
    "${m[@]}" --keep-weights "$IMAGE" 2>/dev/null | layer1_ms >> "$D/k"
    n0=$(NCNN_BLOB=$b0 "$BENCH" "$p" "$b" "$x" "$THREADS" "$REPS" | sed -n 's/^ncnn_ms=\([0-9.]*\).*/\1/p')
    n1=$(NCNN_BLOB=$b1 "$BENCH" "$p" "$b" "$x" "$THREADS" "$REPS" | sed -n 's/^ncnn_ms=\([0-9.]*\).*/\1/p')
    awk -v a="$n0" -v b="$n1" 'BEGIN { print b - a }' >> "$D/n"
  done
  ms=$(median < "$D/s") mk=$(median < "$D/k") mn=$(median < "$D/n")
  awk -v sh="$shape" -v inp="${in}x${in}x${cin}" -v al="${algo:-GEMM}" -v s="$ms" -v k="$mk" -v n="$mn" \
    'BEGIN { if (n > 0) printf "| %s | %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f |\n", sh, inp, al, s, k, n, s / n, k / n
             else printf "| %s | %s | %s | %.2f | %.2f | %.2f (noise: more REPS) | - | - |\n", sh, inp, al, s, k, n }'
done
echo
echo "host: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs; threads $THREADS; rounds=$ROUNDS of $REPS passes (medians; mdfi and ncnn alternate within each round); load $(cut -d' ' -f1-3 /proc/loadavg)"
