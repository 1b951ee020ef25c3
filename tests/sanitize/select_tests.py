#!/usr/bin/python3
"""Chooses the integration tests the sanitized pass runs (tests/sanitize/tests.txt).

The sanitized pass runs the unit tests it does not leave out (UNIT_LEFT_OUT, as scripts/run-tests.sh
does), then integration tests that together reach the lines of npgpu's own code (src/, modules/)
that the whole integration label reaches, in as little time under the sanitizers as the greedy rule
finds: each test's lines and seconds are measured in a coverage build, and its seconds under the
sanitizers are read from the log of a sanitized pass (ctest's lines "Test #N: name ... Passed 9.52
sec" after "Test project .../build-nocuda"); a test that pass did not run is guessed at its
coverage seconds times the median ratio of those it ran. Tests are taken by the lines not yet
reached that they add per sanitized second, until the best adds fewer than MIN_LINES_PER_SECOND:
such lines run in the first pass only. Then each chosen test, the longest first, is dropped again
where the others reach its lines without it. Run it again after adding integration tests:

    cmake -S . -B build-coverage -DCMAKE_BUILD_TYPE=Debug -DNPGPU_CUDA=OFF \\
          -DCMAKE_CXX_FLAGS=--coverage -DCMAKE_C_FLAGS=--coverage -DCMAKE_EXE_LINKER_FLAGS=--coverage
    cmake --build build-coverage -j
    tests/sanitize/select_tests.py build-coverage SANITIZED_LOG > tests/sanitize/tests.txt

where SANITIZED_LOG is the output of scripts/run-tests.sh (or .ci/run). Each test runs alone under
ctest with GCOV_PREFIX pointing at a folder of its own (the ranks its mpirun starts inherit it), and
gcov (--json-format) reads the counts back. What each test reached is kept in
build-coverage/select_tests.json, so a second run measures only the tests that file lacks (delete
it after changing the code).
"""
import json
import os
import re
import shutil
import statistics
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
# New lines per second under the sanitizers below which a test is left to the first pass: the
# RMA pattern tests added 4 to 7 lines in about 50 s each there. At 0.2, what is left out is
# mostly messages and descriptions (31 lines of 6100; at 0.5, 65 with RMA's fence and flush paths).
MIN_LINES_PER_SECOND = 0.2
SANITIZED_SECONDS = re.compile(r"Test\s+#\d+: (\S+) .*\s+Passed\s+([0-9.]+) sec")
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
    """Tests that reach the lines of per_test that base does not, in few seconds: greedy by new
    lines per second while that is at least MIN_LINES_PER_SECOND, then the longest dropped first
    wherever the others still reach its lines."""
    reached, chosen = set(base), []
    while True:
        candidates = [test for test in per_test if test not in chosen and per_test[test] - reached]
        rate = {test: len(per_test[test] - reached) / max(seconds[test], 0.1) for test in candidates}
        if not candidates or max(rate.values()) < MIN_LINES_PER_SECOND:
            break
        test = max(candidates, key=rate.get)
        chosen.append(test)
        reached |= per_test[test]
    for test in sorted(chosen, key=lambda t: -seconds[t]):
        others = [per_test[t] for t in chosen if t != test]
        if base.union(*others) >= reached:
            chosen.remove(test)
    return chosen


def sanitized_seconds(log, coverage_seconds):
    """Each test's seconds under the sanitizers: from the log where it ran there, else its coverage
    seconds times the median ratio of the tests that did."""
    known, sanitized = {}, False
    with open(log) as lines:
        for line in lines:
            if line.startswith("Test project "):  # the first pass runs in build/, the sanitized one in build-nocuda/
                sanitized = line.rstrip().endswith("build-nocuda")
            elif sanitized and (match := SANITIZED_SECONDS.search(line)) and match.group(1) in coverage_seconds:
                known[match.group(1)] = float(match.group(2))
    if not known:
        sys.exit(f"select_tests.py: {log} names no integration test that passed under the sanitizers")
    ratio = statistics.median(known[t] / max(coverage_seconds[t], 0.1) for t in known)
    return {t: known.get(t, coverage_seconds[t] * ratio) for t in coverage_seconds}, len(known), ratio


def measured(build, work, cache_path):
    """What the unit tests and each integration test reach, and its coverage seconds: from the
    cache where it has them, measured (and added to it) where not."""
    cache = {}
    if os.path.exists(cache_path):
        with open(cache_path) as kept:
            cache = {name: (set(map(tuple, entry["lines"])), entry["seconds"])
                     for name, entry in json.load(kept).items()}
    names = [("unit", ["-L", "^unit$", "-E", UNIT_LEFT_OUT])]
    names += [(t, ["-R", f"^{re.escape(t)}( |$)"]) for t in tests_of(build, "integration") if not NEVER.search(t)]
    for number, (name, which) in enumerate(names):
        if name not in cache:
            cache[name] = lines_reached(build, which, os.path.join(work, str(number)))
            print(f"{name}: {len(cache[name][0])} lines, {cache[name][1]:.1f} s", file=sys.stderr)
            # Kept after every test, so that a run stopped half way resumes where it was.
            with open(cache_path, "w") as kept:
                json.dump({n: {"lines": sorted(lines), "seconds": sec} for n, (lines, sec) in cache.items()}, kept)
    base = cache["unit"][0]
    return base, {n: cache[n][0] for n, _ in names[1:]}, {n: cache[n][1] for n, _ in names[1:]}


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    build = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as work:
        base, per_test, coverage_seconds = measured(build, work, os.path.join(build, "select_tests.json"))
    seconds, known, ratio = sanitized_seconds(sys.argv[2], coverage_seconds)
    # A test whose processes all end by a signal or _exit (the fault tests) leaves no counts:
    # what it reaches is unknown, so it stays in.
    unmeasured = [test for test, lines in per_test.items() if not lines]
    everything = base.union(*per_test.values())
    chosen = cheapest_cover(base, per_test, seconds)
    reached = base.union(*(per_test[t] for t in chosen))
    print(f"# tests/sanitize/select_tests.py: the unit tests the sanitized pass runs reach {len(base)} lines of src/ "
          f"and modules/; the first {len(chosen)} integration tests below reach {len(reached) - len(base)} more, in "
          f"about {sum(seconds[t] for t in chosen):.0f} s under the sanitizers ({known} timed there, the others "
          f"guessed at {ratio:.1f}x their coverage seconds); the {len(everything - reached)} other lines the "
          f"integration label reaches add fewer than {MIN_LINES_PER_SECOND} a second there and run in the first pass "
          f"only; the last {len(unmeasured)} tests leave no coverage counts (their processes end by a signal or _exit) "
          f"and stay in")
    reached = set(base)
    for test in chosen:
        print(f"{test}  # +{len(per_test[test] - reached)} lines, {seconds[test]:.1f} s")
        reached |= per_test[test]
    for test in unmeasured:
        print(f"{test}  # unmeasured, {seconds[test]:.1f} s")


if __name__ == "__main__":
    main()
