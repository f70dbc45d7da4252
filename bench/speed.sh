#!/usr/bin/env bash
# Speed benchmark (not a unit test). In one run, interleaved, REPEAT rounds per network, medians:
#   mdfi warm forward (mdfi bench after warm-up: the network alone, weights streamed from the file,
#     as OpenCV's net.forward() is timed on a ready blob), and mdfi's whole per-image pipeline
#     (JPEG decode + letterbox + network),
#   mdfi with --keep-weights (a batch that keeps the prepared weights in RAM: per image),
#   mdfi whole command (cold process: plan, weights from page cache, one image, THREADS threads),
#   Darknet's whole command (detector test / classifier predict, Debian package): ONE thread
#     (Debian's libdarknet.so is built without OpenMP: it imports no GOMP_* symbol), and the whole
#     process: cfg parse, weights load, forward, box decoding, NMS, drawing and writing
#     predictions.jpg (detector) or the top-5 print (classifier). With generated weights the YOLO
#     heads pass tens of thousands of boxes to NMS and drawing, so for yolov3* this column is
#     mostly post-processing, not a forward-pass comparison,
#   OpenCV DNN warm forward (python3-opencv, THREADS threads).
# Prints ratios mdfi/OpenCV and mdfi/Darknet and mdfi's GFLOP/s as a share of this machine's FMA
# peak, measured in the same run by bench/fma_peak.cpp on THREADS threads (PEAK_GFLOPS=N skips
# the measurement and uses N, e.g. to compare with an earlier run).
# Usage: bench/speed.sh [network ...]   (default: yolov3 yolov3-tiny alexnet darknet53)
set -euo pipefail
cd "$(dirname "$0")/.."
MDFI=${MDFI:-build/app/mdfi}
IMAGE=${IMAGE:-/usr/share/darknet/data/dog.jpg}
WORK=${WORK:-/tmp/mdfi-bench-memory}
THREADS=${THREADS:-2}
REPEAT=${REPEAT:-3}
PY=${PY:-/usr/bin/python3}   # Debian's python3, where python3-opencv lives
NETS=("$@")
[ ${#NETS[@]} -gt 0 ] || NETS=(yolov3 yolov3-tiny alexnet darknet53)
mkdir -p "$WORK"
"$PY" -c 'import cv2' 2>/dev/null && command -v bc >/dev/null || MDFI_SETUP_BENCH=1 scripts/setup-debian.sh
if [ -z "${PEAK_GFLOPS:-}" ]; then
  cmake --build build --target mdfi_fma_peak >/dev/null
  PEAK_GFLOPS=$(build/bench/mdfi_fma_peak "$THREADS")
  peak_src="measured now by build/bench/mdfi_fma_peak $THREADS"
else
  peak_src="given as PEAK_GFLOPS"
fi
printf 'classes=80\nnames=%s\n' "$PWD/data/coco.names" > "$WORK/coco.data"
printf 'classes=1000\nnames=/usr/share/darknet/data/imagenet.shortnames.list\ntop=5\n' > "$WORK/imagenet.data"

now_ms() { date +%s%N | awk '{printf "%.1f", $1/1e6}'; }
field() { tr ',' '\n' <<<"$2" | awk -F= -v k="$1" '$1 == k {print $2}'; }  # field NAME CSV_LINE
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

echo "| network | GFLOP | mdfi warm forward (ms) | mdfi pipeline (ms) | OpenCV warm forward (ms) | mdfi/OpenCV | mdfi kept weights (ms) | kept/OpenCV | mdfi whole cmd, $THREADS threads (ms) | Darknet whole cmd, 1 thread, incl. NMS + drawing (ms) | mdfi/Darknet | mdfi GFLOP/s | % of FMA peak ($PEAK_GFLOPS GFLOP/s) |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for net in "${NETS[@]}"; do
  cfg="$PWD/cfg/$net.cfg"
  weights="$WORK/$net.weights"
  [ -f "$weights" ] || "$MDFI" -q gen-weights --net "$net" -o "$weights"
  read -r w h < <(awk -F= '/^width/ {w=$2} /^height/ {h=$2} END {print w, h}' "$cfg")
  case "$net" in
    yolov3*) dn=(darknet detector test "$WORK/coco.data" "$cfg" "$weights" "$IMAGE" -out "$WORK/pred"); cmd=detect ;;
    *) dn=(darknet classifier predict "$WORK/imagenet.data" "$cfg" "$weights" "$IMAGE"); cmd=classify ;;
  esac
  gflop=$("$MDFI" info --net "$net" | awk '/^total:/ {for (i=1;i<=NF;i++) if ($i=="BFLOPs,") print $(i-1)}')
  : > "$WORK/mw"; : > "$WORK/mp"; : > "$WORK/mk"; : > "$WORK/cv"; : > "$WORK/mc"; : > "$WORK/dc"
  for r in $(seq "$REPEAT"); do
    line=$("$MDFI" bench --net "$net" -w "$weights" -j "$THREADS" --warmup 1 -r 3 -f csv "$IMAGE" | grep '^#')
    field forward_ms "$line" >> "$WORK/mw"
    field median_ms "$line" >> "$WORK/mp"
    line=$("$MDFI" bench --keep-weights --net "$net" -w "$weights" -j "$THREADS" --warmup 1 -r 3 -f csv "$IMAGE" | grep '^#')
    field forward_ms "$line" >> "$WORK/mk"
    "$PY" bench/opencv_forward.py "$cfg" "$weights" "$IMAGE" "$w" "$h" "$THREADS" 3 >> "$WORK/cv"
    t0=$(now_ms); "$MDFI" -q $cmd --net "$net" -w "$weights" -j "$THREADS" "$IMAGE" >/dev/null; t1=$(now_ms)
    echo "$t1 - $t0" | bc >> "$WORK/mc"
    t0=$(now_ms); (cd "$WORK" && "${dn[@]}" >/dev/null 2>&1 </dev/null); t1=$(now_ms)
    echo "$t1 - $t0" | bc >> "$WORK/dc"
  done
  mw=$(median < "$WORK/mw"); mp=$(median < "$WORK/mp"); mk=$(median < "$WORK/mk"); cv=$(median < "$WORK/cv"); mc=$(median < "$WORK/mc")
  dc=$(median < "$WORK/dc")
  python3 - "$net" "$gflop" "$mw" "$mp" "$mk" "$cv" "$mc" "$dc" "$PEAK_GFLOPS" <<'PY'
import sys
net, gflop, mw, mp, mk, cv, mc, dc, peak = sys.argv[1], *map(float, sys.argv[2:])
gfs = gflop / (mw / 1000)
print(f"| {net} | {gflop:.2f} | {mw:.1f} | {mp:.1f} | {cv:.1f} | {mw/cv:.2f} | {mk:.1f} | {mk/cv:.2f} | {mc:.0f} | {dc:.0f} | {mc/dc:.3f} | {gfs:.0f} | {100*gfs/peak:.0f}% |")
PY
done
echo
echo "threads=$THREADS (mdfi, OpenCV; Darknet 1) repeat=$REPEAT image=$IMAGE kernel=${MDFI_KERNEL:-auto}; FMA peak $PEAK_GFLOPS GFLOP/s ($peak_src); OpenCV $("$PY" -c 'import cv2;print(cv2.__version__)'); load average: $(cut -d' ' -f1-3 /proc/loadavg)"
