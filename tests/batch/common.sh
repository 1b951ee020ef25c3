# shellcheck shell=bash
# Sourced by the batch tests once $work is set: $root (the source tree), Open MPI allowed to start
# as root, $work emptied, and `fail MESSAGE`.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
. "$root/scripts/mpi-env.sh"
rm -rf "${work:?set work before sourcing common.sh}"
mkdir -p "$work"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}
