// Z := Q2 Z, stage 2's reflectors applied to the eigenvectors (docs/canonical-two-stage.md,
// "Z := Q2 Z"): the reflectors H(i, k) one by one, last to first, each column a plain chain.
//
// Schedule (never the bits): columns are independent, so blocks of NC columns are split over
// the threads; a block is copied row-major into a scratch (householder/q2_kernels.hpp: one
// column per vector lane) and the reflectors run in the spec's group schedule
//
//   groups [i0, i0+G) of sweeps, last group first; in a group:
//     for k = 0, 1, ...           level k: rows i0+1+kb .. i0+G-1+(k+1)b   (G+b-1 rows)
//       for i = i0+G-1 .. i0      H(i, k) if sweep i has level k
//
// which reorders only reflectors with disjoint rows, so the rows being worked on stay in L1.
// The axpy of each reflector and the dot of the next one run as one pass over their common rows.
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "core/errors.hpp"
#include "core/parallel.hpp"
#include "householder/q2_kernels.hpp"
#include "householder/two_stage.hpp"
#include "householder/two_stage_vectors.hpp"

namespace eigsolve {
namespace q2_detail {
namespace {

/// The column blocks of kernel K (of the instruction-set copy `run`, ns::apply_blocks<K>) split
/// over the threads, each thread with its own scratch.
template <class K, class T, class Run>
void split_blocks(const Context& ctx, index_t n, index_t m, Run&& run) {
  const index_t nblocks = (m + K::kCols - 1) / K::kCols;
  parallel_for(nblocks, ctx.num_threads(), 1, [&](index_t bb, index_t be) {
    // The scratch starts on a cache line (a vector store across two lines costs two).
    using E = typename K::Elem;
    constexpr std::size_t kSlack = 64 / sizeof(E);
    std::vector<E> buf(static_cast<std::size_t>(n * K::kRow) + kSlack);
    E* Zs = buf.data();
    while (reinterpret_cast<std::uintptr_t>(Zs) % 64 != 0 && Zs < buf.data() + kSlack)
      ++Zs;
    run(bb, be, Zs);
  });
}

/// The group size: `group`, or by default the one whose window of G + b - 1 scratch rows of
/// kernel K stays within 32 KiB of L1, in [8, 64].
template <class K>
index_t group_for(index_t group, index_t b) {
  if (group > 0) return group;
  const index_t row_bytes = K::kRow * static_cast<index_t>(sizeof(typename K::Elem));
  return std::max<index_t>(8, std::min<index_t>(64, (index_t(32) << 10) / row_bytes - (b - 1)));
}

/// Generic columns per block (dd, or without AVX2).
constexpr int kGenericCols = 8;

}  // namespace

template <class T>
void apply_q2_scheduled(const Context& ctx, index_t n, index_t b, const T* V2, index_t ldv2,
                        const T* tau2, index_t ldt2, index_t m, T* Z, index_t ldz,
                        const Q2Schedule& sched) {
  if (n < 0 || m < 0)
    throw DimensionError("apply_q2_canonical: n = " + std::to_string(n) +
                         ", m = " + std::to_string(m));
  if (b < 1) throw UsageError("apply_q2_canonical: band width " + std::to_string(b) + " < 1");
  if (sched.group < 0 || sched.prefetch < 0)
    throw UsageError("apply_q2_canonical: group " + std::to_string(sched.group) + " or prefetch " +
                     std::to_string(sched.prefetch) + " < 0");
  if (n <= 1 || m == 0) return;
  if (ldv2 < n || ldz < n || ldt2 < chase_levels(n, b))
    throw DimensionError("apply_q2_canonical: ldv2 = " + std::to_string(ldv2) +
                         ", ldz = " + std::to_string(ldz) + " (n = " + std::to_string(n) +
                         "), ldt2 = " + std::to_string(ldt2) +
                         " (chase_levels = " + std::to_string(chase_levels(n, b)) + ")");
  const index_t D = sched.prefetch;
#define EIGSOLVE_Q2_RUN(NS, K)                                                      \
  split_blocks<K, T>(ctx, n, m, [&](index_t bb, index_t be, typename K::Elem* Zs) { \
    const index_t G = group_for<K>(sched.group, b);                                 \
    NS::apply_blocks<K>(n, b, V2, ldv2, tau2, ldt2, G, D, m, Z, ldz, bb, be, Zs);   \
  })
#if defined(EIGSOLVE_SYMV_AVX512) && defined(EIGSOLVE_DD_AVX512)
  if constexpr (std::is_same_v<T, dd_real>) {
    if (sched.kernel == Q2Kernel::widest && symv_detail::has_avx512f()) {
      // 32 columns (4 independent dot chains per row): 512 bytes of scratch per row.
      using K = KernelDd512<4>;
      EIGSOLVE_Q2_RUN(avx512, K);
      return;
    }
  }
#endif
#if defined(EIGSOLVE_SYMV_AVX2)
  if constexpr (!std::is_same_v<T, dd_real>) {
#if defined(EIGSOLVE_SYMV_AVX512)
    if (sched.kernel == Q2Kernel::widest && symv_detail::has_avx512f()) {
      // 8 accumulator registers (of 32) per set: 512 bytes of scratch per row.
      using K = avx512::Kernel<T, is_complex_v<T> ? 4 : 8>;
      EIGSOLVE_Q2_RUN(avx512, K);
      return;
    }
#endif
    if (sched.kernel != Q2Kernel::generic) {
      // 4 accumulator registers (of 16) per set: 128 bytes of scratch per row.
      using K = avx2::Kernel<T, is_complex_v<T> ? 2 : 4>;
      EIGSOLVE_Q2_RUN(avx2, K);
      return;
    }
  }
#endif
  using K = generic::Kernel<T, kGenericCols>;
  EIGSOLVE_Q2_RUN(generic, K);
#undef EIGSOLVE_Q2_RUN
}

}  // namespace q2_detail

template <class T>
void apply_q2_canonical(const Context& ctx, index_t n, index_t b, const T* V2, index_t ldv2,
                        const T* tau2, index_t ldt2, index_t m, T* Z, index_t ldz) {
  q2_detail::apply_q2_scheduled(ctx, n, b, V2, ldv2, tau2, ldt2, m, Z, ldz,
                                q2_detail::Q2Schedule{});
}

#define EIGSOLVE_INSTANTIATE_Q2(T)                                                                 \
  template void q2_detail::apply_q2_scheduled<T>(const Context&, index_t, index_t, const T*,       \
                                                 index_t, const T*, index_t, index_t, T*, index_t, \
                                                 const q2_detail::Q2Schedule&);                    \
  template void apply_q2_canonical<T>(const Context&, index_t, index_t, const T*, index_t,         \
                                      const T*, index_t, index_t, T*, index_t);
EIGSOLVE_FOR_EACH_SCALAR(EIGSOLVE_INSTANTIATE_Q2)
#undef EIGSOLVE_INSTANTIATE_Q2

}  // namespace eigsolve
