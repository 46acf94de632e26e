#!/usr/bin/env bash
# Runs every GPU test binary of a build with EIGSOLVE_REQUIRE_GPU=1 (a missing device fails
# instead of skipping) and prints one summary line. CTest files hold the configuring machine's
# paths, so on the GPU machine the binaries are run directly.
# usage: scripts/gpu-tests.sh [BUILD_DIR] [LOG_DIR]
set -uo pipefail
build=${1:-build}
logs=${2:-.}
export EIGSOLVE_REQUIRE_GPU=1
# the C API test links libeigsolve.so.0: from a build tree (lib/) or a packed batch (the top)
export LD_LIBRARY_PATH="$build/lib:$build${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
pass=0 fail=0 failed=()
for t in "$build"/tests/test_gpu_*; do
  [ -x "$t" ] || continue
  name=$(basename "$t")
  if "$t" --gtest_output="json:$logs/$name.json" >"$logs/$name.log" 2>&1; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1)); failed+=("$name")
  fi
done
echo "gpu-tests: $pass passed, $fail failed ${failed[*]:-}"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
