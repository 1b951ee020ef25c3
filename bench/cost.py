#!/usr/bin/python3
"""What npgpu costs its users in time (issue 16), measured in one run on this machine:

1. sweep times: full default mpi sweeps (1 B to 64 MiB, 2 ranks) of pingpong, stream and bidir,
   each launched --launches times (3) and timed by the median; stream and bidir within 2x the
   pingpong sweep. With --gpu instead, the default sweeps of the GPU
   copy modules on one GPU (cudaMemcpy h2d, d2h, d2d; cuMemcpy h2d). With --before, an older
   npgpu's same sweeps beside them (build one from an earlier commit outside this tree);
2. the time left: at each tenth of each sweep's run time, the console's last "~X left" against
   the time that really was left; within 25%, in each launch. Beside it, the same estimate scaled
   by the trials the sizes left really took over the trials it took them to take (from the
   console's table): what is left of the error once the trials that noise will ask for are known;
   and scaled by the trials each size left took on average in the other launches: the bound of an
   estimate that knew each size's trials on this machine but not this launch's noise;
3. mpi only, the plateau: the auto window's stream and bidir throughput at 4 to 64 MiB against a
   fixed 64-message window and, with --osu-bw/--osu-bibw, osu_bw and osu_bibw (built outside this
   repository against the same MPI), launches alternating, all cache-warm as OSU is (one buffer);
   within 2%. Launches differ by up to 40% on a virtual machine (each mpirun may land its ranks on
   closer or farther physical cores), so each is judged by its best launch, as bench/core.py does,
   and by the median over the rounds of the ratio between launches of the same round;
4. with --quickstart: scripts/quickstart.sh in a fresh clone of this tree (the install step finds
   its packages present unless the machine is new), and the survey at its end, timed;
5. with --tests: .ci/run in a fresh clone, timed.

    bench/cost.py [--build build] [--before OLD/npgpu] [--gpu] [--osu-bw PATH] [--osu-bibw PATH]
                  [--launches 3] [--rounds 5] [--quickstart] [--tests]

Prints a table last. Needs a built npgpu, and Debian's python3 with h5py for the plateau.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENV = dict(os.environ)
if os.geteuid() == 0:
    ENV.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
MiB = 1 << 20
PLATEAU = [4 * MiB, 8 * MiB, 16 * MiB, 32 * MiB, 64 * MiB]
UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0}
LEFT = re.compile(r"~([0-9.]+) (ns|us|ms|s|min) left")
# A size's line of the console's table: "[ 12/141] ... 0.55%      3     64  ~6.97 s left" (the
# window column only for stream and bidir); the trials follow the precision.
TRIALS = re.compile(r"^\[\s*\d+/\d+\].*?%\s+(\d+)\s")
MIN_TRIALS = 3     # the time left's trials: the mean of the sizes done, 3 at least,
RECENT_SIZES = 16  # and at least the mean of the last 16 (src/run/time_left.cpp)


def foretold_trials(done):
    """The trials the time left foretells for each size left, from the trials of the sizes `done`."""
    return max(MIN_TRIALS, statistics.mean(done), statistics.mean(done[-RECENT_SIZES:]))
PAIR = ["mpirun", "-np", "2"]
MPI_SWEEPS = [(f"mpi {p}", PAIR, ["--module", "mpi", "--pattern", p]) for p in ("pingpong", "stream", "bidir")]
GPU_SWEEPS = [("cudaMemcpy h2d", [], ["--module", "cudaMemcpy"]),
              ("cudaMemcpy d2h", [], ["--module", "cudaMemcpy", "--direction", "d2h"]),
              ("cudaMemcpy d2d", [], ["--module", "cudaMemcpy", "--direction", "d2d"]),
              ("cuMemcpy h2d", [], ["--module", "cuMemcpy"])]


def timed_lines(argv, cwd=None):
    """Runs argv; returns (seconds, [(seconds since start, line)]) with each line stamped as it came."""
    start = time.monotonic()
    process = subprocess.Popen(argv, env=ENV, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               bufsize=1)
    lines = [(time.monotonic() - start, line.rstrip("\n")) for line in process.stdout]
    if process.wait() != 0:
        sys.exit(f"cost.py: {' '.join(argv)} failed:\n" + "\n".join(line for _, line in lines[-20:]))
    return time.monotonic() - start, lines


def run_npgpu(npgpu, launcher, args, record, extra=()):
    return timed_lines([*launcher, npgpu, *args, "-o", record, *extra])


def sizes_done(lines):
    """The console's size lines: [(seconds since start, line)] and each size's trials."""
    sizes = [(at, line) for at, line in lines if TRIALS.match(line)]
    return sizes, [int(TRIALS.match(line).group(1)) for _, line in sizes]


def end_after(lines, last_of_measuring):
    """When the measuring ended: the first line after the last that matches `last_of_measuring` (a
    size's line: the summary follows once the sizes measured again are done)."""
    last = max(i for i, (_, line) in enumerate(lines) if last_of_measuring.match(line))
    return lines[last + 1][0] if last + 1 < len(lines) else lines[last][0]


def time_left_errors(lines, expected_trials=None):
    """Worst |predicted - true| / true time left over the tenths 1 to 9 of a sweep: as printed; scaled
    by the mean trials of the sizes left over what the estimate took them to be (foretold_trials),
    which leaves the error of all but
    the trials noise asks for; and, given `expected_trials` (each size's mean over other launches of
    the same sweep), scaled by those instead: the error left to an estimate that knew what every size
    takes on average, but not what this launch's noise would ask of it; and by those times the ratio
    of this launch's trials so far to theirs, for a launch noisier or quieter than the others. The scaling is of the whole
    estimate, warm-ups included, so the last two are approximations. The estimate is of the
    measurement left, the sizes measured again after the last size included, so the sweep ends with
    them; writing the record and closing MPI and CUDA follow (a quarter of a second on a GPU node,
    which at the ninth tenth of a 9 s sweep had read as 27% by itself)."""
    sizes, trials = sizes_done(lines)
    end = end_after(lines, TRIALS)
    worst = [0.0, 0.0, 0.0, 0.0]
    for tenth in range(1, 10):
        moment = end * tenth / 10
        done = sum(1 for at, _ in sizes if at <= moment)
        if done == 0:
            continue
        at, line = sizes[done - 1]
        found = LEFT.search(line)
        if not found:  # the last size: "done"
            continue
        predicted = float(found.group(1)) * UNITS[found.group(2)]
        true_left = end - at
        foretold = foretold_trials(trials[:done])
        if done == len(sizes):  # only the sizes measured again are left: no trials to know
            worst = [max(w, abs(predicted - true_left) / true_left) for w in worst]
            continue
        left_known = [statistics.mean(trials[done:])]
        if expected_trials:
            expected_left = statistics.mean(expected_trials[done:])
            this_launch = statistics.mean(trials[:done]) / statistics.mean(expected_trials[:done])
            left_known += [expected_left, expected_left * this_launch]
        for i, scale in enumerate([foretold] + left_known):
            worst[i] = max(worst[i], abs(predicted * scale / foretold - true_left) / true_left)
    return worst if expected_trials else worst[:2]


def expected_trials_but(launches, skipped):
    """Each size's trials, averaged over the launches of one sweep but the skipped one."""
    others = [sizes_done(lines)[1] for i, (_, lines) in enumerate(launches) if i != skipped]
    return [statistics.mean(column) for column in zip(*others)]


def last_curve(record):
    import h5py  # only the plateau needs it, and the GPU machine's python has none
    with h5py.File(record, "r") as f:
        curve = f["runs"][sorted(f["runs"])[-1]]["curves/rank0"]
        return dict(zip(curve["bytes"][()], curve["throughput_from_time_median"][()]))


def osu_rates(binary):
    """osu_bw / osu_bibw over the plateau's sizes: {size: B/s} (it prints MB/s, 1 MB = 1e6 B)."""
    out = subprocess.run([*PAIR, binary, "-m", f"{PLATEAU[0]}:{PLATEAU[-1]}"], env=ENV, check=True,
                         capture_output=True, text=True).stdout
    rates = {}
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 2 and fields[0].isdigit() and int(fields[0]) in PLATEAU:
            rates[int(fields[0])] = float(fields[1]) * 1e6
    return rates


def plateau(rates):
    return statistics.median(rates[size] for size in PLATEAU)


def plateau_rows(npgpu, options, record):
    """Best launch of each: auto window, 64-message window, OSU; cache-warm, from 1 MiB."""
    auto, fixed, osu = ({p: [] for p in ("stream", "bidir")} for _ in range(3))
    peers = {"stream": options.osu_bw, "bidir": options.osu_bibw}
    warm = ["--cache", "warm", "--lower", "1M"]
    for round_number in range(options.rounds):
        for pattern in ("stream", "bidir"):
            args = ["--module", "mpi", "--pattern", pattern, *warm]
            run_npgpu(npgpu, PAIR, args, record)
            auto[pattern].append(plateau(last_curve(record)))
            run_npgpu(npgpu, PAIR, args, record, ["--window", "64"])
            fixed[pattern].append(plateau(last_curve(record)))
            if peers[pattern]:
                osu[pattern].append(plateau(osu_rates(peers[pattern])))
            print(f"round {round_number + 1} {pattern}: auto {auto[pattern][-1] / 1e9:.3f}, window 64 "
                  f"{fixed[pattern][-1] / 1e9:.3f}" + (f", osu {osu[pattern][-1] / 1e9:.3f}" if osu[pattern] else "") +
                  " GB/s", file=sys.stderr)
    rows = []
    for pattern in ("stream", "bidir"):
        ours = max(auto[pattern])
        references = [(fixed[pattern], "window 64")]
        if osu[pattern]:
            references.append((osu[pattern], "osu_bw" if pattern == "stream" else "osu_bibw"))
        for reference, name in references:
            rows.append((f"{pattern} plateau 4-64 MiB warm, best launch (GB/s)", f"{ours / 1e9:.3f}",
                         f"{max(reference) / 1e9:.3f} {name}", ours / max(reference), "within 2%"))
            paired = [a / b for a, b in zip(auto[pattern], reference)]
            rows.append(("  median of the rounds' paired ratios", f"{statistics.median(paired):.3f}",
                         f"range {min(paired):.2f}-{max(paired):.2f}", statistics.median(paired), "within 2%"))
    return rows


def fresh_clone(work):
    clone = os.path.join(work, "clone")
    subprocess.run(["git", "clone", "-q", ROOT, clone], check=True)
    return clone


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--before", help="an older npgpu binary whose default sweeps to time beside this one's")
    parser.add_argument("--gpu", action="store_true", help="the GPU copy modules' sweeps on one GPU instead of mpi's")
    parser.add_argument("--osu-bw", help="osu_bw binary, built against the same MPI")
    parser.add_argument("--osu-bibw", help="osu_bibw binary, built against the same MPI")
    parser.add_argument("--rounds", type=int, default=5, help="launches of each plateau measurement, alternating "
                        "(0: no plateau, where h5py is missing)")
    parser.add_argument("--launches", type=int, default=3, help="launches of each sweep: its time is their median, "
                        "and each launch's time left is judged, also against the trials of the others")
    parser.add_argument("--quickstart", action="store_true", help="time scripts/quickstart.sh in a fresh clone")
    parser.add_argument("--tests", action="store_true", help="time .ci/run in a fresh clone")
    parser.add_argument("--logs", help="a folder to keep each sweep's record and console, its lines stamped")
    options = parser.parse_args()
    npgpu = os.path.join(options.build, "npgpu")
    rows, errors = [], {}
    with tempfile.TemporaryDirectory() as work:
        record = os.path.join(work, "cost.h5")
        sweeps = GPU_SWEEPS if options.gpu else MPI_SWEEPS
        yardstick = None
        for name, launcher, args in sweeps:
            kept = os.path.join(options.logs, name.replace(" ", "-")) if options.logs else None
            launches, befores = [], []
            for launch in range(options.launches):
                path = f"{kept}-{launch + 1}" if kept else None
                seconds, lines = run_npgpu(npgpu, launcher, args, path + ".h5" if path else record)
                launches.append((seconds, lines))
                if path:
                    with open(path + ".log", "w") as log:
                        log.writelines(f"{at:.4f} {line}\n" for at, line in lines)
                if options.before:
                    befores.append(run_npgpu(options.before, launcher, args, os.path.join(work, "before.h5"))[0])
                print(f"{name}, launch {launch + 1}: {seconds:.1f} s" + (f", before {befores[-1]:.1f} s" if befores else "") +
                      f", time-left error {100 * time_left_errors(lines)[0]:.0f}%", file=sys.stderr)
            seconds = statistics.median(s for s, _ in launches)
            before = statistics.median(befores) if befores else None
            each = f"median of {len(launches)}"
            if options.gpu:
                rows.append((f"default {name} sweep (s, {each})", f"{seconds:.1f}",
                             f"{before:.1f} s before" if before else "(no --before)",
                             seconds / before if before else float("nan"), "<= 1 (no slower)"))
            else:
                yardstick = yardstick or seconds
                rows.append((f"default {name} sweep (s, {each})", f"{seconds:.1f}",
                             f"{before:.1f} s before" if before else "(no --before)", seconds / yardstick,
                             "<= 2 x pingpong" if name != "mpi pingpong" else "(the yardstick)"))
            rows.append(("  its launches (s)", "-".join(f"{s:.1f}" for s in (min(s for s, _ in launches),
                                                                            max(s for s, _ in launches))),
                         "fastest-slowest", float("nan"), "(shown)"))
            errors[name] = [time_left_errors(lines, expected_trials_but(launches, i) if len(launches) > 1 else None)
                            + [seconds - end_after(lines, TRIALS)] for i, (seconds, lines) in enumerate(launches)]
        if not options.gpu and options.rounds > 0:
            rows += plateau_rows(npgpu, options, record)
        for name, launches in errors.items():
            def each_launch(column, label, target):
                values = [launch[column] for launch in launches]
                rows.append((label, "/".join(f"{100 * v:.0f}" for v in values) + "%", "true time left", max(values),
                             target))
            each_launch(0, f"time left, worst tenth: {name}", "<= 0.25")
            each_launch(1, "  the same, the trials left known", "(shown)")
            if len(launches[0]) > 3:
                each_launch(2, "  the same, each size's mean trials known", "(a bound)")
                each_launch(3, "    and scaled by this launch's so far", "(a bound)")
            tails = [launch[-1] for launch in launches]
            rows.append(("  then the record and exit (s)", f"{statistics.median(tails):.2f}", "after the measuring",
                         float("nan"), "(shown)"))

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
