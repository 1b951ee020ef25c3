#!/usr/bin/python3
"""What npgpu costs its users in time (issue 16), measured in one run on this machine:

1. sweep times: full default mpi sweeps (1 B to 64 MiB, 2 ranks) of pingpong, stream and bidir;
   stream and bidir within 2x the pingpong sweep. With --before, an older npgpu's three sweeps
   beside them (build one from an earlier commit outside this tree);
2. the plateau: the auto window's stream and bidir throughput at 4 to 64 MiB against a fixed
   64-message window and, with --osu-bw/--osu-bibw, osu_bw and osu_bibw (built outside this
   repository against the same MPI), launches alternating, all cache-warm as OSU is (one buffer);
   within 2%. Launches differ by up to 20% on a virtual machine (each mpirun may land its ranks on
   closer or farther physical cores), so each is judged by its best launch, as bench/core.py does;

3. the time left: at each tenth of the pingpong and stream sweeps' run time, the console's last
   "~X left" against the time that really was left; within 25%. Beside it, the same estimate
   scaled by the trials the sizes left really took over the trials the sizes before took (read
   from the record): what is left of the error once the trials that noise will ask for are known;
4. with --quickstart: scripts/quickstart.sh in a fresh clone of this tree (the install step finds
   its packages present unless the machine is new), and the survey at its end, timed;
5. with --tests: .ci/run in a fresh clone, timed.

    bench/cost.py [--build build] [--before OLD/npgpu] [--osu-bw PATH] [--osu-bibw PATH]
                  [--rounds 3] [--quickstart] [--tests]

Prints a table last. Needs a built npgpu and Debian's python3 with h5py.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import h5py

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENV = dict(os.environ)
if os.geteuid() == 0:
    ENV.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
MiB = 1 << 20
PLATEAU = [4 * MiB, 8 * MiB, 16 * MiB, 32 * MiB, 64 * MiB]
UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0}
LEFT = re.compile(r"~([0-9.]+) (ns|us|ms|s|min) left")


def timed_lines(argv, cwd=None):
    """Runs argv; returns (seconds, [(seconds since start, line)]) with each line stamped as it came."""
    start = time.monotonic()
    process = subprocess.Popen(argv, env=ENV, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               bufsize=1)
    lines = [(time.monotonic() - start, line.rstrip("\n")) for line in process.stdout]
    if process.wait() != 0:
        sys.exit(f"cost.py: {' '.join(argv)} failed:\n" + "\n".join(line for _, line in lines[-20:]))
    return time.monotonic() - start, lines


def sweep(npgpu, pattern, record, extra=()):
    seconds, lines = timed_lines(["mpirun", "-np", "2", npgpu, "--module", "mpi", "--pattern", pattern, "-o", record,
                                  *extra])
    return seconds, lines


def last_curve(record, dataset="throughput_from_time_median"):
    with h5py.File(record, "r") as f:
        run = f["runs"][sorted(f["runs"])[-1]]
        curve = run["curves/rank0"]
        return dict(zip(curve["bytes"][()], curve[dataset][()]))


def time_left_errors(seconds, lines, trials):
    """Worst |predicted - true| / true time left over the tenths 1 to 9 of a run: as printed, and
    scaled by the mean trials of the sizes left over those done (`trials`, size by size)."""
    estimates = [(at, float(m.group(1)) * UNITS[m.group(2)]) for at, line in lines if (m := LEFT.search(line))]
    worst, worst_known = 0.0, 0.0
    for tenth in range(1, 10):
        moment = seconds * tenth / 10
        before = [(at, left) for at, left in estimates if at <= moment]
        if not before:
            continue
        at, predicted = before[-1]
        done = len(before)
        true_left = seconds - at
        worst = max(worst, abs(predicted - true_left) / true_left)
        scale = statistics.mean(trials[done:]) / statistics.mean(trials[:done]) if done < len(trials) else 1.0
        worst_known = max(worst_known, abs(predicted * scale - true_left) / true_left)
    return worst, worst_known


def osu_rates(binary, lines_wanted):
    """osu_bw / osu_bibw over 4 to 64 MiB: {size: B/s} (it prints MB/s, 1 MB = 1e6 B)."""
    out = subprocess.run(["mpirun", "-np", "2", binary, "-m", f"{PLATEAU[0]}:{PLATEAU[-1]}"], env=ENV, check=True,
                         capture_output=True, text=True).stdout
    rates = {}
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 2 and fields[0].isdigit() and int(fields[0]) in lines_wanted:
            rates[int(fields[0])] = float(fields[1]) * 1e6
    return rates


def plateau(rates):
    return statistics.median(rates[size] for size in PLATEAU)


def fresh_clone(work):
    clone = os.path.join(work, "clone")
    subprocess.run(["git", "clone", "-q", ROOT, clone], check=True)
    return clone


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--before", help="an older npgpu binary whose default sweeps to time beside this one's")
    parser.add_argument("--osu-bw", help="osu_bw binary, built against the same MPI")
    parser.add_argument("--osu-bibw", help="osu_bibw binary, built against the same MPI")
    parser.add_argument("--rounds", type=int, default=5, help="launches of each plateau measurement, alternating")
    parser.add_argument("--quickstart", action="store_true", help="time scripts/quickstart.sh in a fresh clone")
    parser.add_argument("--tests", action="store_true", help="time .ci/run in a fresh clone")
    options = parser.parse_args()
    npgpu = os.path.join(options.build, "npgpu")
    rows = []
    with tempfile.TemporaryDirectory() as work:
        record = os.path.join(work, "cost.h5")
        sweeps, errors = {}, {}
        auto, fixed, osu = ({p: [] for p in ("stream", "bidir")} for _ in range(3))
        for pattern in ("pingpong", "stream", "bidir"):
            seconds, lines = sweep(npgpu, pattern, record)
            sweeps[pattern] = [seconds]
            errors[pattern] = time_left_errors(seconds, lines, list(last_curve(record, "trials").values()))
            print(f"{pattern}: {seconds:.1f} s, time-left error {100 * errors[pattern][0]:.0f}%", file=sys.stderr)
            if options.before:
                sweeps[pattern].append(sweep(options.before, pattern, os.path.join(work, "before.h5"))[0])
                print(f"{pattern} before: {sweeps[pattern][1]:.1f} s", file=sys.stderr)
        peers = {"stream": options.osu_bw, "bidir": options.osu_bibw}
        warm = ["--cache", "warm", "--lower", "1M"]
        for round_number in range(options.rounds):
            for pattern in ("stream", "bidir"):
                sweep(npgpu, pattern, record, warm)
                auto[pattern].append(plateau(last_curve(record)))
                sweep(npgpu, pattern, record, [*warm, "--window", "64"])
                fixed[pattern].append(plateau(last_curve(record)))
                if peers[pattern]:
                    osu[pattern].append(plateau(osu_rates(peers[pattern], PLATEAU)))
                print(f"round {round_number + 1} {pattern}: auto {auto[pattern][-1] / 1e9:.3f}, window 64 "
                      f"{fixed[pattern][-1] / 1e9:.3f}" +
                      (f", osu {osu[pattern][-1] / 1e9:.3f}" if osu[pattern] else "") + " GB/s", file=sys.stderr)

        for pattern in ("pingpong", "stream", "bidir"):
            now = sweeps[pattern][0]
            ratio = now / sweeps["pingpong"][0]
            target = "<= 2 x pingpong" if pattern != "pingpong" else "(the yardstick)"
            before = f"{sweeps[pattern][1]:.1f} s before" if options.before else "(no --before)"
            rows.append((f"default mpi {pattern} sweep (s)", f"{now:.1f}", before, ratio, target))
        for pattern in ("stream", "bidir"):
            ours = max(auto[pattern])
            reference = max(fixed[pattern])
            rows.append((f"{pattern} plateau 4-64 MiB warm, best launch (GB/s)", f"{ours / 1e9:.3f}",
                         f"{reference / 1e9:.3f} window 64", ours / reference, "within 2%"))
            if osu[pattern]:
                theirs = max(osu[pattern])
                name = "osu_bw" if pattern == "stream" else "osu_bibw"
                rows.append((f"{pattern} plateau 4-64 MiB warm, best launch (GB/s)", f"{ours / 1e9:.3f}",
                             f"{theirs / 1e9:.3f} {name}", ours / theirs, "within 2%"))
        for pattern in ("pingpong", "stream"):
            printed, known = errors[pattern]
            rows.append((f"time left, worst tenth of the {pattern} sweep", f"{100 * printed:.0f}%", "true time left",
                         printed, "<= 0.25"))
            rows.append(("  the same, the trials left known", f"{100 * known:.0f}%", "true time left", known, "(shown)"))

        if options.quickstart:
            clone = fresh_clone(work)
            seconds, lines = timed_lines(["./scripts/quickstart.sh"], cwd=clone)
            survey = [at for at, line in lines if line.startswith("npgpu-survey: info:")]
            survey_seconds = seconds - survey[0] if survey else float("nan")
            rows.append(("quickstart.sh in a fresh clone (s)", f"{seconds:.0f}", "360 s target", seconds / 360, "< 1"))
            rows.append(("  its survey of 2 ranks (s)", f"{survey_seconds:.0f}", "60 s target", survey_seconds / 60, "< 1"))
            subprocess.run(["rm", "-rf", clone], check=True)
        if options.tests:
            clone = fresh_clone(work)
            seconds, _ = timed_lines(["bash", ".ci/run"], cwd=clone)
            rows.append((".ci/run in a fresh clone (min)", f"{seconds / 60:.1f}", "25 min target", seconds / 1500, "< 1"))

    print(f"\n{'measure':48} {'value':>10} {'reference':>24} {'ratio':>7}  target")
    for name, value, reference, ratio, target in rows:
        print(f"{name:48} {value:>10} {reference:>24} {ratio:>7.3f}  {target}")


if __name__ == "__main__":
    main()
