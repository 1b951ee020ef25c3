#!/usr/bin/env bash
# scripts/npgpu-healthcheck as a real Slurm's HealthCheckProgram (tests/batch/slurm_cluster.sh):
# the node recorded healthy as the reference; slurmd runs the check every few seconds; while the
# node is as fast as it was it stays up, and once MPI is slowed (shared memory off, TCP with 4 KiB
# socket buffers: about x0.1 from 1 KiB up) the check drains it, with a reason that starts "npgpu:".
#   healthcheck_test.sh NPGPU WORK
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

# slurmd runs a program without arguments and with little of an environment: a wrapper, which
# plants the slow MPI while $work/plant exists, and counts its runs.
cat >"$work/check.sh" <<CHECK
#!/usr/bin/env bash
export PATH=$PATH SLURM_CONF=$SLURM_CONF
[ -e "$work/plant" ] && export OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_sndbuf=4096 OMPI_MCA_btl_tcp_rcvbuf=4096
"$root/scripts/npgpu-healthcheck" --npgpu "$npgpu" --baseline "$work/reference.h5" --drain >>"$work/checks.log" 2>&1
echo "exit \$?" >>"$work/checks.log"
CHECK
chmod +x "$work/check.sh"
printf 'HealthCheckProgram=%s\nHealthCheckInterval=5\nHealthCheckNodeState=ANY\n' "$work/check.sh" >>"$SLURM_CONF"
slurm scontrol reconfigure || fail "slurmctld did not take the health check"

node_state() { slurm scontrol show node "$node" | grep -o 'State=[^ ]*' | head -n 1; }
checks() { grep -c '^exit' "$work/checks.log" 2>/dev/null || echo 0; }

# Healthy: three checks pass and the node stays up.
# shellcheck disable=SC2016  # slurm_wait_for evaluates it
slurm_wait_for '(($(checks) >= 3))' 120 || fail "slurmd ran the check $(checks) times in 120 s"
grep -q '^exit 0' "$work/checks.log" || fail "a healthy node's check did not pass: $(cat "$work/checks.log")"
! grep -q '^exit [^0]' "$work/checks.log" || fail "a healthy node's check fell short: $(cat "$work/checks.log")"
[[ $(node_state) != *DRAIN* ]] || fail "the healthy node was drained: $(node_state)"

# Slowed: the next check drains it.
touch "$work/plant"
slurm_wait_for "[[ \$(node_state) == *DRAIN* ]]" 120 || fail "the slowed node was not drained: $(node_state); $(tail -n 5 "$work/checks.log")"
reason=$(slurm sinfo -h -R -n "$node" -o %E)
[[ $reason == npgpu:* ]] || fail "the drain reason does not start with npgpu: '$reason'"
[[ $reason == *mpi* ]] || fail "the drain reason does not name the slowed path (mpi): '$reason'"
grep -q '^exit 1' "$work/checks.log" || fail "the slowed node's check did not exit 1"
echo "PASS: healthcheck (healthy: up after $(grep -c '^exit 0' "$work/checks.log") checks; slowed: drained, '$reason')"
