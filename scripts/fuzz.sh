#!/usr/bin/env bash
# Builds the libFuzzer targets (Debian clang + libclang-rt-14-dev, ASan+UBSan) into build-fuzz/
# and runs one of them for SECONDS, niced, on one core. Usage: scripts/fuzz.sh TARGET SECONDS
#   TARGET: cfg | weights | image (or fuzz_cfg, fuzz_weights, fuzz_image)
# The corpus grows in build-fuzz/corpus/TARGET, seeded from test/bad/ and the shipped cfgs; a
# crash is written to build-fuzz/crashes/TARGET/ and the script exits non-zero. Every crash found
# belongs in test/bad/ (with its expected error in test/bad/cases.txt) once fixed.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 2 ] || { echo "usage: scripts/fuzz.sh cfg|weights|image SECONDS" >&2; exit 2; }
target="fuzz_${1#fuzz_}"
seconds="$2"
case "$target" in fuzz_cfg|fuzz_weights|fuzz_image) ;; *) echo "unknown target $1" >&2; exit 2 ;; esac
command -v clang++ >/dev/null || { echo "fuzz.sh: clang++ missing; run scripts/setup-debian.sh" >&2; exit 1; }
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
flags="-g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all"
cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_C_FLAGS="$flags" -DMDFI_FUZZ=ON -DMDFI_BUILD_TESTS=OFF \
  "${launcher[@]}" >/dev/null
cmake --build build-fuzz --target "$target" -j"$(nproc)"

corpus="build-fuzz/corpus/$target"
crashes="build-fuzz/crashes/$target"
mkdir -p "$corpus" "$crashes"
case "$target" in
  fuzz_cfg) seeds=(test/bad/cfg cfg) ;;
  fuzz_weights) seeds=() ;;
  fuzz_image) seeds=(test/bad/img) ;;
esac
for d in "${seeds[@]}"; do [ -d "$d" ] && cp -n "$d"/* "$corpus"/ 2>/dev/null || true; done
dict=()
[ "$target" = fuzz_cfg ] && [ -f test/fuzz/cfg.dict ] && dict=(-dict=test/fuzz/cfg.dict)
export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
nice -n 10 "build-fuzz/test/fuzz/$target" "$corpus" "${dict[@]}" -max_total_time="$seconds" -timeout=30 \
  -rss_limit_mb=4096 -max_len=65536 -artifact_prefix="$crashes/" -print_final_stats=1
