// Internal (tests and benchmarks): the schedule of apply_q2_canonical (householder/
// two_stage_vectors.cpp) made explicit. No choice here changes a bit of Z.
#pragma once

#include "core/context.hpp"
#include "core/precision.hpp"

namespace eigsolve {
namespace q2_detail {

/// Which kernel copy runs: the widest the build and the CPU have (AVX-512F unless
/// EIGSOLVE_NO_AVX512 is set, else AVX2; float, double and complex), AVX2 at most, or the generic
/// scalar one (the only one for dd).
enum class Q2Kernel { widest, avx2, generic };

struct Q2Schedule {
  /// Sweeps per group of the group schedule (docs/canonical-two-stage.md, "Z := Q2 Z"); 0: the
  /// default, from the band width and the kernel's scratch row (the window stays in L1).
  index_t group = 0;
  Q2Kernel kernel = Q2Kernel::widest;
  /// V2's lines of the reflector this many steps ahead (same level) are prefetched; 0: none.
  index_t prefetch = 4;
};

/// apply_q2_canonical with an explicit schedule.
template <class T>
void apply_q2_scheduled(const Context& ctx, index_t n, index_t b, const T* V2, index_t ldv2,
                        const T* tau2, index_t ldt2, index_t m, T* Z, index_t ldz,
                        const Q2Schedule& sched);

}  // namespace q2_detail
}  // namespace eigsolve
