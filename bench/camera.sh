#!/usr/bin/env bash
# Camera-sized photos (issue 14), measured in one run on generated JPEGs (dog.jpg scaled up with
# OpenCV, quality 90): whole-process peak heap (heaptrack) and mdfi's own reported and predicted
# peak, and the time and instructions of decoding + letterboxing a 12 MP JPEG for the
# row-by-row libjpeg path, --fast-decode, and the old whole-image stb_image path (--decoder stb),
# with the ratios. Needs ../shared/models and
# python3-opencv (MDFI_SETUP_BENCH=1 scripts/setup-debian.sh).
# Usage: bench/camera.sh            (REPEAT=N timed runs per figure, default 7)
set -euo pipefail
cd "$(dirname "$0")/.."
MDFI=${MDFI:-build/app/mdfi}
WORK=${WORK:-/tmp/mdfi-bench-camera}
REPEAT=${REPEAT:-7}
XL=../shared/models/yolo-fastest-1.1-xl-coco
mkdir -p "$WORK"
[ -x "$MDFI" ] || scripts/build.sh
command -v heaptrack >/dev/null || { echo "heaptrack missing: run scripts/setup-debian.sh" >&2; exit 1; }
[ -f "$XL/yolo-fastest-1.1-xl.weights" ] || { echo "../shared/models is missing" >&2; exit 1; }

/usr/bin/python3 - "$WORK" <<'PY'
import sys, cv2
work = sys.argv[1]
im = cv2.imread('/usr/share/darknet/data/dog.jpg')
for w, h in [(4056, 3040), (8000, 6000)]:
    cv2.imwrite(f'{work}/photo_{w}x{h}.jpg', cv2.resize(im, (w, h), interpolation=cv2.INTER_LINEAR),
                [cv2.IMWRITE_JPEG_QUALITY, 90])
cv2.imwrite(f'{work}/photo_16x16.jpg', cv2.resize(im, (16, 16)), [cv2.IMWRITE_JPEG_QUALITY, 90])
PY
# A network that costs nothing (avgpool + softmax over a 320x320 input), so a whole mdfi command
# is process start, decoding and letterboxing.
printf '[net]\nwidth=320\nheight=320\nchannels=3\n\n[avgpool]\n\n[softmax]\n' > "$WORK/pool.cfg"
[ -f "$WORK/pool.weights" ] || "$MDFI" -q gen-weights -c "$WORK/pool.cfg" -o "$WORK/pool.weights"
[ -f "$WORK/yolov3.weights" ] || "$MDFI" -q gen-weights --net yolov3 -o "$WORK/yolov3.weights"

peak_heap_mb() {
  heaptrack_print -f "$1" 2>/dev/null | awk '/peak heap memory consumption/ {v=$NF; u=v; gsub(/[0-9.]/,"",u); gsub(/[A-Za-z]/,"",v);
    m=(u=="G"?1000:(u=="M"?1:(u=="K"?0.001:0.000001))); printf "%.1f", v*m}'
}
json_field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }

echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
printf '| network | photo | heaptrack peak (MB) | reported peak (MB) | predicted (MB) | target (MB) | met |\n|---|---|---|---|---|---|---|\n'
row() {  # name target photo mdfi-args...
  local name=$1 target=$2 photo=$3
  shift 3
  rm -f "$WORK"/ht.* "$WORK/report.json"
  heaptrack -o "$WORK/ht" "$MDFI" detect -q -j2 "$@" "--mem-report=$WORK/report.json" "$WORK/$photo" >/dev/null 2>&1
  local heap reported predicted
  heap=$(peak_heap_mb "$WORK"/ht.*)
  reported=$(python3 -c "print(round($(json_field "$WORK/report.json" peak_bytes)/1e6,1))")
  predicted=$(python3 -c "print(round($(json_field "$WORK/report.json" predicted_peak_bytes)/1e6,1))")
  local met=no
  python3 -c "import sys; sys.exit(0 if $heap <= $target else 1)" && met=yes
  printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$name" "$photo" "$heap" "$reported" "$predicted" "$target" "$met"
}
xl=(-c "$XL/yolo-fastest-1.1-xl.cfg" -w "$XL/yolo-fastest-1.1-xl.weights" --names "$XL/coco.names")
row Yolo-Fastest-1.1-XL 8 photo_4056x3040.jpg "${xl[@]}"
row Yolo-Fastest-1.1-XL 8 photo_8000x6000.jpg "${xl[@]}"
row yolov3-416 40 photo_8000x6000.jpg --net yolov3 -w "$WORK/yolov3.weights"

echo
# Decode + letterbox in milliseconds: the whole command on the costless network, median of
# REPEAT interleaved rounds, minus the same on a 16x16 photo (process start, model, output).
wall_ms() {  # image, extra args...
  local img=$1
  shift
  local t0 t1
  t0=$(date +%s%N)
  "$MDFI" classify -q -j1 -c "$WORK/pool.cfg" -w "$WORK/pool.weights" "$@" "$img" >/dev/null
  t1=$(date +%s%N)
  echo $(( (t1 - t0) / 1000 ))
}
declare -a w_base w_stb w_row w_fast
for ((r = 0; r < REPEAT; r++)); do
  w_base+=("$(wall_ms "$WORK/photo_16x16.jpg")")
  w_stb+=("$(wall_ms "$WORK/photo_4056x3040.jpg" --decoder stb)")
  w_row+=("$(wall_ms "$WORK/photo_4056x3040.jpg")")
  w_fast+=("$(wall_ms "$WORK/photo_4056x3040.jpg" --fast-decode)")
done
median_us() { printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
b=$(median_us "${w_base[@]}")
stb=$(python3 -c "print('%.1f' % (($(median_us "${w_stb[@]}") - $b) / 1000))")
rows=$(python3 -c "print('%.1f' % (($(median_us "${w_row[@]}") - $b) / 1000))")
fast=$(python3 -c "print('%.1f' % (($(median_us "${w_fast[@]}") - $b) / 1000))")
printf '| decode + letterbox, 4056x3040 JPEG | ms (median of %s, one thread) | vs stb_image path | target |\n|---|---|---|---|\n' "$REPEAT"
printf '| stb_image, whole image (--decoder stb, the old path) | %s | 1.00 | |\n' "$stb"
printf '| libjpeg-turbo row by row (default) | %s | %s | <= 0.5 |\n' "$rows" "$(python3 -c "print('%.2f' % ($rows/$stb))")"
printf '| libjpeg-turbo --fast-decode | %s | %s | <= 0.15 |\n' "$fast" "$(python3 -c "print('%.2f' % ($fast/$stb))")"

# Instructions (valgrind's callgrind: the same count whatever else the machine is doing) of
# decoding + letterboxing: the command on the 12 MP photo minus the same command on a 16x16 one.
if command -v valgrind >/dev/null; then
  insns() {  # image, extra args...
    local img=$1
    shift
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$MDFI" classify -q -j1 -c "$WORK/pool.cfg" \
      -w "$WORK/pool.weights" "$@" "$img" 2>&1 >/dev/null | awk '/Collected/ {print $NF}'
  }
  echo
  printf '| decode + letterbox, 4056x3040 JPEG | instructions (M) | vs stb_image path | target |\n|---|---|---|---|\n'
  base=$(insns "$WORK/photo_16x16.jpg")
  i_stb=$(( $(insns "$WORK/photo_4056x3040.jpg" --decoder stb) - base ))
  i_row=$(( $(insns "$WORK/photo_4056x3040.jpg") - base ))
  i_fast=$(( $(insns "$WORK/photo_4056x3040.jpg" --fast-decode) - base ))
  printf '| stb_image, whole image (--decoder stb, the old path) | %s | 1.00 | |\n' "$((i_stb / 1000000))"
  printf '| libjpeg-turbo row by row (default) | %s | %s | <= 0.5 |\n' "$((i_row / 1000000))" "$(python3 -c "print('%.2f' % ($i_row/$i_stb))")"
  printf '| libjpeg-turbo --fast-decode | %s | %s | <= 0.15 |\n' "$((i_fast / 1000000))" "$(python3 -c "print('%.2f' % ($i_fast/$i_stb))")"
fi
