#!/usr/bin/env python3
"""Accuracy targets of the GPU paths inside one node (issue 3), on a machine with 2 or more GPUs:

1. each row of the issue's table, at 256-512 MiB, against the reference measured with nvbandwidth
   and the CUDA samples on a 2 x H200 (NVLink 18 links, PCIe Gen5 x16), with the theoretical peak
   of the link and the percent of it reached;
2. the 8-byte latency of every direction and host memory kind, with both timers;
3. pageable against pinned memory at every size, h2d and d2h, so the staging cost shows.

    python3 bench/gpu_node.py OUT [--build build]

Runs npgpu alone (no mpirun), writes every record to OUT/*.h5 and every run's console output to
OUT/logs/, and prints the tables last. About 3 minutes on 2 x H200. Needs h5py and numpy.
"""
import argparse
import os
import subprocess
import sys
import time

import h5py
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
BIG = ["--lower", "256M", "--upper", "512M", "--fac2"]
TINY = ["--lower", "8", "--upper", "8", "--min-trials", "5"]
SAMPLE_SIZES = [8, 4096, 65536, 1 << 20, 16 << 20, 512 << 20]

# path, npgpu arguments, reference, what ours must reach (None: report and explain)
ACCURACY = [
    ("h2d pinned, CE", ["--module", "cudaMemcpy", "--direction", "h2d", "--memory", "pinned"], 54.3e9, 0.99),
    ("d2h pinned, CE", ["--module", "cudaMemcpy", "--direction", "d2h", "--memory", "pinned"], 55.3e9, 0.99),
    ("d2d on one GPU, size/time", ["--module", "cudaMemcpy", "--direction", "d2d"], 2094e9, 0.99),
    ("GPU0 -> GPU1, CE write", ["--module", "p2p", "--pairs", "0:1", "--p2p", "write", "--pattern", "stream"], 395e9, 0.99),
    ("GPU0 <-> GPU1 bidir, total", ["--module", "p2p", "--pairs", "0:1", "--pattern", "bidir"], 778e9, 0.99),
]
# Beside the targets: the other ways over the same links, for comparison.
COMPANIONS = [
    ("h2d pinned, cuMemcpy", ["--module", "cuMemcpy", "--direction", "h2d"]),
    ("h2d pinned, SM kernel", ["--module", "cudaMemcpy", "--direction", "h2d", "--copy", "sm"]),
    ("d2d on one GPU, SM kernel", ["--module", "cudaMemcpy", "--direction", "d2d", "--copy", "sm"]),
    ("GPU0 -> GPU1, CE read", ["--module", "p2p", "--pairs", "0:1", "--p2p", "read", "--pattern", "stream"]),
    ("GPU0 -> GPU1, SM write", ["--module", "p2p", "--pairs", "0:1", "--copy", "sm", "--pattern", "stream"]),
    ("GPU0 <-> GPU1 bidir, SM", ["--module", "p2p", "--pairs", "0:1", "--copy", "sm", "--pattern", "bidir"]),
]
LATENCY_NOTE = (
    "nvbandwidth's 0.83 us is a pointer chase: one thread's dependent loads from the peer's memory, the\n"
    "NVLink load latency alone. Ours is half an 8-byte SM-copy round trip: each way is a kernel that\n"
    "starts when the other GPU's kernel has finished (a cross-GPU event wait), so it holds what a\n"
    "program pays for a small GPU-to-GPU copy: kernel start, the remote write or read, completion.")


class Runner:
    def __init__(self, npgpu, out):
        self.npgpu, self.out = npgpu, out
        os.makedirs(os.path.join(out, "logs"), exist_ok=True)

    def __call__(self, name, args):
        """Runs npgpu into OUT/name.h5; returns the record's path, or None (the log says why)."""
        record = os.path.join(self.out, name + ".h5")
        if os.path.exists(record):
            os.remove(record)
        argv = [self.npgpu] + args + ["-o", record]
        with open(os.path.join(self.out, "logs", name + ".log"), "w") as log:
            log.write(" ".join(argv) + "\n")
            log.flush()
            try:
                done = subprocess.run(argv, env=ENV, stdout=log, stderr=subprocess.STDOUT, timeout=240)
            except subprocess.TimeoutExpired:
                print(f"  {name}: timed out", flush=True)
                return None
        if done.returncode != 0:
            print(f"  {name}: failed (exit {done.returncode}), see logs/{name}.log", flush=True)
            return None
        return record


def curves(record):
    """Every curve of the record's first run: name -> dict of its arrays and attributes."""
    found = {}
    with h5py.File(record, "r") as f:
        run = f["runs/0001"]
        for name, curve in run["curves"].items():
            per_transfer = curve["reps"][:][:, None] * curve["transfers_per_rep"][:][:, None]
            alt = curve["trial_alt_seconds"][:] / per_transfer if "trial_alt_seconds" in curve else None
            found[name] = dict(
                bytes=curve["bytes"][:], time=curve["time_median"][:], rate=curve["throughput_from_time_median"][:],
                alt_time=np.nanmedian(alt, axis=1) if alt is not None else None,
                peak=float(curve.attrs["link_peak_B_per_s"]), peak_how=curve.attrs["link_peak_how"],
                facts=dict(run["system/placement/rank0"].attrs))
    return found


def first_curve(record):
    return next(iter(curves(record).values()))


def gbs(rate):
    return f"{rate / 1e9:8.1f}"


def accuracy_rows(run):
    rows = []
    for name, args, reference, target in ACCURACY:
        record = run("accuracy_" + slug(name), args + BIG)
        rows.append((name, first_curve(record) if record else None, reference, target))
    for name, args in COMPANIONS:
        record = run("companion_" + slug(name), args + BIG)
        rows.append((name, first_curve(record) if record else None, None, None))
    return rows


def print_accuracy(rows):
    print("\nThroughput at 256-512 MiB (best median of the two sizes), GB/s = 1e9 B/s")
    print(f"{'path':30} {'ours':>8} {'ref':>8} {'ratio':>7} {'target':>7} {'peak':>8} {'of peak':>8}  peak from")
    for name, curve, reference, target in rows:
        if curve is None:
            print(f"{name:30} {'failed':>8}")
            continue
        ours = float(curve["rate"].max())
        ratio = f"{ours / reference:7.3f}" if reference else f"{'':7}"
        verdict = "" if target is None else ("  ok" if ours >= target * reference else "  BELOW TARGET")
        goal = f">={target:.0%}" if target else ""
        of_peak = f"{ours / curve['peak']:8.1%}" if curve["peak"] > 0 else f"{'unknown':>8}"
        peak = gbs(curve["peak"]) if curve["peak"] > 0 else f"{'?':>8}"
        print(f"{name:30} {gbs(ours)} {gbs(reference) if reference else '':>8} {ratio} {goal:>7} {peak} {of_peak}  "
              f"{curve['peak_how']}{verdict}")


def sm_latency(run):
    record = run("latency_p2p_sm", ["--module", "p2p", "--pairs", "0:1", "--copy", "sm", "--pattern", "pingpong"] + TINY)
    print("\nGPU <-> GPU small-copy latency (8 B, half the round trip)")
    if record is None:
        print("  failed")
        return
    curve = first_curve(record)
    print(f"  ours {curve['time'][0] * 1e6:.2f} us (cudaEvents), {curve['alt_time'][0] * 1e6:.2f} us (host clock);"
          f" reference 0.83 us (nvbandwidth pointer chase)")
    print("  " + LATENCY_NOTE.replace("\n", "\n  "))


def latency_table(run):
    """8-byte time per copy for each direction, memory kind and API, with both timers."""
    cases = []
    for direction in ("h2d", "d2h", "h2d2h"):
        for memory in ("pinned", "write-combined", "registered"):
            for api in ("async", "sync"):
                cases.append((direction, memory, api))
        cases.append((direction, "pageable", "sync"))
    cases += [("d2d", None, "async"), ("d2d", None, "sync")]
    print("\n8-byte latency per copy (h2d2h: half the round trip), median over trials, microseconds")
    print(f"{'direction':9} {'memory':15} {'api':6} {'primary':>9} {'second':>9}  primary / second timer")
    for direction, memory, api in cases:
        args = ["--module", "cudaMemcpy", "--direction", direction, "--api", api] + TINY
        if memory:
            args += ["--memory", memory]
        name = "latency_" + "_".join(x for x in (direction, memory, api) if x)
        record = run(name, args)
        if record is None:
            print(f"{direction:9} {memory or '-':15} {api:6} {'failed':>9}")
            continue
        curve = first_curve(record)
        timers = "events / host clock" if api == "async" else "host clock / events"
        print(f"{direction:9} {memory or '-':15} {api:6} {curve['time'][0] * 1e6:9.2f} {curve['alt_time'][0] * 1e6:9.2f}  {timers}")


def pageable_against_pinned(run):
    """Full sweeps, so the staging cost of pageable memory shows at every size."""
    sweep = ["--upper", "512M", "--perturbation", "0", "--max-trials", "5"]
    columns = []
    for direction in ("h2d", "d2h"):
        for memory, api in (("pageable", "sync"), ("pinned", "sync"), ("pinned", "async")):
            record = run(f"curve_{direction}_{memory}_{api}",
                         ["--module", "cudaMemcpy", "--direction", direction, "--memory", memory, "--api", api] + sweep)
            columns.append((f"{direction} {memory} {api}", first_curve(record) if record else None))
    print("\nPageable against pinned (cudaMemcpy, median GB/s at sample sizes; full curves in the records)")
    print(f"{'size':>10} " + " ".join(f"{name:>20}" for name, _ in columns))
    for size in SAMPLE_SIZES:
        cells = []
        for _, curve in columns:
            hit = None if curve is None else np.nonzero(curve["bytes"] == size)[0]
            cells.append(f"{curve['rate'][hit[0]] / 1e9:20.2f}" if hit is not None and len(hit) else f"{'-':>20}")
        print(f"{size:>10} " + " ".join(cells))


def slug(text):
    return "".join(c if c.isalnum() else "_" for c in text).strip("_").lower()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", help="folder for the records and logs")
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    options = parser.parse_args()
    npgpu = os.path.join(os.path.abspath(options.build), "npgpu")
    run = Runner(npgpu, os.path.abspath(options.out))
    start = time.monotonic()
    with open(os.path.join(run.out, "logs", "machine.log"), "w") as log:
        for argv in (["nvidia-smi"], ["nvidia-smi", "topo", "-m"], [npgpu, "--list-modules"]):
            log.write("$ " + " ".join(argv) + "\n")
            log.flush()
            try:
                subprocess.run(argv, env=ENV, stdout=log, stderr=subprocess.STDOUT)
            except FileNotFoundError:
                log.write("(not on this machine)\n")
    print("running; every run's output goes to", os.path.join(run.out, "logs"), flush=True)
    rows = accuracy_rows(run)
    latency_table(run)
    pageable_against_pinned(run)
    sm_latency(run)
    print_accuracy(rows)
    print(f"\n{time.monotonic() - start:.0f} s in all; records and logs in {run.out}")
    return 0 if all(c is not None and (t is None or c["rate"].max() >= t * r) for _, c, r, t in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
