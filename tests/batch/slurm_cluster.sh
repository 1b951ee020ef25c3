#!/usr/bin/env bash
# A throwaway Slurm on this machine, for tests. Sourced, then:
#   slurm_cluster_start DIR            munged, slurmctld and one slurmd for this machine
#   slurm_cluster_start DIR VC_DIR     one slurmd per host of a virtual cluster made by
#                                      tests/multihost/virtual_cluster.sh up VC_DIR (each in its
#                                      host's network namespace, under its name), slurmctld on the
#                                      first host, so jobs cross the cluster's links
# from a configuration written into DIR (own munge key, state and logs; SlurmUser root; no
# systemd, no cgroup plugins) and exports SLURM_CONF. `slurm CMD...` runs a client (sbatch,
# scontrol) where slurmctld can be reached. `slurm_cluster_stop` stops every daemon it started, by
# pid file; call it from an EXIT trap. A detached watchdog stops them too once the test's shell is
# gone, even killed by SIGKILL (a CTest timeout), so no daemon outlives its test.
# Exit code 77 (CTest's skip) with the reason when the daemons cannot start here.

slurm_cluster_dir="" slurm_vc_dir=""

slurm_cluster_skip() {
  echo "SKIP: $*" >&2
  exit 77
}

# A client command, run on the first host of a virtual cluster (the only place slurmctld is).
slurm() {
  if [ -n "$slurm_vc_dir" ]; then
    "$slurm_vc_dir/on" "${VC_HOSTS[0]}" "$@"
  else
    "$@"
  fi
}

# Two free TCP ports on loopback, chosen by the kernel (a virtual cluster's hosts have their own).
slurm_free_ports() {
  /usr/bin/python3 - <<'PY'
import socket
sockets = [socket.socket() for _ in range(2)]
for s in sockets:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in sockets))
PY
}

# slurm_write_config DIR CTLD_PORT SLURMD_PORT NAME ADDRESS [NAME ADDRESS...]: the first node
# also runs slurmctld; the machine's CPUs and memory are shared out among the nodes.
slurm_write_config() {
  local dir=$1 ctld_port=$2 slurmd_port=$3 memory_mb
  shift 3
  memory_mb=$(($(awk '/^MemTotal:/ {print $2}' /proc/meminfo) / 1024 / ($# / 2) - 512))
  cat >"$dir/slurm.conf" <<CONF
ClusterName=npgputest
SlurmctldHost=$1($2)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd-%n.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/jobcomp.txt
MpiDefault=none
ReturnToService=2
KillWait=5
MinJobAge=600
InactiveLimit=0
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
  while (($#)); do
    echo "NodeName=$1 NodeAddr=$2 CPUs=$(nproc) RealMemory=$memory_mb State=UNKNOWN" >>"$dir/slurm.conf"
    shift 2
  done
}

# Waits up to $2 seconds for the command $1 to succeed.
slurm_wait_for() {
  local deadline=$((SECONDS + $2))
  until eval "$1" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || return 1
    sleep 0.5
  done
}

# slurmd on virtual host I: in its network namespace, under its name. `ip netns exec` mounts a
# fresh /sys, without the cgroup hierarchies, and slurmd 22.05 will not start without those it
# sees in /proc/self/cgroup, so the machine's are mounted again there (the mounts stay private to
# that namespace).
slurmd_on_virtual_host() {
  local i=$1
  # shellcheck disable=SC2016  # expanded by the namespace's shell
  ip netns exec "${VC_NETNS[i]}" unshare --uts sh -c '
    awk '\''$2 ~ "^/sys/fs/cgroup" { print $1, $3, $2, $4 }'\'' /proc/1/mounts >"$3/cgroup-mounts"
    while read -r source type path options; do
      mkdir -p "$path" && mount -t "$type" -o "$options" "$source" "$path" || exit 1
    done <"$3/cgroup-mounts"
    hostname "$1" && exec slurmd -f "$2" -N "$1"' sh "${VC_HOSTS[i]}" "$SLURM_CONF" "$slurm_cluster_dir"
}

slurm_cluster_start() {
  slurm_cluster_dir=$1 slurm_vc_dir=${2:-}
  local dir=$1 ports nodes=() i
  slurm_watchdog "$$"
  for program in munged slurmctld slurmd sbatch scontrol; do
    command -v "$program" >/dev/null || slurm_cluster_skip "$program is not installed (scripts/install-deps.sh installs slurm-wlm and munge)"
  done
  mkdir -p "$dir/munge" "$dir/state" "$dir/spool"
  chmod 700 "$dir/munge"
  dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
  chmod 400 "$dir/munge/munge.key"
  # One munged for every node: its socket is a file, which every network namespace sees.
  munged --socket="$dir/munge/munge.sock" --key-file="$dir/munge/munge.key" \
         --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" \
         --seed-file="$dir/munge/munged.seed" --force ||
    slurm_cluster_skip "munged would not start: $(tail -n 3 "$dir/munge/munged.log" 2>/dev/null)"

  if [ -n "$slurm_vc_dir" ]; then
    # shellcheck source=/dev/null  # written by virtual_cluster.sh up
    . "$slurm_vc_dir/env"
    for i in "${!VC_HOSTS[@]}"; do nodes+=("${VC_HOSTS[i]}" "${VC_ADDRESSES[i]}"); done
    ports=(6817 6818)
  else
    nodes=("$(hostname -s)" 127.0.0.1)
    read -r -a ports < <(slurm_free_ports)
  fi
  slurm_write_config "$dir" "${ports[0]}" "${ports[1]}" "${nodes[@]}"
  export SLURM_CONF=$dir/slurm.conf
  slurm slurmctld -c -f "$SLURM_CONF" ||
    slurm_cluster_skip "slurmctld would not start: $(tail -n 3 "$dir/slurmctld.log" 2>/dev/null)"
  for ((i = 0; i < ${#nodes[@]} / 2; i++)); do
    mkdir -p "$dir/spool/${nodes[2 * i]}"
    if [ -n "$slurm_vc_dir" ]; then slurmd_on_virtual_host "$i"; else slurmd -f "$SLURM_CONF"; fi ||
      slurm_cluster_skip "slurmd would not start on ${nodes[2 * i]}: $(tail -n 3 "$dir/slurmd-${nodes[2 * i]}.log" 2>/dev/null)"
  done
  slurm_wait_for "[ \"\$(slurm sinfo -h -N -o %T | grep -cx idle)\" = $((${#nodes[@]} / 2)) ]" 30 ||
    slurm_cluster_skip "the nodes never became idle: $(slurm sinfo -N 2>&1 | tail -n +2 | tr '\n' ' '); $(tail -n 3 "$dir/slurmctld.log")"
}

# Started before any daemon: outside the test's process tree (setsid, its parent gone at once),
# it waits for the test's shell $1 to end, then stops whatever is left, unless the folder's owner
# file names another shell: the same test launched again at once (its pid files, not ours).
slurm_watchdog() {
  local harness
  harness=$(realpath "${BASH_SOURCE[0]}")
  mkdir -p "$slurm_cluster_dir"
  echo "$1" >"$slurm_cluster_dir/owner"
  # shellcheck disable=SC2016  # expanded by the watchdog's own shell
  (setsid bash -c 'while kill -0 "$1" 2>/dev/null; do sleep 2; done
    [ "$(cat "$3/owner" 2>/dev/null)" = "$1" ] || exit 0
    . "$2"; slurm_cluster_dir=$3; slurm_cluster_stop' watchdog "$1" "$harness" "$slurm_cluster_dir" \
    </dev/null >/dev/null 2>&1 &)
}

# Stops by pid file what slurm_cluster_start started; waits until each is gone.
slurm_cluster_stop() {
  local dir=$slurm_cluster_dir pidfile pid
  [ -n "$dir" ] || return 0
  for pidfile in "$dir"/slurmd-*.pid "$dir/slurmctld.pid" "$dir/munge/munged.pid"; do
    [ -s "$pidfile" ] || continue
    pid=$(<"$pidfile")
    kill "$pid" 2>/dev/null || continue
    slurm_wait_for "! kill -0 $pid" 10 || kill -KILL "$pid" 2>/dev/null
  done
}

# Waits up to $2 seconds for job $1 to end; prints its final JobState.
slurm_wait_job() {
  local job=$1 deadline=$((SECONDS + $2)) state
  while ((SECONDS < deadline)); do
    state=$(slurm scontrol show job "$job" | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
    case $state in
      PENDING | RUNNING | CONFIGURING | COMPLETING | SUSPENDED | "") sleep 1 ;;
      *) echo "$state"; return 0 ;;
    esac
  done
  echo "job $job still ${state:-unknown} after $2 s" >&2
  return 1
}
