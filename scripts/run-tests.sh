#!/usr/bin/env bash
# The whole test suite, as CI runs it: install, build, test; then the same without CUDA when the
# first build had it, since the CPU-only build must keep working.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
. "$root/scripts/mpi-env.sh"

"$root/scripts/build.sh" "$root/build"
(cd "$root/build" && ctest --output-on-failure --timeout 600)

if grep -q '^NPGPU_HAVE_CUDA:INTERNAL=ON' "$root/build/CMakeCache.txt" 2>/dev/null; then
  "$root/scripts/build.sh" "$root/build-nocuda" -DNPGPU_CUDA=OFF
  (cd "$root/build-nocuda" && ctest --output-on-failure --timeout 600)
fi
