#!/usr/bin/env bash
# Downloads the official weights of a named network (mdfi models) into the weights directory
# mdfi searches ($MDFI_WEIGHTS_DIR, default ~/.local/share/mdfi/weights) and checks the file's
# SHA-256 where one is known. For users with internet access; the tests never call it.
#
#   scripts/get-weights.sh yolov3-tiny      download and verify
#   scripts/get-weights.sh --list           name, file, url, sha256 (tab-separated)
#
# The table mirrors app/named_nets.cpp (a test compares the two). pjreddie.com publishes no
# checksums; the two known values are those recorded by several independent public download
# manifests. "unknown" means the file is downloaded but cannot be verified.
set -euo pipefail

TABLE="yolov3	yolov3.weights	https://pjreddie.com/media/files/yolov3.weights	523e4e69e1d015393a1b0a441cef1d9c7659e3eb2d7e15f793f060a21b32f297
yolov3-tiny	yolov3-tiny.weights	https://pjreddie.com/media/files/yolov3-tiny.weights	dccea06f59b781ec1234ddf8d1e94b9519a97f4245748a7d4db75d5b7080a42c
alexnet	alexnet.weights	https://pjreddie.com/media/files/alexnet.weights	unknown
tiny	tiny.weights	https://pjreddie.com/media/files/tiny.weights	unknown
darknet19	darknet19.weights	https://pjreddie.com/media/files/darknet19.weights	unknown
darknet53	darknet53.weights	https://pjreddie.com/media/files/darknet53.weights	unknown
resnet50	resnet50.weights	https://pjreddie.com/media/files/resnet50.weights	unknown"

usage() {
  echo "usage: $0 NAME | --list" >&2
  echo "names: $(printf '%s\n' "$TABLE" | cut -f1 | tr '\n' ' ')" >&2
  exit 2
}

[ $# -eq 1 ] || usage
if [ "$1" = "--list" ]; then
  printf '%s\n' "$TABLE"
  exit 0
fi
row=$(printf '%s\n' "$TABLE" | awk -F'\t' -v n="$1" '$1 == n')
[ -n "$row" ] || { echo "get-weights: unknown network '$1'" >&2; usage; }
file=$(printf '%s' "$row" | cut -f2)
url=$(printf '%s' "$row" | cut -f3)
sha=$(printf '%s' "$row" | cut -f4)

dir="${MDFI_WEIGHTS_DIR:-$HOME/.local/share/mdfi/weights}"
mkdir -p "$dir"
dest="$dir/$file"
tmp="$dest.part"
trap 'rm -f "$tmp"' EXIT

echo "get-weights: $url -> $dest" >&2
if command -v curl >/dev/null; then
  curl -fL --retry 3 -o "$tmp" "$url"
elif command -v wget >/dev/null; then
  wget -O "$tmp" "$url"
else
  echo "get-weights: needs curl or wget" >&2
  exit 1
fi

if [ "$sha" != unknown ]; then
  got=$(sha256sum "$tmp" | cut -d' ' -f1)
  if [ "$got" != "$sha" ]; then
    echo "get-weights: SHA-256 mismatch for $file: expected $sha, got $got; file discarded" >&2
    exit 1
  fi
  echo "get-weights: SHA-256 OK ($sha)" >&2
else
  echo "get-weights: no published SHA-256 for $file; size and cfg fit are checked by 'mdfi info --net $1 -w $dest'" >&2
fi
mv "$tmp" "$dest"
trap - EXIT
echo "$dest"
