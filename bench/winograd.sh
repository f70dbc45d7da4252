#!/usr/bin/env bash
# Winograd against the GEMM path on the same binary: `mdfi bench` with --winograd off, auto, f2 and f4
# (streamed weights, then --keep-weights), interleaved round by round so that load on the host
# hits every variant alike; prints the median forward time of each and its ratio to off.
# Usage: ROUNDS=5 REPEAT=3 THREADS=0 bench/winograd.sh [network ...]   (default: yolov3-tiny yolov3)
# Generated weights (mdfi gen-weights) in $WORK; Darknet's dog.jpg.
set -euo pipefail
cd "$(dirname "$0")/.."
MDFI=${MDFI:-build/app/mdfi}
IMAGE=${IMAGE:-/usr/share/darknet/data/dog.jpg}
WORK=${WORK:-/tmp/mdfi-bench-winograd}
ROUNDS=${ROUNDS:-5}
REPEAT=${REPEAT:-3}
THREADS=${THREADS:-0}
NETS=("$@")
[ ${#NETS[@]} -gt 0 ] || NETS=(yolov3-tiny yolov3)
mkdir -p "$WORK"
[ -x "$MDFI" ] || scripts/build.sh
VARIANTS=("off" "auto" "f2" "f4" "off --keep-weights" "auto --keep-weights" "f2 --keep-weights" "f4 --keep-weights")

echo "host: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
printf '| network | threads | variant | median forward (ms) | / off (same weights mode) | rounds |\n|---|---|---|---|---|---|\n'
for net in "${NETS[@]}"; do
  weights="$WORK/$net.weights"
  [ -f "$weights" ] || "$MDFI" -q gen-weights --net "$net" -o "$weights"
  out="$WORK/$net.times"
  : > "$out"
  for ((r = 0; r < ROUNDS; r++)); do
    for v in "${VARIANTS[@]}"; do
      set -- $v
      ms=$("$MDFI" bench --net "$net" -w "$weights" -r "$REPEAT" -j "$THREADS" -f json --winograd "$@" "$IMAGE" \
        2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["forward_median_ms"])')
      echo "$v|$ms" >> "$out"
    done
  done
  python3 - "$net" "$THREADS" "$ROUNDS" "$out" <<'PY'
import statistics, sys
net, threads, rounds, path = sys.argv[1:]
times = {}
for line in open(path):
    v, ms = line.strip().split("|")
    times.setdefault(v, []).append(float(ms))
med = {v: statistics.median(t) for v, t in times.items()}
for v, m in med.items():
    base = med["off --keep-weights" if "keep" in v else "off"]
    print(f"| {net} | {threads if threads != '0' else 'all'} | {v} | {m:.1f} | {m / base:.2f} | {rounds} |")
PY
done
