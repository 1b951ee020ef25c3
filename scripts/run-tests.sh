#!/usr/bin/env bash
# The whole test suite, as CI runs it: install, build, test; then the CPU-only build, which must
# keep working without CUDA, with the sanitizers, and its tests. `ctest -L unit` in build/ alone
# takes under a minute.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
. "$root/scripts/mpi-env.sh"
# Each test that starts processes takes a share of the machine (tests/CMakeLists.txt, out of
# tests/resources.json's 4): one that measures takes all of it, so that nothing but the unit tests
# runs beside it; those that mostly wait run beside each other or beside one that keeps the cores
# busy without measuring.
jobs=$(nproc)
shares=(--resource-spec-file "$root/tests/resources.json")

# The sanitized pass (below) runs every unit test, the probes that show a finding fails a run
# (label sanitize), and the integration tests that together reach the lines of npgpu's code the
# integration label reaches, but for lines that would cost over 5 s each there
# (tests/sanitize/tests.txt, chosen by tests/sanitize/select_tests.py). Those run there only: once,
# and under the sanitizers. Left to the first build: the other integration tests; multihost tests,
# which time real links that the sanitizers' slowdown skews; slurm and batch tests, which spend
# their time in a real Slurm and in scripts.
chosen=$(grep -v '^#' "$root/tests/sanitize/tests.txt" | sed 's/  #.*//' | paste -sd '|')
listed=$(grep -cv '^#' "$root/tests/sanitize/tests.txt")

"$root/scripts/build.sh" "$root/build"
(cd "$root/build" && ctest --output-on-failure --timeout 600 -j "$jobs" "${shares[@]}" -E "^($chosen)( |\$)")

# The CPU-only build, which must keep working without CUDA, with AddressSanitizer and
# UndefinedBehaviorSanitizer (one build proves both; docs/ARCHITECTURE.md, "Sanitizers"): only
# what this pass runs.
NPGPU_TARGETS="npgpu npgpu_unit_tests npgpu_integration_tests npgpu_record_safety_tests npgpu_sanitizer_tests
  npgpu_sanitizer_probe npgpu_file_system_shim" "$root/scripts/build.sh" "$root/build-nocuda" -DNPGPU_CUDA=OFF -DNPGPU_SANITIZE=address,undefined
found=$(cd "$root/build-nocuda" && ctest -N -R "^($chosen)( |\$)" | grep -c '^ *Test *#') || true
if [ "$found" != "$listed" ]; then
  echo "run-tests.sh: tests/sanitize/tests.txt names $listed tests and $found of them exist: run tests/sanitize/select_tests.py again" >&2
  exit 1
fi
# The change-point unit tests are left out there: pure arithmetic over synthetic curves, 1-4 s each
# here and 190-235 s each under the sanitizers (13 of them: 20 minutes on 2 cores); the reports in
# tests/sanitize/tests.txt run every line of change_points.cpp that the integration label reaches
# under the sanitizers, on real curves.
(cd "$root/build-nocuda" && ctest --output-on-failure --timeout 600 -j "$jobs" "${shares[@]}" -L '^(unit|sanitize)$' -E '^ChangePoints\.' &&
  ctest --output-on-failure --timeout 600 -j "$jobs" "${shares[@]}" -R "^($chosen)( |\$)")
