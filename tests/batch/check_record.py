#!/usr/bin/python3
"""Reads an npgpu record back and checks what a batch test expects of it.

    check_record.py FILE --runs N [--status S] [--modules mpi,mpi,...] [--min-sizes K]

Prints one line per run (number, module, pairs, status, sizes) and exits 1, naming what differs,
when the record is not as expected.
"""
import argparse
import sys

import h5py


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def sizes_of(run):
    """Sizes measured: of the first curve, or of the matrices of an all-pairs run."""
    if "curves" in run and len(run["curves"]) > 0:
        first = sorted(run["curves"])[0]
        return len(run["curves"][first]["bytes"])
    if "matrix" in run:
        return len(run["matrix"]["bytes"])
    return 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("record")
    parser.add_argument("--runs", type=int, required=True)
    parser.add_argument("--status", default="complete")
    parser.add_argument("--modules", default="")
    parser.add_argument("--min-sizes", type=int, default=1)
    args = parser.parse_args()

    problems = []
    with h5py.File(args.record, "r") as record:
        runs = [record["runs"][name] for name in sorted(record["runs"])]
        for number, run in enumerate(runs, 1):
            attrs = {key: text(value) for key, value in run.attrs.items()}
            sizes = sizes_of(run)
            print(f"run {number}: {attrs['module']} pairs={attrs.get('pairs', '')} "
                  f"status={attrs['status']} sizes={sizes}")
            if attrs["status"] != args.status:
                problems.append(f"run {number} is {attrs['status']} ({attrs.get('status_reason', '')}), "
                                f"expected {args.status}")
            if sizes < args.min_sizes:
                problems.append(f"run {number} kept {sizes} sizes, expected at least {args.min_sizes}")
        if len(runs) != args.runs:
            problems.append(f"{len(runs)} runs in the record, expected {args.runs}")
        modules = ",".join(text(run.attrs["module"]) for run in runs)
        if args.modules and modules != args.modules:
            problems.append(f"modules {modules}, expected {args.modules}")
    for problem in problems:
        print(f"check_record: {args.record}: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
