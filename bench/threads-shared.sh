#!/usr/bin/env bash
# Threads that share their cores: 40 photos through Yolo-Fastest-1.1-XL (Darknet's five sample
# images, cycled) with the default thread count and with --threads 1, on an idle machine and
# beside BUSY processes that each keep one core busy (a camera encoder, another job). Prints a
# markdown table of wall times (median of ROUNDS, the rounds alternated) and the ratio
# default / --threads 1 for each case. MDFI_BASE=path/to/older/mdfi adds its rows, measured in
# the same rounds.
# Usage: bench/threads-shared.sh        (ROUNDS=5, BUSY=1 by default)
set -euo pipefail
cd "$(dirname "$0")/.."
MDFI=${MDFI:-build/app/mdfi}
ROUNDS=${ROUNDS:-5}
BUSY=${BUSY:-1}
XL=../shared/models/yolo-fastest-1.1-xl-coco/yolo-fastest-1.1-xl.weights
[ -f "$XL" ] || { echo "threads-shared: $XL is missing (../shared/models)" >&2; exit 1; }
[ -x "$MDFI" ] || { echo "threads-shared: $MDFI is not built" >&2; exit 1; }
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
for i in $(seq 8); do
  for f in dog person horses eagle giraffe; do echo "/usr/share/darknet/data/$f.jpg"; done
done > "$work/list"

binaries=("$MDFI")
[ -n "${MDFI_BASE:-}" ] && binaries+=("$MDFI_BASE")

# One timed run: seconds of wall time.
run() {  # binary, extra options
  local t0 t1
  t0=$(date +%s.%N)
  "$1" detect -q --net yolo-fastest-1.1-xl -w "$XL" ${2:+$2} --list "$work/list" > /dev/null
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc -l
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

declare -A times
for load in idle busy; do
  pids=()
  if [ "$load" = busy ]; then
    for _ in $(seq "$BUSY"); do (while :; do :; done) & pids+=($!); done
    sleep 0.5
  fi
  for r in $(seq "$ROUNDS"); do
    for b in "${!binaries[@]}"; do
      times[$load,$b,default]+="$(run "${binaries[$b]}" "") "
      times[$load,$b,one]+="$(run "${binaries[$b]}" "--threads 1") "
    done
  done
  [ ${#pids[@]} -gt 0 ] && kill "${pids[@]}" && wait "${pids[@]}" 2>/dev/null || true
done

echo "Host: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores; $(date -u '+%Y-%m-%d %H:%M UTC'); $ROUNDS rounds, medians"
echo
echo "| binary | load | default threads (s) | --threads 1 (s) | default / one thread |"
echo "|---|---|---|---|---|"
for b in "${!binaries[@]}"; do
  for load in idle busy; do
    d=$(tr ' ' '\n' <<<"${times[$load,$b,default]}" | grep . | median)
    o=$(tr ' ' '\n' <<<"${times[$load,$b,one]}" | grep . | median)
    label=$([ "$load" = idle ] && echo idle || echo "$BUSY core(s) busy")
    printf '| %s | %s | %.2f | %.2f | %.2f |\n' "${binaries[$b]}" "$label" "$d" "$o" "$(echo "$d / $o" | bc -l)"
  done
done
