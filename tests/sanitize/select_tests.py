#!/usr/bin/python3
"""Chooses the integration tests the sanitized pass runs (tests/sanitize/tests.txt).

The sanitized pass runs the unit tests it does not leave out (UNIT_LEFT_OUT, as scripts/run-tests.sh
does), then integration tests that together reach every line of npgpu's own code (src/, modules/)
that the whole integration label reaches, in as little time as the greedy rule finds: each test's
lines and seconds are measured in a coverage build; tests are taken by the lines not yet reached
that they add per second, until none adds any; then each chosen test, the longest first, is dropped
again where the others reach its lines without it. Run it again after adding integration tests:

    cmake -S . -B build-coverage -DCMAKE_BUILD_TYPE=Debug -DNPGPU_CUDA=OFF \\
          -DCMAKE_CXX_FLAGS=--coverage -DCMAKE_C_FLAGS=--coverage -DCMAKE_EXE_LINKER_FLAGS=--coverage
    cmake --build build-coverage -j
    tests/sanitize/select_tests.py build-coverage > tests/sanitize/tests.txt

Each test runs alone under ctest with GCOV_PREFIX pointing at a folder of its own (the ranks its
mpirun starts inherit it), and gcov (--json-format) reads the counts back.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OWN_CODE = (os.path.join(ROOT, "src") + os.sep, os.path.join(ROOT, "modules") + os.sep)
# Left out of the sanitized pass whatever they cover: the kill campaign is process starts (its
# record-safety siblings stay in the running).
NEVER = re.compile(r"WriterKilledAtRandomMoments")
# The unit tests the sanitized pass leaves out (scripts/run-tests.sh): their lines must be reached there
# by an integration test.
UNIT_LEFT_OUT = r"^ChangePoints\."
ENV = dict(os.environ)
if os.geteuid() == 0:
    ENV.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")


def tests_of(build, label):
    out = subprocess.run(["ctest", "-N", "-L", f"^{label}$"], cwd=build, env=ENV, check=True, capture_output=True,
                         text=True).stdout
    return [m.group(1).split("  #")[0] for line in out.splitlines() if (m := re.match(r"\s*Test\s+#\d+: (.*)$", line))]


def lines_reached(build, which, where):
    """The (file, line) pairs of npgpu's own code that the tests ctest selects with `which` execute, and
    the seconds they took."""
    shutil.rmtree(where, ignore_errors=True)
    env = dict(ENV, GCOV_PREFIX=where, GCOV_PREFIX_STRIP="0")
    start = time.monotonic()
    subprocess.run(["ctest", *which, "--timeout", "600"], cwd=build, env=env, capture_output=True)
    seconds = time.monotonic() - start
    reached = set()
    for folder, _, files in os.walk(where):
        counts = [f for f in files if f.endswith(".gcda")]
        if not counts:
            continue
        objects = folder[len(where):]  # the build's own object folder, where the .gcno files are
        for name in counts:
            shutil.copy(os.path.join(objects, name[:-5] + ".gcno"), folder)
        report = subprocess.run(["gcov", "--json-format", "--stdout", *counts], cwd=folder, capture_output=True).stdout
        for document in report.splitlines():
            for source in json.loads(document).get("files", []):
                path = os.path.realpath(source["file"] if os.path.isabs(source["file"]) else
                                        os.path.join(build, source["file"]))
                if path.startswith(OWN_CODE):
                    reached.update((path, line["line_number"]) for line in source["lines"] if line["count"] > 0)
    return reached, seconds


def cheapest_cover(base, per_test, seconds):
    """Tests that reach every line of per_test that base does not, in few seconds: greedy by new
    lines per second, then the longest dropped first wherever the others still reach its lines."""
    everything = base.union(*per_test.values())
    reached, chosen = set(base), []
    while True:
        candidates = [test for test in per_test if test not in chosen and per_test[test] - reached]
        if not candidates:
            break
        test = max(candidates, key=lambda t: len(per_test[t] - reached) / max(seconds[t], 0.1))
        chosen.append(test)
        reached |= per_test[test]
    for test in sorted(chosen, key=lambda t: -seconds[t]):
        others = [per_test[t] for t in chosen if t != test]
        if base.union(*others) >= everything:
            chosen.remove(test)
    return chosen


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    build = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as work:
        base, _ = lines_reached(build, ["-L", "^unit$", "-E", UNIT_LEFT_OUT], os.path.join(work, "unit"))
        per_test, seconds = {}, {}
        for number, test in enumerate(t for t in tests_of(build, "integration") if not NEVER.search(t)):
            per_test[test], seconds[test] = lines_reached(build, ["-R", f"^{re.escape(test)}( |$)"],
                                                          os.path.join(work, str(number)))
            print(f"{test}: {len(per_test[test])} lines, {seconds[test]:.1f} s", file=sys.stderr)
    # A test whose processes all end by a signal or _exit (the fault tests) leaves no counts:
    # what it reaches is unknown, so it stays in.
    unmeasured = [test for test, lines in per_test.items() if not lines]
    everything = base.union(*per_test.values())
    chosen = cheapest_cover(base, per_test, seconds)
    print(f"# tests/sanitize/select_tests.py: the unit tests the sanitized pass runs reach {len(base)} lines of src/ "
          f"and modules/; the first {len(chosen)} integration tests below reach the other {len(everything) - len(base)} "
          f"that the integration label reaches, in {sum(seconds[t] for t in chosen):.0f} s of the coverage build; the "
          f"last {len(unmeasured)} leave no coverage counts (their processes end by a signal or _exit) and stay in")
    reached = set(base)
    for test in chosen:
        print(f"{test}  # +{len(per_test[test] - reached)} lines, {seconds[test]:.1f} s")
        reached |= per_test[test]
    for test in unmeasured:
        print(f"{test}  # unmeasured, {seconds[test]:.1f} s")


if __name__ == "__main__":
    main()
