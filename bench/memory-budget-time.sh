#!/usr/bin/env bash
# Issue 19's time column alone, for a host without heaptrack or a build (a binary copied to an
# idle machine): per network, the network's forward median (`mdfi bench -j THREADS --warmup 1
# -r 3`) of the default schedule and of the smallest budget `mdfi plan -j THREADS --max-mem 1B
# IMAGE` names, ROUNDS rounds interleaved, medians, and their ratio. bench/memory-budget.sh has
# the whole table (heaptrack peaks, predicted peaks, identical outputs).
# NETS picks rows by name (default: issue 19's six; yolo-fastest-1.1 and mobilenetv2-yolov3-nano,
# the real Yolo-Fastest-1.1 and MobileNetV2-YOLOv3-Nano cfgs of ../shared/models, on request).
# AT=target times each network at issue 19's memory target instead (yolov3 10 MB, alexnet 3 MB,
# Yolo-Fastest-1.1-XL 2.5 MB, the others 6 MB; MB = 10^6 bytes): the time a budget of that size
# costs, where the default is the time the smallest budget costs.
# MDFI_BASE=path/to/older/mdfi also times that binary at the same budget in the same rounds
# (before/after a planner change; its ratio against the same default runs). Each ratio is of
# medians; the row also gives the ratio of the minima, which a host whose speed drifts between
# runs (the 2-core VM: medians 20% apart from one run to the next) moves less.
# Usage: [MDFI=path/to/mdfi] [MDFI_BASE=path] [SHARED=../shared] [THREADS=1] [ROUNDS=3]
#        [NETS="yolov3 alexnet ..."] [AT=smallest|target] bench/memory-budget-time.sh
set -eu
cd "$(dirname "$0")/.."
MDFI=${MDFI:-build/app/mdfi}; SHARED=${SHARED:-../shared}
IMAGE=${IMAGE:-$SHARED/models/images/dog.jpg}
W=${WORK:-/tmp/mdfi-bench-budget-time}; mkdir -p "$W"; T=${THREADS:-1}; R=${ROUNDS:-3}
field() { tr ',' '\n' <<<"$2" | awk -F= -v k="$1" '$1 == k {print $2}'; }
med() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
# name|model arguments|issue 19's memory target in bytes (none for the last two)
rows=("yolov3|--net yolov3|10000000" "yolov3-tiny|--net yolov3-tiny|6000000"
      "yolov4-tiny|--cfg $SHARED/refs/cfg/yolov4-tiny.cfg|6000000" "darknet53|--net darknet53|6000000"
      "yolo-fastest-1.1-xl|--cfg $SHARED/models/yolo-fastest-1.1-xl-coco/yolo-fastest-1.1-xl.cfg|2500000"
      "alexnet|--net alexnet|3000000"
      "yolo-fastest-1.1|--cfg $SHARED/models/yolo-fastest-1.1-coco/yolo-fastest-1.1.cfg|"
      "mobilenetv2-yolov3-nano|--cfg $SHARED/models/mobilenetv2-yolov3-nano-coco/MobileNetV2-YOLOv3-Nano-coco.cfg|")
AT=${AT:-smallest}
case "$AT" in smallest | target) ;; *) echo "AT=smallest or AT=target" >&2; exit 2 ;; esac
NETS=${NETS:-yolov3 yolov3-tiny yolov4-tiny darknet53 yolo-fastest-1.1-xl alexnet}
BASE=${MDFI_BASE:-}
if [ -n "$BASE" ]; then
  echo "| network | $AT budget (B) | default ms | ms at that budget | ratio (of minima) | base ms | base ratio (of minima) |"
  echo "|---|---|---|---|---|---|---|"
else
  echo "| network | $AT budget (B) | default ms | ms at that budget | ratio (of minima) |"
  echo "|---|---|---|---|---|"
fi
for r in "${rows[@]}"; do
  IFS='|' read -r name a target <<<"$r"; read -r -a m <<<"$a"
  [[ " $NETS " == *" $name "* ]] || continue
  [ "$AT" = target ] && [ -z "$target" ] && { echo "| $name | (no target) | | | |"; continue; }
  w=$W/$name.weights; [ -f "$w" ] || "$MDFI" -q gen-weights "${m[@]}" -o "$w"
  if [ "$AT" = target ]; then s=$target
  else s=$("$MDFI" plan -j "$T" "${m[@]}" --max-mem 1B "$IMAGE" 2>&1 | grep -o '([0-9]* bytes)' | tr -dc 0-9); fi
  : > "$W/d"; : > "$W/s"; : > "$W/b"
  # forward_ms BINARY [ARGS...]: the network's forward median of one `bench` run.
  forward_ms() {
    local exe=$1; shift
    field forward_ms "$("$exe" bench "${m[@]}" -w "$w" -j "$T" --warmup 1 -r 3 -f csv "$@" "$IMAGE" | grep '^#')"
  }
  for _ in $(seq "$R"); do
    forward_ms "$MDFI" >> "$W/d"
    forward_ms "$MDFI" --max-mem "${s}B" >> "$W/s"
    [ -z "$BASE" ] || forward_ms "$BASE" --max-mem "${s}B" >> "$W/b"
  done
  d=$(med < "$W/d"); q=$(med < "$W/s"); dm=$(sort -g "$W/d" | head -1); qm=$(sort -g "$W/s" | head -1)
  row=$(awk -v n="$name" -v s="$s" -v d="$d" -v q="$q" -v dm="$dm" -v qm="$qm" \
    'BEGIN{printf "| %s | %d | %.2f | %.2f | %.2fx (%.2fx) |", n, s, d, q, q/d, qm/dm}')
  if [ -n "$BASE" ]; then
    b=$(med < "$W/b"); bm=$(sort -g "$W/b" | head -1)
    row+=$(awk -v d="$d" -v b="$b" -v dm="$dm" -v bm="$bm" 'BEGIN{printf " %.2f | %.2fx (%.2fx) |", b, b/d, bm/dm}')
  fi
  echo "$row"
done
echo "host: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs; threads $T, rounds $R${BASE:+; base $BASE}; load $(cut -d' ' -f1-3 /proc/loadavg)"
