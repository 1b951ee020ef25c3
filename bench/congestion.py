#!/usr/bin/python3
"""Issue 36's report under load, proven on a planted load, launch after launch, on virtual clusters
of --hosts hosts (tests/multihost/virtual_cluster.sh) with links at --rate Mbit/s:

1. two switches joined by a trunk of --trunk Mbit/s (VC_TRUNK_MBIT): a tcp stream between the last
   host of each switch, `npgpu --module mpi --pairs all` on the other hosts (8 B, 1 MiB). Planted:
   the victim cells across the trunk (found where the report says a size of theirs lies beyond the
   noise and its line names the victims across the split); a cell inside a switch found is false.
2. one switch, the same load: nothing planted; every cell found is false.
3. by hand, on the two switches: the same load alone in a background job of its own while a plain
   `npgpu --module mpi --pairs 0:1 --lower 8 --upper 8` between a host of each switch measures, against the
   same measurement with no load; its impact beside the report's for the same cell.

    bench/congestion.py OUT_DIR [--build build] [--launches 3] [--hosts 6] [--rate 1000] [--trunk 400]

Needs root and `ip netns`; about 3 minutes a launch here. The table comes last: planted, found,
missed, false per scenario; docs/ARCHITECTURE.md, "Under load", gives its figures.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

from core import ENV, run_logged

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLUSTER = os.path.join(ROOT, "tests", "multihost", "virtual_cluster.sh")
# A matrix step on the busy cores can wait long for a rank: a longer bound than the default.
TIMEOUT = ["--timeout", "60"]


def up(options, name, trunk):
    vc_dir = os.path.join(options.out, name)
    env = dict(ENV, VC_TRUNK_MBIT=str(trunk)) if trunk else ENV
    subprocess.run([CLUSTER, "up", vc_dir, str(options.hosts), str(options.rate)], check=True, capture_output=True, env=env)
    return vc_dir


def hosts_of(vc_dir):
    with open(os.path.join(vc_dir, "hosts")) as table:
        return [(line.split()[0], int(line.split()[4])) for line in table if line.strip()]


def load_ranks(options):
    return f"{options.hosts // 2 - 1},{options.hosts - 1}"


def under_load(options, npgpu, log, vc_dir, tag):
    """The report's `load` answer for one launch of every host under the load."""
    record = os.path.join(options.out, f"{tag}.h5")
    if os.path.exists(record):
        os.remove(record)
    run_logged([os.path.join(vc_dir, "mpirun"), "-q", "-np", str(options.hosts), npgpu, "--module", "mpi", "--pairs",
                "all", "--load", "stream", "--load-module", "tcp", "--load-ranks", load_ranks(options), *TIMEOUT,
                "-o", record], log)
    done = subprocess.run([npgpu, "report", "--json", record], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)["load"][0]


def judged(load, switch_of):
    """(planted, found, missed, false, impact of the cells across at 8 B) of one launch."""
    line = load["lines"][0]
    planted = found = false = 0
    across_at_8 = []
    for victim in load["victims"]:
        across = switch_of[victim["hosts"][0]] != switch_of[victim["hosts"][1]]
        hit = any(size["beyond_noise"] for size in victim["sizes"])
        planted += across
        found += across and hit and line.startswith("victims across the split")
        false += hit and not across
        across_at_8 += [s["impact"] for s in victim["sizes"] if across and s["bytes"] == 8]
    return planted, found, planted - found, false, across_at_8, line


def hand_run(options, npgpu, log, vc_dir):
    """8 B one-way time between the first host of each switch, alone and while the load runs
    alone in a job of its own between the last host of each: (quiet, loaded) medians in seconds."""
    hosts = [name for name, _ in hosts_of(vc_dir)]
    first_a, first_b = hosts[0], hosts[options.hosts // 2]
    last_a, last_b = hosts[options.hosts // 2 - 1], hosts[-1]

    def latency(tag):
        record = os.path.join(options.out, f"hand-{tag}.h5")
        if os.path.exists(record):
            os.remove(record)
        run_logged([os.path.join(vc_dir, "mpirun-on"), first_a, "-q", "--host", f"{first_a},{first_b}", "-np", "2", npgpu,
                    "--module", "mpi", "--pairs", "0:1", "--lower", "8", "--upper", "8", *TIMEOUT, "-o", record], log)
        done = subprocess.run([npgpu, "report", "--json", record], capture_output=True, text=True, check=True)
        return json.loads(done.stdout)["runs"][0]["curves"][0]["latency_s"]

    quiet = latency("quiet")
    with open(log, "a") as out:
        load = subprocess.Popen([os.path.join(vc_dir, "mpirun-on"), last_a, "-q", "--host", f"{last_a},{last_b}", "-np", "2",
                                 npgpu, "--module", "tcp", "--pattern", "stream", "--lower", "4M", "--upper", "4M", "--trial-time", "2",
                                 "--min-trials", "20", "--max-trials", "20", "-o", os.path.join(options.out, "hand-load.h5")],
                                stdout=out, stderr=subprocess.STDOUT, env=ENV)
        time.sleep(3)  # the load warms up, as the run under load's does
        try:
            loaded = latency("loaded")
        finally:
            load.terminate()
            load.wait()
    return quiet, loaded


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--launches", type=int, default=3)
    parser.add_argument("--hosts", type=int, default=6)
    parser.add_argument("--rate", type=float, default=1000, help="Mbit/s of every host's link")
    parser.add_argument("--trunk", type=float, default=400, help="Mbit/s of the trunk between the two switches")
    options = parser.parse_args()
    if subprocess.run([CLUSTER, "usable"]).returncode != 0:
        sys.exit("congestion.py: no virtual cluster can be built here (root and ip netns)")
    os.makedirs(options.out, exist_ok=True)
    npgpu = os.path.join(options.build, "npgpu")
    log = os.path.join(options.out, "launches.log")
    rows = []
    report_at_8 = []
    for scenario, trunk in ((f"two switches, trunk {options.trunk:g} Mbit/s", options.trunk), ("one switch", None)):
        vc_dir = up(options, "trunk" if trunk else "one-switch", trunk)
        try:
            switch_of = dict(hosts_of(vc_dir))
            totals, details = [0, 0, 0, 0], []
            for launch in range(1, options.launches + 1):
                planted, found, missed, false, at_8, line = judged(
                    under_load(options, npgpu, log, vc_dir, f"{'trunk' if trunk else 'one-switch'}-{launch}"), switch_of)
                if not trunk:
                    planted, found, missed = 0, 0, 0
                totals = [a + b for a, b in zip(totals, (planted, found, missed, false))]
                report_at_8 += at_8 if trunk else []
                details.append(line)
            rows.append((scenario, totals, " | ".join(details)))
            if trunk:
                hand = [hand_run(options, npgpu, log, vc_dir) for _ in range(options.launches)]
        finally:
            subprocess.run([CLUSTER, "down", vc_dir], capture_output=True)
    hand_impacts = [loaded / quiet for quiet, loaded in hand]
    print("\nby hand, 8 B one-way between the switches, alone and under the same load (medians, us): " +
          ", ".join(f"{q * 1e6:.1f} -> {l * 1e6:.1f} (x{l / q:.2f})" for q, l in hand) +
          f"; the reports' cells across at 8 B: median x{statistics.median(report_at_8):.2f} "
          f"(x{min(report_at_8):.2f} to x{max(report_at_8):.2f}); by hand median x{statistics.median(hand_impacts):.2f}")
    print(f"\n{'scenario':36} {'planted':>7} {'found':>5} {'missed':>6} {'false':>5}  lines")
    for name, (planted, found, missed, false), detail in rows:
        print(f"{name:36} {planted:>7} {found:>5} {missed:>6} {false:>5}  {detail}")


if __name__ == "__main__":
    main()
