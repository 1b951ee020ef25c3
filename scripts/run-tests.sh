#!/usr/bin/env bash
# The whole test suite, as CI runs it: install, build, test; then the CPU-only build, which must
# keep working without CUDA, built with AddressSanitizer and UndefinedBehaviorSanitizer (one build
# proves both; docs/ARCHITECTURE.md, "Sanitizers").
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
. "$root/scripts/mpi-env.sh"

"$root/scripts/build.sh" "$root/build"
(cd "$root/build" && ctest --output-on-failure --timeout 600)

# Left to the first build: multihost tests time real links, which the sanitizers' slowdown skews,
# and start remote ranks without the tests' environment; slurm and batch tests spend their time in
# a real Slurm and in scripts, and the 200-kill campaign in process starts, over code paths the
# other tests already sanitize (the campaign's other record-safety tests still run).
"$root/scripts/build.sh" "$root/build-nocuda" -DNPGPU_CUDA=OFF -DNPGPU_SANITIZE=address,undefined
(cd "$root/build-nocuda" && ctest --output-on-failure --timeout 600 --label-exclude '^(multihost|slurm|batch)$' \
  --exclude-regex 'WriterKilledAtRandomMoments')
