#!/usr/bin/env bash
# A real Slurm on this machine runs scripts/batch/npgpu.slurm (tests/batch/slurm_cluster.sh).
#   slurm_test.sh survey NPGPU WORK       the survey as a two-task job: COMPLETED, record and summary
#   slurm_test.sh time-limit NPGPU WORK   one long run in a one-minute job, started by srun --mpi=pmix:
#                                         Slurm's SIGTERM at the limit leaves the finished sizes, the
#                                         run marked incomplete
#   slurm_test.sh two-nodes NPGPU WORK    a slurmd on each of two hosts of a virtual cluster
#                                         (tests/multihost/virtual_cluster.sh): one mpi run as a
#                                         two-node job, its ranks on the two hosts, over their link
# The survey starts its ranks with mpirun (Open MPI starts its daemons through srun), the time-limit
# job with srun, so both ways of starting Open MPI under Slurm are exercised.
set -euo pipefail
case=$1 npgpu=$2 work=$3
# shellcheck source=tests/batch/common.sh
. "$(dirname "$0")/common.sh"
# shellcheck source=tests/batch/slurm_cluster.sh
. "$root/tests/batch/slurm_cluster.sh"
vc=$root/tests/multihost/virtual_cluster.sh
vc_dir=""
if [ "$case" = two-nodes ]; then
  "$vc" usable >&2 || exit 77
  vc_dir=$work/vc
fi
stop_everything() {
  slurm_cluster_stop
  [ -z "$vc_dir" ] || "$vc" down "$vc_dir" >/dev/null
}
trap stop_everything EXIT
trap 'exit 1' TERM INT
if [ -n "$vc_dir" ]; then
  "$vc" up "$vc_dir" 2 1000 >/dev/null || fail "the virtual cluster could not be built"
fi
slurm_cluster_start "$work/slurm" "$vc_dir"

fail() {
  echo "FAIL: $*" >&2
  echo "--- job output:" >&2
  cat "$work/job.out" >&2 || true
  exit 1
}

export NPGPU=$npgpu NPGPU_SURVEY=$root/scripts/npgpu-survey NPGPU_OUTPUT=$work/out
mkdir -p "$NPGPU_OUTPUT"
common=(--parsable --chdir="$work" --output="$work/job.out" --ntasks=2)
case $case in
  survey)
    # As the README has it: sbatch from the source tree's root, no npgpu-survey on the PATH.
    export NPGPU_SURVEY_ARGS="--upper 4K --sizes 8,4K -- --fac2 --cache warm --trial-time 0.002 --max-trials 3"
    job=$(cd "$root" && unset NPGPU_SURVEY && slurm sbatch "${common[@]}" scripts/batch/npgpu.slurm)
    bound=240 expected_state=COMPLETED ;;
  time-limit)
    # 141 sizes of at least 3 trials of 0.3 s: several minutes, cut at one.
    export NPGPU_RUN="--module mpi --trial-time 0.3 --min-trials 3 --cache warm" NPGPU_LAUNCHER=srun
    job=$(slurm sbatch "${common[@]}" --time=1 "$root/scripts/batch/npgpu.slurm")
    bound=180 expected_state=TIMEOUT ;;
  two-nodes)
    # Open MPI between the hosts over the cluster's network only (its TCP, as on a real one).
    export NPGPU_RUN="--module mpi --upper 64K --fac2 --cache warm --trial-time 0.002 --max-trials 3" \
      OMPI_MCA_btl=tcp,self OMPI_MCA_btl_tcp_if_include=$VC_SUBNET OMPI_MCA_oob_tcp_if_include=$VC_SUBNET
    job=$(slurm sbatch "${common[@]}" --nodes=2 --ntasks-per-node=1 "$root/scripts/batch/npgpu.slurm")
    bound=120 expected_state=COMPLETED ;;
  *) fail "unknown case '$case': survey, time-limit or two-nodes" ;;
esac
state=$(slurm_wait_job "$job" "$bound") || fail "job $job did not end within $bound s"
[ "$state" = "$expected_state" ] || fail "job $job ended $state, expected $expected_state"
grep -q "JobId=$job .*JobState=$expected_state" "$work/slurm/jobcomp.txt" ||
  fail "the job completion log does not say $expected_state for job $job"

folder=$NPGPU_OUTPUT/npgpu-$(date +%Y%m%d)-$job
[ -s "$folder/summary.txt" ] || fail "no summary in $folder (the dated folder named after the job)"
grep -q "summary in $folder/summary.txt" "$work/job.out" || fail "the job's output does not say where the summary went"
if [ "$expected_state" = COMPLETED ]; then
  slurm scontrol show job "$job" | grep -q "ExitCode=0:0" || fail "job $job exit code: $(slurm scontrol show job "$job" | grep -o 'ExitCode=[^ ]*')"
fi
if [ "$case" = survey ]; then
  # Without GPUs the survey measures the host paths: mpi's pair latency and throughput, the layer
  # under it for that pair (tcp), and all pairs (with 2 ranks halves is that pair), then draws them.
  for step in mpi-HH-pair-latency mpi-HH-pair-throughput tcp-pair-throughput mpi-HH-all plots; do
    grep -q "^$step  *done" "$folder/summary.txt" || fail "step $step is not done: $(grep "^$step" "$folder/summary.txt")"
  done
  /usr/bin/python3 "$root/tests/batch/check_record.py" "$folder/survey.h5" --runs 4 --modules mpi,mpi,tcp,mpi ||
    fail "the record is not the four complete runs: mpi, mpi, tcp, mpi"
  [ -s "$folder/plots/curves.png" ] || fail "no plot"
elif [ "$case" = two-nodes ]; then
  /usr/bin/python3 "$root/tests/batch/check_record.py" "$folder/survey.h5" --runs 1 --modules mpi ||
    fail "the record is not one complete mpi run"
  hosts=$(/usr/bin/python3 -c 'import h5py, sys
print(" ".join(h.decode() if isinstance(h, bytes) else h for h in h5py.File(sys.argv[1])["runs/0001/system/rank_host"][()]))' "$folder/survey.h5")
  [ "$hosts" = "${VC_HOSTS[*]}" ] || fail "ranks ran on '$hosts', expected one on each of ${VC_HOSTS[*]}"
else
  grep -q "^run  *FAILED: interrupted by SIGTERM" "$folder/summary.txt" ||
    fail "the summary does not say the run was interrupted: $(cat "$folder/summary.txt")"
  /usr/bin/python3 "$root/tests/batch/check_record.py" "$folder/survey.h5" --runs 1 --status incomplete --min-sizes 2 ||
    fail "the record does not keep the finished sizes in an incomplete run"
fi
echo "PASS: slurm $case (job $job $state)"
