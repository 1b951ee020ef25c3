#!/usr/bin/python3
"""Issue 37 item 3: does `npgpu report` find MPI far below raw TCP between the same two ranks when an
MPI setting starves it, and only then?

Each launch measures, between two ranks on this machine, tcp and mpi over its TCP transport
(`--mca pml ob1 --mca btl tcp,self`) into one record, and mpi with its socket buffers planted at
4 KiB (`--mca btl_tcp_sndbuf 4096 --mca btl_tcp_rcvbuf 4096`) into another; pingpong to 1 MiB in
powers of two, as the integration test does. `npgpu report --json` on both files gives each mpi
run's share of tcp's peak and whether it is far below. A healthy launch flagged is false; a planted
launch not flagged is missed.

    bench/layers.py OUT_DIR [--build build] [--launches 10]

About 10 s a launch on a quiet machine; records go under OUT_DIR, the table comes last.
"""
import argparse
import json
import os
import subprocess

SWEEP = ["--fac2", "--upper", "1M", "--trial-time", "0.002", "--max-trials", "5"]
OVER_TCP = ["--mca", "pml", "ob1", "--mca", "btl", "tcp,self"]
STARVED = OVER_TCP + ["--mca", "btl_tcp_sndbuf", "4096", "--mca", "btl_tcp_rcvbuf", "4096"]


def measure(npgpu, module, mca, record):
    subprocess.run(["mpirun", "-np", "2", *mca, npgpu, "--module", module, *SWEEP, "-o", record],
                   check=True, stdout=subprocess.DEVNULL)


def launch(npgpu, folder):
    os.makedirs(folder, exist_ok=True)
    path, planted = os.path.join(folder, "path.h5"), os.path.join(folder, "planted.h5")
    measure(npgpu, "tcp", [], path)
    measure(npgpu, "mpi", OVER_TCP, path)
    measure(npgpu, "mpi", STARVED, planted)
    report = json.loads(subprocess.run([npgpu, "report", "--json", path, planted], check=True,
                                       capture_output=True, text=True).stdout)
    by_file = {step["runs"][0].split(":")[0]: step for step in report["layers"]}
    return by_file[path], by_file[planted]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("--build", default="build")
    parser.add_argument("--launches", type=int, default=10)
    args = parser.parse_args()
    os.environ.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    npgpu = os.path.abspath(os.path.join(args.build, "npgpu"))
    rows = [launch(npgpu, os.path.join(args.out, f"launch{i}")) for i in range(args.launches)]
    print("| launch | healthy: share of tcp's peak (fastest trials) | far below | planted: share | far below |")
    print("| --- | --- | --- | --- | --- |")
    for i, (healthy, planted) in enumerate(rows):
        print(f"| {i} | {healthy['share']:.3f} ({healthy['fastest_share']:.3f}) | {healthy['far_below']} "
              f"| {planted['share']:.3f} ({planted['fastest_share']:.3f}) | {planted['far_below']} |")
    healthy = [h["share"] for h, _ in rows]
    planted = [p["share"] for _, p in rows]
    print(f"healthy: {min(healthy):.2f}-{max(healthy):.2f} of tcp, false {sum(h['far_below'] for h, _ in rows)} "
          f"of {len(rows)}; planted: {min(planted):.3f}-{max(planted):.3f}, found {sum(p['far_below'] for _, p in rows)} "
          f"of {len(rows)}")


if __name__ == "__main__":
    main()
