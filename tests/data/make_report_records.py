#!/usr/bin/python3
"""Writes the small npgpu records that tests/integration/report_test.cpp reports on.

    tests/data/make_report_records.py tests/data/report

Each file follows docs/hdf5-schema.md (the fields `npgpu report`, `export` and `npgpu-plot`
read), with curves made from Hockney's model, t(n) = alpha + n / beta, plus a little noise,
chosen so that every verdict of the report appears at least once:

  node.h5       cudaMemcpy h2d on 4 GPUs alone and together (the issue's 55.2 and 40.5 GB/s),
                pinned against pageable, an --expect-bw that was not met
  cluster.h5    mpi: an eager -> rendezvous switch at 64 KiB where its recorded TCP eager limit
                says, direct against staged, three pairs
                at once with one slow pair, an all-pairs matrix with a flagged link, an
                incomplete and a failed run
  cluster-b.h5  the same pingpong on another cluster (slower), and a run from before runs had a
                status attribute, for the side-by-side comparison; a tcp stream on a busy network
                whose times the latency/bandwidth model does not describe (a poor fit)
  gpu-paths.h5  GPU copies whose breaks and shortfall must be told in their path's words: a copy
                inside the GPU whose rate changes where it outgrows L2, a pageable host->GPU copy
                whose driver staging adds a step at 256 KiB, a pinned one at a fair share of PCIe
  plain.h5      an HDF5 file npgpu did not write

Uses Debian's python3 with python3-h5py and numpy.
"""
import os
import random
import sys

import h5py
import numpy

MAX_TRIALS = 3
PCIE5 = (63.015384615e9, "PCIe Gen5 x16: 32 GT/s x 16 lanes x 128b/130b / 8, one direction")


def sizes(lower=1, upper=64 << 20, factor=4):
    n, out = lower, []
    while n <= upper:
        out.append(n)
        n *= factor
    return out


def new_record(path):
    record = h5py.File(path, "w", libver="latest")
    record.attrs["schema"] = "npgpu-run-1"
    record.attrs["created_by"] = "npgpu 0.1.0 (tests/data/make_report_records.py)"
    return record


def dataset(group, name, values, units):
    group.create_dataset(name, data=numpy.asarray(values)).attrs["units"] = units


def add_run(record, number, module, pattern, status="complete", reason="", concurrency="together", pairs="",
            facts=None, hosts=("alpha", "beta"), rank_facts=()):
    """facts: rank 0's placement; rank_facts: every rank's, from rank 0, where they differ."""
    run = record.require_group("runs").create_group(f"{number:04d}")
    attrs = dict(module=module, pattern=pattern, headline="median", status=status, status_reason=reason,
                 command_line=f"npgpu --module {module} --pattern {pattern} (synthetic)",
                 started_utc="2026-11-22T20:00:00Z", concurrency=concurrency, pairs=pairs, max_trials=MAX_TRIALS)
    if status is None:  # a record from before runs had a status
        del attrs["status"], attrs["status_reason"]
    run.attrs.update(attrs)
    system = run.create_group("system")
    system.create_dataset("rank_host", data=list(hosts), dtype=h5py.string_dtype())
    for rank, placed in enumerate(rank_facts or [facts or {}]):
        system.create_group(f"placement/rank{rank}").attrs.update(placed)
    run.create_group("curves")
    return run


def add_curve(run, name, rank, host, points, peer=-1, peer_host="", peak=(0.0, ""), transfers=64, noise=0.01, seed=1):
    """points: (bytes, one-way seconds) pairs; each size gets MAX_TRIALS noisy trials."""
    rng = random.Random(seed)
    curve = run["curves"].create_group(name)
    curve.attrs.update(rank=rank, host=host, variant="", link_peak_B_per_s=peak[0], link_peak_how=peak[1])
    if peer >= 0:
        curve.attrs.update(peer=peer, peer_host=peer_host)
    nbytes = numpy.array([p[0] for p in points], dtype=numpy.uint64)
    reps = numpy.full(len(points), 10, dtype=numpy.uint64)
    per_transfer = numpy.array([[t * (1 + rng.uniform(-noise, noise)) for _ in range(MAX_TRIALS)] for _, t in points])
    trial_seconds = per_transfer * (reps[:, None] * transfers)
    dataset(curve, "bytes", nbytes, "B")
    dataset(curve, "reps", reps, "1")
    dataset(curve, "trials", numpy.full(len(points), MAX_TRIALS, dtype=numpy.uint64), "1")
    dataset(curve, "transfers_per_rep", numpy.full(len(points), float(transfers)), "1")
    dataset(curve, "bytes_per_transfer", nbytes.astype(float), "B")
    dataset(curve, "trial_seconds", trial_seconds, "s")
    # The statistics npgpu report, export and npgpu-plot read (a real record has more).
    for stat, values in (("min", per_transfer.min(1)), ("median", numpy.median(per_transfer, 1)),
                         ("max", per_transfer.max(1))):
        dataset(curve, f"time_{stat}", values, "s")
    dataset(curve, "throughput_from_time_median", nbytes / numpy.median(per_transfer, 1), "B/s")
    return curve


def beta_reaching(alpha, target, n=64 << 20):
    """The beta whose curve reaches `target` B/s at n bytes: n / (alpha + n / beta) = target."""
    return n / (n / target - alpha)


def hockney(alpha, beta, switch_at=None, alpha2=None, beta2=None, upper=64 << 20):
    return [(n, (alpha2 + n / beta2) if switch_at and n >= switch_at else alpha + n / beta)
            for n in sizes(upper=upper)]


def add_expectations(run, option, curve, nbytes, expected, measured):
    group = run.create_group("expectations")
    group.attrs["met"] = int(measured >= expected)
    for name, values in (("option", [option]), ("kind", ["bandwidth"]), ("curve", [curve])):
        group.create_dataset(name, data=values, dtype=h5py.string_dtype())
    dataset(group, "bytes", [nbytes], "B")
    dataset(group, "expected", [expected], "B/s or s")
    dataset(group, "measured", [measured], "B/s or s")
    dataset(group, "met", [int(measured >= expected)], "1")


# An HGX-like node: each GPU behind a PCIe switch of its own on a root port of its own, two GPUs
# on each of two NUMA nodes, so no GPU, bridge or NUMA node is common to all four.
GPU_PLACES = [dict(gpu=str(gpu), gpu_pci_bus_id=bus, gpu_numa_node=str(gpu // 2),
                   gpu_pcie_upstream=f"pci0000:{root} > 0000:{root}:01.0 > 0000:{switch}:00.0")
              for gpu, (bus, root, switch) in enumerate((("0000:18:00.0", "15", "16"), ("0000:2a:00.0", "27", "28"),
                                                         ("0000:9a:00.0", "97", "98"), ("0000:ab:00.0", "a8", "a9")))]


def node(path):
    """The issue's 4 x H200 node: each GPU alone 55.2 GB/s host->GPU, all four at once 40.5 each."""
    with new_record(path) as record:
        pinned = {"direction": "h2d", "host_memory": "pinned (cudaMallocHost)", "gpu": "0"}
        for number, concurrency, peak in ((1, "alone", 55.2e9), (2, "together", 40.5e9)):
            run = add_run(record, number, "cudaMemcpy", "stream", concurrency=concurrency, facts=pinned,
                          hosts=["node"] * 4, rank_facts=[dict(pinned, **place) for place in GPU_PLACES])
            for gpu in range(4):
                add_curve(run, f"rank{gpu}", gpu, "node", hockney(8e-6, beta_reaching(8e-6, peak)), peak=PCIE5,
                          noise=0.001, seed=gpu)
        run = add_run(record, 3, "cudaMemcpy", "stream", facts=pinned, hosts=["node"])
        add_curve(run, "rank0", 0, "node", hockney(8e-6, 55.2e9), peak=PCIE5)
        pageable = dict(pinned, host_memory="pageable (malloc): the driver stages it through pinned buffers")
        run = add_run(record, 4, "cudaMemcpy", "stream", facts=pageable, hosts=["node"])
        add_curve(run, "rank0", 0, "node", hockney(20e-6, 19e9), peak=PCIE5, seed=7)
        add_expectations(run, "--expect-bw 64M=20GB/s", "rank0", 64 << 20, 20e9, (64 << 20) / (20e-6 + (64 << 20) / 19e9))


def cluster(path):
    with new_record(path) as record:
        host = {"messages": "host memory", "gpu_path": "host"}
        # Eager up to 16 KiB, rendezvous from 64 KiB, where Open MPI's TCP eager limit says: an
        # 18 us handshake more.
        run = add_run(record, 1, "mpi", "pingpong", facts={**host, "mpi_size_settings": "btl_tcp_eager_limit=65536"})
        add_curve(run, "rank0", 0, "alpha", hockney(1.5e-6, 5e9, 65536, 20e-6, 11e9, upper=16 << 20), peer=1,
                  peer_host="beta", transfers=2)
        for number, path_fact, alpha, beta in ((2, "direct (auto: MPI is CUDA-aware)", 3e-6, 40e9),
                                               (3, "staged (auto: MPI is not CUDA-aware)", 25e-6, 11e9)):
            run = add_run(record, number, "mpi", "stream", facts={"messages": "GPU memory", "gpu_path": path_fact})
            add_curve(run, "rank0", 0, "alpha", hockney(alpha, beta), peer=1, peer_host="beta", seed=number)
        run = add_run(record, 4, "mpi", "stream", pairs="halves", facts=host,
                      hosts=["a0", "a1", "a2", "b0", "b1", "b2"])
        rates = {0: 11e9, 1: 6.5e9, 2: 11.2e9}
        curves = [add_curve(run, f"rank{r}", r, f"a{r}", hockney(2e-6, beta), peer=r + 3, peer_host=f"b{r}", seed=r)
                  for r, beta in rates.items()]
        throughputs = numpy.array([c["throughput_from_time_median"][()] for c in curves])
        aggregate = run.create_group("aggregate")
        aggregate.attrs["pairs"] = 3
        dataset(aggregate, "bytes", curves[0]["bytes"][()], "B")
        dataset(aggregate, "throughput_sum", throughputs.sum(0), "B/s")
        dataset(aggregate, "throughput_slowest", throughputs.min(0), "B/s")
        dataset(aggregate, "slowest_rank", throughputs.argmin(0), "1")
        add_matrix(add_run(record, 5, "mpi", "stream", pairs="all", facts=host, hosts=["a", "a", "b", "b"]))
        run = add_run(record, 6, "mpi", "pingpong", status="incomplete", reason="interrupted by SIGTERM", facts=host)
        add_curve(run, "rank0", 0, "alpha", hockney(1.5e-6, 5e9, upper=1024), peer=1, peer_host="beta", transfers=2)
        run = add_run(record, 7, "mpi", "stream", status="failed",
                      reason="rank 1: a wait passed its bound (120 s) for the other ranks", facts=host)
        add_curve(run, "rank0", 0, "alpha", hockney(2e-6, 10e9, upper=4096), peer=1, peer_host="beta")


def add_matrix(run):
    """4 ranks on two hosts, 8 B and 1 MiB; rank 3 -> rank 1 at 1 MiB at half its class's median."""
    del run["curves"]
    matrix = run.create_group("matrix")
    matrix.attrs.update(flag_below=0.8, sample=0, seed=7)
    ranks, hosts = 4, ["a", "a", "b", "b"]
    classes = ["one host, host buffers", "two hosts, host buffers"]
    cell_class = numpy.array([[-1 if i == j else int(hosts[i] != hosts[j]) for j in range(ranks)] for i in range(ranks)])
    nbytes = numpy.array([8, 1 << 20], dtype=numpy.uint64)
    seconds = numpy.full((2, ranks, ranks), numpy.nan)
    for i in range(ranks):
        for j in range(ranks):
            if i != j:
                remote = hosts[i] != hosts[j]
                seconds[0, i, j] = 3e-6 if remote else 0.6e-6
                seconds[1, i, j] = (1 << 20) / (8e9 if remote else 20e9)
    seconds[1, 3, 1] *= 2
    dataset(matrix, "bytes", nbytes, "B")
    matrix.create_dataset("pattern", data=["pingpong", "stream"], dtype=h5py.string_dtype())
    dataset(matrix, "seconds", seconds, "s")
    dataset(matrix, "throughput", nbytes[:, None, None] / seconds, "B/s")
    dataset(matrix, "cell_class", cell_class, "1")
    matrix.create_dataset("classes", data=classes, dtype=h5py.string_dtype())
    matrix.create_dataset("rank_host", data=hosts, dtype=h5py.string_dtype())
    matrix.create_dataset("rank_gpu", data=[""] * ranks, dtype=h5py.string_dtype())
    flagged = matrix.create_group("flagged")
    for name, value, units in (("size_index", [1], "1"), ("from_rank", [3], "1"), ("to_rank", [1], "1"),
                               ("throughput", [4e9], "B/s"), ("class_median", [8e9], "B/s"), ("ratio", [0.5], "1")):
        dataset(flagged, name, value, units)


def cluster_b(path):
    with new_record(path) as record:
        run = add_run(record, 1, "mpi", "pingpong", facts={"messages": "host memory", "gpu_path": "host"})
        add_curve(run, "rank0", 0, "gamma", hockney(3e-6, 5e9, 65536, 20e-6, 8e9, upper=16 << 20), peer=1,
                  peer_host="delta", transfers=2)
        run = add_run(record, 2, "tcp", "stream", status=None, facts={"tcp_interface": "lo"})
        add_curve(run, "rank0", 0, "gamma", hockney(30e-6, 2e9), peer=1, peer_host="gamma")
        run = add_run(record, 3, "tcp", "stream", facts={"tcp_interface": "eth0"}, hosts=["gamma", "delta"])
        add_curve(run, "rank0", 0, "gamma", busy(hockney(30e-6, 1e9)), peer=1, peer_host="delta")


def gpu_paths(path):
    with new_record(path) as record:
        gpu = {"gpu": "0", "gpu_l2": "60 MiB"}
        run = add_run(record, 1, "cudaMemcpy", "stream", facts=dict(gpu, direction="d2d", copy="copy engine: cudaMemcpyAsync"),
                      hosts=["node"])
        # 4 TB/s while the copy fits in L2, HBM's 1.6 TB/s from 32 MiB: the fits meet there.
        at = 32 << 20
        points = [(n, 4e-6 + min(n, at) / 4e12 + max(0, n - at) / 1.6e12) for n in sizes(upper=512 << 20, factor=2)]
        add_curve(run, "rank0", 0, "node", points, peak=(4.8e12, "HBM3e: 6144-bit bus x 6.25 GT/s / 8"), seed=11)
        pageable = dict(gpu, direction="h2d", host_memory="pageable (malloc): the driver stages it through pinned buffers")
        run = add_run(record, 2, "cudaMemcpy", "stream", facts=pageable, hosts=["node"])
        add_curve(run, "rank0", 0, "node", hockney(10e-6, 20e9, 262144, 40e-6, 20e9), peak=PCIE5, seed=12)
        pinned = dict(gpu, direction="h2d", host_memory="pinned (cudaMallocHost)")
        run = add_run(record, 3, "cudaMemcpy", "stream", facts=pinned, hosts=["node"])
        add_curve(run, "rank0", 0, "node", hockney(8e-6, 38e9), peak=PCIE5, seed=13)


def busy(points, seed=3):
    """Each size slowed by other traffic by its own factor, 1 to 4: no line fits that."""
    rng = random.Random(seed)
    return [(n, t * rng.uniform(1, 4)) for n, t in points]


def plain(path):
    with h5py.File(path, "w", libver="latest") as f:
        f.create_dataset("numbers", data=[1, 2, 3])


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "report")
    os.makedirs(out, exist_ok=True)
    for name, make in (("node.h5", node), ("cluster.h5", cluster), ("cluster-b.h5", cluster_b), ("gpu-paths.h5", gpu_paths),
                       ("plain.h5", plain)):
        make(os.path.join(out, name))


if __name__ == "__main__":
    main()
