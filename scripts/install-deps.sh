#!/usr/bin/env bash
# Installs what npgpu needs on Debian 12 or Ubuntu 24.04 (apt). Skips apt entirely when all of it
# is already there. Uses sudo when not run as root.
set -euo pipefail

# libucx-dev builds the ucx module (optional: without it the module is listed as not built);
# ucx-utils' ucx_perftest is what bench/ucx.py compares it with. slurm-wlm, munge and shellcheck
# are for the tests of the batch templates (a real Slurm here).
packages=(build-essential cmake libopenmpi-dev openmpi-bin libhdf5-dev hdf5-tools libcli11-dev
          libhwloc-dev nlohmann-json3-dev libucx-dev ucx-utils libgtest-dev python3-h5py python3-matplotlib iproute2 util-linux
          slurm-wlm munge shellcheck)

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]} == 0)); then
  echo "install-deps: all dependencies present"
  exit 0
fi

if ! command -v apt-get >/dev/null; then
  echo "install-deps: no apt-get here; install these yourself (README, 'On a cluster'): ${missing[*]}" >&2
  exit 1
fi
sudo=()
((EUID == 0)) || sudo=(sudo)
echo "install-deps: installing ${missing[*]}"
"${sudo[@]}" apt-get update -q
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
