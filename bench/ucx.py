#!/usr/bin/python3
"""npgpu's ucx module against UCX's own ucx_perftest (issue 19), measured in one run on this machine:

1. tag latency: npgpu ucx pingpong (half a round trip) against `ucx_perftest -t tag_lat`, which
   reports half a round trip too, at the same sizes;
2. tag bandwidth: npgpu ucx stream (a window of --window messages closed by a 4-byte ack, as
   osu_bw) against `ucx_perftest -t tag_bw` (a sender keeping -O messages outstanding, no ack),
   with the same window, 32 (ucx_perftest's default); beside it npgpu with a window of 256, where
   the ack's share is an eighth: what the ack costs, measured;
3. npgpu's mpi module beside them, same sizes and patterns: what MPI adds over UCX here.

Both tools see one buffer (npgpu --cache warm: ucx_perftest reuses one), the same UCX_TLS (--tls,
set for both; `ucx_info -d` lists what this host has) and the same two cores: mpirun binds ranks 0
and 1 to cores 0 and 1, and ucx_perftest's server and client are given -c 0 and -c 1. Launches
alternate over --rounds rounds. ucx_perftest runs each size for about as long as npgpu's trials of
it took (-n from npgpu's time of that round).

How the tools are judged: on this VM a launch lands in one of a few modes, wherever the two vCPUs
sit, and stays there for seconds. 8 B read 0.08, 0.15-0.22 or 0.41-0.71 us for either tool, in
one launch or the next; 4 KiB windows 8 or 16 GB/s. A best launch, or a median over launches, then
compares one tool's luck with the other's. So the launches of both tools at a size are pooled and
split into modes where sorted figures jump by more than x1.4; the tools are compared by their
medians within the mode that holds the most launches of both (the "launches" column: that mode's
launches of each tool, of all). The median over rounds of the ratio within a round, and the ratio
of the best launches, are printed beside it. "self" is how far each tool lies from itself, judged
the same way (its odd rounds against its even rounds; the larger of the two): a difference between
the tools under it is "in the noise", below what this many launches here can tell.

    bench/ucx.py [--build build] [--rounds 12] [--tls posix,cma] [--perftest ucx_perftest]

Prints a table last: size, npgpu ucx, ucx_perftest (medians in the shared mode), ratio, verdict
against 5% either way, self, the launches in that mode, the ratio within a round (median over rounds)
and of the best launches, then npgpu mpi and its ratio to npgpu ucx (compared the same way). Needs
a build with the ucx module, ucx-utils, and Debian's python3 with h5py.
"""
import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

import h5py

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KiB, MiB = 1 << 10, 1 << 20
LATENCY_SIZES = [8, 64, 1 * KiB, 8 * KiB, 64 * KiB, 1 * MiB]
BANDWIDTH_SIZES = [4 * KiB, 64 * KiB, 1 * MiB, 4 * MiB]
WINDOW = 32          # ucx_perftest's default -O for tag_bw
WIDE_WINDOW = 256    # the ack amortized over 8 times as many messages
PERFTEST_SECONDS = 0.5
TOLERANCE = 0.05
MODE_GAP = 1.4      # sorted launches further apart than this lie in different modes of the VM


def environment(tls):
    env = dict(os.environ, UCX_TLS=tls)
    if os.geteuid() == 0:
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    return env


def run(argv, env):
    result = subprocess.run(argv, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"ucx.py: {' '.join(argv)} failed ({result.returncode}):\n{result.stdout[-2000:]}{result.stderr[-2000:]}")
    return result.stdout


def npgpu_curve(npgpu, module, pattern, sizes, record, env, window=None):
    """{size: seconds per transfer (pingpong: half a round trip)} and {size: B/s}, medians of trials."""
    argv = ["mpirun", "-np", "2", "--bind-to", "core", "-x", "UCX_TLS", npgpu, "--module", module, "--pattern", pattern,
            "--cache", "warm", "--fac2", "--lower", str(sizes[0]), "--upper", str(sizes[-1]), "-o", record]
    if window:
        argv += ["--window", str(window)]
    run(argv, env)
    with h5py.File(record, "r") as f:
        curve = f["runs"][sorted(f["runs"])[-1]]["curves/rank0"]
        found = dict(zip(curve["bytes"][()], zip(curve["time_median"][()], curve["throughput_from_time_median"][()])))
    return {size: found[size] for size in sizes}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def perftest(binary, test, size, iterations, env):
    """ucx_perftest's final figures for one size: (half round trip or time per message in s, B/s)."""
    port = str(free_port())
    server = subprocess.Popen([binary, "-p", port, "-c", "0"], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
    client = [binary, "127.0.0.1", "-p", port, "-c", "1", "-t", test, "-s", str(size), "-n", str(iterations),
              "-w", str(max(100, iterations // 10)), "-f", "-v"]
    if test == "tag_bw":
        client += ["-O", str(WINDOW)]
    try:
        for attempt in range(50):  # until the server listens
            result = subprocess.run(client, env=env, capture_output=True, text=True)
            if result.returncode == 0 or "connect" not in result.stderr + result.stdout:
                break
            time.sleep(0.1)
        if result.returncode != 0:
            sys.exit(f"ucx.py: {' '.join(client)} failed:\n{result.stdout}{result.stderr}")
    finally:
        server.wait(timeout=60)
    # CSV: iterations, typical latency, moment and overall average latency (us), moment and
    # overall bandwidth (MiB/s), moment and overall message rate.
    fields = [line for line in result.stdout.splitlines() if line.count(",") >= 7][-1].split(",")
    return float(fields[-5]) * 1e-6, float(fields[-3]) * MiB


def modes(figures):
    """The sorted figures split where one is more than MODE_GAP times the one before."""
    found = []
    for value in sorted(figures):
        if found and value <= found[-1][-1] * MODE_GAP:
            found[-1].append(value)
        else:
            found.append([value])
    return found


def in_shared_mode(ours, theirs):
    """Both tools' medians within the mode of their pooled launches that holds the most of both,
    and "n+m of N+M": that mode's launches of each, of all."""
    best = None
    for mode in modes(ours + theirs):
        low, high = mode[0], mode[-1]
        mine = [v for v in ours if low <= v <= high]
        other = [v for v in theirs if low <= v <= high]
        if mine and other and (best is None or min(len(mine), len(other)) > min(len(best[0]), len(best[1]))):
            best = (mine, other)
    if best is None:  # no mode holds both: compare all launches
        best = (ours, theirs)
    mine, other = best
    return statistics.median(mine), statistics.median(other), f"{len(mine)}+{len(other)} of {len(ours)}+{len(theirs)}"


def self_noise(*tools):
    """How far one tool lies from itself, judged the same way: its odd rounds' launches against its
    even rounds', the larger of the tools' differences. A difference between the tools smaller
    than this is below what this many launches on this machine can tell."""
    return max(abs(odd / even - 1) for odd, even, _ in (in_shared_mode(t[0::2], t[1::2]) for t in tools))


def verdict(ratio, noise, slower_word, faster_word):
    """Both ways: a tool far ahead of the other is as much a difference to explain as one behind."""
    if abs(ratio - 1) <= TOLERANCE:
        return "within 5%"
    words = f"npgpu {100 * abs(ratio - 1):.0f}% {slower_word if ratio > 1 else faster_word}"
    return words + (", in the noise" if abs(ratio - 1) <= noise else "")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--tls", default="posix,cma", help="UCX_TLS for both tools (default: posix,cma)")
    parser.add_argument("--perftest", default="ucx_perftest")
    options = parser.parse_args()
    npgpu = os.path.join(options.build, "npgpu")
    env = environment(options.tls)
    started = time.monotonic()
    print(f"load average at the start: {os.getloadavg()[0]:.2f}", file=sys.stderr)
    # (measure, size) -> launches; latency in s, bandwidth in B/s.
    launches = {}

    def keep(measure, figures):
        for size, value in figures.items():
            launches.setdefault((measure, size), []).append(value)

    with tempfile.TemporaryDirectory() as work:
        record = os.path.join(work, "ucx.h5")
        for round_number in range(options.rounds):
            latency = npgpu_curve(npgpu, "ucx", "pingpong", LATENCY_SIZES, record, env)
            keep("ucx latency", {s: t for s, (t, _) in latency.items()})
            keep("perftest latency", {s: perftest(options.perftest, "tag_lat", s, int(PERFTEST_SECONDS / (2 * t)), env)[0]
                                      for s, (t, _) in latency.items()})
            keep("mpi latency", {s: t for s, (t, _) in npgpu_curve(npgpu, "mpi", "pingpong", LATENCY_SIZES, record, env).items()})
            stream = npgpu_curve(npgpu, "ucx", "stream", BANDWIDTH_SIZES, record, env, WINDOW)
            keep("ucx bandwidth", {s: r for s, (_, r) in stream.items()})
            keep("ucx bandwidth wide", {s: r for s, (_, r) in
                                        npgpu_curve(npgpu, "ucx", "stream", BANDWIDTH_SIZES, record, env, WIDE_WINDOW).items()})
            keep("perftest bandwidth", {s: perftest(options.perftest, "tag_bw", s, int(PERFTEST_SECONDS / t), env)[1]
                                        for s, (t, _) in stream.items()})
            keep("mpi bandwidth", {s: r for s, (_, r) in
                                   npgpu_curve(npgpu, "mpi", "stream", BANDWIDTH_SIZES, record, env, WINDOW).items()})
            print(f"round {round_number + 1} done, load {os.getloadavg()[0]:.2f}", file=sys.stderr)

    def paired(ours, theirs, size):
        return statistics.median(a / b for a, b in zip(launches[(ours, size)], launches[(theirs, size)]))

    def best_ratio(ours, theirs, size, fastest):
        return fastest(launches[(ours, size)]) / fastest(launches[(theirs, size)])

    print(f"\nnpgpu ucx against ucx_perftest, UCX_TLS={options.tls}, {options.rounds} launches each; "
          f"{time.monotonic() - started:.0f} s, load average now {os.getloadavg()[0]:.2f}")
    print(f"\n{'tag latency (us, half a round trip)':38} {'npgpu ucx':>10} {'ucx_perftest':>13} {'ratio':>6}  "
          f"{'verdict':28} {'self':>5} {'launches':>15} {'rounds':>7} {'best':>6} {'npgpu mpi':>10} {'mpi/ucx':>8}")
    for size in LATENCY_SIZES:
        ours, theirs, counted = in_shared_mode(launches[("ucx latency", size)], launches[("perftest latency", size)])
        mpi, ucx, _ = in_shared_mode(launches[("mpi latency", size)], launches[("ucx latency", size)])
        ratio = ours / theirs
        noise = self_noise(launches[("ucx latency", size)], launches[("perftest latency", size)])
        print(f"{size:>38} {ours * 1e6:>10.3f} {theirs * 1e6:>13.3f} {ratio:>6.3f}  "
              f"{verdict(ratio, noise, 'slower', 'faster'):28} {100 * noise:>4.0f}% {counted:>15} {paired('ucx latency', 'perftest latency', size):>7.3f} "
              f"{best_ratio('ucx latency', 'perftest latency', size, min):>6.3f} {mpi * 1e6:>10.3f} {mpi / ucx:>8.3f}")
    print(f"\n{'tag bandwidth (GB/s, window ' + str(WINDOW) + ')':38} {'npgpu ucx':>10} {'ucx_perftest':>13} {'ratio':>6}  "
          f"{'verdict':28} {'self':>5} {'launches':>15} {'rounds':>7} {'best':>6} {'npgpu mpi':>10} {'mpi/ucx':>8} "
          f"{'ucx w=' + str(WIDE_WINDOW):>10}")
    for size in BANDWIDTH_SIZES:
        ours, theirs, counted = in_shared_mode(launches[("ucx bandwidth", size)], launches[("perftest bandwidth", size)])
        mpi, ucx, _ = in_shared_mode(launches[("mpi bandwidth", size)], launches[("ucx bandwidth", size)])
        wide = statistics.median(launches[("ucx bandwidth wide", size)])
        ratio = ours / theirs
        noise = self_noise(launches[("ucx bandwidth", size)], launches[("perftest bandwidth", size)])
        print(f"{size:>38} {ours / 1e9:>10.3f} {theirs / 1e9:>13.3f} {ratio:>6.3f}  "
              f"{verdict(ratio, noise, 'higher', 'lower'):28} {100 * noise:>4.0f}% {counted:>15} {paired('ucx bandwidth', 'perftest bandwidth', size):>7.3f} "
              f"{best_ratio('ucx bandwidth', 'perftest bandwidth', size, max):>6.3f} {mpi / 1e9:>10.3f} {mpi / ucx:>8.3f} "
              f"{wide / 1e9:>10.3f}")

if __name__ == "__main__":
    main()
