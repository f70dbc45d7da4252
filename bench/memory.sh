#!/usr/bin/env bash
# Memory benchmark (not a unit test): for each network, runs Darknet (Debian package) and mdfi on
# the same image with generated weights, each under heaptrack (peak heap) and /usr/bin/time -v
# (max RSS), in one run, and prints a table with the ratio and mdfi's own reported peak.
# Usage: bench/memory.sh [network ...]   (default: the six of the memory issue, and yolov7-tiny
# for post-processing at its limits: 10,647 boxes, 210,604 results)
#        bench/memory.sh --budget [network ...]   (issue 19's table: each network at the smallest
#        --max-mem its planner accepts, and at the smallest whose predicted time is within the
#        issue's allowance, beside the default schedule; see bench/memory-budget.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
MDFI=${MDFI:-build/app/mdfi}
IMAGE=${IMAGE:-/usr/share/darknet/data/dog.jpg}
WORK=${WORK:-/tmp/mdfi-bench-memory}
if [ "${1:-}" = "--budget" ]; then
  shift
  exec bench/memory-budget.sh "$@"
fi
NETS=("$@")
[ ${#NETS[@]} -gt 0 ] || NETS=(yolov3 yolov3-tiny alexnet tiny darknet53 resnet50 yolov7-tiny)
mkdir -p "$WORK"
[ -x "$MDFI" ] || scripts/build.sh
command -v heaptrack >/dev/null || { echo "heaptrack missing: run scripts/setup-debian.sh" >&2; exit 1; }

printf 'classes=80\nnames=%s\n' "$PWD/data/coco.names" > "$WORK/coco.data"
printf 'classes=1000\nnames=/usr/share/darknet/data/imagenet.shortnames.list\ntop=5\n' > "$WORK/imagenet.data"

declare -A TARGET=([yolov3]=40 [yolov3-tiny]=25 [alexnet]=16 [tiny]=8 [darknet53]=25 [resnet50]=18)

peak_heap_mb() {  # heaptrack output file -> peak heap in MB
  heaptrack_print -f "$1" 2>/dev/null | awk '/peak heap memory consumption/ {v=$NF; u=v; gsub(/[0-9.]/,"",u); gsub(/[A-Za-z]/,"",v);
    m=(u=="G"?1000:(u=="M"?1:(u=="K"?0.001:0.000001))); printf "%.1f", v*m}'
}
max_rss_mb() { awk '/Maximum resident set size/ {printf "%.1f", $NF/1000}' "$1"; }

printf '| network | Darknet heap (MB) | mdfi heap (MB) | Darknet/mdfi | mdfi max RSS (MB) | mdfi reported peak (MB) | mdfi predicted (MB) | target (MB) | met |\n'
printf '|---|---|---|---|---|---|---|---|---|\n'
for net in "${NETS[@]}"; do
  cfg="$PWD/cfg/$net.cfg"
  weights="$WORK/$net.weights"
  [ -f "$weights" ] || "$MDFI" -q gen-weights --net "$net" -o "$weights"
  case "$net" in
    yolov3*) dn=(darknet detector test "$WORK/coco.data" "$cfg" "$weights" "$IMAGE" -out "$WORK/pred"); cmd=detect ;;
    # AlexeyAB-only layers: Debian's (pjreddie's) Darknet cannot run it. With generated weights
    # every cell is a box in ~20 classes, so mdfi's post-processing runs at its limits.
    yolov7*) dn=(false); cmd=detect ;;
    *) dn=(darknet classifier predict "$WORK/imagenet.data" "$cfg" "$weights" "$IMAGE"); cmd=classify ;;
  esac
  rm -f "$WORK"/dn.* "$WORK"/mdfi.*
  [ "${dn[0]}" = false ] || (cd "$WORK" && heaptrack -o "$WORK/dn" "${dn[@]}" </dev/null >/dev/null 2>&1) || true
  heaptrack -o "$WORK/mdfi" "$MDFI" -q $cmd --net "$net" -w "$weights" "$IMAGE" >/dev/null 2>&1
  /usr/bin/time -v "$MDFI" -q $cmd --net "$net" -w "$weights" --mem-report="$WORK/report.json" "$IMAGE" \
    >/dev/null 2>"$WORK/mdfi.time"
  if [ "${dn[0]}" = false ]; then dn_heap=-; else dn_heap=$(peak_heap_mb "$(ls "$WORK"/dn.*zst 2>/dev/null | head -1)"); fi
  md_heap=$(peak_heap_mb "$(ls "$WORK"/mdfi.*zst | head -1)")
  md_rss=$(max_rss_mb "$WORK/mdfi.time")
  reported=$(python3 -c "import json;d=json.load(open('$WORK/report.json'));print('%.1f'%(d['peak_bytes']/1e6))")
  predicted=$(python3 -c "import json;d=json.load(open('$WORK/report.json'));print('%.1f'%(d['predicted_peak_bytes']/1e6))")
  ratio=$(python3 -c "print('%.0fx'%($dn_heap/$md_heap))" 2>/dev/null || echo "?")
  met=$(python3 -c "print('yes' if $md_heap <= ${TARGET[$net]:-1e9} and $md_rss <= $reported + 15 else 'NO')")
  printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$net" "$dn_heap" "$md_heap" "$ratio" "$md_rss" "$reported" \
    "$predicted" "${TARGET[$net]:--}" "$met"
done
