#!/usr/bin/env bash
# Installs the Debian packages eigsolve needs to build and test (idempotent; needs root or sudo).
set -euo pipefail
pkgs=(cmake ninja-build g++ pkg-config libgtest-dev liblapacke-dev libopenblas-dev
      libboost-program-options-dev nlohmann-json3-dev libssl-dev
      libmpfr-dev libgmp-dev libmpfrc++-dev libeigen3-dev libqd-dev
      python3 python3-numpy python3-scipy python3-mpmath python3-matplotlib)
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all packages present"
  exit 0
fi
echo "setup: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
echo "setup: done"
