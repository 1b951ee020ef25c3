#!/usr/bin/env bash
# scripts/npgpu-healthcheck in a real Slurm's prolog (tests/batch/slurm_cluster.sh; README: "A
# health check"): the node recorded healthy as the reference; each job's prolog runs the check
# before the job. While the node is as fast as it was, the job runs and the node stays up; once MPI
# is slowed (as in healthcheck_test.sh), the check drains the node with a reason that starts
# "npgpu:", the prolog fails, and the job does not run: Slurm holds it. A check beside another
# process that keeps a core busy says so.
#   healthcheck_prolog_test.sh NPGPU WORK
set -euo pipefail
npgpu=$1 work=$2
# shellcheck source=tests/batch/common.sh
. "$(dirname "$0")/common.sh"
# shellcheck source=tests/batch/healthcheck_node.sh
. "$root/tests/batch/healthcheck_node.sh"
planted_check "$work/prolog.sh" "$work/prologs.log"
printf 'Prolog=%s\n' "$work/prolog.sh" >>"$SLURM_CONF"
slurm scontrol reconfigure || fail "slurmd did not take the prolog"

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
reason=$(drain_reason)
grep -qx 'exit 1' "$work/prologs.log" || fail "the slowed node's prolog did not fail"
[ ! -e "$work/ran-slowed" ] || fail "the job ran on the drained node"
held=$(slurm scontrol show job "$job" | grep -o 'JobState=[A-Z_]*')
slurm scancel "$job"
! grep -q '^npgpu-healthcheck: other processes' "$work/prologs.log" ||
  fail "a check told of other processes where none ran: $(cat "$work/prologs.log")"

# Slowed, with a process of another keeping a core busy: the shortfall says how busy the node was.
timeout 120 bash -c 'while :; do :; done' &
busy=$!
"$work/prolog.sh" || true
kill "$busy" 2>/dev/null || true  # gone already where the check outlasted it
busy_line=$(grep '^npgpu-healthcheck: other processes' "$work/prologs.log") ||
  fail "a check beside a busy process did not tell of it: $(tail -n 5 "$work/prologs.log")"
[[ $busy_line =~ kept\ (0\.[5-9]|1\.[0-9])\ of ]] || fail "a core kept busy was told as '$busy_line'"
echo "PASS: healthcheck in a prolog (healthy: the job ran; slowed: drained, '$reason', the job not run, $held; beside a busy process: '$busy_line')"
