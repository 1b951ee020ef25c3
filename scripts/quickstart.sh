#!/usr/bin/env bash
# One command for a new machine: install the dependencies, build, run the main job (MPI between
# two ranks; host<->GPU copies too when this build has CUDA and a GPU is present), then the survey
# of this machine with two ranks (scripts/npgpu-survey: every path, a report and plots).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
# npgpu alone: the tests are built by scripts/run-tests.sh, into the same build/.
NPGPU_TARGETS=npgpu "$root/scripts/build.sh" "$root/build"
. "$root/scripts/mpi-env.sh"
mkdir -p "$root/results"
cd "$root/results"
mpirun -np 2 "$root/build/npgpu" --module mpi -o quickstart.h5
if "$root/build/npgpu" --list-modules | grep -q '^cudaMemcpy .* available$'; then
  mpirun -np 1 "$root/build/npgpu" --module cudaMemcpy -o quickstart.h5
fi
echo "quickstart: curves in $root/results/quickstart.h5; draw them with scripts/npgpu-plot results/quickstart.h5"
"$root/scripts/npgpu-survey" --ranks 2 --npgpu "$root/build/npgpu" -o "$root/results/survey-$(date +%Y%m%d-%H%M%S)"
