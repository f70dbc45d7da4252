#!/usr/bin/env bash
# Read-ahead benchmark (not a unit test): the whole `mdfi detect` command with the weights file
# evicted from the page cache before every run (posix_fadvise DONTNEED, no root needed), with
# the default prefetch and with --no-prefetch, interleaved, medians. On a warm cache the two are
# the same by design; this shows what the read-ahead hides when the file comes off the disk
# (an SD card on a Pi). Usage: bench/prefetch.sh [network] (default yolov3)
set -euo pipefail
cd "$(dirname "$0")/.."
MDFI=${MDFI:-build/app/mdfi}
IMAGE=${IMAGE:-/usr/share/darknet/data/dog.jpg}
WORK=${WORK:-/tmp/mdfi-bench-memory}
REPEAT=${REPEAT:-5}
net="${1:-yolov3}"
mkdir -p "$WORK"
weights="$WORK/$net.weights"
[ -f "$weights" ] || "$MDFI" -q gen-weights --net "$net" -o "$weights"
cmd=detect; case "$net" in yolov3*) ;; *) cmd=classify ;; esac
evict() { python3 -c 'import os,sys; fd=os.open(sys.argv[1], os.O_RDONLY); os.fsync(fd); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' "$1"; }
now_ms() { date +%s%N | awk '{printf "%.1f", $1/1e6}'; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
: > "$WORK/pf_on"; : > "$WORK/pf_off"
for r in $(seq "$REPEAT"); do
  for mode in on off; do
    flag=(); [ "$mode" = off ] && flag=(--no-prefetch)
    evict "$weights"
    t0=$(now_ms); "$MDFI" -q $cmd --net "$net" -w "$weights" "${flag[@]}" "$IMAGE" >/dev/null; t1=$(now_ms)
    awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}' >> "$WORK/pf_$mode"
  done
done
on=$(median < "$WORK/pf_on"); off=$(median < "$WORK/pf_off")
echo "| network | cold whole cmd, prefetch (ms) | cold whole cmd, --no-prefetch (ms) | ratio |"
echo "|---|---|---|---|"
awk -v n="$net" -v a="$on" -v b="$off" 'BEGIN {printf "| %s | %.0f | %.0f | %.2f |\n", n, a, b, a / b}'
