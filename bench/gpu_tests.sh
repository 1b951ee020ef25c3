#!/usr/bin/env bash
# The gpu-labelled tests, on a GPU machine, from a build folder made on another machine (one with
# the build dependencies; the GPU machine needs only the run-time libraries).
#
#   bench/gpu_tests.sh [BUILD]          # BUILD defaults to build/; about 3 minutes on 2 x H200
#
# CTest and the tests name the paths the folder was built at, so where the repository or the build
# folder sits elsewhere now, those paths are linked to where they are.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)

built_at() { sed -n "s/^$1:INTERNAL=//p" "$build/CMakeCache.txt"; }
link_to() {  # link_to ORIGINAL NOW: make the original path reach the folder where it is now
  if [ "$1" != "$2" ] && [ ! -e "$1" ]; then
    mkdir -p "$(dirname "$1")" && ln -s "$2" "$1" && echo "gpu_tests.sh: linked $1 -> $2"
  fi
}
link_to "$(built_at CMAKE_HOME_DIRECTORY)" "$root"
link_to "$(built_at CMAKE_CACHEFILE_DIR)" "$build"

missing=$(ldd "$build/npgpu" | awk '/not found/ {print $1}' | tr '\n' ' ')
if [ -n "$missing" ]; then
  echo "gpu_tests.sh: npgpu needs libraries this machine lacks: $missing" >&2
  exit 1
fi
grep -q '^NPGPU_HAVE_CUDA:INTERNAL=ON' "$build/CMakeCache.txt" || { echo "gpu_tests.sh: $build was built without CUDA" >&2; exit 1; }

nvidia-smi -L || true
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd "$build" && ctest -L gpu --output-on-failure --timeout 300
