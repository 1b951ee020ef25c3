#!/usr/bin/python3
"""How honest the console's time left is (issue 36): default runs of several kinds, each launched
--launches times; every progress line's "~X left" against the time that really was left when it
was printed, at each tenth of the run (tenths 1 to 9 of the time from the launch to the end of the
measuring; a tenth before the first size has no estimate and is not counted). The end of the
measuring is the first line after the last progress line: the summary, printed once the sizes (or
cells) measured again are done, before the record is written. Within 25% at every tenth is the
target.

    bench/time_left.py [--build build] [--launches 3] [--kinds stream,pingpong,tcp,matrix,load,h2d,d2d] [--logs DIR]

Prints a table last: per kind and tenth, the estimate over the truth (median and the launch
furthest from 1), and how many tenths of all launches are outside 25%; then how many would be
with the trials known: each estimate scaled by the mean trials the sizes left really took over
the trials it foretold them (the model's error but for the trials noise asks of the sizes to
come; bench/cost.py shows how little of that the other launches of a sweep foretell). Needs a
built npgpu.
"""
import argparse
import os
import re
import statistics
import sys
import tempfile

from cost import LEFT, TRIALS, UNITS, end_after, foretold_trials, timed_lines

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAIR = ["mpirun", "-np", "2"]
FOUR = ["mpirun", "-np", "4", "--oversubscribe"]
KINDS = {
    "stream": (PAIR, ["--module", "mpi", "--pattern", "stream"]),
    "pingpong": (PAIR, ["--module", "mpi", "--pattern", "pingpong"]),
    "tcp": (PAIR, ["--module", "tcp"]),
    "matrix": (FOUR, ["--module", "mpi", "--pairs", "all"]),
    # ranks 0 and 1 measure alone, then while 2 and 3 stream: two sweeps in one launch
    "load": (FOUR, ["--module", "mpi", "--pattern", "stream", "--load", "stream", "--load-ranks", "2,3"]),
    # on a GPU machine: one rank's copies, host to GPU and inside the GPU
    "h2d": ([], ["--module", "cudaMemcpy"]),
    "d2d": ([], ["--module", "cudaMemcpy", "--direction", "d2d"]),
}
PROGRESS = re.compile(r"^\[\s*\d+/\d+\]")
TARGET = 0.25


def estimates(lines):
    """[(seconds since the launch, the time left it printed, the trials of the sizes so far)] and the
    end of the measuring."""
    said, trials = [], []
    for at, line in lines:
        if not PROGRESS.match(line):
            continue
        counted = TRIALS.match(line)
        trials.append(int(counted.group(1)) if counted else None)
        found = LEFT.search(line)
        said.append((at, float(found.group(1)) * UNITS[found.group(2)] if found else 0.0, list(trials)))
    return said, end_after(lines, PROGRESS)


def ratios(lines):
    """The estimate over the truth at tenths 1 to 9 (None before the first estimate), and the same
    with the trials known (None where a line shows no trials, or no size is left)."""
    said, end = estimates(lines)
    every_trials = said[-1][2] if said else []
    out, known = [], []
    for tenth in range(1, 10):
        moment = end * tenth / 10
        before = [entry for entry in said if entry[0] <= moment]
        if not before or end - before[-1][0] <= 0:
            out.append(None)
            known.append(None)
            continue
        at, left, so_far = before[-1]
        out.append(left / (end - at))
        to_come = every_trials[len(so_far):]
        if None in every_trials or not to_come:
            known.append(None)
        else:
            known.append(out[-1] * statistics.mean(to_come) / foretold_trials(so_far))
    return out, known


def furthest(values):
    return max(values, key=lambda r: abs(r - 1))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--launches", type=int, default=3)
    parser.add_argument("--kinds", default="stream,pingpong,tcp,matrix,load",
                        help="which of " + ", ".join(KINDS) + " (h2d and d2d need a GPU)")
    parser.add_argument("--logs", help="a folder to keep each launch's console, its lines stamped")
    options = parser.parse_args()
    npgpu = os.path.join(options.build, "npgpu")
    table = {}
    with tempfile.TemporaryDirectory() as work:
        for kind in options.kinds.split(","):
            launcher, args = KINDS[kind]
            table[kind] = []
            for launch in range(options.launches):
                seconds, lines = timed_lines([*launcher, npgpu, *args, "-o", os.path.join(work, f"{kind}.h5")])
                if options.logs:
                    os.makedirs(options.logs, exist_ok=True)
                    with open(os.path.join(options.logs, f"{kind}-{launch + 1}.log"), "w") as log:
                        log.writelines(f"{at:.4f} {line}\n" for at, line in lines)
                table[kind].append(ratios(lines))
                shown = " ".join("-" if r is None else f"{r:.2f}" for r in table[kind][-1][0])
                print(f"{kind}, launch {launch + 1}: {seconds:.1f} s (load {os.getloadavg()[0]:.1f}); "
                      f"estimate / truth at tenths 1-9: {shown}", file=sys.stderr)

    print(f"\n{'kind':10} " + " ".join(f"{f'tenth {t}':>11}" for t in range(1, 10)) +
          "  outside 25%  with the trials known")
    for kind, launches in table.items():
        cells = []
        for tenth in range(9):
            values = [said[tenth] for said, _ in launches if said[tenth] is not None]
            cells.append(f"{statistics.median(values):.2f}/{furthest(values):.2f}" if values else "-")
        print(f"{kind:10} " + " ".join(f"{c:>11}" for c in cells) +
              f"  {outside_of([said for said, _ in launches]):>11}  {outside_of([known for _, known in launches]):>21}")
    print("(each tenth: the median over the launches of the estimate / the truth, then the launch furthest from 1;\n"
          " with the trials known: each estimate scaled by the trials the sizes left took over those it foretold)")


def outside_of(launches):
    """"k/n": how many of the launches' tenths with a figure are outside the target."""
    values = [r for launch in launches for r in launch if r is not None]
    return f"{sum(abs(r - 1) > TARGET for r in values)}/{len(values)}" if values else "-"


if __name__ == "__main__":
    main()
