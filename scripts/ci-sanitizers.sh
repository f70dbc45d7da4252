#!/usr/bin/env bash
# The sanitizer CI job: builds build-asan/ with AddressSanitizer + UndefinedBehaviorSanitizer
# (LeakSanitizer on, every report fatal) and runs the unit, robustness and CLI tests in it - the
# robustness tests drive the sanitized mdfi binary through the whole bad-input corpus, OOM
# injection and I/O faults, so every error path is leak-checked at each process exit. Then one
# full yolov3-tiny detect run (generated weights) must exit 0 with no report.
# Called from .ci/run after the README test command; extra arguments go to mdfi_tests.
set -euo pipefail
cd "$(dirname "$0")/.."
san="-fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all -fno-omit-frame-pointer"
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
# The libdarknet reference helper is not ours to sanitize; the parity tests run in the main job.
# -O1 -g1: a third of RelWithDebInfo's compile time (the job builds from scratch in CI) with
# stacks that still name the lines.
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" -DCMAKE_C_FLAGS_DEBUG="-O1 -g1" \
  -DCMAKE_CXX_FLAGS="$san" -DCMAKE_C_FLAGS="$san" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" -DMDFI_DARKNET_TESTS=OFF "${launcher[@]}" >/dev/null
cmake --build build-asan -j"$(nproc)" --target mdfi mdfi_tests

export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:detect_stack_use_after_return=1:strict_string_checks=1:allocator_may_return_null=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
echo "== sanitizers: unit, robustness and CLI tests"
# Exit 77 = something skipped, nothing failed (test/main.cpp); with CI=true a missing ../shared
# or PoCL is a failure instead, so 77 only happens on a developer's machine.
rc=0
build-asan/test/mdfi_tests "${@:-[support],[shapes],[parser],[weights],[layers],[plan],[memory],[image],[camera],[detect],[robustness],[cli]}" || rc=$?
if [ "$rc" -eq 77 ]; then echo "sanitizers: some tests SKIPPED (listed above)"; elif [ "$rc" -ne 0 ]; then exit "$rc"; fi

echo "== sanitizers: a full yolov3-tiny detect run, leak-checked at exit"
tmp=build-asan/test/tmp/asan-yolov3-tiny
mkdir -p "$tmp"
build-asan/app/mdfi gen-weights -q --cfg cfg/yolov3-tiny.cfg -o "$tmp/yolov3-tiny.weights"
build-asan/app/mdfi detect --cfg cfg/yolov3-tiny.cfg --weights "$tmp/yolov3-tiny.weights" \
  test/bad/good/small.png >"$tmp/out.txt" 2>"$tmp/err.txt" || { cat "$tmp/err.txt"; exit 1; }
if grep -q "Sanitizer\|runtime error" "$tmp/err.txt"; then cat "$tmp/err.txt"; exit 1; fi
echo "sanitizers: no reports"
