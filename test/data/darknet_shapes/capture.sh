#!/bin/sh
# Regenerates ../darknet_shapes.txt from the installed darknet package: for every cfg in
# /usr/share/darknet/cfg (batch forced to 1 so training cfgs fit in memory), the layer types and
# output shapes libdarknet builds and the BFLOPs it prints. Run by hand; the output is checked in.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O1 "$here/shape_dump.c" -I/usr/lib/darknet/include -L/usr/lib/darknet -ldarknet \
   -Wl,-rpath,/usr/lib/darknet -lm -o "$tmp/shape_dump"
out="$here/../darknet_shapes.txt"
{
  echo "# Captured from libdarknet ($(dpkg-query -W -f='${Package} ${Version}' darknet 2>/dev/null || echo darknet))"
  echo "# by test/data/darknet_shapes/capture.sh. Per cfg: 'cfg NAME', then per layer"
  echo "# 'L index darknet_type out_c out_h out_w outputs bflops' (bflops '-' where darknet prints none)."
  for f in /usr/share/darknet/cfg/*.cfg; do
    name=$(basename "$f")
    sed -E 's/^[[:space:]]*batch[[:space:]]*=.*/batch=1/; s/^[[:space:]]*subdivisions[[:space:]]*=.*/subdivisions=1/' "$f" > "$tmp/$name"
    if ! "$tmp/shape_dump" "$tmp/$name" > "$tmp/layers.txt" 2> "$tmp/table.txt"; then
      echo "# $name: darknet cannot build it"
      continue
    fi
    echo "cfg $name"
    # Conv lines of darknet's table end in "N.NNN BFLOPs"; key them by layer index.
    awk 'FNR==NR { if ($NF == "BFLOPs") fl[$1] = $(NF-1); next }
         { print $0, (($2 in fl) ? fl[$2] : "-") }' "$tmp/table.txt" "$tmp/layers.txt"
  done
} > "$out"
echo "wrote $out"
