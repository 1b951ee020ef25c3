#!/usr/bin/env bash
# `cmake --install` into a temporary prefix, then the installed PBS template runs with the
# installed survey found on the PATH, which must run the installed binary (not the build's).
#   install_test.sh NPGPU WORK
set -euo pipefail
npgpu=$1 work=$2
# shellcheck source=tests/batch/common.sh
. "$(dirname "$0")/common.sh"
prefix=$work/prefix

cmake --install "$(dirname "$npgpu")" --prefix "$prefix" >"$work/install.log" || fail "cmake --install failed"
for file in bin/npgpu bin/npgpu-plot bin/npgpu-survey bin/npgpu-healthcheck share/npgpu/batch/npgpu.slurm share/npgpu/batch/npgpu.pbs \
            share/npgpu/batch/npgpu.cobalt share/doc/npgpu/README.md share/doc/npgpu/hdf5-schema.md; do
  [ -s "$prefix/$file" ] || fail "$file is not installed under the prefix"
done

host=$(hostname)
printf '%s\n%s\n' "$host" "$host" >"$work/nodefile"
unset NPGPU NPGPU_SURVEY
(cd "$work" && PATH=$prefix/bin:$PATH PBS_NODEFILE=$work/nodefile PBS_JOBID=31.server \
  NPGPU_RUN="--module mpi --upper 1K --fac2 --cache warm --trial-time 0.002 --max-trials 3" \
  bash "$prefix/share/npgpu/batch/npgpu.pbs") >"$work/job.out" 2>&1 || fail "the installed template failed: $(tail -n 5 "$work/job.out")"
folder=$work/npgpu-$(date +%Y%m%d)-31
grep -qx "binary: $prefix/bin/npgpu" "$folder/summary.txt" || fail "the installed survey did not run the installed binary: $(grep binary: "$folder/summary.txt")"
/usr/bin/python3 "$root/tests/batch/check_record.py" "$folder/survey.h5" --runs 1 --modules mpi || fail "no complete run in the record"
echo "PASS: install"
