#!/usr/bin/env bash
# Installs dependencies (scripts/setup.sh), configures and builds eigsolve into build/.
# The CUDA backend is built when nvcc is found (EIGSOLVE_WITH_CUDA=AUTO); extra CMake
# arguments are passed through, e.g. scripts/build.sh -DEIGSOLVE_BUILD_BENCH=ON.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
BUILD_DIR=${BUILD_DIR:-build}
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
  cmake -S . -B "$BUILD_DIR" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
elif [ $# -gt 0 ]; then
  cmake "$BUILD_DIR" "$@" >/dev/null
fi
cmake --build "$BUILD_DIR" -j "$(nproc)"
echo "build: $BUILD_DIR/bin/eigsolve"
