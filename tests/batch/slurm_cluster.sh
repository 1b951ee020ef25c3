#!/usr/bin/env bash
# A throwaway Slurm on this machine, for tests: sourced, then `slurm_cluster_start DIR` starts
# munged, slurmctld and one slurmd from a configuration written into DIR (own munge key, ports,
# state and logs; SlurmUser root; no cgroups, no systemd) and exports SLURM_CONF for the clients.
# `slurm_cluster_stop` stops every daemon it started, by pid file; call it from an EXIT trap. A
# detached watchdog stops them too once the test's shell is gone, even killed by SIGKILL (a CTest
# timeout), so no daemon outlives its test.
# Exit code 77 (CTest's skip) with the reason when the daemons cannot start here.

slurm_cluster_dir=""

slurm_cluster_skip() {
  echo "SKIP: $*" >&2
  exit 77
}

# Two free TCP ports on loopback, chosen by the kernel.
slurm_free_ports() {
  /usr/bin/python3 - <<'PY'
import socket
sockets = [socket.socket() for _ in range(2)]
for s in sockets:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in sockets))
PY
}

slurm_write_config() {
  local dir=$1 ctld_port=$2 slurmd_port=$3 node cpus memory_mb
  node=$(hostname -s)
  cpus=$(nproc)
  memory_mb=$(($(awk '/^MemTotal:/ {print $2}' /proc/meminfo) / 1024 - 512))
  cat >"$dir/slurm.conf" <<CONF
ClusterName=npgputest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
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
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory_mb State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
}

# Waits up to $2 seconds for the command $1 to succeed.
slurm_wait_for() {
  local deadline=$((SECONDS + $2))
  until eval "$1" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || return 1
    sleep 0.5
  done
}

slurm_cluster_start() {
  slurm_cluster_dir=$1
  local dir=$1 ports
  slurm_watchdog "$$"
  for program in munged slurmctld slurmd sbatch scontrol; do
    command -v "$program" >/dev/null || slurm_cluster_skip "$program is not installed (scripts/install-deps.sh installs slurm-wlm and munge)"
  done
  mkdir -p "$dir/munge" "$dir/state" "$dir/spool"
  chmod 700 "$dir/munge"
  dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
  chmod 400 "$dir/munge/munge.key"
  munged --socket="$dir/munge/munge.sock" --key-file="$dir/munge/munge.key" \
         --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" \
         --seed-file="$dir/munge/munged.seed" --force ||
    slurm_cluster_skip "munged would not start: $(tail -n 3 "$dir/munge/munged.log" 2>/dev/null)"

  read -r -a ports < <(slurm_free_ports)
  slurm_write_config "$dir" "${ports[0]}" "${ports[1]}"
  export SLURM_CONF=$dir/slurm.conf
  slurmctld -c -f "$SLURM_CONF" ||
    slurm_cluster_skip "slurmctld would not start: $(tail -n 3 "$dir/slurmctld.log" 2>/dev/null)"
  slurmd -f "$SLURM_CONF" ||
    slurm_cluster_skip "slurmd would not start: $(tail -n 3 "$dir/slurmd.log" 2>/dev/null)"
  slurm_wait_for "sinfo -h -N -o %T | grep -qx idle" 30 ||
    slurm_cluster_skip "the node never became idle: $(sinfo -N 2>&1 | tail -n 1); $(tail -n 3 "$dir/slurmctld.log")"
}

# Started before any daemon: outside the test's process tree (setsid, its parent gone at once),
# it waits for the test's shell $1 to end, then stops whatever is left.
slurm_watchdog() {
  local harness
  harness=$(realpath "${BASH_SOURCE[0]}")
  # shellcheck disable=SC2016  # expanded by the watchdog's own shell
  (setsid bash -c 'while kill -0 "$1" 2>/dev/null; do sleep 2; done
    . "$2"; slurm_cluster_dir=$3; slurm_cluster_stop' watchdog "$1" "$harness" "$slurm_cluster_dir" \
    </dev/null >/dev/null 2>&1 &)
}

# Stops by pid file what slurm_cluster_start started; waits until each is gone.
slurm_cluster_stop() {
  local dir=$slurm_cluster_dir pidfile pid
  [ -n "$dir" ] || return 0
  for pidfile in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munge/munged.pid"; do
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
    state=$(scontrol show job "$job" | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
    case $state in
      PENDING | RUNNING | CONFIGURING | COMPLETING | SUSPENDED | "") sleep 1 ;;
      *) echo "$state"; return 0 ;;
    esac
  done
  echo "job $job still ${state:-unknown} after $2 s" >&2
  return 1
}
