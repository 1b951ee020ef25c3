#!/usr/bin/env bash
# scripts/npgpu-healthcheck in a real Slurm's prolog (tests/batch/slurm_cluster.sh; README: "A
# health check"): the node recorded healthy as the reference; each job's prolog runs the check
# before the job. While the node is as fast as it was, the job runs and the node stays up; once MPI
# is slowed (as in healthcheck_test.sh), the check drains the node with a reason that starts
# "npgpu:", the prolog fails, and the job does not run: Slurm holds it.
#   healthcheck_prolog_test.sh NPGPU WORK
set -euo pipefail
npgpu=$1 work=$2
# shellcheck source=tests/batch/common.sh
. "$(dirname "$0")/common.sh"
# shellcheck source=tests/batch/slurm_cluster.sh
. "$root/tests/batch/slurm_cluster.sh"
trap slurm_cluster_stop EXIT
trap 'exit 1' TERM INT
slurm_cluster_start "$work/slurm"
node=$(hostname -s)

"$root/scripts/npgpu-healthcheck" --npgpu "$npgpu" --record "$work/reference.h5" || fail "the reference could not be recorded"

# A prolog runs with little of an environment: the README's line in a wrapper, which plants the
# slow MPI while $work/plant exists and logs each check's exit.
cat >"$work/prolog.sh" <<PROLOG
#!/usr/bin/env bash
export PATH=$PATH SLURM_CONF=$SLURM_CONF
[ -e "$work/plant" ] && export OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_sndbuf=4096 OMPI_MCA_btl_tcp_rcvbuf=4096
"$root/scripts/npgpu-healthcheck" --npgpu "$npgpu" --baseline "$work/reference.h5" --drain >>"$work/prologs.log" 2>&1
code=\$?
echo "exit \$code" >>"$work/prologs.log"
exit \$code
PROLOG
chmod +x "$work/prolog.sh"
printf 'Prolog=%s\n' "$work/prolog.sh" >>"$SLURM_CONF"
slurm scontrol reconfigure || fail "slurmd did not take the prolog"

node_state() { slurm scontrol show node "$node" | grep -o 'State=[^ ]*' | head -n 1; }
submit() { slurm sbatch --parsable -o /dev/null --wrap "touch $work/ran-$1"; }

# Healthy: the prolog's check passes, the job runs, the node stays up.
job=$(submit healthy)
state=$(slurm_wait_job "$job" 180) || fail "the healthy node's job did not end: $(cat "$work/prologs.log" 2>/dev/null)"
[ "$state" = COMPLETED ] || fail "the healthy node's job ended $state: $(cat "$work/prologs.log" 2>/dev/null)"
[ -e "$work/ran-healthy" ] || fail "the healthy node's job did not run"
grep -qx 'exit 0' "$work/prologs.log" || fail "the healthy node's prolog did not pass: $(cat "$work/prologs.log")"
[[ $(node_state) != *DRAIN* ]] || fail "the healthy node was drained: $(node_state)"

# Slowed: the next job's prolog check drains the node, and the job does not run.
touch "$work/plant"
job=$(submit slowed)
slurm_wait_for "[[ \$(node_state) == *DRAIN* ]]" 180 || fail "the slowed node was not drained: $(node_state); $(tail -n 5 "$work/prologs.log")"
reason=$(slurm sinfo -h -R -n "$node" -o %E)
[[ $reason == npgpu:* ]] || fail "the drain reason does not start with npgpu: '$reason'"
[[ $reason == *mpi* ]] || fail "the drain reason does not name the slowed path (mpi): '$reason'"
grep -qx 'exit 1' "$work/prologs.log" || fail "the slowed node's prolog did not fail"
[ ! -e "$work/ran-slowed" ] || fail "the job ran on the drained node"
held=$(slurm scontrol show job "$job" | grep -o 'JobState=[A-Z_]*')
slurm scancel "$job"
echo "PASS: healthcheck in a prolog (healthy: the job ran; slowed: drained, '$reason', the job not run, $held)"
