#!/usr/bin/python3
"""Issue 37's runs against a reference (`npgpu report --baseline`, `npgpu baseline`), proven on
planted faults of known size, launch after launch:

1. on this host (the default): mpi over TCP, 1 B to 1 MiB. A reference launch, then --launches
   healthy launches (nothing may fall short) and --launches launches with socket buffers of 2 KiB
   (`--mca btl_tcp_sndbuf 2048 --mca btl_tcp_rcvbuf 2048`), which slow every size from a few KiB
   (x0.03 to x0.3 here): the sizes from 16 KiB on are planted (found where named, missed where
   not), and a size under 1 KiB named is false (a message that small fits the buffer).
2. --cluster: virtual clusters of 4 hosts (tests/multihost/virtual_cluster.sh), `--module tcp
   --pairs all` at its default sizes (8 B, 1 MiB). A fleet reference folded from --launches
   healthy launches (`npgpu baseline`) judges, --launches times each: a healthy cluster (nothing
   may fall short), one with host 4 at a third of --rate (its 6 links at 1 MiB planted: "every link
   of host ...-h4" must be said, and no other link named), one with every link at a third
   ("every link of all 4 hosts" at 1 MiB), and one with host 4's small packets paced at 10 Mbit/s
   (`virtual_cluster.sh pace`: its 6 links at 8 B planted, about 45 us more a message, "every link
   of host ...-h4" at 8 B). A cell named at a size its fault leaves alone (a rate limit slows no
   8 B cell, the pacing no 1 MiB one) is false. A run reference judges a healthy launch too, in the
   cluster it was made in (its host names are that cluster's). Needs root and `ip netns`.

    bench/baseline.py OUT_DIR [--build build] [--launches 3] [--cluster | --only cluster] [--rate 400]

About 2 minutes on this host at the defaults on a quiet machine (more under load), and about 11
more with --cluster; the table comes last: planted, found, missed, false per scenario.
"""
import argparse
import json
import os
import subprocess
import sys

from core import run_logged

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLUSTER = os.path.join(ROOT, "tests", "multihost", "virtual_cluster.sh")
TCP_SWEEP = ["--module", "mpi", "--upper", "1M", "--trial-time", "0.01", "--max-trials", "5", "--timeout", "120"]
TINY_SOCKET_BUFFERS = ["--mca", "btl_tcp_sndbuf", "2048", "--mca", "btl_tcp_rcvbuf", "2048"]


def fresh(path):
    if os.path.exists(path):
        os.remove(path)
    return path


def judged(npgpu, reference, record):
    """The report's baseline section, and its exit code (0 or 5; anything else stops the bench)."""
    done = subprocess.run([npgpu, "report", "--json", "--baseline", reference, record], capture_output=True, text=True)
    if done.returncode not in (0, 5):
        sys.exit(f"baseline.py: report --baseline {reference} {record} failed ({done.returncode}): {done.stderr}")
    return json.loads(done.stdout)["baseline"], done.returncode


def on_this_host(options, npgpu, log):
    mpirun = ["mpirun", "-np", "2", "--mca", "pml", "ob1", "--mca", "btl", "tcp,self"]
    reference = fresh(os.path.join(options.out, "host-reference.h5"))
    run_logged(mpirun + [npgpu, *TCP_SWEEP, "-o", reference], log)
    rows = []
    for scenario, faults in (("healthy", []), ("socket buffers of 2 KiB", TINY_SOCKET_BUFFERS)):
        found = missed = false = 0
        details = []
        for launch in range(1, options.launches + 1):
            record = fresh(os.path.join(options.out, f"host-{'healthy' if not faults else 'slow'}-{launch}.h5"))
            run_logged(mpirun + faults + [npgpu, *TCP_SWEEP, "-o", record], log)
            baseline, code = judged(npgpu, reference, record)
            named = {s["bytes"] for s in baseline["shortfalls"]}
            with_sizes = subprocess.run([npgpu, "export", "--format", "csv", record], capture_output=True, text=True,
                                        check=True).stdout.splitlines()[1:]
            sizes = {float(line.split(",")[8]) for line in with_sizes}
            planted = {b for b in sizes if b >= 16384} if faults else set()
            found += len(planted & named)
            missed += len(planted - named)
            false += len({b for b in named if b < 1024} if faults else named)
            worst = min((s["ratio"] for s in baseline["shortfalls"]), default=float("nan"))
            details.append(f"exit {code}, {len(named)} named from {min(named, default=0):.0f} B, worst x{worst:.2f}")
        planted_count = "none" if not faults else "sizes >= 16 KiB"
        rows.append((f"this host, mpi over TCP: {scenario}", planted_count, found, missed, false, "; ".join(details)))
    return rows


def in_cluster(options, name, cluster_args, launches, body, paced=()):
    """Builds the cluster (`paced`: HOST RATE_MBIT for `virtual_cluster.sh pace`, or none), runs
    body(vc_dir, launch) for each launch, always tears it down."""
    vc_dir = os.path.join(options.out, name + "-cluster")
    try:
        subprocess.run([CLUSTER, "up", vc_dir] + [str(a) for a in cluster_args], check=True, capture_output=True)
        if paced:
            subprocess.run([CLUSTER, "pace", vc_dir] + [str(a) for a in paced], check=True, capture_output=True)
        return [body(vc_dir, launch) for launch in range(1, launches + 1)]
    finally:
        subprocess.run([CLUSTER, "down", vc_dir], capture_output=True)


def all_pairs(options, npgpu, log, vc_dir, tag):
    record = fresh(os.path.join(options.out, f"{tag}.h5"))
    run_logged([os.path.join(vc_dir, "mpirun"), "-q", "-np", "4", npgpu, "--module", "tcp", "--pairs", "all", "-o",
                record], log)
    return record


def on_clusters(options, npgpu, log):
    if subprocess.run([CLUSTER, "usable"]).returncode != 0:
        sys.exit("baseline.py: no virtual cluster can be built here (root and ip netns)")
    rate, slow = options.rate, options.rate / 3
    healthy = in_cluster(options, "fleet", [4, rate], options.launches + 1,
                         lambda vc_dir, n: all_pairs(options, npgpu, log, vc_dir, f"fleet-{n}"))
    fleet = fresh(os.path.join(options.out, "fleet.h5"))
    run_logged([npgpu, "baseline", "-o", fleet, *healthy[:options.launches]], log)
    rows = []
    # The run reference: the fleet's first launch judging the launch made after the fleet's.
    baseline, code = judged(npgpu, healthy[0], healthy[-1])
    rows.append(("cluster, run reference: healthy", "none", 0, 0, len(baseline["shortfalls"]),
                 f"exit {code}; {'; '.join(r for run in baseline['runs'] for r in run['shared']) or 'nothing short'}"))
    every_cell = {(a, b) for a in range(4) for b in range(4) if a != b}
    host_4 = {c for c in every_cell if 3 in c}
    large, small = 1048576, 8
    # Each fault's planted cells at the size it slows, (bytes, (from rank, to rank)); the words the
    # report must say of them at that size.
    for scenario, cluster_args, paced, planted, words in (
            ("healthy", [4, rate], (), set(), None),
            ("host 4 at a third", [4, rate, 4, slow], (), {(large, c) for c in host_4}, ("every link of host ", "1 MiB")),
            ("every link at a third", [4, slow], (), {(large, c) for c in every_cell}, ("every link of all 4 hosts", "1 MiB")),
            ("host 4's small packets paced", [4, rate], (4, 10), {(small, c) for c in host_4}, ("every link of host ", "8 B"))):
        tag = "".join(c if c.isalnum() else "-" for c in scenario)
        def launch(vc_dir, number):
            record = all_pairs(options, npgpu, log, vc_dir, f"{tag}-{number}")
            baseline, code = judged(npgpu, fleet, record)
            named = {(s["bytes"], tuple(s["ranks"])) for s in baseline["shortfalls"]}
            shared = [line for run in baseline["runs"] for line in run["shared"]]
            said = words is None or any(line.startswith(words[0]) and words[1] in line for line in shared)
            return len(planted & named) if said else 0, len(planted - named) if said else len(planted), \
                len(named - planted), f"exit {code}; {'; '.join(shared) or 'nothing short'}"
        results = in_cluster(options, tag, cluster_args, options.launches, launch, paced)
        rows.append((f"cluster, fleet of {options.launches}: {scenario}",
                     f"{len(planted)} links" if planted else "none",
                     sum(r[0] for r in results), sum(r[1] for r in results), sum(r[2] for r in results),
                     " | ".join(r[3] for r in results)))
    return rows


def print_table(rows):
    print(f"\n{'scenario':48} {'planted':>16} {'found':>5} {'missed':>6} {'false':>5}  figures")
    for name, planted, found, missed, false, detail in rows:
        print(f"{name:48} {planted:>16} {found:>5} {missed:>6} {false:>5}  {detail}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--launches", type=int, default=3)
    parser.add_argument("--cluster", action="store_true", help="the 4-host virtual cluster scenarios too")
    parser.add_argument("--only", choices=["cluster"], help="the virtual cluster scenarios alone")
    parser.add_argument("--rate", type=float, default=400, help="Mbit/s of every host's link in the clusters")
    options = parser.parse_args()
    os.makedirs(options.out, exist_ok=True)
    npgpu = os.path.join(options.build, "npgpu")
    log = os.path.join(options.out, "launches.log")
    rows = on_this_host(options, npgpu, log) if options.only != "cluster" else []
    if options.cluster or options.only == "cluster":
        rows += on_clusters(options, npgpu, log)
    print_table(rows)


if __name__ == "__main__":
    main()
