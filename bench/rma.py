#!/usr/bin/python3
"""npgpu mpiRma against OSU's one-sided benchmarks on this machine (issue 19): 2 ranks over shared
memory, OSU's sizes (powers of two, 1 B to 4 MiB), cache-warm as OSU is (one buffer), OSU's
defaults otherwise (MPI_Win_allocate, passive target with MPI_Win_flush):

1. put latency: npgpu's put pingpong (half a round trip, each message seen by the peer polling its
   last byte) against osu_put_latency (a put and MPI_Win_flush, timed on the origin alone). They
   define latency apart, so bench/bare_rma.c times both definitions with nothing around them: npgpu
   is judged against the bare half round trip, OSU against the bare put and flush, and the verdict
   says how much of the gap the definitions make;
2. get latency: npgpu's get pingpong (one get and its flush) against osu_get_latency (the same
   operation, but timed with two MPI_Wtime calls inside each iteration, for its per-iteration tail
   latencies): npgpu is judged against the bare get and flush, OSU against the bare get and flush
   with those two calls around each (bench/bare_rma.c);
3. put bandwidth: npgpu's put stream with OSU's window of 64 against osu_put_bw (64 puts and a
   flush). npgpu closes every window with a notice and the target's answer besides, so that the
   target reads the last message's tag before the next window lands: npgpu is judged against a
   window's time plus one such round trip, which npgpu's own 1-byte put pingpong measures (a put,
   a flush and a poll each way, as the notices are). The windows differ in where the puts go:
   npgpu's warm stream puts every message to one place, osu_put_bw to 64 places side by side, so
   its buffers span 64 messages (at 16 KiB, 1 MiB: out of the caches that hold npgpu's). Each is
   judged against the bare window of its own kind: 64 puts to one place, or to 64.

Where npgpu and OSU part by more than 5%, the row says how much of the gap (in log) the bare
references' own ratio makes: 80% to 125% of it names the cause (OSU's clock, the footprint).

Launches alternate over the rounds; each tool is judged by its best launch at each size, the one
where the machine gave it the closer cores (bench/cost.py says why).

    bench/rma.py [--build build] [--osu /work/peers/osu] [--rounds 5] [--upper 4194304]

Prints the load average before and after, the rounds as they go, and a table last. Needs a built
npgpu, mpicc, osu_put_latency, osu_get_latency and osu_put_bw built against the same MPI, and
Debian's python3 with h5py.
"""
import argparse
import math
import os
import subprocess
import sys
import tempfile

import h5py

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENV = dict(os.environ)
if os.geteuid() == 0:
    ENV.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
PAIR = ["mpirun", "-np", "2"]
TOLERANCE = 0.05
# A gap is accounted for where the bare references' ratio makes 80% to 125% of it, in log.
ACCOUNTED = 1.25


def run(argv):
    return subprocess.run(argv, env=ENV, check=True, capture_output=True, text=True).stdout


def osu(binary, upper):
    """{size: figure} from an OSU benchmark's table (us for latency, MB/s for bandwidth)."""
    figures = {}
    for line in run([*PAIR, binary, "-m", f"1:{upper}"]).splitlines():
        fields = line.split()
        if len(fields) == 2 and fields[0].isdigit():
            figures[int(fields[0])] = float(fields[1])
    return figures


def npgpu(binary, record, upper, args):
    """{size: (seconds per transfer, B/s)} of the curve npgpu mpiRma just added to `record`."""
    run([*PAIR, binary, "--module", "mpiRma", "--cache", "warm", "--fac2", "--upper", str(upper), *args, "-o", record])
    with h5py.File(record, "r") as f:
        curve = f["runs"][sorted(f["runs"])[-1]]["curves/rank0"]
        return {int(size): (seconds, rate) for size, seconds, rate in
                zip(curve["bytes"][()], curve["time_median"][()], curve["throughput_from_time_median"][()])}


BARE = ("put_flush", "half_rtt", "get_flush", "get_stamped", "window_one_slot", "window_slots")


def bare(binary, upper):
    """{size: {BARE name: us}} from bench/bare_rma.c."""
    figures = {}
    for line in run([*PAIR, binary, str(upper)]).splitlines():
        size, *times = line.split()
        figures[int(size)] = dict(zip(BARE, map(float, times)))
    return figures


def best(launches, pick):
    """Per size, the best of the launches' figures (pick: min for times, max for rates)."""
    return {size: pick(launch[size] for launch in launches) for size in launches[0]}


def within(ratio):
    return abs(ratio - 1) <= TOLERANCE


def rows(measure, ours, theirs, explain):
    """A row a size: the ratio, and "within 5%" or explain(size)'s account of the gap."""
    return [(measure, size, ours[size], theirs[size], ours[size] / theirs[size],
             "within 5%" if within(ours[size] / theirs[size]) else explain(size)) for size in sorted(ours)]


def put_latency_rows(ours, theirs, bare_flush, bare_half):
    def explain(size):
        mine, osus = ours[size] / bare_half[size], theirs[size] / bare_flush[size]
        gap = bare_half[size] / bare_flush[size]
        return (f"{'definition' if within(mine) and within(osus) else 'OVER 5%'}: bare half RTT = {gap:.2f} x bare "
                f"put+flush; npgpu {mine:.3f} x bare half RTT, OSU {osus:.3f} x bare put+flush")
    return rows("put latency (us)", ours, theirs, explain)


def share_of_gap(ours, theirs, expected):
    """How much of the gap between the tools (ours / theirs) the bare references' ratio accounts
    for, in log: 1 all of it; nan where there is no gap."""
    return math.log(expected) / math.log(ours / theirs) if ours != theirs else float("nan")


def accounted(name, share):
    return f"{name}" if 1 / ACCOUNTED <= share <= ACCOUNTED else "OVER 5%"


def get_latency_rows(ours, theirs, bare_get, bare_stamped):
    def explain(size):
        share = share_of_gap(ours[size], theirs[size], bare_get[size] / bare_stamped[size])
        return (f"{accounted('OSU clock', share)}: two MPI_Wtime a get cost {bare_stamped[size] - bare_get[size]:.3f} us "
                f"bare, {100 * share:.0f}% of the gap; npgpu {ours[size] / bare_get[size]:.3f} x bare get+flush, OSU "
                f"{theirs[size] / bare_stamped[size]:.3f} x bare get+flush with them")
    return rows("get latency (us)", ours, theirs, explain)


def put_bandwidth_rows(ours, theirs, round_trip_us, window, one_slot_us, slots_us):
    def explain(size):
        bytes_ = window * size  # a window's, in B; MB/s = B/us
        mine = ours[size] / (bytes_ / (one_slot_us[size] + round_trip_us))
        osus = theirs[size] / (bytes_ / slots_us[size])
        share = share_of_gap(ours[size], theirs[size], slots_us[size] / (one_slot_us[size] + round_trip_us))
        return (f"{accounted('footprint', share)}: 64 places cost {slots_us[size] / one_slot_us[size]:.2f} x one "
                f"bare, {100 * share:.0f}% of the gap; npgpu {mine:.3f} x one place + {round_trip_us:.2f} us, OSU "
                f"{osus:.3f} x 64 places")
    return rows("put bandwidth (MB/s)", ours, theirs, explain)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--osu", default="/work/peers/osu", help="folder of osu_put_latency, osu_get_latency, osu_put_bw")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--upper", type=int, default=4 * 1024 * 1024, help="largest size (OSU's default: 4 MiB)")
    options = parser.parse_args()
    binary = os.path.join(options.build, "npgpu")
    window = 64  # osu_put_bw's
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", file=sys.stderr)
    launches = {name: [] for name in ("npgpu put", "osu put", "bare", "npgpu get", "osu get", "npgpu stream", "osu bw")}
    with tempfile.TemporaryDirectory() as work:
        bare_binary = os.path.join(work, "bare_rma")
        subprocess.run(["mpicc", "-O2", "-o", bare_binary, os.path.join(ROOT, "bench", "bare_rma.c")], check=True)
        record = os.path.join(work, "rma.h5")
        us = 1e6
        for round_number in range(options.rounds):
            launches["osu put"].append(osu(os.path.join(options.osu, "osu_put_latency"), options.upper))
            put = npgpu(binary, record, options.upper, [])
            launches["npgpu put"].append({size: seconds * us for size, (seconds, _) in put.items()})
            launches["bare"].append(bare(bare_binary, options.upper))
            launches["osu get"].append(osu(os.path.join(options.osu, "osu_get_latency"), options.upper))
            get = npgpu(binary, record, options.upper, ["--operation", "get"])
            launches["npgpu get"].append({size: seconds * us for size, (seconds, _) in get.items()})
            launches["osu bw"].append(osu(os.path.join(options.osu, "osu_put_bw"), options.upper))
            stream = npgpu(binary, record, options.upper, ["--pattern", "stream", "--window", str(window)])
            launches["npgpu stream"].append({size: rate / 1e6 for size, (_, rate) in stream.items()})
            print(f"round {round_number + 1}: 8 B put {launches['npgpu put'][-1][8]:.3f} us (OSU "
                  f"{launches['osu put'][-1][8]:.3f}), get {launches['npgpu get'][-1][8]:.3f} us (OSU "
                  f"{launches['osu get'][-1][8]:.3f}), 1 MiB stream {launches['npgpu stream'][-1][1 << 20]:.0f} MB/s "
                  f"(OSU {launches['osu bw'][-1][1 << 20]:.0f})", file=sys.stderr)
    put_ours, put_theirs = best(launches["npgpu put"], min), best(launches["osu put"], min)
    bare_best = {name: best([{s: f[name] for s, f in launch.items()} for launch in launches["bare"]], min) for name in BARE}
    table = put_latency_rows(put_ours, put_theirs, bare_best["put_flush"], bare_best["half_rtt"])
    table += get_latency_rows(best(launches["npgpu get"], min), best(launches["osu get"], min), bare_best["get_flush"],
                              bare_best["get_stamped"])
    table += put_bandwidth_rows(best(launches["npgpu stream"], max), best(launches["osu bw"], max), 2 * put_ours[1], window,
                                bare_best["window_one_slot"], bare_best["window_slots"])
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", file=sys.stderr)
    print(f"\n{'measure':22} {'size':>8} {'npgpu':>10} {'OSU':>10} {'ratio':>6}  verdict (against 5%; best of "
          f"{options.rounds} launches)")
    for measure, size, ours, theirs, ratio, verdict in table:
        print(f"{measure:22} {size:>8} {ours:>10.3f} {theirs:>10.3f} {ratio:>6.3f}  {verdict}")


if __name__ == "__main__":
    main()
