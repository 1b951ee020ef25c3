# shellcheck shell=bash
# Sourced by the scripts: Open MPI refuses to start as root unless told it may (CI runs as root).
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
