#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, runs every test with ctest.
# This is the README's test command and what .ci/run runs first.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-debian.sh
scripts/build.sh
cd build
ctest --output-on-failure -j1 "$@"
