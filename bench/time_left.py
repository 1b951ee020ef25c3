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
furthest from 1), and how many tenths of all launches are outside 25%. Needs a built npgpu.
"""
import argparse
import os
import re
import statistics
import sys
import tempfile

from cost import LEFT, UNITS, end_after, timed_lines

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
    """[(seconds since the launch, the time left it printed)] and the end of the measuring."""
    said = []
    for at, line in lines:
        if not PROGRESS.match(line):
            continue
        found = LEFT.search(line)
        said.append((at, float(found.group(1)) * UNITS[found.group(2)] if found else 0.0))
    return said, end_after(lines, PROGRESS)


def ratios(lines):
    """The estimate over the truth at tenths 1 to 9 (None before the first estimate)."""
    said, end = estimates(lines)
    out = []
    for tenth in range(1, 10):
        moment = end * tenth / 10
        before = [(at, left) for at, left in said if at <= moment]
        if not before or end - before[-1][0] <= 0:
            out.append(None)
            continue
        at, left = before[-1]
        out.append(left / (end - at))
    return out


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
                shown = " ".join("-" if r is None else f"{r:.2f}" for r in table[kind][-1])
                print(f"{kind}, launch {launch + 1}: {seconds:.1f} s (load {os.getloadavg()[0]:.1f}); "
                      f"estimate / truth at tenths 1-9: {shown}", file=sys.stderr)

    print(f"\n{'kind':10} " + " ".join(f"{f'tenth {t}':>11}" for t in range(1, 10)) + "  outside 25%")
    for kind, launches in table.items():
        cells, outside, counted = [], 0, 0
        for tenth in range(9):
            values = [launch[tenth] for launch in launches if launch[tenth] is not None]
            counted += len(values)
            outside += sum(abs(r - 1) > TARGET for r in values)
            cells.append(f"{statistics.median(values):.2f}/{furthest(values):.2f}" if values else "-")
        print(f"{kind:10} " + " ".join(f"{c:>11}" for c in cells) + f"  {outside}/{counted}")
    print("(each tenth: the median over the launches of the estimate / the truth, then the launch furthest from 1)")


if __name__ == "__main__":
    main()
