#!/usr/bin/env bash
# Runs the CPU benchmarks of a build (configured with -DEIGSOLVE_BUILD_BENCH=ON) and writes one
# log per benchmark into OUT_DIR (the last line of each log is its JSON record).
# usage: scripts/bench.sh [BUILD_DIR] [OUT_DIR] [THREADS]
# Pin the process for comparable numbers, e.g. `taskset -c 0,1 scripts/bench.sh build out 2`.
set -uo pipefail
build=${1:-build}
out=${2:-bench-out}
threads=${3:-2}
mkdir -p "$out"
echo "bench: $(uname -n), $(nproc) cpus, threads=$threads, load: $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$out/bench-env.txt"
"$build/bin/bench_tridiag" --threads "$threads" --sizes 512,1024,2048 --dd-sizes 256,512,1024 2>&1 | tee "$out/bench_tridiag.log"
"$build/bin/bench_eig" "$threads" 512 1024 2048 2>&1 | tee "$out/bench_eig.log"
"$build/bin/bench_reader" 4096 2048 3 /tmp 2>&1 | tee "$out/bench_reader.log"
