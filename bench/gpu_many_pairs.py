#!/usr/bin/env python3
"""Several pairs and every pair of a 4-GPU node (one rank per GPU): the cudaIpc and nccl all-pairs
matrices, two nccl pairs at once, and mpi staged D,D pairs, judged against nvbandwidth.

    bench/gpu_many_pairs.py OUT_DIR [--build build] [--ranks 4]

Reference (issue 8, nvidia-h200-x4, nvbandwidth 0.8): device_to_device_memcpy_write_ce reads
394.7-394.9 GB/s in every cell at 256 MiB; the cudaIpc matrix must be within 2% of that in every
cell and flag nothing. Records and logs go under OUT_DIR; the table is printed last.
"""
import argparse
import os
import subprocess
import sys
import time

import h5py
import numpy as np

VENV_NCCL = "/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nccl/lib"
NVBANDWIDTH_CE_WRITE = 394.8e9  # B/s, every cell at 256 MiB
MiB = 1 << 20


def environment():
    env = dict(os.environ)
    if os.geteuid() == 0:
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    env.setdefault("NCCL_NVLS_ENABLE", "0")  # never multicast: it can take a shared host's GPUs down
    if os.path.isdir(VENV_NCCL):
        env["LD_LIBRARY_PATH"] = ":".join(p for p in (VENV_NCCL, env.get("LD_LIBRARY_PATH")) if p)
    return env


def npgpu(options, name, args):
    """Runs npgpu on every rank into OUT/NAME.h5; returns the run group and the seconds it took."""
    record = os.path.join(options.out, name + ".h5")
    if os.path.exists(record):
        os.remove(record)
    argv = ["mpirun", "-np", str(options.ranks), os.path.join(options.build, "npgpu"), *args, "-o", record]
    print(f"{name}: {' '.join(argv)}", file=sys.stderr, flush=True)
    started = time.monotonic()
    with open(os.path.join(options.out, name + ".log"), "w") as log:
        done = subprocess.run(argv, env=environment(), stdout=log, stderr=subprocess.STDOUT, timeout=300, check=False)
    if done.returncode != 0:
        sys.exit(f"gpu_many_pairs.py: {name} failed (exit {done.returncode}); see {options.out}/{name}.log")
    return h5py.File(record, "r")["runs/0001"], time.monotonic() - started


def off_diagonal(matrix):
    return matrix[~np.eye(matrix.shape[0], dtype=bool)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("--build", default="build")
    parser.add_argument("--ranks", type=int, default=4)
    options = parser.parse_args()
    os.makedirs(options.out, exist_ok=True)
    rows = []

    for module in ("cudaIpc", "nccl"):
        run, seconds = npgpu(options, f"{module}_all", ["--module", module, "--pairs", "all", "--sizes", "8,256M"])
        matrix = run["matrix"]
        rates = off_diagonal(matrix["throughput"][1]) / 1e9
        latency = off_diagonal(matrix["seconds"][0]) * 1e6
        flagged = len(matrix["flagged/from_rank"])
        rows.append((f"{module} all-pairs 256 MiB, every cell", f"{rates.min():.1f}-{rates.max():.1f} GB/s",
                     "394.8 nvbandwidth CE write", f"{rates.min() / 394.8:.3f}-{rates.max() / 394.8:.3f}",
                     f"{flagged} flagged, {seconds:.0f} s"))
        rows.append((f"{module} all-pairs 8 B one-way", f"{latency.min():.2f}-{latency.max():.2f} us", "", "", ""))
        if module == "cudaIpc":
            within = np.all(np.abs(rates * 1e9 / NVBANDWIDTH_CE_WRITE - 1) <= 0.02) and flagged == 0
            rows[-2] = rows[-2][:4] + (rows[-2][4] + ("; met" if within else "; NOT MET"),)

    for name, args in (("nccl_halves", ["--module", "nccl", "--pairs", "halves", "--pattern", "stream", "--lower", "1M"]),
                       ("mpi_staged_halves", ["--module", "mpi", "--buffers", "D,D", "--pairs", "halves", "--pattern",
                                              "stream", "--lower", "1M", "--upper", "64M"])):
        run, seconds = npgpu(options, name, args)
        aggregate = run["aggregate"]
        peak = int(np.argmax(aggregate["throughput_sum"][:]))
        size = aggregate["bytes"][peak] / MiB
        pairs = [run[f"curves/{c}/throughput_from_time_median"][peak] / 1e9 for c in run["curves"]]
        rows.append((f"{name}, {len(pairs)} pairs at {size:g} MiB", f"{aggregate['throughput_sum'][peak] / 1e9:.1f} GB/s sum",
                     "pairs " + ", ".join(f"{p:.1f}" for p in pairs), "", f"{seconds:.0f} s"))

    width = [max(len(str(r[i])) for r in rows) for i in range(5)]
    print("\n| what | npgpu | reference | ratio | notes |\n| --- | --- | --- | --- | --- |")
    for r in rows:
        print("| " + " | ".join(str(c).ljust(w) for c, w in zip(r, width)) + " |")


if __name__ == "__main__":
    main()
