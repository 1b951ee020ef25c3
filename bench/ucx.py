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
it took (-n from npgpu's latest launch).

Both give one statistic a launch: the average over all its timed transfers. ucx_perftest's
overall figures are that; npgpu's is the mean of its trials (each of as many transfers), not its
headline median, which leaves out a launch's slow trials. The "median" column is npgpu's median
trial against ucx_perftest's average instead: on this VM and the H100 hosts it moved the ratio by
1-4%.

How the tools are judged: on this VM a launch lands in one of a few modes, wherever the two vCPUs
sit, and stays there for seconds. 8 B read 0.08, 0.15-0.22 or 0.41-0.71 us for either tool, in
one launch or the next; 4 KiB windows 8 or 16 GB/s. A best launch, or a median over launches, then
compares one tool's luck with the other's. So each round launches both tools, one after the other
(which goes first alternates), and the ratio is the median over rounds of the ratio within a round;
beside it, a distribution-free 95% interval for that median (order statistics). The verdict is
"within 5%" when the whole interval is, a difference when none of it is, and "not resolved" when
it straddles 5%: more rounds will tell. The figures shown for each tool are its median launch
within the mode of both tools' pooled launches (split where sorted figures jump by more than x1.4)
that holds the most launches of both ("launches": that mode's launches of each, of all); "modes"
is their ratio, "best" the ratio of the best launches.

    bench/ucx.py [--build build] [--rounds 24] [--tls posix,cma] [--perftest ucx_perftest]
                 [--launches FILE]
    bench/ucx.py --judge FILE [FILE ...]     # the table again from saved launches, runs pooled

Prints a table last: size, npgpu ucx, ucx_perftest, ratio, its interval, verdict against 5% either
way, the launches in the shared mode, the ratios of the shared mode, of the best launches and of
npgpu's median trial, then npgpu mpi and its ratio to npgpu ucx (in their shared mode). Needs
a build with the ucx module, ucx-utils, and Debian's python3 with h5py.
"""
import argparse
import json
import math
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
    """{size: {"time": seconds per transfer (pingpong: half a round trip), "rate": B/s}} over all of
    the size's timed transfers (the mean of its trials, each of as many transfers): the statistic
    ucx_perftest's overall figures are. "median time" and "median rate": the median trial's."""
    argv = ["mpirun", "-np", "2", "--bind-to", "core", "-x", "UCX_TLS", npgpu, "--module", module, "--pattern", pattern,
            "--cache", "warm", "--fac2", "--lower", str(sizes[0]), "--upper", str(sizes[-1]), "-o", record]
    if window:
        argv += ["--window", str(window)]
    run(argv, env)
    with h5py.File(record, "r") as f:
        curve = f["runs"][sorted(f["runs"])[-1]]["curves/rank0"]
        columns = {"time": "time_mean", "rate": "throughput_from_time_mean",
                   "median time": "time_median", "median rate": "throughput_from_time_median"}
        found = {name: dict(zip(curve["bytes"][()], curve[column][()])) for name, column in columns.items()}
    return {size: {name: found[name][size] for name in columns} for size in sizes}


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


def median_interval(values, confidence=0.95):
    """The median of `values` and a distribution-free interval for it: the order statistics k and
    n+1-k, k the largest for which fewer than k of n values fall below the true median with
    probability at most (1 - confidence) / 2 (binomial, p = 1/2)."""
    ordered, n = sorted(values), len(values)
    below, k = 0.0, 0
    while below + math.comb(n, k) / 2 ** n <= (1 - confidence) / 2:
        below += math.comb(n, k) / 2 ** n
        k += 1
    if k == 0:  # too few values (under 6) for any interval at this confidence: it is unbounded
        return statistics.median(ordered), 0.0, math.inf
    return statistics.median(ordered), ordered[k - 1], ordered[n - k]


def against_tolerance(low, high):
    """Where an interval of ratios lies against 5% either way: "within", "outside" (wholly, above
    or below) or "straddles"."""
    if 1 - TOLERANCE <= low and high <= 1 + TOLERANCE:
        return "within"
    return "outside" if low > 1 + TOLERANCE or high < 1 - TOLERANCE else "straddles"


def window_close(narrow_rate, wide_rate, size, narrow, wide):
    """What closing a window costs a tool, from its rates with windows of `narrow` and `wide`
    messages of `size`: a narrow window's time less its messages, a message's time from the wide
    window's extra ones; in the time unit of the rates (B/s: seconds). A close costs something: a
    difference under 0 is the launches' noise."""
    narrow_time, wide_time = narrow * size / narrow_rate, wide * size / wide_rate
    return max(0.0, narrow_time - narrow * (wide_time - narrow_time) / (wide - narrow))


def verdict(low, high, ratio, slower_word, faster_word):
    """Judged by the interval, both ways: a tool far ahead of the other is as much a difference to
    explain as one behind."""
    where = against_tolerance(low, high)
    if where == "within":
        return "within 5%"
    words = "within 5%" if abs(ratio - 1) <= TOLERANCE else \
        f"npgpu {100 * abs(ratio - 1):.0f}% {slower_word if ratio > 1 else faster_word}"
    return words if where == "outside" else words + ", not resolved"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--rounds", type=int, default=24)
    parser.add_argument("--tls", default="posix,cma", help="UCX_TLS for both tools (default: posix,cma)")
    parser.add_argument("--perftest", default="ucx_perftest")
    parser.add_argument("--launches", help="also write every launch's figure here (JSON), to judge them again later")
    parser.add_argument("--judge", nargs="+", metavar="FILE",
                        help="launch nothing: judge the launches of these --launches files, their rounds pooled")
    options = parser.parse_args()
    if options.judge:
        launches = pooled(options.judge)
        rounds = len(launches["ucx latency"][LATENCY_SIZES[0]])
        print(f"\nnpgpu ucx against ucx_perftest, {rounds} launches each from {', '.join(options.judge)}")
    else:
        started = time.monotonic()
        launches = measure(options)
        if options.launches:
            with open(options.launches, "w") as f:
                json.dump({name: {str(size): values for size, values in by_size.items()}
                           for name, by_size in launches.items()}, f)
        print(f"\nnpgpu ucx against ucx_perftest, UCX_TLS={options.tls}, {options.rounds} launches each; "
              f"{time.monotonic() - started:.0f} s, load average now {os.getloadavg()[0]:.2f}")
    table(launches, "latency", "tag latency (us, half a round trip)", LATENCY_SIZES, 1e6, min, ("slower", "faster"))
    table(launches, "bandwidth", f"tag bandwidth (GB/s, window {WINDOW})", BANDWIDTH_SIZES, 1e-9, max, ("higher", "lower"))


def pooled(files):
    """The launches of several --launches files, each size's rounds one after another."""
    launches = {}
    for file in files:
        try:
            with open(file) as f:
                saved = json.load(f)
        except (OSError, ValueError) as error:
            sys.exit(f"ucx.py: --judge {file}: {error}")
        for name, by_size in saved.items():
            for size, values in by_size.items():
                launches.setdefault(name, {}).setdefault(int(size), []).extend(values)
    return launches


def measure(options):
    """"tool measure" -> size -> launches in round order; latency in s, bandwidth in B/s."""
    npgpu = os.path.join(options.build, "npgpu")
    env = environment(options.tls)
    print(f"load average at the start: {os.getloadavg()[0]:.2f}", file=sys.stderr)
    launches = {}

    def keep(name, figures):
        for size, value in figures.items():
            launches.setdefault(name, {}).setdefault(size, []).append(value)

    comparisons = (  # measure, npgpu's pattern and sizes, ucx_perftest's test, window, statistic, ucx_perftest's figure
        ("latency", "pingpong", LATENCY_SIZES, "tag_lat", None, "time", 0),
        ("bandwidth", "stream", BANDWIDTH_SIZES, "tag_bw", WINDOW, "rate", 1))
    npgpu_times = {}  # measure -> size -> npgpu's latest time per transfer: how long ucx_perftest runs it
    with tempfile.TemporaryDirectory() as work:
        record = os.path.join(work, "ucx.h5")

        def launch_npgpu(module, measure, pattern, sizes, window, statistic, tool=None):
            curve = npgpu_curve(npgpu, module, pattern, sizes, record, env, window)
            tool = tool or module
            keep(f"{tool} {measure}", {size: figures[statistic] for size, figures in curve.items()})
            keep(f"{tool} median {measure}", {size: figures["median " + statistic] for size, figures in curve.items()})
            if module == "ucx" and window in (None, WINDOW):
                npgpu_times[measure] = {size: figures["time"] for size, figures in curve.items()}

        def launch_perftest(measure, test, figure):
            per_transfer = 2 if test == "tag_lat" else 1  # npgpu's latency is half a round trip
            keep(f"perftest {measure}", {
                size: perftest(options.perftest, test, size, int(PERFTEST_SECONDS / (per_transfer * t)), env)[figure]
                for size, t in npgpu_times[measure].items()})

        for round_number in range(options.rounds):
            # Which tool goes first alternates (ucx_perftest's length from npgpu's previous round), so
            # that a machine slowing or speeding up over a round favours neither.
            perftest_first = round_number % 2 == 1
            for measure, pattern, sizes, test, window, statistic, figure in comparisons:
                if perftest_first:
                    launch_perftest(measure, test, figure)
                launch_npgpu("ucx", measure, pattern, sizes, window, statistic)
                if not perftest_first:
                    launch_perftest(measure, test, figure)
                launch_npgpu("mpi", measure, pattern, sizes, window, statistic)
                if window:
                    launch_npgpu("ucx", measure, pattern, sizes, WIDE_WINDOW, statistic, "ucx wide")
            print(f"round {round_number + 1} done, load {os.getloadavg()[0]:.2f}", file=sys.stderr)
    return launches


def ack_share(narrow_rate, wide_rate, size):
    """npgpu's stream rate over what it would be without its ack: a window's messages' time over
    the window's whole time, the close measured from the two windows of the same round."""
    window_time = WINDOW * size / narrow_rate
    return (window_time - window_close(narrow_rate, wide_rate, size, WINDOW, WIDE_WINDOW)) / window_time


def table(launches, measure, title, sizes, scale, best, words):
    """One row a size: npgpu ucx against ucx_perftest, then npgpu mpi against npgpu ucx; for
    bandwidth, npgpu ucx with the wide window too. A bandwidth difference is explained by npgpu's
    ack where, each round's ratio over that round's ack_share, the rounds are within 5%."""
    def of(tool, size):
        return launches[f"{tool} {measure}"][size]

    def judged(size, ratios, low, high, ratio):
        said = verdict(low, high, ratio, *words)
        if measure != "bandwidth" or said == "within 5%":
            return said
        residuals = [r / ack_share(narrow, wide, size) for r, narrow, wide in zip(ratios, of("ucx", size), of("ucx wide", size))]
        residual, low, high = median_interval(residuals)
        return f"explained by npgpu's ack: x{residual:.3f} without it" if against_tolerance(low, high) == "within" else said

    wide_column = measure == "bandwidth"
    print(f"\n{title:38} {'npgpu ucx':>10} {'ucx_perftest':>13} {'ratio':>6} {'95% interval':>13}  {'verdict':32} "
          f"{'launches':>15} {'modes':>6} {'best':>6} {'median':>7} {'npgpu mpi':>10} {'mpi/ucx':>8}"
          + (f" {'ucx w=' + str(WIDE_WINDOW):>10}" if wide_column else ""))
    for size in sizes:
        ours, theirs, counted = in_shared_mode(of("ucx", size), of("perftest", size))
        ratios = [a / b for a, b in zip(of("ucx", size), of("perftest", size))]
        ratio, low, high = median_interval(ratios)
        median_trial, _, _ = in_shared_mode(of("ucx median", size), of("perftest", size))
        mpi, ucx, _ = in_shared_mode(of("mpi", size), of("ucx", size))
        print(f"{size:>38} {ours * scale:>10.3f} {theirs * scale:>13.3f} {ratio:>6.3f} {low:>6.3f}-{high:<6.3f}  "
              f"{judged(size, ratios, low, high, ratio):32} {counted:>15} {ours / theirs:>6.3f} "
              f"{best(of('ucx', size)) / best(of('perftest', size)):>6.3f} {median_trial / theirs:>7.3f} "
              f"{mpi * scale:>10.3f} {mpi / ucx:>8.3f}"
              + (f" {statistics.median(of('ucx wide', size)) * scale:>10.3f}" if wide_column else ""))


if __name__ == "__main__":
    main()
