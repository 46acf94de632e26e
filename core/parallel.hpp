// Deterministic CPU parallelism: a static split of [0, n) into contiguous ranges, one per
// thread. Work items never share an accumulator, so results do not depend on the thread count.
#pragma once

#include <algorithm>
#include <cstdint>

#include <omp.h>

namespace eigsolve {

/// Calls f(begin, end) for up to nthreads contiguous sub-ranges of [0, n) in parallel (an
/// OpenMP team; the pool is reused between calls). Fewer threads are used when there are less
/// than `grain` items per thread. f must not throw.
template <class F>
void parallel_for(std::int64_t n, int nthreads, std::int64_t grain, F&& f) {
  if (n <= 0) return;
  std::int64_t max_threads = std::max<std::int64_t>(1, n / std::max<std::int64_t>(1, grain));
  int t = static_cast<int>(std::min<std::int64_t>(std::max(1, nthreads), max_threads));
  if (t <= 1) {
    f(std::int64_t{0}, n);
    return;
  }
#pragma omp parallel num_threads(t)
  {
    const std::int64_t k = omp_get_thread_num();
    const int team = omp_get_num_threads();
    // The split depends on the team size only to balance work; every item is computed the
    // same way whichever thread takes it.
    const std::int64_t c = n / team, r = n % team;
    const std::int64_t b = k * c + std::min<std::int64_t>(k, r);
    const std::int64_t e = (k + 1) * c + std::min<std::int64_t>(k + 1, r);
    f(b, e);
  }
}

}  // namespace eigsolve
