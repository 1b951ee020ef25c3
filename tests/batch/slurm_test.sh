#!/usr/bin/env bash
# A real Slurm on this machine runs scripts/batch/npgpu.slurm (tests/batch/slurm_cluster.sh).
#   slurm_test.sh survey NPGPU WORK       the survey as a two-task job: COMPLETED, record and summary
#   slurm_test.sh time-limit NPGPU WORK   one long run in a one-minute job, started by srun --mpi=pmix:
#                                         Slurm's SIGTERM at the limit leaves the finished sizes, the
#                                         run marked incomplete
# The survey starts its ranks with mpirun (Open MPI starts its daemons through srun), the time-limit
# job with srun, so both ways of starting Open MPI under Slurm are exercised.
set -euo pipefail
case=$1 npgpu=$2 work=$3
# shellcheck source=tests/batch/common.sh
. "$(dirname "$0")/common.sh"
# shellcheck source=tests/batch/slurm_cluster.sh
. "$root/tests/batch/slurm_cluster.sh"
trap slurm_cluster_stop EXIT
trap 'exit 1' TERM INT
slurm_cluster_start "$work/slurm"

fail() {
  echo "FAIL: $*" >&2
  echo "--- job output:" >&2
  cat "$work/job.out" >&2 || true
  exit 1
}

export NPGPU=$npgpu NPGPU_SURVEY=$root/scripts/npgpu-survey NPGPU_OUTPUT=$work/out
mkdir -p "$NPGPU_OUTPUT"
common=(--parsable --chdir="$work" --output="$work/job.out" --ntasks=2)
if [ "$case" = survey ]; then
  export NPGPU_SURVEY_ARGS="--upper 4K --sizes 8,4K -- --fac2 --cache warm --trial-time 0.002 --max-trials 3"
  job=$(sbatch "${common[@]}" "$root/scripts/batch/npgpu.slurm")
  bound=240 expected_state=COMPLETED
else
  # 141 sizes of at least 3 trials of 0.3 s: several minutes, cut at one.
  export NPGPU_RUN="--module mpi --trial-time 0.3 --min-trials 3 --cache warm" NPGPU_LAUNCHER=srun
  job=$(sbatch "${common[@]}" --time=1 "$root/scripts/batch/npgpu.slurm")
  bound=180 expected_state=TIMEOUT
fi
state=$(slurm_wait_job "$job" "$bound") || fail "job $job did not end within $bound s"
[ "$state" = "$expected_state" ] || fail "job $job ended $state, expected $expected_state"
grep -q "JobId=$job .*JobState=$expected_state" "$work/slurm/jobcomp.txt" ||
  fail "the job completion log does not say $expected_state for job $job"

folder=$NPGPU_OUTPUT/npgpu-$(date +%Y%m%d)-$job
[ -s "$folder/summary.txt" ] || fail "no summary in $folder (the dated folder named after the job)"
grep -q "summary in $folder/summary.txt" "$work/job.out" || fail "the job's output does not say where the summary went"
if [ "$case" = survey ]; then
  scontrol show job "$job" | grep -q "ExitCode=0:0" || fail "job $job exit code: $(scontrol show job "$job" | grep -o 'ExitCode=[^ ]*')"
  # Without GPUs the survey measures the host paths: four mpi runs (pair latency and throughput,
  # halves, all), then draws them.
  for step in mpi-HH-pair-latency mpi-HH-pair-throughput mpi-HH-halves mpi-HH-all plots; do
    grep -q "^$step  *done" "$folder/summary.txt" || fail "step $step is not done: $(grep "^$step" "$folder/summary.txt")"
  done
  /usr/bin/python3 "$root/tests/batch/check_record.py" "$folder/survey.h5" --runs 4 --modules mpi,mpi,mpi,mpi ||
    fail "the record is not the four complete mpi runs"
  [ -s "$folder/plots/curves.png" ] || fail "no plot"
else
  grep -q "^run  *FAILED: interrupted by SIGTERM" "$folder/summary.txt" ||
    fail "the summary does not say the run was interrupted: $(cat "$folder/summary.txt")"
  /usr/bin/python3 "$root/tests/batch/check_record.py" "$folder/survey.h5" --runs 1 --status incomplete --min-sizes 2 ||
    fail "the record does not keep the finished sizes in an incomplete run"
fi
echo "PASS: slurm $case (job $job $state)"
