#!/usr/bin/env bash
# Where the aarch64 instructions of one inference go: runs a program under qemu-aarch64 with
# bench/qemu-insn/insn_profile.c (a TCG plugin that sums executed instructions per symbol), once
# with the image and once with it twice, and prints the difference per symbol, largest first -
# the same "two images minus one" as bench/arm-insn-count.sh, so start-up cancels out.
#   bench/arm-insn-profile.sh build-aarch64/app/mdfi detect -c X.cfg -w X.weights -q --threads 1
#   IMAGE=path.png TOP=40 bench/arm-insn-profile.sh build/ncnn-bench/ncnn_insn_aarch64 P.param P.bin 320 320
# Code in shared libraries has no symbol here: it is listed as "?0x<1 MiB region>" (qemu -strace
# shows which library was mapped there). Counts ignore caches and stalls: no Pi timing follows.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: $0 PROGRAM ARGS... (the image is appended)" >&2; exit 2; }
IMAGE=${IMAGE:-../shared/models/images/dog.png}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
plugin="$work/insn_profile.so"
cc -O2 -shared -fPIC -o "$plugin" bench/qemu-insn/insn_profile.c
emu=(qemu-aarch64 -L /usr/aarch64-linux-gnu -E LD_LIBRARY_PATH=/usr/aarch64-linux-gnu/lib -plugin "$plugin" -d plugin)
"${emu[@]}" -D "$work/one" "$@" "$IMAGE" >/dev/null
"${emu[@]}" -D "$work/two" "$@" "$IMAGE" "$IMAGE" >/dev/null
python3 - "$work/one" "$work/two" "${TOP:-30}" <<'PY'
import subprocess, sys
def load(path):
    total, per = 0, {}
    for line in open(path):
        if line.startswith('insns: '):
            total = int(line.split()[1])
        elif line.startswith('prof: '):
            _, n, sym = line.rstrip('\n').split(' ', 2)
            per[sym] = per.get(sym, 0) + int(n)
    return total, per
t1, a = load(sys.argv[1])
t2, b = load(sys.argv[2])
rows = sorted(((b.get(k, 0) - a.get(k, 0), k) for k in set(a) | set(b)), reverse=True)[:int(sys.argv[3])]
names = subprocess.run(['c++filt'], input='\n'.join(k for _, k in rows), capture_output=True, text=True).stdout.split('\n')
print(f"per inference: {(t2 - t1) / 1e6:.2f} M instructions (one-image run {t1 / 1e6:.2f} M)")
for (n, _), name in zip(rows, names):
    print(f"{n / 1e6:9.2f} M  {name[:140]}")
PY
