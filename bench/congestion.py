#!/usr/bin/python3
"""Issue 36's report under load, proven on a planted load, launch after launch, on virtual clusters
of --hosts hosts (tests/multihost/virtual_cluster.sh) with links at --rate Mbit/s:

1. two switches joined by a trunk of --trunk Mbit/s (VC_TRUNK_MBIT): a tcp stream between the last
   host of each switch, `npgpu --module mpi --pairs all --sizes 8,64K` on the other hosts. Planted:
   the victim cells across the trunk (found where the report says a size of theirs lies beyond the
   noise and its line names the victims across the split); a cell inside a switch found is false.
2. one switch whose links run at the trunk's rate, the same load, which then moves as fast as
   across the trunk: nothing planted; every cell found is false.
3. by hand, on the two switches: a bulk TCP copy between the same two hosts (this script's
   `bulk-send` and `bulk-receive`: blocking sockets, as scp or a checkpoint writes) while a plain
   `npgpu --module mpi --pairs 0:1 --lower 8 --upper 8` measures between a host of each switch, and
   between two hosts of one switch, against the same measurements with no load; their impact beside
   the report's. (A spinning load, such as a plain npgpu stream, would take this machine's 2 cores
   from every virtual host and slow the pairs inside a switch too.)

    bench/congestion.py OUT_DIR [--build build] [--launches 3] [--hosts 6] [--rate 400] [--trunk 100]
                        [--sizes 8,64K]

Every virtual host shares this machine's cores, and the kernel's work for the load takes them from
every victim: behind a bulk copy of 50 MB/s (a trunk of 400 Mbit/s), 8 B between two hosts of one
switch ran x1.5 to x2.8 slower by hand; behind 12.5 MB/s (100 Mbit/s), as fast as alone. Hence the
default rates. 64 KiB, not the default 1 MiB, as the matrix's large size: a 1 MiB cell across a
trunk of 100 Mbit/s beside the load takes seconds a trial (a launch lasted 8 minutes).

Needs root and `ip netns`; about 3 minutes a launch here. The table comes last: planted, found,
missed, false, and cells told as sharing the virtual hosts' one machine, per scenario;
docs/ARCHITECTURE.md, "Under load", gives its figures.
"""
import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import time

from core import ENV, run_logged

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLUSTER = os.path.join(ROOT, "tests", "multihost", "virtual_cluster.sh")
# A matrix step on the busy cores can wait long for a rank: a longer bound than the default.
TIMEOUT = ["--timeout", "60"]
BULK_PORT = 5201


def up(options, name, trunk):
    """Two switches joined by a trunk of `trunk` Mbit/s, or one switch of links at the trunk's rate."""
    vc_dir = os.path.join(options.out, name)
    env = dict(ENV, VC_TRUNK_MBIT=str(trunk)) if trunk else ENV
    rate = options.rate if trunk else options.trunk
    subprocess.run([CLUSTER, "up", vc_dir, str(options.hosts), str(rate)], check=True, capture_output=True, env=env)
    return vc_dir


def hosts_of(vc_dir):
    """(name, address, switch) of each virtual host, from the cluster's table."""
    with open(os.path.join(vc_dir, "hosts")) as table:
        return [(words[0], words[1], int(words[4])) for words in map(str.split, table) if words]


def load_ranks(options):
    return f"{options.hosts // 2 - 1},{options.hosts - 1}"


def under_load(options, npgpu, log, vc_dir, tag):
    """The report's `load` answer for one launch of every host under the load."""
    record = os.path.join(options.out, f"{tag}.h5")
    if os.path.exists(record):
        os.remove(record)
    run_logged([os.path.join(vc_dir, "mpirun"), "-q", "-np", str(options.hosts), npgpu, "--module", "mpi", "--pairs",
                "all", "--sizes", options.sizes, "--load", "stream", "--load-module", "tcp", "--load-ranks", load_ranks(options), *TIMEOUT,
                "-o", record], log)
    done = subprocess.run([npgpu, "report", "--json", record], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)["load"][0]


# The answer's words where it puts a victim's slowdown on the machine the virtual hosts share, not
# on a link (src/report/load_impact.cpp).
MACHINE_ANSWERS = ("the load's machine is what they share", "sharing the load's machine does")


def judged(load, switch_of):
    """(planted, found, missed, false, on the machine, impact of the cells across at 8 B) of one
    launch. A cell inside a switch told beyond the noise is false unless the answer puts it on the
    machine the virtual hosts share (its own column: the load's kernel work takes their cores)."""
    line = load["lines"][0]
    planted = found = false = machine = 0
    across_at_8 = []
    on_the_machine = any(words in line for words in MACHINE_ANSWERS)
    for victim in load["victims"]:
        across = switch_of[victim["hosts"][0]] != switch_of[victim["hosts"][1]]
        hit = any(size["beyond_noise"] for size in victim["sizes"])
        told_as_machine = hit and not across and on_the_machine and "machine" in victim["shares"]
        planted += across
        found += across and hit and line.startswith("victims across the split")
        false += hit and not across and not told_as_machine
        machine += told_as_machine
        across_at_8 += [s["impact"] for s in victim["sizes"] if across and s["bytes"] == 8]
    return planted, found, planted - found, false, machine, across_at_8, line


def bulk_receive(port):
    """Receives one connection's bytes until it closes; prints their rate in B/s."""
    with socket.create_server(("0.0.0.0", port)) as server:
        connection, _ = server.accept()
        received, began = 0, time.monotonic()
        while chunk := connection.recv(1 << 20):
            received += len(chunk)
        print(received / (time.monotonic() - began))


def bulk_send(address, port):
    """Sends 1 MiB writes on one blocking connection until terminated."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    connection = socket.create_connection((address, port))
    block = bytes(1 << 20)
    while True:
        connection.sendall(block)


def hand_run(options, npgpu, log, vc_dir):
    """8 B one-way time from the first host of the first switch to the first of the second, and
    to the second host of the first switch: alone, then under a bulk copy from the last host of
    the first switch to the last of the second. (quiet, loaded) medians in seconds for each pair,
    and the copy's rate in B/s."""
    hosts = hosts_of(vc_dir)
    names = [name for name, _, _ in hosts]
    address = {name: at for name, at, _ in hosts}
    first_a, second_a, first_b = names[0], names[1], names[options.hosts // 2]
    last_a, last_b = names[options.hosts // 2 - 1], names[-1]
    on = os.path.join(vc_dir, "on")

    def latency(tag, to):
        record = os.path.join(options.out, f"hand-{tag}.h5")
        if os.path.exists(record):
            os.remove(record)
        run_logged([os.path.join(vc_dir, "mpirun-on"), first_a, "-q", "--host", f"{first_a},{to}", "-np", "2", npgpu,
                    "--module", "mpi", "--pairs", "0:1", "--lower", "8", "--upper", "8", *TIMEOUT, "-o", record], log)
        done = subprocess.run([npgpu, "report", "--json", record], capture_output=True, text=True, check=True)
        return json.loads(done.stdout)["runs"][0]["curves"][0]["latency_s"]

    quiet = [latency("quiet-across", first_b), latency("quiet-inside", second_a)]
    receiver = subprocess.Popen([on, last_b, sys.executable, __file__, "bulk-receive", str(BULK_PORT)],
                                stdout=subprocess.PIPE, text=True, env=ENV)
    time.sleep(0.5)
    sender = subprocess.Popen([on, last_a, sys.executable, __file__, "bulk-send", address[last_b], str(BULK_PORT)], env=ENV)
    try:
        time.sleep(2)  # the copy's window opens and its queue fills
        loaded = [latency("loaded-across", first_b), latency("loaded-inside", second_a)]
    finally:
        sender.terminate()
        sender.wait()
        rate = float(receiver.communicate(timeout=30)[0] or 0)
    return list(zip(quiet, loaded)), rate


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--launches", type=int, default=3)
    parser.add_argument("--hosts", type=int, default=6)
    parser.add_argument("--rate", type=float, default=400, help="Mbit/s of every host's link beside the trunk")
    parser.add_argument("--trunk", type=float, default=100,
                        help="Mbit/s of the trunk between the two switches, and of the links of one switch")
    parser.add_argument("--sizes", default="8,64K", help="the victims' matrix sizes")
    if sys.argv[1:2] == ["bulk-receive"]:
        return bulk_receive(int(sys.argv[2]))
    if sys.argv[1:2] == ["bulk-send"]:
        return bulk_send(sys.argv[2], int(sys.argv[3]))
    options = parser.parse_args()
    if subprocess.run([CLUSTER, "usable"]).returncode != 0:
        sys.exit("congestion.py: no virtual cluster can be built here (root and ip netns)")
    os.makedirs(options.out, exist_ok=True)
    npgpu = os.path.join(options.build, "npgpu")
    log = os.path.join(options.out, "launches.log")
    rows = []
    report_at_8 = []
    for scenario, trunk in ((f"two switches, trunk {options.trunk:g} Mbit/s", options.trunk),
                            (f"one switch, links {options.trunk:g} Mbit/s", None)):
        vc_dir = up(options, "trunk" if trunk else "one-switch", trunk)
        try:
            switch_of = {name: switch for name, _, switch in hosts_of(vc_dir)}
            totals, details = [0, 0, 0, 0, 0], []
            for launch in range(1, options.launches + 1):
                planted, found, missed, false, machine, at_8, line = judged(
                    under_load(options, npgpu, log, vc_dir, f"{'trunk' if trunk else 'one-switch'}-{launch}"), switch_of)
                if not trunk:
                    planted, found, missed = 0, 0, 0
                totals = [a + b for a, b in zip(totals, (planted, found, missed, false, machine))]
                report_at_8 += at_8 if trunk else []
                details.append(line)
            rows.append((scenario, totals, " | ".join(details)))
            if trunk:
                hand = [hand_run(options, npgpu, log, vc_dir) for _ in range(options.launches)]
        finally:
            subprocess.run([CLUSTER, "down", vc_dir], capture_output=True)
    across_by_hand = [across[1] / across[0] for (across, _), _ in hand]
    inside_by_hand = [inside[1] / inside[0] for (_, inside), _ in hand]
    print("\nby hand, 8 B one-way alone -> under a bulk copy across the trunk (medians, us):")
    for (across, inside), rate in hand:
        print(f"  across {across[0] * 1e6:.1f} -> {across[1] * 1e6:.1f} (x{across[1] / across[0]:.2f}), "
              f"inside a switch {inside[0] * 1e6:.1f} -> {inside[1] * 1e6:.1f} (x{inside[1] / inside[0]:.2f}); "
              f"the copy moved {rate / 1e6:.1f} MB/s")
    print(f"the reports' cells across at 8 B: median x{statistics.median(report_at_8):.2f} "
          f"(x{min(report_at_8):.2f} to x{max(report_at_8):.2f}); by hand across median "
          f"x{statistics.median(across_by_hand):.2f}, inside median x{statistics.median(inside_by_hand):.2f}")
    print(f"\n{'scenario':36} {'planted':>7} {'found':>5} {'missed':>6} {'false':>5} {'machine':>7}  lines")
    for name, (planted, found, missed, false, machine), detail in rows:
        print(f"{name:36} {planted:>7} {found:>5} {missed:>6} {false:>5} {machine:>7}  {detail}")
    print("(machine: cells inside a switch told beyond the noise that the answer puts on the machine the "
          "virtual hosts share, not on a link)")


if __name__ == "__main__":
    main()
