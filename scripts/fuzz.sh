#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz (clang-14, ASan + UBSan) in build-fuzz/ and runs
# each for SECONDS (default 60):
#   fuzz_matrix_market  Matrix Market reader (coordinate/array, every field/symmetry), checked
#                       against a reference reader and serial vs chunked parsing
#   fuzz_npy            .npy reader, checked against a reference
#   fuzz_dd_parse       dd decimal parser (core/dd_io.hpp), checked against MPFR
#   fuzz_range_options  --index-range / --value-range parsing
# usage: scripts/fuzz.sh [SECONDS] [TARGET...]
# Corpora grow in build-fuzz/fuzz-corpus/TARGET (seeds: tests/fuzz/seeds, tests/data/matrices,
# ../shared/matrices); findings land in build-fuzz/fuzz-findings/TARGET, logs in
# build-fuzz/fuzz-logs. Exit status 1 when any target found something. FUZZ_JOBS=N runs N
# processes per target (libFuzzer -fork). The normal build is not touched.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
secs=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_matrix_market fuzz_npy fuzz_dd_parse fuzz_range_options)
B=${FUZZ_BUILD_DIR:-build-fuzz}
jobs=${FUZZ_JOBS:-1}

if ! command -v clang++-14 >/dev/null || [ ! -d /usr/lib/llvm-14/lib/clang ]; then
  echo "fuzz.sh: needs clang-14 and libfuzzer-14-dev: apt-get install clang-14 libfuzzer-14-dev" >&2
  exit 2
fi
if [ ! -f "$B/CMakeCache.txt" ]; then
  gen=()
  command -v ninja >/dev/null && gen=(-G Ninja)
  CC=clang-14 CXX=clang++-14 cmake -S . -B "$B" "${gen[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DEIGSOLVE_WITH_CUDA=OFF -DEIGSOLVE_BUILD_TESTS=OFF -DEIGSOLVE_BUILD_FUZZ=ON >/dev/null
fi
cmake --build "$B" -j "$(nproc)" --target "${targets[@]}"

# Seeds: the bundled matrices (whole when small, else their first 3000 bytes) and tests/fuzz/seeds.
seeds=$B/fuzz-seeds
rm -rf "$seeds"
mkdir -p "$seeds"/{fuzz_matrix_market,fuzz_npy,fuzz_dd_parse,fuzz_range_options}
for f in tests/data/matrices/*.mtx ../shared/matrices/*.mtx; do
  [ -f "$f" ] || continue
  if [ "$(stat -c %s "$f")" -le 4096 ]; then
    cp "$f" "$seeds/fuzz_matrix_market/"
  else
    head -c 3000 "$f" >"$seeds/fuzz_matrix_market/head_$(basename "$f")"
  fi
done
cp tests/fuzz/seeds/mm/* "$seeds/fuzz_matrix_market/"
cp tests/fuzz/seeds/npy/* "$seeds/fuzz_npy/"
cp tests/fuzz/seeds/dd/* "$seeds/fuzz_dd_parse/"
cp tests/fuzz/seeds/range/* "$seeds/fuzz_range_options/"

max_len() {
  case $1 in
    fuzz_matrix_market) echo 4096 ;; fuzz_npy) echo 2048 ;; fuzz_dd_parse) echo 300 ;; *) echo 128 ;;
  esac
}

mkdir -p "$B/fuzz-logs"
status=0
printf '%-20s %8s %10s %10s %9s  %s\n' target seconds runs exec/s corpus findings
for t in "${targets[@]}"; do
  mkdir -p "$B/fuzz-corpus/$t" "$B/fuzz-findings/$t"
  log=$B/fuzz-logs/$t.log
  extra=()
  [ "$jobs" -gt 1 ] && extra=(-fork="$jobs" -ignore_crashes=1)
  rc=0
  # KMP_BLOCKTIME=0: idle OpenMP threads sleep at once (the chunked parses use 2 threads).
  KMP_BLOCKTIME=0 "$B/fuzz/$t" -max_total_time="$secs" -max_len="$(max_len "$t")" -timeout=30 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$B/fuzz-findings/$t/" \
    "${extra[@]}" "$B/fuzz-corpus/$t" "$seeds/$t" >"$log" 2>&1 || rc=$?
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | awk '{s += $2} END {print s + 0}')
  eps=$(grep -o 'exec/s: [0-9]*' "$log" | tail -1 | awk '{print $2}')
  corpus=$(ls "$B/fuzz-corpus/$t" | wc -l)
  found=$(ls "$B/fuzz-findings/$t" | wc -l)
  printf '%-20s %8s %10s %10s %9s  %s\n' "$t" "$secs" "$runs" "${eps:--}" "$corpus" "$found"
  if [ "$rc" -ne 0 ] || [ "$found" -gt 0 ]; then
    status=1
    grep -m3 -E 'FUZZ FINDING|ERROR: (Address|Undefined|libFuzzer)|runtime error' "$log" | sed 's/^/    /' || true
  fi
done
[ $status -eq 0 ] || echo "fuzz.sh: findings in $root/$B/fuzz-findings (logs: $B/fuzz-logs)" >&2
exit $status
