#!/usr/bin/env bash
# scripts/npgpu-healthcheck between nodes, with a real Slurm on 4 hosts of a virtual cluster
# (tests/multihost/virtual_cluster.sh, links of 400 Mbit/s; tests/batch/slurm_cluster.sh): a job
# over the 4 hosts records the reference, its first node measuring the links; a job that checks
# the healthy hosts drains none; once host 4's link is slowed to a third and its small packets
# paced at 2 Mbit/s (virtual_cluster.sh pace: each 8 B message waits its frame's time on the
# wire, some 0.3 ms, against a reference of 12 to 42 us), a check drains host 4 alone,
# with a reason that starts "npgpu:" and says every link of it falls short, the check's lines tell
# every link of it at 1 MiB and its links alone at 8 B, and the 3 others stay up. A --hosts of one host, a --link-sizes that is
# no list of sizes, and a reference of another host are refused in one line.
#   healthcheck_links_test.sh NPGPU WORK
set -euo pipefail
npgpu=$1 work=$2
# shellcheck source=tests/batch/common.sh
. "$(dirname "$0")/common.sh"
# shellcheck source=tests/batch/slurm_cluster.sh
. "$root/tests/batch/slurm_cluster.sh"

# Bad input: one line, exit 2, nothing written. refused OPTION VALUE EXPECTED
refused() {
  local rc=0 message
  message=$("$root/scripts/npgpu-healthcheck" --npgpu "$npgpu" --record "$work/refused.h5" "$1" "$2" 2>&1) || rc=$?
  [[ $rc == 2 && $message == "npgpu-healthcheck: $1 '$2': $3" ]] || fail "$1 $2: exit $rc, '$message'"
  [ ! -e "$work/refused.h5" ] || fail "$1 $2 wrote a reference"
}
refused --hosts lonely "two or more host names, separated by commas"
refused --link-sizes 8,1X "sizes separated by commas, as npgpu's --sizes (8,1M)"

vc=$root/tests/multihost/virtual_cluster.sh
"$vc" usable >&2 || exit 77
vc_dir=$work/vc
stop_everything() {
  slurm_cluster_stop
  "$vc" down "$vc_dir" >/dev/null
}
trap stop_everything EXIT
trap 'exit 1' TERM INT
"$vc" up "$vc_dir" 4 400 >/dev/null || fail "the virtual cluster could not be built"
slurm_cluster_start "$work/slurm" "$vc_dir"
# Open MPI between the hosts over the cluster's network only (its TCP, as on a real one), its ranks
# on other hosts started by the cluster's stand-in for ssh. Bound as Open MPI binds by default, a
# core each for the check's two ranks on one node: unbound, in one CI run, that node's own MPI fell
# short of its reference (recorded unbound too) by x0.66 to x0.84 at 13 sizes.
export OMPI_MCA_btl=tcp,self OMPI_MCA_btl_tcp_if_include=$VC_SUBNET OMPI_MCA_oob_tcp_if_include=$VC_SUBNET \
  OMPI_MCA_plm_rsh_agent=$vc_dir/rsh-agent OMPI_MCA_plm_rsh_no_tree_spawn=1

# healthcheck NAME HOSTS ARGS...: the check as a job over HOSTS (a Slurm host list); prints its
# exit code, its output in $work/NAME.out. The links at the check's default sizes, 8 B and 1 MiB:
# the 8 B cells are measured one pair at a time here (4 ranks on 2 cores), and a healthy check must
# find none of them short. A rate limit leaves them as they are (host 4 at a tenth of 400 Mbit/s:
# its 8 B tcp cells 8.5 to 11.6 us, as the others'); pacing its small packets slows them.
healthcheck() {
  local name=$1 hostlist=$2 job state
  shift 2
  job=$(slurm sbatch --parsable --chdir="$work" --output="$work/$name.out" --nodelist="$hostlist" --ntasks-per-node=1 \
    --wrap "$root/scripts/npgpu-healthcheck --npgpu $npgpu --work $work/$name $*; echo \"exit \$?\"")
  state=$(slurm_wait_job "$job" 150) || fail "the $name job did not end within 150 s"
  [ "$state" = COMPLETED ] || fail "the $name job ended $state: $(cat "$work/$name.out")"
  sed -n 's/^exit //p' "$work/$name.out"
}
drained() { slurm sinfo -h -N -t drain,draining,drained -o %N | sort -u | paste -sd' '; }

all=$(IFS=,; echo "${VC_HOSTS[*]}")
[ "$(healthcheck record "$all" --record "$work/reference.h5")" = 0 ] || fail "the reference could not be recorded: $(cat "$work/record.out")"
[ -s "$vc_dir/agent.log" ] || fail "no rank started on another host through the stand-in for ssh"
# A reference that cannot judge the node (host 1's, on host 2 alone): one line, exit 2.
[ "$(healthcheck refused "${VC_HOSTS[1]}" --baseline "$work/reference.h5" --drain)" = 2 ] ||
  fail "host 2 judged by host 1's record did not exit 2: $(cat "$work/refused.out")"
[[ $(grep -vc '^exit' "$work/refused.out") == 1 && $(cat "$work/refused.out") == *"a run judges only the same hosts"* ]] ||
  fail "host 2 judged by host 1's record did not say why in one line: $(cat "$work/refused.out")"
[ "$(healthcheck healthy "$all" --baseline "$work/reference.h5" --drain)" = 0 ] ||
  fail "the healthy hosts' check did not pass: $(cat "$work/healthy.out")"
[ -z "$(drained)" ] || fail "the healthy check drained $(drained)"

{ "$vc" rate "$vc_dir" 4 133 && "$vc" pace "$vc_dir" 4 2; } || fail "host 4's link could not be slowed"
[ "$(healthcheck slowed "$all" --baseline "$work/reference.h5" --drain)" = 1 ] ||
  fail "the check with host 4 slowed did not exit 1: $(cat "$work/slowed.out")"
[ "$(drained)" = "${VC_HOSTS[3]}" ] || fail "drained '$(drained)', expected ${VC_HOSTS[3]} alone: $(cat "$work/slowed.out")"
# At 1 MiB every link of host 4; at 8 B host 4's links and no other (a cell the reference launch
# measured slow may hide one of them from a pass, and only what both passes find is told).
grep -q "every link of host ${VC_HOSTS[3]}: at [^(]*1 MiB" "$work/slowed.out" ||
  fail "the check does not say every link of ${VC_HOSTS[3]} falls short at 1 MiB: $(cat "$work/slowed.out")"
at_8=$(grep -E ": at 8 B( |,)" "$work/slowed.out") || fail "the check tells nothing at 8 B: $(cat "$work/slowed.out")"
if grep -v "${VC_HOSTS[3]}" <<<"$at_8"; then fail "the check tells links without ${VC_HOSTS[3]} at 8 B: $at_8"; fi
reason=$(slurm sinfo -h -R -n "${VC_HOSTS[3]}" -o %E)
[[ $reason == "npgpu: "*"every link of host ${VC_HOSTS[3]}:"* ]] ||
  fail "the drain reason does not start with npgpu: and say every link of ${VC_HOSTS[3]}: '$reason'"
echo "PASS: healthcheck between nodes (healthy: none drained; host 4 at a third and paced: '$reason')"
