#!/usr/bin/env bash
# Downloads the official weights of a named network (mdfi models) into the weights directory
# mdfi searches ($MDFI_WEIGHTS_DIR, default ~/.local/share/mdfi/weights), checks the file's size
# against the cfg (a Darknet weights file is its 16- or 20-byte header plus 4 bytes per
# parameter) and its SHA-256 where the publisher gives one. For users with internet access.
#
# The table mirrors app/named_nets.cpp and the parameter counts of cfg/ (a test compares them
# with `mdfi models --porcelain`). pjreddie.com, AlexeyAB's releases and the Yolo-Fastest and
# MobileNetV2-YOLOv3 repositories publish no checksums; the two known values are those recorded
# by several independent public download manifests. "unknown" means only the size is checked.
set -uo pipefail

TABLE="yolov3	yolov3.weights	https://pjreddie.com/media/files/yolov3.weights	523e4e69e1d015393a1b0a441cef1d9c7659e3eb2d7e15f793f060a21b32f297	62001757
yolov3-tiny	yolov3-tiny.weights	https://pjreddie.com/media/files/yolov3-tiny.weights	dccea06f59b781ec1234ddf8d1e94b9519a97f4245748a7d4db75d5b7080a42c	8858734
yolov4-tiny	yolov4-tiny.weights	https://github.com/AlexeyAB/darknet/releases/download/darknet_yolo_v4_pre/yolov4-tiny.weights	unknown	6062814
yolov7-tiny	yolov7-tiny.weights	https://github.com/AlexeyAB/darknet/releases/download/yolov4/yolov7-tiny.weights	unknown	6241885
yolov4	yolov4.weights	https://github.com/AlexeyAB/darknet/releases/download/darknet_yolo_v3_optimal/yolov4.weights	unknown	64429405
yolo-fastest-1.1	yolo-fastest-1.1.weights	https://raw.githubusercontent.com/dog-qiuqiu/Yolo-Fastest/96a2900d163196c396e73f3fdab04ca4dd9a2f70/ModelZoo/yolo-fastest-1.1_coco/yolo-fastest-1.1.weights	unknown	346062
yolo-fastest-1.1-xl	yolo-fastest-1.1-xl.weights	https://raw.githubusercontent.com/dog-qiuqiu/Yolo-Fastest/96a2900d163196c396e73f3fdab04ca4dd9a2f70/ModelZoo/yolo-fastest-1.1_coco/yolo-fastest-1.1-xl.weights	unknown	923486
mobilenetv2-yolov3-nano	MobileNetV2-YOLOv3-Nano-coco.weights	https://raw.githubusercontent.com/dog-qiuqiu/MobileNetv2-YOLOV3/86c05bfc4e508d54a459a469faecc35a113454c1/MobileNetV2-YOLOv3-Nano/COCO/MobileNetV2-YOLOv3-Nano-coco.weights	unknown	891070
alexnet	alexnet.weights	https://pjreddie.com/media/files/alexnet.weights	unknown	62378344
tiny	tiny.weights	https://pjreddie.com/media/files/tiny.weights	unknown	1046488
darknet19	darknet19.weights	https://pjreddie.com/media/files/darknet19.weights	unknown	20856776
darknet53	darknet53.weights	https://pjreddie.com/media/files/darknet53.weights	unknown	41645640
resnet50	resnet50.weights	https://pjreddie.com/media/files/resnet50.weights	unknown	22825896"

usage() {
  cat <<USAGE
usage: get-weights.sh NAME       download NAME's official weights, check them, print the path
       get-weights.sh --list     name, file, url, sha256, parameters (tab-separated)
       get-weights.sh --help

Writes to \$MDFI_WEIGHTS_DIR (default ~/.local/share/mdfi/weights), where 'mdfi --net NAME'
looks. A download is accepted only when its size fits the cfg (header + 4 bytes per parameter)
and, where the publisher gives one, its SHA-256 matches; otherwise nothing is written.
MDFI_WEIGHTS_MIRROR=URL fetches URL/FILE instead of the official location (a local mirror).
Offline: download the file elsewhere and copy it to the path printed on failure.

names: $(printf '%s\n' "$TABLE" | cut -f1 | tr '\n' ' ')
exit codes: 0 done, 1 download or check failed, 2 usage error
USAGE
}

case "${1:-}" in
  -h|--help) usage; exit 0 ;;
  --list) [ $# -eq 1 ] || { usage >&2; exit 2; }; printf '%s\n' "$TABLE"; exit 0 ;;
  "") usage >&2; exit 2 ;;
  -*) echo "get-weights: unknown option '$1' (see --help)" >&2; exit 2 ;;
esac
[ $# -eq 1 ] || { echo "get-weights: one network name at a time (see --help)" >&2; exit 2; }
row=$(printf '%s\n' "$TABLE" | awk -F'\t' -v n="$1" '$1 == n')
if [ -z "$row" ]; then
  echo "get-weights: unknown network '$1'; known: $(printf '%s\n' "$TABLE" | cut -f1 | tr '\n' ' ')" >&2
  exit 2
fi
IFS=$'\t' read -r name file url sha params <<<"$row"
[ -n "${MDFI_WEIGHTS_MIRROR:-}" ] && url="${MDFI_WEIGHTS_MIRROR%/}/$file"

dir="${MDFI_WEIGHTS_DIR:-$HOME/.local/share/mdfi/weights}"
dest="$dir/$file"
if ! mkdir -p "$dir"; then
  echo "get-weights: cannot create $dir" >&2
  exit 1
fi
tmp="$dest.part"
err="$dest.err"
trap 'rm -f "$tmp" "$err"' EXIT

expect=$((20 + 4 * params))  # version 0.2+ header (64-bit seen); 0.1 files have a 16-byte header
# On a terminal, say what is coming (yolov4 is 258 MB); in scripts a failure stays one line.
[ -t 2 ] && echo "get-weights: $url -> $dest ($((expect / 1000000)) MB)" >&2
if command -v curl >/dev/null; then
  curl -fsSL -o "$tmp" "$url" 2>"$err"
elif command -v wget >/dev/null; then
  wget -nv -O "$tmp" "$url" 2>"$err"
else
  echo "get-weights: needs curl or wget; download $url by hand and put it at $dest" >&2
  exit 1
fi
rc=$?
if [ $rc -ne 0 ]; then
  why=$(tail -n 1 "$err" 2>/dev/null | sed 's/^curl: //')
  echo "get-weights: download failed (${why:-exit $rc}); download $url by hand and put it at $dest" >&2
  exit 1
fi

size=$(wc -c <"$tmp" | tr -d ' ')
if [ "$size" -ne "$expect" ] && [ "$size" -ne $((expect - 4)) ]; then
  echo "get-weights: $url gave $size bytes, but $name's cfg needs $expect ($params parameters); file discarded" >&2
  exit 1
fi
if [ "$sha" != unknown ]; then
  got=$(sha256sum "$tmp" | cut -d' ' -f1)
  if [ "$got" != "$sha" ]; then
    echo "get-weights: SHA-256 mismatch for $file: expected $sha, got $got; file discarded" >&2
    exit 1
  fi
  echo "get-weights: size and SHA-256 OK" >&2
else
  echo "get-weights: size fits the cfg ($size bytes); no SHA-256 is published for $file" >&2
fi
mv "$tmp" "$dest"
echo "$dest"
