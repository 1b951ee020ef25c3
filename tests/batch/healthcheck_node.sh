# Sourced by the single-node health check tests (healthcheck_test.sh, healthcheck_prolog_test.sh),
# after common.sh, with npgpu and work set: a real Slurm on this node (slurm_cluster.sh), stopped on
# exit, and the node recorded healthy as the reference.
# shellcheck shell=bash disable=SC2154  # root (common.sh), npgpu and work: set by the test that sources this
# shellcheck source=tests/batch/slurm_cluster.sh
. "$root/tests/batch/slurm_cluster.sh"
trap slurm_cluster_stop EXIT
trap 'exit 1' TERM INT
slurm_cluster_start "$work/slurm"
node=$(hostname -s)
"$root/scripts/npgpu-healthcheck" --npgpu "$npgpu" --record "$work/reference.h5" || fail "the reference could not be recorded"

# planted_check FILE LOG: the README's check line in a wrapper Slurm can run (it runs programs
# without arguments and with little of an environment), which slows MPI while $work/plant exists
# (shared memory off, TCP with 4 KiB socket buffers: about x0.1 from 1 KiB up), logs each check's
# exit in LOG and exits with it.
planted_check() {
  cat >"$1" <<CHECK
#!/usr/bin/env bash
export PATH=$PATH SLURM_CONF=$SLURM_CONF
[ -e "$work/plant" ] && export OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_sndbuf=4096 OMPI_MCA_btl_tcp_rcvbuf=4096
"$root/scripts/npgpu-healthcheck" --npgpu "$npgpu" --baseline "$work/reference.h5" --drain >>"$2" 2>&1
code=\$?
echo "exit \$code" >>"$2"
exit \$code
CHECK
  chmod +x "$1"
}

node_state() { slurm scontrol show node "$node" | grep -o 'State=[^ ]*' | head -n 1; }

# drain_reason: the node's drain reason, which must start "npgpu:" and name the slowed path.
drain_reason() {
  local reason
  reason=$(slurm sinfo -h -R -n "$node" -o %E)
  [[ $reason == npgpu:* ]] || fail "the drain reason does not start with npgpu: '$reason'"
  [[ $reason == *mpi* ]] || fail "the drain reason does not name the slowed path (mpi): '$reason'"
  echo "$reason"
}
