#!/usr/bin/env bash
# Where mdfi and ncnn differ, layer by layer, on one of bench/ncnn.sh's models (issue 18): ncnn
# has no per-layer timer in its release build, so ncnn_bench times the run up to each Darknet
# layer's blob (NCNN_BLOB: ncnn computes only that blob's ancestors) and mdfi's per-layer medians
# (`mdfi bench -f csv`) are summed over the same ancestors (from the cfg's route/shortcut
# sources). Rows whose ancestors are those of one earlier layer plus itself also get ncnn's own
# time for the layer (the difference of the two runs). Same input tensor for both (mdfi's, as
# bench/ncnn.sh); not interleaved, so compare big differences only, on an idle machine.
#
# Usage: MODEL=yolov4-tiny THREADS=2 REPS=15 [KEEP=1] bench/ncnn-layers.sh
#   KEEP=1: mdfi --keep-weights (ncnn always holds its weights).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/ncnn-models.sh
IMAGE=${IMAGE:-$SHARED/models/images/dog.jpg}
MODEL=${MODEL:-yolov4-tiny}
THREADS=${THREADS:-2}
REPS=${REPS:-15}
[ -f "$PEER/ncnn-x86_64-install.tgz" ] || { echo "needs $PEER/ncnn-x86_64-install.tgz" >&2; exit 2; }
[ -x "$MDFI" ] || { echo "needs $MDFI (scripts/build.sh)" >&2; exit 2; }
BENCH=$(ncnn_bench_built)
ncnn_model "$MODEL"
input="$WORK/input-$MODEL.npy"
if [ ! -f "$input" ]; then
  rm -rf "$WORK/dump-layers"
  "$MDFI" -q "$cmd" -c "$cfg" -w "$weights" -j 1 --dump-layers "$WORK/dump-layers" "$IMAGE" >/dev/null
  cp "$WORK/dump-layers/input.npy" "$input"
  rm -rf "$WORK/dump-layers"
fi
keep=()
[ "${KEEP:-0}" = 1 ] && keep=(--keep-weights)
"$MDFI" bench -c "$cfg" -w "$weights" -j "$THREADS" --warmup 1 -r "$REPS" -f csv "${keep[@]}" "$IMAGE" 2>/dev/null |
  grep -v '^#' > "$WORK/mdfi-layers.csv"
# The last blob of each Darknet layer in the converted .param (darknet2ncnn names them N_...).
awk 'NR > 2 { split($2, a, "_"); if (a[1] ~ /^[0-9]+$/) { if (!(a[1] in last)) order[++n] = a[1]; last[a[1]] = $(5 + $3) } }
     END { for (i = 1; i <= n; ++i) print order[i], last[order[i]] }' "$param" > "$WORK/ncnn-blobs.txt"
: > "$WORK/ncnn-cumulative.txt"
while read -r k blob; do
  ms=$(NCNN_BLOB=$blob "$BENCH" "$param" "$bin" "$input" "$THREADS" "$REPS" | sed -n 's/^ncnn_ms=\([0-9.]*\).*/\1/p')
  echo "$k $ms" >> "$WORK/ncnn-cumulative.txt"
done < "$WORK/ncnn-blobs.txt"
python3 - "$cfg" "$WORK/mdfi-layers.csv" "$WORK/ncnn-cumulative.txt" <<'PY'
import re, sys
cfg, mdfi_csv, ncnn_txt = sys.argv[1:4]
# Each layer's sources, from Darknet's cfg grammar (route layers=, shortcut/sam/scale_channels from=).
sections = []
for line in open(cfg):
    line = line.split('#')[0].strip()
    if line.startswith('['):
        sections.append({'type': line.strip('[]').strip(), 'keys': {}})
    elif '=' in line and sections:
        k, v = line.split('=', 1)
        sections[-1]['keys'][k.strip()] = v.strip()
layers = [s for s in sections if s['type'] not in ('net', 'network')]
def absolute(i, v):
    v = int(v)
    return i + v if v < 0 else v
sources = []
for i, s in enumerate(layers):
    src = [i - 1] if i > 0 else []
    if s['type'] == 'route':
        src = [absolute(i, v) for v in s['keys']['layers'].split(',')]
    elif 'from' in s['keys']:
        src = [i - 1] + [absolute(i, v) for v in s['keys']['from'].split(',')]
    sources.append(src)
ancestors = []
for i, src in enumerate(sources):
    a = {i}
    for j in src:
        if j >= 0: a |= ancestors[j]
    ancestors.append(a)
mdfi = {}
for row in open(mdfi_csv):
    f = row.strip().split(',')
    if f and f[0].isdigit(): mdfi[int(f[0])] = (f[1], float(f[3]))
ncnn = {}
for row in open(ncnn_txt):
    f = row.split()
    if len(f) == 2: ncnn[int(f[0])] = float(f[1])
print('| layer | type | mdfi ms | ncnn ms (own) | mdfi up to here | ncnn up to here | mdfi / ncnn up to here |')
print('|---|---|---|---|---|---|---|')
for k in sorted(mdfi):
    kind, ms = mdfi[k]
    cum = sum(mdfi[j][1] for j in ancestors[k] if j in mdfi)
    own = ''
    if k in ncnn:
        for j in sources[k]:
            if j in ncnn and ancestors[k] == ancestors[j] | {k}:
                d = ncnn[k] - ncnn[j]
                own = '%.2f' % d if d >= 0.05 else '~0'  # below the runs' noise
        print('| %d | %s | %.2f | %s | %.2f | %.2f | %.2f |' % (k, kind, ms, own, cum, ncnn[k], cum / ncnn[k] if ncnn[k] else 0))
    else:
        print('| %d | %s | %.2f | | %.2f | | |' % (k, kind, ms, cum))
PY
echo
mode=streamed
[ "${KEEP:-0}" = 1 ] && mode=--keep-weights
echo "host: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs; model $MODEL; threads $THREADS; $REPS runs per median; mdfi $mode; load $(cut -d' ' -f1-3 /proc/loadavg)"
