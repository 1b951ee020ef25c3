#!/usr/bin/env bash
# The PBS Pro and Cobalt templates, which cannot be submitted here: shellcheck passes on every
# batch script, then each template runs with its scheduler's variables set by hand (a node file
# naming this machine), its mpirun starting two local ranks for real, and leaves the dated folder
# named after the job with a complete record.   templates_test.sh NPGPU WORK
set -euo pipefail
npgpu=$1 work=$2
# shellcheck source=tests/batch/common.sh
. "$(dirname "$0")/common.sh"

command -v shellcheck >/dev/null || fail "shellcheck is not installed (scripts/install-deps.sh installs it)"
# From the source tree's root, where the scripts' `source` directives point.
(cd "$root" && shellcheck -x scripts/batch/* scripts/npgpu-survey scripts/npgpu-healthcheck scripts/*.sh tests/batch/*.sh) ||
  fail "shellcheck found problems"

export NPGPU=$npgpu NPGPU_SURVEY=$root/scripts/npgpu-survey NPGPU_OUTPUT=$work
export NPGPU_RUN="--module mpi --upper 4K --fac2 --cache warm --trial-time 0.002 --max-trials 3"
host=$(hostname)

# runs TEMPLATE JOBID: the template's own exit code, then its dated folder's summary and record.
check_job() {
  local template=$1 job=$2 folder
  (cd "$work" && bash "$root/scripts/batch/$template") >"$work/$template.out" 2>&1 ||
    fail "$template exited $? : $(tail -n 5 "$work/$template.out")"
  folder=$work/npgpu-$(date +%Y%m%d)-$job
  grep -q "^run  *done" "$folder/summary.txt" || fail "$template: the run is not done: $(cat "$folder/summary.txt")"
  /usr/bin/python3 "$root/tests/batch/check_record.py" "$folder/survey.h5" --runs 1 --modules mpi ||
    fail "$template: the record is not one complete mpi run"
  /usr/bin/python3 -c 'import h5py, sys; sys.exit(int(h5py.File(sys.argv[1])["runs/0001"].attrs["ranks"]) != 2)' \
    "$folder/survey.h5" || fail "$template: the run did not have two ranks"
  echo "PASS: $template"
}

# PBS: the node file names a node once per rank (mpiprocs=2); the job id has the server's name.
printf '%s\n%s\n' "$host" "$host" >"$work/pbs_nodefile"
PBS_NODEFILE=$work/pbs_nodefile PBS_JOBID=4242.pbs-server PBS_O_WORKDIR=$work check_job npgpu.pbs 4242

# Submitted from a folder that is no npgpu tree, with no survey on the PATH: one line, exit 2.
rc=0
message=$(cd "$work" && PATH=/usr/bin:/bin NPGPU_SURVEY="" PBS_NODEFILE=$work/pbs_nodefile PBS_JOBID=1.pbs-server \
  PBS_O_WORKDIR=$work bash "$root/scripts/batch/npgpu.pbs" 2>&1 >/dev/null) || rc=$?
[[ $rc == 2 && $(wc -l <<<"$message") == 1 && $message == *"set NPGPU_SURVEY"* ]] ||
  fail "npgpu.pbs with no survey to find: exit $rc, '$message'"

# Cobalt: the node file names each node once; two ranks on it.
echo "$host" >"$work/cobalt_nodefile"
COBALT_NODEFILE=$work/cobalt_nodefile COBALT_JOBID=777 NPGPU_RANKS_PER_NODE=2 check_job npgpu.cobalt 777
