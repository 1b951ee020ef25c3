#!/usr/bin/python3
"""Issue 17's findings, proven on planted faults in 3 of 3 launches (virtual clusters of 4 hosts):

1. healthy: every link at --rate: no link flagged at either default size (8 B, 1 MiB), no split;
2. slow host: host 4 at a third of --rate both ways: exactly its 6 links flagged at 1 MiB, no
   healthy link flagged at 8 B, no split;
3. slow outgoing: host 4 slow from it only: exactly its 3 outgoing links flagged at 1 MiB;
4. two switches: hosts 1-2 and 3-4 on switches joined by a trunk of --trunk Mbit/s each way
   (4:1 at the defaults): the report names the two groups and the trunk within 10%, from the
   matrix's cells across and from a plain --pairs halves run against the matrix.
5. tapered trunks (issue 35): two racks of 3 and of 4 hosts at --host-rate, joined by trunks of
   1, 1.5, 2 and 3 host links, and one switch of 8 hosts (healthy): the survey's runs (`--pairs
   halves` then `--pairs all`, tcp, 1 MiB, the multihost test's windows). Where the trunk is
   under a rack's links together the report must name the two racks and the trunk within 10%,
   from the matrix and in the pairs' verdict; where it is not (racks of 3 on a trunk of 3 links)
   and on one switch it must name no groups and no link.
Each launch is a default `npgpu --pairs all` (tcp and mpi modules; scenarios 4 and 5: tcp, one
large size, as the multihost test), read back with `npgpu report --json`. Needs root and `ip netns`
(tests/multihost/virtual_cluster.sh builds and removes every cluster). The machine's own load
shows in the figures: each launch logs the load average.

With --gpu, on a node with a GPU instead (the device machine):
5. two ranks sharing one GPU: `cudaMemcpy --device 0` h2d, the two ranks together and alone into
   one record: the report must say the ranks share that GPU and its one PCIe link, and must not
   blame the host side;
6. healthy: one rank on it, together and alone: no finding of a shared cap.
Planted switches (eager limits) have their own bench, bench/switches.py.

    bench/diagnosis.py OUT_DIR [--build build] [--launches 3] [--rate 400] [--trunk 200]
                               [--host-rate 200] [--only trunks] [--gpu]

About 15 minutes at the defaults, and 20 more for scenario 5 (--only trunks: scenario 5 alone;
--gpu: about a minute); the tables come last.
"""
import argparse
import json
import os
import re
import subprocess
import sys

from core import run_logged

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLUSTER = os.path.join(ROOT, "tests", "multihost", "virtual_cluster.sh")
LARGE = ["--pattern", "stream", "--window", "4", "--cache", "warm", "--trial-time", "0.001", "--max-trials", "8"]


def report(npgpu, record):
    done = subprocess.run([npgpu, "report", "--json", record], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def flags_by_size(record):
    """{size index: set of (from, to)} of the record's one all-pairs run."""
    import h5py
    with h5py.File(record, "r") as f:
        matrix = [f["runs"][name]["matrix"] for name in sorted(f["runs"]) if "matrix" in f["runs"][name]][0]
        flagged = matrix.get("flagged")
        found = {}
        if flagged is not None:
            for size, sender, receiver in zip(flagged["size_index"][()], flagged["from_rank"][()], flagged["to_rank"][()]):
                found.setdefault(int(size), set()).add((int(sender), int(receiver)))
        return found


def megabytes_after(text, words):
    at = text.find(words)
    return float(re.match(r"[0-9.]+", text[at + len(words):]).group()) * 1e6 if at >= 0 else float("nan")


def in_cluster(out, name, cluster_args, environment, launches, body):
    """Builds the cluster, runs body(vc_dir, launch) for each launch, always tears it down."""
    vc_dir = os.path.join(out, name + "-cluster")
    env = dict(os.environ, **environment)
    subprocess.run([CLUSTER, "up", vc_dir] + cluster_args, env=env, check=True, capture_output=True)
    try:
        return [body(vc_dir, launch) for launch in range(1, launches + 1)]
    finally:
        subprocess.run([CLUSTER, "down", vc_dir], capture_output=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--launches", type=int, default=3)
    parser.add_argument("--rate", type=float, default=400, help="Mbit/s of every host's link")
    parser.add_argument("--trunk", type=float, default=200, help="Mbit/s of the trunk between the two switches")
    parser.add_argument("--host-rate", type=float, default=200, help="Mbit/s of every host's link, tapered trunks")
    parser.add_argument("--only", choices=["trunks"], help="only the tapered trunks (scenario 5)")
    parser.add_argument("--gpu", action="store_true", help="the GPU scenarios, on a node with a GPU")
    options = parser.parse_args()
    if options.gpu:
        print_table(gpu_rows(options))
        return
    if subprocess.run([CLUSTER, "usable"]).returncode != 0:
        sys.exit("diagnosis.py: no virtual cluster can be built here (root and ip netns)")
    os.makedirs(options.out, exist_ok=True)
    npgpu = os.path.join(options.build, "npgpu")
    log = os.path.join(options.out, "launches.log")
    trunks = tapered_trunk_rows(options, npgpu, log)
    if options.only != "trunks":
        print_table(one_size_rows(options, npgpu, log))
    print_trunk_table(trunks)


def one_size_rows(options, npgpu, log):
    """Scenarios 1 to 4."""
    rows = []

    def all_pairs(vc_dir, tag, module, extra=()):
        record = os.path.join(options.out, f"{tag}.h5")
        if os.path.exists(record):
            os.remove(record)
        run_logged([os.path.join(vc_dir, "mpirun"), "-q", "-np", "4", npgpu, "--module", module, "--pairs", "all",
                    "-o", record, *extra], log)
        return record

    slow = str(options.rate / 3)
    every = {(a, b) for a in range(4) for b in range(4) if a != b}
    touching = {(a, b) for a, b in every if 3 in (a, b)}
    outgoing = {(a, b) for a, b in every if a == 3}
    for scenario, args, environment, expected in (
            ("healthy", [4, options.rate], {}, set()),
            ("slow host", [4, options.rate, 4, slow], {}, touching),
            ("slow outgoing", [4, options.rate, 4, slow], {"VC_SLOW_OUTGOING": "1"}, outgoing)):
        for module in ("tcp", "mpi") if scenario != "slow outgoing" else ("tcp",):
            def launch(vc_dir, number):
                tag = f"{scenario.replace(' ', '-')}-{module}-{number}"
                record = all_pairs(vc_dir, tag, module)
                flags = flags_by_size(record)
                splits = sum(len(r.get("host_groups", [])) for r in report(npgpu, record)["runs"])
                exact = flags.get(1, set()) == expected
                false_latency = flags.get(0, set()) - touching
                return exact and not false_latency and splits == 0, len(flags.get(1, set())), \
                    len(flags.get(0, set())), len(false_latency)
            results = in_cluster(options.out, scenario.replace(" ", "-"), [str(a) for a in args], environment,
                                 options.launches, launch)
            good = sum(1 for ok, *_ in results if ok)
            detail = "; ".join(f"1 MiB {big} flagged, 8 B {small} ({false} healthy)" for _, big, small, false in results)
            rows.append((f"{scenario}, {module}: exact, no split", f"{good}/{len(results)}", detail))

    def trunk_launch(vc_dir, number):
        record = os.path.join(options.out, f"two-switches-{number}.h5")
        if os.path.exists(record):
            os.remove(record)
        for pairs in (["--pairs", "halves", "--lower", "2M", "--upper", "2M"], ["--pairs", "all", "--sizes", "2M"]):
            run_logged([os.path.join(vc_dir, "mpirun"), "-q", "-np", "4", npgpu, "--module", "tcp", "-o", record,
                        *pairs, *LARGE], log)
        text = subprocess.run([npgpu, "report", record], capture_output=True, text=True).stdout
        named = "the hosts split into {" in text
        matrix = megabytes_after(text, "the cells across, measured at once, moved ")
        pairs = megabytes_after(text, "which caps their sum at ")
        return named, matrix, pairs
    trunk = options.trunk * 1e6 / 8
    results = in_cluster(options.out, "two-switches", ["4", str(options.rate)], {"VC_TRUNK_MBIT": str(options.trunk)},
                         options.launches, trunk_launch)
    good = sum(1 for named, m, p in results if named and abs(m / trunk - 1) <= 0.1 and abs(p / trunk - 1) <= 0.1)
    detail = "; ".join(f"matrix {m / 1e6:.1f}, pairs {p / 1e6:.1f} MB/s" for _, m, p in results)
    rows.append((f"two switches, trunk {trunk / 1e6:.1f} MB/s: groups and trunk within 10%", f"{good}/{len(results)}",
                 detail))
    return rows


def tapered_trunk_rows(options, npgpu, log):
    """Scenario 5: (case, planted, found, missed, false, figures) for each cluster. A launch finds
    the trunk where the report names the two racks and, from the matrix and in the pairs' verdict,
    a link between them within 10% of the trunk; a false finding is groups or a link named where
    none was planted, or other groups than the racks."""
    host = options.host_rate * 1e6 / 8
    rows = []
    for rack, links in [(rack, links) for rack in (3, 4) for links in (1, 1.5, 2, 3)] + [(4, None)]:
        hosts = 2 * rack
        planted = links is not None and links < rack
        environment = {"VC_TRUNK_MBIT": str(links * options.host_rate)} if links else {}
        name = f"racks of {rack}, trunk of {links} links" if links else f"one switch of {hosts}"

        def launch(vc_dir, number):
            record = os.path.join(options.out, f"trunk-{rack}-{links}-{number}.h5")
            if os.path.exists(record):
                os.remove(record)
            for pairs in (["--pairs", "halves", "--lower", "1M", "--upper", "1M", "--fac2"], ["--pairs", "all", "--sizes", "1M"]):
                run_logged([os.path.join(vc_dir, "mpirun"), "-q", "-np", str(hosts), npgpu, "--module", "tcp", "-o",
                            record, *pairs, *LARGE], log)
            with open(os.path.join(vc_dir, "hosts")) as table:
                rows = [line.split() for line in table.read().splitlines()]
            racks = [[row[0] for row in rows if row[4] == side] for side in "12"]
            named = [g["groups"] for r in report(npgpu, record)["runs"] for g in r.get("host_groups", [])]
            text = subprocess.run([npgpu, "report", record], capture_output=True, text=True).stdout
            matrix = megabytes_after(text, "the cells across, measured at once, moved ")
            verdict = megabytes_after(text, "where the all-pairs cells crossing at once moved ")
            said = bool(named) or verdict == verdict
            return named == [racks] if planted else False, said and not (planted and named == [racks]), matrix, verdict
        results = in_cluster(options.out, f"trunk-{rack}-{links}", [str(hosts), str(options.host_rate)], environment,
                             options.launches, launch)
        trunk = links * host if links else float("nan")
        found = sum(1 for named, _, m, v in results if named and abs(m / trunk - 1) <= 0.1 and abs(v / trunk - 1) <= 0.1)
        false = sum(1 for _, wrong, _, _ in results if wrong)
        detail = "; ".join(f"matrix {m / 1e6:.1f}, verdict {v / 1e6:.1f} MB/s" for _, _, m, v in results)
        rows.append((name, f"{trunk / 1e6:.1f} MB/s" if planted else "none", found, len(results) - found if planted else 0,
                     false, detail))
    return rows


def print_trunk_table(rows):
    print(f"\n{'tapered trunk (tcp, 1 MiB)':30} {'planted':>11} {'found':>5} {'missed':>6} {'false':>5}  figures")
    for name, planted, found, missed, false, detail in rows:
        print(f"{name:30} {planted:>11} {found:>5} {missed:>6} {false:>5}  {detail}")


def gpu_rows(options):
    """Ranks copying host->GPU on one GPU, together and alone, as many launches as asked: the
    planted fault (two ranks share it) must be named as what they share, the healthy one rank
    must yield no shared cap."""
    os.makedirs(options.out, exist_ok=True)
    npgpu = os.path.join(options.build, "npgpu")
    log = os.path.join(options.out, "launches.log")
    copies = ["--module", "cudaMemcpy", "--device", "0", "--direction", "h2d", "--lower", "16M", "--upper", "256M"]
    rows = []
    for scenario, ranks in (("two ranks sharing GPU 0", 2), ("healthy: one rank on GPU 0", 1)):
        results = []
        for number in range(1, options.launches + 1):
            record = os.path.join(options.out, f"gpu-{ranks}-ranks-{number}.h5")
            if os.path.exists(record):
                os.remove(record)
            for concurrency in ("together", "alone"):
                run_logged(["mpirun", "-np", str(ranks), npgpu, *copies, "--concurrency", concurrency, "-o", record], log)
            texts = [f["text"] for f in report(npgpu, record)["findings"] if f["kind"] == "concurrent_vs_alone"]
            capped = [t for t in texts if "gets alone:" in t and "scales" not in t]
            named = any("share GPU 0" in t and "its one PCIe link" in t for t in capped)
            blamed_host = any("host side" in t for t in texts)
            results.append(((named and not blamed_host) if ranks == 2 else not capped, texts))
        good = sum(1 for ok, _ in results if ok)
        detail = " | ".join("; ".join(texts) or "no finding" for _, texts in results[:1])
        rows.append((f"{scenario}: {'named, not the host side' if ranks == 2 else 'no shared cap'}",
                     f"{good}/{len(results)}", detail))
    return rows


def print_table(rows):
    print(f"\n{'planted fault, module: what is asked':58} {'launches':>8}  figures")
    for name, count, detail in rows:
        print(f"{name:58} {count:>8}  {detail}")


if __name__ == "__main__":
    main()
