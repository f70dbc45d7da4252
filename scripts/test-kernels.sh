#!/usr/bin/env bash
# The groups whose verdicts could depend on the host, once per GEMM micro-kernel this CPU runs
# besides the one it chooses, which scripts/test.sh has just run (MDFI_KERNEL=avx512|avx2|
# generic|neon; avx2-8, the narrow tile Winograd uses for its last panels, is never a CPU's
# default and has unit tests of its own), and once at one thread, so that a suite that passes on
# one machine passes on the others: the kernel fixes the panel widths the planner blocks by and
# the order of every sum, and the thread count changes the plan's workspaces and Winograd/GEMM
# choices (README.md, "What depends on the host").
# Run by .ci/run after scripts/test.sh, on an existing build/ (extra arguments go to ctest).
set -euo pipefail
cd "$(dirname "$0")/.."
mdfi=build/app/mdfi
groups='^(layers|plan|detect|parity|alexeyab|models)$'
[ -x "$mdfi" ] || { echo "test-kernels: $mdfi is not built (run scripts/build.sh)" >&2; exit 1; }

# "SIMD: ... the 'avx512' GEMM micro-kernel, chosen at run time ...; also usable here: avx2, generic, via MDFI_KERNEL"
simd=$("$mdfi" --version | grep '^SIMD:')
chosen=$(sed -n "s/.*the '\([a-z0-9-]*\)' GEMM micro-kernel.*/\1/p" <<<"$simd")
others=$(sed -n 's/.*also usable here: \(.*\), via MDFI_KERNEL.*/\1/p' <<<"$simd" | tr -d ',')
# The chosen kernel's run is scripts/test.sh's own (.ci/run runs it first): the others here.
kernels="$others"
echo "test-kernels: chosen here: $chosen (run by scripts/test.sh); also run now: ${kernels:-none}"

status=0
for k in $kernels; do
  # A kernel name mdfi does not take would silently run the default one: check it is in force.
  if ! MDFI_KERNEL=$k "$mdfi" --version | grep -q "'$k' GEMM micro-kernel, forced by MDFI_KERNEL"; then
    echo "test-kernels: MDFI_KERNEL=$k is not in force: $(MDFI_KERNEL=$k "$mdfi" --version | grep '^SIMD:')" >&2
    status=1
    continue
  fi
  echo "== MDFI_KERNEL=$k"
  (cd build && MDFI_KERNEL=$k ctest --output-on-failure -j1 -R "$groups" "$@") || status=1
done
echo "== one thread (OMP_NUM_THREADS=1), kernel $chosen"
(cd build && OMP_NUM_THREADS=1 ctest --output-on-failure -j1 -R "$groups" "$@") || status=1
exit $status
