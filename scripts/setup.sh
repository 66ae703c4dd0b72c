#!/usr/bin/env bash
# Installs the Debian packages collectives needs to build and test.
# Idempotent and quiet: does nothing (and prints nothing) when all are present.
set -euo pipefail

packages=(
  g++ clang ninja-build cmake
  libboost-dev catch2
  libopenmpi-dev openmpi-bin
  libcli11-dev libfmt-dev libbenchmark-dev
  libfftw3-dev
)

missing=()
for pkg in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
  if [[ "$status" != "installed" ]]; then
    missing+=("$pkg")
  fi
done

if ((${#missing[@]} == 0)); then
  exit 0
fi

sudo=()
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then
    sudo=(sudo)
  else
    echo "setup.sh: missing packages (${missing[*]}) and not root, no sudo" >&2
    exit 1
  fi
fi

echo "setup.sh: installing ${missing[*]}" >&2
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! { "${sudo[@]}" apt-get update &&
       "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
         apt-get install -y --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
  cat "$log" >&2
  echo "setup.sh: apt-get failed" >&2
  exit 1
fi
