// Deterministic CPU parallelism: a static split of [0, n) into contiguous ranges, one per
// thread. Work items never share an accumulator, so results do not depend on the thread count.
//
// The threads come from one persistent pool (core/parallel.cpp) whose workers spin briefly and
// then block: on an oversubscribed machine (other jobs, or several eigsolve processes) they yield
// their cores instead of burning them, which OpenMP's default active waiting does not (measured:
// two concurrent n = 2048 solves on 2 cores took 5.4 s each with OpenMP, 2.8 s with blocking
// waits; bench/NOTES.md).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <type_traits>
#include <vector>

#include "core/huge_pages.hpp"

namespace eigsolve {

/// Runs f(k) for k = 0 .. team-1 on `team` threads (the caller runs k = 0) and waits for all.
/// A call from inside a pool task, or with team <= 1, runs every k on the calling thread.
/// An exception thrown by f is rethrown in the caller (the first one, by k).
void run_team(int team, const std::function<void(int)>& f);

/// Calls f(begin, end) for up to nthreads contiguous sub-ranges of [0, n) in parallel. Fewer
/// threads are used when there are less than `grain` items per thread.
template <class F>
void parallel_for(std::int64_t n, int nthreads, std::int64_t grain, F&& f) {
  if (n <= 0) return;
  std::int64_t max_threads = std::max<std::int64_t>(1, n / std::max<std::int64_t>(1, grain));
  const int t = static_cast<int>(std::min<std::int64_t>(std::max(1, nthreads), max_threads));
  if (t <= 1) {
    f(std::int64_t{0}, n);
    return;
  }
  const std::int64_t c = n / t, r = n % t;
  run_team(t, [&](int k) {
    const std::int64_t b = k * c + std::min<std::int64_t>(k, r);
    const std::int64_t e = (k + 1) * c + std::min<std::int64_t>(k + 1, r);
    f(b, e);
  });
}

/// v := n zero elements of a trivially copyable X, the fresh pages first touched by `nthreads`
/// threads: a single thread's value-initialisation of a multi-GB vector is page-fault bound
/// (n = 16384 eigenvectors, 2 GB: 0.97 s on the H200 host). The storage is reserved, zeroed
/// in parallel as raw bytes, then resized (value-initialisation over pages already present).
template <class X>
void assign_zeros_parallel(std::vector<X>& v, std::size_t n, int nthreads) {
  static_assert(std::is_trivially_copyable_v<X>, "raw zeroing needs a trivially copyable type");
  reserve_huge(v, n);  // core/huge_pages.hpp: 2 MiB faults where the kernel grants them
  if (n * sizeof(X) < (std::size_t(64) << 20) || nthreads <= 1) {
    v.assign(n, X{});
    return;
  }
  unsigned char* raw = reinterpret_cast<unsigned char*>(v.data());
  const std::size_t bytes = n * sizeof(X), chunk = std::size_t(2) << 20;
  const std::int64_t nchunks = std::int64_t((bytes + chunk - 1) / chunk);
  parallel_for(nchunks, nthreads, 4, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t c = b; c < e; ++c)
      std::memset(raw + std::size_t(c) * chunk, 0, std::min(chunk, bytes - std::size_t(c) * chunk));
  });
  v.resize(n);
}

}  // namespace eigsolve
