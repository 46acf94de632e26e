// Host drivers of the canonical bisection (solver/bisection.hpp).
//
// Fast path: the searches of eigenvalues k and k' visit the same intervals until the first
// midpoint whose count separates them. So we bisect a tree of nodes (lo, hi, [kb, ke), step):
// a node stands for the current interval of every eigenvalue k in [kb, ke); its midpoint's
// count c sends k < c to (lo, mid) and k >= c to (mid, hi) -- exactly the decision
// count(mid) > k of the per-eigenvalue search. Nodes are processed W at a time, so the W
// Sturm recurrences run interleaved (independent division chains). Each thread owns a
// contiguous range of eigenvalue indices and walks its own tree; no value depends on the
// thread count.
#include "solver/bisection.hpp"

#include <algorithm>
#include <limits>
#include <vector>

#include "core/cpu_features.hpp"
#include "core/errors.hpp"
#include "core/parallel.hpp"
#include "solver/sturm_dd_avx512.hpp"

namespace eigsolve {
namespace {

template <class R>
struct Lanes;
template <>
struct Lanes<float> {
  static constexpr int value = 32;
};
template <>
struct Lanes<double> {
  static constexpr int value = 16;
};
/// dd: the scalar lanes; on AVX-512 bisection_eigenvalues takes kDdLanes512 instead.
template <>
struct Lanes<dd_real> {
  static constexpr int value = 8;
};
/// dd batch on AVX-512: sturm_dd::count's up to 6 groups of 8 lanes (4 groups: ~5 % slower).
constexpr int kDdLanes512 = 48;

template <class R>
struct Node {
  R lo, hi;
  index_t kb, ke;  // eigenvalue indices [kb, ke) whose search is at this interval
  int step;        // bisection steps taken so far
};

/// Walks the tree for eigenvalues [kb, ke) (global indices) and writes w[k - il].
template <class R, int W = Lanes<R>::value>
void bisect_range(index_t n, const R* d, const R* e2, const bisect::SturmSetup<R>& s, index_t kb,
                  index_t ke, index_t il, R* w) {
  std::vector<Node<R>> stack;
  stack.push_back({s.gl, s.gu, kb, ke, 0});
  Node<R> batch[W];
  R x[W];
  bisect::LaneCount<R> cnt[W];
  while (!stack.empty()) {
    int nb = 0;
    while (nb < W && !stack.empty()) {
      Node<R> nd = stack.back();
      stack.pop_back();
      const R mid = bisect::midpoint(nd.lo, nd.hi);
      if (nd.step >= bisect::kMaxBisectIter || bisect::converged(nd.lo, nd.hi, mid, s.pivmin)) {
        const R v = bisect::final_value(nd.lo, nd.hi);
        for (index_t k = nd.kb; k < nd.ke; ++k)
          w[k - il] = v;
        continue;
      }
      batch[nb] = nd;
      x[nb] = mid;
      ++nb;
    }
    if (nb == 0) continue;
    for (int l = nb; l < W; ++l)
      x[l] = x[0];  // padding lanes, results unused
#if defined(EIGSOLVE_STURM_DD_AVX512)
    if constexpr (std::is_same<R, dd_real>::value) {
      if (W == kDdLanes512) {  // the same counts, lane by lane (solver/sturm_dd_avx512.hpp)
        sturm_dd::count(n, d, e2, s.pivmin, x, nb, cnt);
      } else {
        bisect::sturm_count_multi<W>(n, d, e2, s.pivmin, x, cnt);
      }
    } else
#endif
    {
      bisect::sturm_count_multi<W>(n, d, e2, s.pivmin, x, cnt);
    }
    for (int l = 0; l < nb; ++l) {
      const Node<R>& nd = batch[l];
      const index_t c = cnt[l];
      // k < c: count(mid) > k -> hi = mid; k >= c -> lo = mid.
      const index_t split = std::min(std::max(c, nd.kb), nd.ke);
      if (split < nd.ke) stack.push_back({x[l], nd.hi, split, nd.ke, nd.step + 1});
      if (nd.kb < split) stack.push_back({nd.lo, x[l], nd.kb, split, nd.step + 1});
    }
  }
}

template <class R>
void check_range(index_t n, index_t il, index_t iu) {
  if (il < 0 || iu >= n || il > iu + 1)
    throw DimensionError("bisection: index range [" + std::to_string(il) + ", " +
                         std::to_string(iu) + "] is not inside [0, " + std::to_string(n) + ")");
}

}  // namespace

template <class R>
void bisection_eigenvalues(const Context& ctx, index_t n, const R* d, const R* e, index_t il,
                           index_t iu, R* w) {
  check_range<R>(n, il, iu);
  if (iu < il) return;
  std::vector<R> e2(static_cast<std::size_t>(std::max<index_t>(n - 1, 1)));
  const bisect::SturmSetup<R> s = bisect::sturm_setup(n, d, e, e2.data());
  if (n > std::numeric_limits<std::int32_t>::max()) {  // 32-bit lane counts: naive path
    parallel_for(iu - il + 1, ctx.num_threads(), 1, [&](index_t b, index_t end) {
      for (index_t k = il + b; k < il + end; ++k)
        w[k - il] = bisect::bisect_eigenvalue(n, d, e2.data(), s, k);
    });
    return;
  }
  // Grain: a thread gets at least 16 eigenvalues (tree sharing needs neighbours).
  parallel_for(iu - il + 1, ctx.num_threads(), 16, [&](index_t b, index_t end) {
#if defined(EIGSOLVE_STURM_DD_AVX512)
    if constexpr (std::is_same<R, dd_real>::value) {
      if (has_avx512f()) {  // batches of kDdLanes512: sturm_dd::count's groups of 8 lanes
        bisect_range<R, kDdLanes512>(n, d, e2.data(), s, il + b, il + end, il, w);
        return;
      }
    }
#endif
    bisect_range(n, d, e2.data(), s, il + b, il + end, il, w);
  });
}

template <class R>
void bisection_eigenvalues_naive(index_t n, const R* d, const R* e, index_t il, index_t iu, R* w) {
  check_range<R>(n, il, iu);
  if (iu < il) return;
  std::vector<R> e2(static_cast<std::size_t>(std::max<index_t>(n - 1, 1)));
  const bisect::SturmSetup<R> s = bisect::sturm_setup(n, d, e, e2.data());
  for (index_t k = il; k <= iu; ++k)
    w[k - il] = bisect::bisect_eigenvalue(n, d, e2.data(), s, k);
}

template <class R>
void bisection_index_range(index_t n, const R* d, const R* e, R vl, R vu, index_t& il,
                           index_t& iu) {
  if (!(vl < vu)) throw UsageError("value range (vl, vu] needs vl < vu");
  if (n == 0) {
    il = 0;
    iu = -1;
    return;
  }
  std::vector<R> e2(static_cast<std::size_t>(std::max<index_t>(n - 1, 1)));
  const bisect::SturmSetup<R> s = bisect::sturm_setup(n, d, e, e2.data());
  il = bisect::sturm_count(n, d, e2.data(), s.pivmin, vl);
  iu = bisect::sturm_count(n, d, e2.data(), s.pivmin, vu) - 1;
  if (iu < il) iu = il - 1;
}

#define EIGSOLVE_INSTANTIATE_BISECTION(R)                                                          \
  template void bisection_eigenvalues<R>(const Context&, index_t, const R*, const R*, index_t,     \
                                         index_t, R*);                                             \
  template void bisection_eigenvalues_naive<R>(index_t, const R*, const R*, index_t, index_t, R*); \
  template void bisection_index_range<R>(index_t, const R*, const R*, R, R, index_t&, index_t&);
EIGSOLVE_FOR_EACH_REAL(EIGSOLVE_INSTANTIATE_BISECTION)
#undef EIGSOLVE_INSTANTIATE_BISECTION

}  // namespace eigsolve
