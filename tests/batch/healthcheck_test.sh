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
# shellcheck source=tests/batch/healthcheck_node.sh
. "$root/tests/batch/healthcheck_node.sh"
planted_check "$work/check.sh" "$work/checks.log"
printf 'HealthCheckProgram=%s\nHealthCheckInterval=5\nHealthCheckNodeState=ANY\n' "$work/check.sh" >>"$SLURM_CONF"
slurm scontrol reconfigure || fail "slurmctld did not take the health check"

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
reason=$(drain_reason)
grep -q '^exit 1' "$work/checks.log" || fail "the slowed node's check did not exit 1"
echo "PASS: healthcheck (healthy: up after $(grep -c '^exit 0' "$work/checks.log") checks; slowed: drained, '$reason')"
