#!/usr/bin/env bash
# Configures and builds npgpu: scripts/build.sh [build-dir] [extra cmake arguments...]
# NPGPU_TARGETS names the targets to build (default: all of them, the tests included).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
shift || true
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release "$@"
targets=()
for target in ${NPGPU_TARGETS:-}; do targets+=(--target "$target"); done
cmake --build "$build" -j "$(nproc)" "${targets[@]}"
