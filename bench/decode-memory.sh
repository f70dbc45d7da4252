#!/usr/bin/env bash
# mdfi's reported peak heap against heaptrack's whole-process peak on every decode path (issue
# 41.5): a 12 MP photo (dog.jpg scaled up, 4000x3000 by default) written by bench/decode_images.cpp
# (libjpeg, libpng; no ImageMagick) as a baseline JPEG, CMYK and YCCK JPEGs (Adobe APP14), a
# progressive JPEG, a JPEG stored turned with EXIF orientation 6 (run with and without
# --exif-rotate), a PNG, an interlaced PNG (libpng, whole image) and a BMP (stb_image, whole
# image), each run through `mdfi detect` (Yolo-Fastest-1.1-XL, 2 threads) under heaptrack. Prints
# a markdown table: path, reported peak, predicted peak, heaptrack peak, reported - heaptrack.
# The last row, a JPEG under --decoder stb, is the one path whose figure is an upper bound: its
# planes at their sampling plus the RGB image, from the frame header (2.7 MB over heaptrack at
# 4000x3000); GIF and TGA stay at file + 12 bytes a pixel.
# Needs ../shared/models, heaptrack, libjpeg and libpng headers (scripts/setup-debian.sh).
# Usage: bench/decode-memory.sh [W H]      (MDFI=path/to/mdfi, WORK=scratch directory)
set -euo pipefail
cd "$(dirname "$0")/.."
MDFI=${MDFI:-build/app/mdfi}
WORK=${WORK:-/tmp/mdfi-bench-decode-memory}
W=${1:-4000}
H=${2:-3000}
XL=../shared/models/yolo-fastest-1.1-xl-coco
mkdir -p "$WORK"
[ -x "$MDFI" ] || scripts/build.sh
command -v heaptrack >/dev/null || { echo "heaptrack missing: run scripts/setup-debian.sh" >&2; exit 1; }
[ -f "$XL/yolo-fastest-1.1-xl.weights" ] || { echo "../shared/models is missing" >&2; exit 1; }
SRC=/usr/share/darknet/data/dog.jpg
[ -f "$SRC" ] || SRC=$(ls ../shared/models/images/*.jpg | head -1)

c++ -O2 bench/decode_images.cpp -ljpeg -lpng -o "$WORK/decode_images"
"$WORK/decode_images" "$SRC" "$W" "$H" "$WORK"

# heaptrack_print's "peak heap memory consumption: 91.83M" in bytes (its units are powers of 1000).
peak_heap_bytes() {
  heaptrack_print -f "$1" 2>/dev/null | awk '/peak heap memory consumption/ {v=$NF; u=v; gsub(/[0-9.]/,"",u); gsub(/[A-Za-z]/,"",v);
    m=(u=="G"?1e9:(u=="M"?1e6:(u=="K"?1e3:1))); printf "%.0f", v*m}'
}
json_field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }
mb() { python3 -c "import sys; print(f'{int(sys.argv[1])/1e6:.2f}')" "$1"; }

echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "mdfi: $("$MDFI" --version 2>/dev/null | head -1); ${W}x${H} images; Yolo-Fastest-1.1-XL, -j2"
echo
printf '| path | image | mdfi reported (MB) | predicted (MB) | heaptrack (MB) | reported - heaptrack (MB) |\n'
printf '|---|---|---|---|---|---|\n'
xl=(-c "$XL/yolo-fastest-1.1-xl.cfg" -w "$XL/yolo-fastest-1.1-xl.weights" --names "$XL/coco.names")
row() {  # label image mdfi-args...
  local label=$1 image=$2
  shift 2
  rm -f "$WORK"/ht.* "$WORK/report.json"
  heaptrack -o "$WORK/ht" "$MDFI" detect -q -j2 "${xl[@]}" "$@" "--mem-report=$WORK/report.json" \
    "$WORK/$image" >/dev/null 2>&1
  local heap reported predicted
  heap=$(peak_heap_bytes "$(ls "$WORK"/ht.* | head -1)")
  reported=$(json_field "$WORK/report.json" peak_bytes)
  predicted=$(json_field "$WORK/report.json" predicted_peak_bytes)
  printf '| %s | %s | %s | %s | %s | %+.2f |\n' "$label" "$image" "$(mb "$reported")" "$(mb "$predicted")" "$(mb "$heap")" \
    "$(python3 -c "print(($reported - $heap) / 1e6)")"
}
row "baseline JPEG (libjpeg rows)" baseline.jpg
row "baseline JPEG, --fast-decode" baseline.jpg --fast-decode
row "CMYK JPEG (Adobe, inverted)" cmyk.jpg
row "CMYK JPEG, --fast-decode" cmyk.jpg --fast-decode
row "YCCK JPEG (Adobe)" ycck.jpg
row "progressive JPEG (coefficients)" progressive.jpg
row "EXIF 6, as stored" exif6.jpg
row "EXIF 6, --exif-rotate" exif6.jpg --exif-rotate
row "EXIF 6, --exif-rotate --fast-decode" exif6.jpg --exif-rotate --fast-decode
row "PNG (libpng rows)" plain.png
row "interlaced PNG (libpng, whole image)" interlaced.png
row "BMP (stb_image, whole image)" plain.bmp
row "baseline JPEG, --decoder stb (upper bound)" baseline.jpg --decoder stb
