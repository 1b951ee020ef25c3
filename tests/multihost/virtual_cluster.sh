#!/usr/bin/env bash
# A cluster of separate hosts on this machine, for MPI runs across them with known link rates.
#
#   virtual_cluster.sh up DIR HOSTS RATE_MBIT [SLOW_HOST SLOW_RATE_MBIT]
#   virtual_cluster.sh rate DIR HOST RATE_MBIT
#   virtual_cluster.sh pace DIR HOST RATE_MBIT
#   virtual_cluster.sh down DIR
#   virtual_cluster.sh run HOSTS RATE_MBIT [SLOW_HOST SLOW_RATE_MBIT] -- COMMAND [ARGS...]
#   virtual_cluster.sh usable
#
# up     builds HOSTS hosts (2 or more), each link limited to RATE_MBIT (decimal Mbit/s, both
#        directions) except host number SLOW_HOST (1-based), limited to SLOW_RATE_MBIT; writes into
#        DIR (created if missing):
#          env          sourceable: VC_HOSTS (host names, in order), VC_NETNS, VC_ADDRESSES,
#                       VC_RATES_MBIT, VC_SWITCH_NETNS, VC_SUBNET, VC_MPIRUN_ARGS (arrays)
#          hostfile     one line per host, slots=1: rank i runs on host i+1
#          hosts        one line per host, for programs: NAME ADDRESS OUT_MBIT IN_MBIT SWITCH
#                       (the rates of its link each way; the switch it hangs off, 1 or 2)
#          on           `DIR/on HOST COMMAND [ARGS...]` runs a command on a host
#          rsh-agent    what Open MPI's rsh launcher calls (`rsh-agent HOST WORDS...`, as ssh);
#                       every call is logged to DIR/agent.log
#          mpirun       `DIR/mpirun -np 4 npgpu ...`: mpirun on the first host, across the cluster
#                       (as root, with OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
#                       exported, as scripts/mpi-env.sh does)
#          mpirun-on    `DIR/mpirun-on HOST --host HOST,OTHER -np 2 npgpu ...`: the same from HOST,
#                       over the hosts --host names (a job of its own beside another one)
#          export       a folder every host sees at DIR/shared, each process started by `on` through
#                       a bind mount of its own, as NFS clients each mount one export (DIR/shared
#                       itself stays an empty mount point outside the hosts)
# rate   sets host number HOST's (1-based) link to RATE_MBIT both ways on a cluster that is up: a
#        fault planted after a healthy run (its line in DIR/hosts says so too).
# pace   makes every small packet (IP length under 256 B: a small message, an acknowledgement) of
#        host number HOST's link wait, each way, its own time on the wire at RATE_MBIT, on a cluster
#        that is up; larger packets keep the link's rate. A rate limit leaves a lone small packet
#        alone (a token bucket lets it through at once), so this is the fault that slows small
#        messages, by a known amount: a 74 B frame at 10 Mbit/s waits 59 us. Written to DIR/paced.
# down   removes everything `up` made for DIR (namespaces, links, bridge, queues) and the processes
#        left inside them; safe to repeat, and after an `up` that failed halfway.
# run    up in a fresh folder, COMMAND with VC_DIR set to it, down; always torn down, also on
#        failure, Ctrl-C or SIGTERM, and a run killed outright by the next run. Exits with
#        COMMAND's status, or 77 (after `usable`'s line) where no cluster can be built here.
# usable exits 0 if this machine can build one (root, `ip netns`, veth, bridge, tbf), else prints
#        why on one line and exits 77 (CTest's skip code).
#
# Two faults more, from the environment of up and run:
#   VC_TRUNK_MBIT=R     two switches, the first half of the hosts on one, the rest on the other,
#                       joined by a trunk limited to R each way (an oversubscribed fabric: with
#                       R under the sum of one half's rates, pairs across it share R)
#   VC_SLOW_OUTGOING=1  SLOW_HOST's link is slow from the host only; towards it, RATE_MBIT
#
# How it is built: one network namespace per host and one "switch" namespace holding a Linux
# bridge; a veth pair joins each host to the bridge; nothing is made in the root namespace, so all
# traffic stays between these namespaces. Addresses 10.77.0.H/24 exist only inside them; MTU 9000
# on every link (headers cost under 1%). Each link is limited with tbf on the egress of both its
# ends (host side: host -> switch; switch side: switch -> host), so a transfer from A to B runs at
# min(rate A, rate B). Each host also has its own host name (a UTS namespace made per process by
# `on`), so MPI_Get_processor_name sees separate hosts. Names carry the PID of `up` ("vc<pid>"),
# so two clusters never collide.
set -euo pipefail

readonly SUBNET_PREFIX=10.77.0 SUBNET=10.77.0.0/24
readonly MTU=9000
# tbf's bucket: tokens past it are lost, so it must outlast the timer's lateness on busy cores,
# or the link runs under its rate (64 KiB, one GSO packet, gave 0.90 R at 400 Mbit/s under load;
# 256 KiB, 5 ms at 400 Mbit/s, gives 0.98 R). A transfer that starts idle gets it on top: under
# 1% of 32 MB. 50 ms of queue holds what TCP has in flight at these rates.
readonly TBF_BURST=256kb
readonly TBF_LATENCY=50ms

die() {
  echo "virtual_cluster: $*" >&2
  exit 2
}

usage() {
  die "usage: $0 up DIR HOSTS RATE_MBIT [SLOW_HOST SLOW_RATE_MBIT] | rate DIR HOST RATE_MBIT | pace DIR HOST RATE_MBIT | down DIR | run HOSTS RATE_MBIT [SLOW_HOST SLOW_RATE_MBIT] -- COMMAND... | usable"
}

is_rate() { [[ $1 =~ ^[0-9]+(\.[0-9]+)?$ ]] && awk -v r="$1" 'BEGIN { exit !(r >= 0.001) }'; }

# NAME=(quoted values...), to be sourced.
shell_array() {
  local name=$1
  shift
  printf '%s=(' "$name"
  printf ' %q' "$@"
  printf ' )\n'
}

# tc wants integers: decimal Mbit/s to kbit/s.
kbit() { awk -v r="$1" 'BEGIN { printf "%.0fkbit", r * 1000 }'; }

# Checks HOSTS RATE [SLOW_HOST SLOW_RATE]; prints one rate per host.
link_rates() {
  (($# == 2 || $# == 4)) || usage
  local hosts=$1 rate=$2 slow_host=${3:-0} slow_rate=${4:-}
  if ! [[ $hosts =~ ^[0-9]+$ ]] || ((hosts < 2 || hosts > 99)); then die "HOSTS '$hosts': a number of hosts from 2 to 99"; fi
  is_rate "$rate" || die "RATE_MBIT '$rate': a number of Mbit/s, at least 0.001"
  if (($# == 4)); then
    if ! [[ $slow_host =~ ^[0-9]+$ ]] || ((slow_host < 1 || slow_host > hosts)); then
      die "SLOW_HOST '$slow_host': a host number from 1 to $hosts"
    fi
    is_rate "$slow_rate" || die "SLOW_RATE_MBIT '$slow_rate': a number of Mbit/s, at least 0.001"
  fi
  local h
  for ((h = 1; h <= hosts; h++)); do
    if ((h == slow_host)); then echo "$slow_rate"; else echo "$rate"; fi
  done
}

cmd_usable() {
  ((EUID == 0)) || { echo "virtual cluster: needs root (network namespaces), running as uid $EUID"; exit 77; }
  local missing
  for missing in ip tc unshare hostname mount; do
    command -v "$missing" >/dev/null || { echo "virtual cluster: '$missing' not found (iproute2, util-linux, hostname, mount)"; exit 77; }
  done
  local probe="vcprobe$$"
  local error
  if ! error=$({ ip netns add "$probe" &&
                 ip -n "$probe" link add "${probe}b" type bridge &&
                 ip -n "$probe" link add "${probe}x" type veth peer name "${probe}y" &&
                 tc -n "$probe" qdisc add dev "${probe}x" root tbf rate 1mbit burst "$TBF_BURST" latency "$TBF_LATENCY"; } 2>&1); then
    ip netns delete "$probe" 2>/dev/null || true
    echo "virtual cluster: this kernel or container cannot: ${error//$'\n'/ }"
    exit 77
  fi
  ip netns delete "$probe"
}

# Writes the helper scripts of a cluster into DIR. $1: DIR, $2: the first host's name.
write_helpers() {
  local dir=$1 quoted_dir first_host
  quoted_dir=$(printf %q "$dir")
  first_host=$(printf %q "$2")
  cat >"$dir/on" <<EOF
#!/usr/bin/env bash
# on HOST COMMAND [ARGS...]: runs the command in HOST's network namespace, under its host name,
# with the cluster's export mounted at $quoted_dir/shared (ip netns exec gives it a mount
# namespace of its own, whose mounts stay inside).
set -euo pipefail
. $quoted_dir/env
for i in "\${!VC_HOSTS[@]}"; do
  if [[ \${VC_HOSTS[i]} == "\$1" ]]; then
    host=\$1
    shift
    exec ip netns exec "\${VC_NETNS[i]}" unshare --uts sh -c \\
      'hostname "\$1" && mount --bind "\$2" "\$3" && shift 3 && exec "\$@"' sh "\$host" $quoted_dir/export $quoted_dir/shared "\$@"
  fi
done
echo "virtual_cluster: no host '\$1' in this cluster" >&2
exit 2
EOF
  cat >"$dir/rsh-agent" <<EOF
#!/usr/bin/env bash
# Open MPI's rsh launcher calls this as it would ssh: HOST, then the words of a shell command.
set -euo pipefail
echo "\$*" >>$quoted_dir/agent.log
host=\$1
shift
exec $quoted_dir/on "\$host" sh -c "\$*"
EOF
  cat >"$dir/mpirun-on" <<EOF
#!/usr/bin/env bash
# mpirun on HOST, across the cluster or the hosts --host names: DIR/mpirun-on HOST [--host H,...] -np N PROGRAM [ARGS...]
set -euo pipefail
. $quoted_dir/env
host=\$1
shift
exec $quoted_dir/on "\$host" mpirun "\${VC_MPIRUN_ARGS[@]}" "\$@"
EOF
  cat >"$dir/mpirun" <<EOF
#!/usr/bin/env bash
# mpirun on the first host, across the cluster: DIR/mpirun -np N PROGRAM [ARGS...]
exec $quoted_dir/mpirun-on $first_host "\$@"
EOF
  chmod +x "$dir/on" "$dir/rsh-agent" "$dir/mpirun-on" "$dir/mpirun"
}

cmd_up() {
  (($# >= 3)) || usage
  local dir=$1
  shift
  local rates_text rates base_rate=$2
  rates_text=$(link_rates "$@")
  mapfile -t rates <<<"$rates_text"
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  [[ ! -e $dir/env ]] || die "'$dir' already holds a cluster (run down first)"
  building=$dir
  local prefix="vc$$" hosts=${#rates[@]}
  local switch="$prefix-sw" bridge="${prefix}br"
  local names=() netns=() addresses=() h
  for ((h = 1; h <= hosts; h++)); do
    names+=("$prefix-h$h")
    netns+=("$prefix-h$h")
    addresses+=("$SUBNET_PREFIX.$h")
  done
  # The names go to disk before anything exists, so `down` finds whatever a failure leaves.
  {
    echo "# A virtual cluster (tests/multihost/virtual_cluster.sh up)"
    shell_array VC_HOSTS "${names[@]}"
    shell_array VC_NETNS "${netns[@]}"
    shell_array VC_ADDRESSES "${addresses[@]}"
    shell_array VC_RATES_MBIT "${rates[@]}"
    echo "VC_SWITCH_NETNS=$switch"
    echo "VC_SUBNET=$SUBNET"
    # mpirun itself starts every orted (no tree spawn), so each goes through rsh-agent from host 1.
    # Ranks are not bound: each host's orted would bind its rank to that host's core 0, which is
    # every host's core 0, and two polling ranks on one core take turns at the scheduler's tick
    # (a 1 B round trip of tcp took 4 to 6 ms instead of 4 us).
    shell_array VC_MPIRUN_ARGS --hostfile "$dir/hostfile" --mca plm_rsh_agent "$dir/rsh-agent" \
      --mca plm_rsh_no_tree_spawn 1 --bind-to none --mca btl tcp,self \
      --mca btl_tcp_if_include "$SUBNET" --mca oob_tcp_if_include "$SUBNET"
  } >"$dir/env"

  ip netns add "$switch"
  local switches=1 trunk=${VC_TRUNK_MBIT:-}
  if [[ -n $trunk ]]; then
    is_rate "$trunk" || die "VC_TRUNK_MBIT '$trunk': a number of Mbit/s, at least 0.001"
    switches=2
  fi
  local s
  for ((s = 1; s <= switches; s++)); do
    ip -n "$switch" link add "$bridge$s" type bridge
    ip -n "$switch" link set "$bridge$s" mtu "$MTU" up
  done
  if [[ -n $trunk ]]; then
    ip -n "$switch" link add "${prefix}t1" mtu "$MTU" type veth peer name "${prefix}t2" mtu "$MTU"
    for s in 1 2; do
      ip -n "$switch" link set "${prefix}t$s" master "$bridge$s" up
      tc -n "$switch" qdisc add dev "${prefix}t$s" root tbf rate "$(kbit "$trunk")" burst "$TBF_BURST" latency "$TBF_LATENCY"
    done
  fi
  for ((h = 1; h <= hosts; h++)); do
    local ns=${netns[h - 1]} host_end="${prefix}h$h" switch_end="${prefix}s$h" out=${rates[h - 1]} in=${rates[h - 1]}
    local on_switch=$((switches == 2 && h > (hosts + 1) / 2 ? 2 : 1))
    [[ ${VC_SLOW_OUTGOING:-} != 1 ]] || in=$base_rate
    ip netns add "$ns"
    ip -n "$ns" link set lo up
    ip -n "$switch" link add "$switch_end" mtu "$MTU" type veth peer name "$host_end" mtu "$MTU" netns "$ns"
    ip -n "$switch" link set "$switch_end" master "$bridge$on_switch" up
    ip -n "$ns" addr add "${addresses[h - 1]}/24" dev "$host_end"
    ip -n "$ns" link set "$host_end" up
    tc -n "$ns" qdisc add dev "$host_end" root handle 1: tbf rate "$(kbit "$out")" burst "$TBF_BURST" latency "$TBF_LATENCY"
    tc -n "$switch" qdisc add dev "$switch_end" root handle 1: tbf rate "$(kbit "$in")" burst "$TBF_BURST" latency "$TBF_LATENCY"
    echo "${names[h - 1]} slots=1"
    echo "${names[h - 1]} ${addresses[h - 1]} $out $in $on_switch" >>"$dir/hosts"
  done >"$dir/hostfile"
  mkdir -p "$dir/export" "$dir/shared"
  write_helpers "$dir" "${names[0]}"
}

# HOST's two link ends on a cluster that is up (DIR HOST RATE, checked): "NETNS DEVICE" lines, the
# host's side first.
link_ends() {
  local dir=$1 host=$2 rate=$3
  [[ -f $dir/env ]] || die "'$dir' holds no cluster"
  local VC_NETNS=() VC_SWITCH_NETNS=""
  # shellcheck source=/dev/null
  . "$dir/env"
  if ! [[ $host =~ ^[0-9]+$ ]] || ((host < 1 || host > ${#VC_NETNS[@]})); then die "HOST '$host': a host number from 1 to ${#VC_NETNS[@]}"; fi
  is_rate "$rate" || die "RATE_MBIT '$rate': a number of Mbit/s, at least 0.001"
  local prefix=${VC_SWITCH_NETNS%-sw}
  echo "${VC_NETNS[host - 1]} ${prefix}h$host"
  echo "$VC_SWITCH_NETNS ${prefix}s$host"
}

cmd_rate() {
  (($# == 3)) || usage
  local dir=$1 host=$2 rate=$3 ends ns device
  ends=$(link_ends "$@")
  while read -r ns device; do
    tc -n "$ns" qdisc change dev "$device" root handle 1: tbf rate "$(kbit "$rate")" burst "$TBF_BURST" latency "$TBF_LATENCY"
  done <<<"$ends"
  awk -v h="$host" -v r="$rate" 'NR == h { $3 = r; $4 = r } { print }' "$dir/hosts" >"$dir/hosts.new" && mv "$dir/hosts.new" "$dir/hosts"
}

# Under each end's tbf, an htb: packets of an IP length under 256 B (the top byte of the length
# field 0) in a class of RATE with no burst, so that each waits its own time on the wire; the rest
# in a class that the tbf above bounds.
cmd_pace() {
  (($# == 3)) || usage
  local dir=$1 host=$2 rate=$3 ends ns device
  ends=$(link_ends "$@")
  while read -r ns device; do
    tc -n "$ns" qdisc add dev "$device" parent 1:1 handle 10: htb default 2
    tc -n "$ns" class add dev "$device" parent 10: classid 10:1 htb rate "$(kbit "$rate")" ceil "$(kbit "$rate")" burst 1 cburst 1
    tc -n "$ns" class add dev "$device" parent 10: classid 10:2 htb rate 10gbit quantum 65536
    tc -n "$ns" filter add dev "$device" parent 10: protocol ip prio 1 u32 match u16 0x0000 0xff00 at 2 flowid 10:1
  done <<<"$ends"
  echo "$host $rate" >>"$dir/paced"
}

cmd_down() {
  (($# == 1)) || usage
  local dir=$1
  [[ -f $dir/env ]] || return 0
  local VC_NETNS=() VC_SWITCH_NETNS=""
  # shellcheck source=/dev/null
  . "$dir/env"
  local ns pid
  for ns in "${VC_NETNS[@]}" "$VC_SWITCH_NETNS"; do
    [[ -n $ns ]] || continue
    # A namespace outlives its name while a process is inside (an orted left by a killed run).
    for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null || true; done
    ip netns delete "$ns" 2>/dev/null || true
  done
  rm -f "$dir/env" "$dir/hostfile" "$dir/hosts" "$dir/paced" "$dir/on" "$dir/rsh-agent" "$dir/mpirun-on" "$dir/mpirun"
  rmdir "$dir/shared" "$dir/export" 2>/dev/null || true  # the export stays while it holds files
}

# What to undo on exit: the cluster being made (or run's), run's folder, run's command.
building=""
temporary=""
child=""
on_exit() {
  [[ -z $building ]] || cmd_down "$building"
  [[ -z $temporary ]] || rm -rf "$temporary"
}
on_signal() {
  [[ -z $child ]] || kill -TERM "$child" 2>/dev/null || true
  exit "$1"
}
trap on_exit EXIT
trap 'on_signal 130' INT
trap 'on_signal 143' TERM

# A run killed outright (SIGKILL, or the machine's session ending under it) never tears down: the
# next run does. Each run's folder names the process that owns it; a folder whose owner is gone
# is taken down and removed. Clusters made by `up` alone have no owner file and stay until `down`.
prune_dead_runs() {
  local folder owner
  for folder in "${TMPDIR:-/tmp}"/virtual-cluster.*; do
    [[ -f $folder/owner ]] || continue
    owner=$(<"$folder/owner")
    ! kill -0 "$owner" 2>/dev/null || continue
    cmd_down "$folder"
    rm -rf "$folder"
  done
}

cmd_run() {
  local spec=()
  while (($# > 0)) && [[ $1 != -- ]]; do
    spec+=("$1")
    shift
  done
  (($# >= 2)) || usage
  shift
  link_rates "${spec[@]}" >/dev/null
  cmd_usable
  prune_dead_runs
  temporary=$(mktemp -d "${TMPDIR:-/tmp}/virtual-cluster.XXXXXX")
  echo $$ >"$temporary/owner"
  cmd_up "$temporary" "${spec[@]}"
  VC_DIR=$temporary "$@" &
  child=$!
  local status=0
  wait "$child" || status=$?
  child=""
  return "$status"
}

(($# >= 1)) || usage
command=$1
shift
case $command in
  up)
    cmd_up "$@"
    building="" # made whole: it stays until `down`
    ;;
  rate) cmd_rate "$@" ;;
  pace) cmd_pace "$@" ;;
  down) cmd_down "$@" ;;
  run) cmd_run "$@" ;;
  usable) (($# == 0)) || usage; cmd_usable ;;
  *) usage ;;
esac
