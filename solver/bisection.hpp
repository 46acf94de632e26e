// Canonical bisection on Sturm counts for the symmetric tridiagonal T = (d, e).
//
// The definition (docs/canonical-bisection.md):
//
//   e2[i]  = e[i] * e[i]                                     (i < n-1, once)
//   pivmin = safe_min<R> * max(1, e2[0], ..., e2[n-2])       (ascending max)
//   Gershgorin: r_i = |e[i-1]| + |e[i]|, gl = min(d_i - r_i), gu = max(d_i + r_i) (ascending i)
//               w = (n * 4u) * max(|gl|, |gu|) + 4 * pivmin;  gl -= w; gu += w
//   count(x):   q = d[0] - x;                       q = |q| < pivmin ? -pivmin : q; c = (q < 0)
//               q = (d[i] - x) - e2[i-1] / q;       (same guard)               c += (q < 0)
//               (dd: "/" is sturm_div, the two-quotient division, since session 54)
//   eigenvalue k (0-based): lo = gl, hi = gu; repeat
//               mid = 0.5 * (lo + hi)
//               stop if !(lo < mid < hi) or hi - lo <= max(2u * max(|lo|, |hi|), 2 * pivmin)
//                    or kMaxBisectIter steps were taken
//               count(mid) > k ? hi = mid : lo = mid
//             result = 0.5 * (lo + hi)
//
// Everything below is ES_HD code without containers or exceptions, so a CUDA kernel can call
// the same functions and get the same bits.
#pragma once

#include <cstdint>
#include <type_traits>

#include "core/arith.hpp"
#include "core/context.hpp"
#include "core/dd_real.hpp"
#include "core/hd.hpp"
#include "core/precision.hpp"

namespace eigsolve {
namespace bisect {

/// Safe minimum of the real type: the smallest normal number (double-double: 2^-969, so that
/// a dd product with it still has a normal low word).
template <class R>
ES_HD_INLINE R safe_min();
template <>
ES_HD_INLINE float safe_min<float>() {
  return 0x1p-126f;
}
template <>
ES_HD_INLINE double safe_min<double>() {
  return 0x1p-1022;
}
template <>
ES_HD_INLINE dd_real safe_min<dd_real>() {
  return dd_real(0x1p-969);
}

/// Unit roundoff u of R as an R (2^-24, 2^-53, 2^-104), exact.
template <class R>
ES_HD_INLINE R unit_roundoff();
template <>
ES_HD_INLINE float unit_roundoff<float>() {
  return 0x1p-24f;
}
template <>
ES_HD_INLINE double unit_roundoff<double>() {
  return 0x1p-53;
}
template <>
ES_HD_INLINE dd_real unit_roundoff<dd_real>() {
  return dd_real(0x1p-104);
}

/// The larger / smaller of two numbers (a on ties); canonical (comparisons only).
template <class R>
ES_HD_INLINE R rmax(const R& a, const R& b) {
  return a < b ? b : a;
}
template <class R>
ES_HD_INLINE R rmin(const R& a, const R& b) {
  return b < a ? b : a;
}
/// |a| with comparisons and negation only.
template <class R>
ES_HD_INLINE R rabs(const R& a) {
  return a < R(0) ? -a : a;
}

/// Safety cap on bisection steps (never reached in practice: the stopping rule ends every
/// search after at most ~1100 (float: ~300) steps).
inline constexpr int kMaxBisectIter = 4096;

/// The data every count needs: squared off-diagonals, pivmin and the start interval.
template <class R>
struct SturmSetup {
  R pivmin;
  R gl;
  R gu;
};

/// Fills e2[0..n-1) and returns pivmin, gl, gu (n >= 1). Fixed ascending order.
template <class R>
ES_HD SturmSetup<R> sturm_setup(index_t n, const R* d, const R* e, R* e2) {
  R emax = R(1);
  for (index_t i = 0; i + 1 < n; ++i) {
    e2[i] = e[i] * e[i];
    emax = rmax(emax, e2[i]);
  }
  SturmSetup<R> s;
  s.pivmin = safe_min<R>() * emax;
  R gl = d[0], gu = d[0];
  for (index_t i = 0; i < n; ++i) {
    R r = (i > 0 ? rabs(e[i - 1]) : R(0)) + (i + 1 < n ? rabs(e[i]) : R(0));
    gl = rmin(gl, d[i] - r);
    gu = rmax(gu, d[i] + r);
  }
  const R tnorm = rmax(rabs(gl), rabs(gu));
  const R w = (R(static_cast<double>(n)) * (R(4) * unit_roundoff<R>())) * tnorm + R(4) * s.pivmin;
  s.gl = gl - w;
  s.gu = gu + w;
  return s;
}

/// The count's division a / b: IEEE for float and double.
template <class R>
ES_HD_INLINE R sturm_div(const R& a, const R& b) {
  return a / b;
}

/// The count's division for dd (docs/canonical-bisection.md, docs/dd.md; session 54): two
/// quotients instead of operator/'s three, about half the FP64 operations of a count step:
///   q1 = a.hi / b.hi; if q1 is not finite return (q1, 0);
///   s = fma(-q1, b.hi, a.hi) + a.lo;  t = fma(-q1, b.lo, s);  q2 = t / b.hi;
///   (q.hi, q.lo) = Fast2Sum(q1, q2); a zero q.hi takes the sign of q1.
/// fma(-q1, b.hi, a.hi) is the exact remainder of the rounded quotient, and t = a - q1 * b up to
/// 5u^2 |a|: relative error <= 11u^2 + O(u^3) without under- or overflow (operator/: 10u^2).
ES_HD_INLINE dd_real sturm_div(const dd_real& a, const dd_real& b) {
  const double q1 = a.hi / b.hi;
  if (!is_finite(q1)) return dd_real(q1, 0.0);
  const double s = ES_FMA(-q1, b.hi, a.hi) + a.lo;
  const double t = ES_FMA(-q1, b.lo, s);
  const double q2 = t / b.hi;
  dd_real q;
  ddops::quick_two_sum(q1, q2, q.hi, q.lo);
  q.hi = ddops::is_zero(q.hi) ? q1 : q.hi;
  return q;
}

/// The pivmin guard: |q| < pivmin -> -pivmin (written without abs).
template <class R>
ES_HD_INLINE R guard(const R& q, const R& pivmin) {
  return (q < pivmin && -q < pivmin) ? -pivmin : q;
}

/// Sturm count: the number of negative pivots of T - x I (= eigenvalues <= x, up to pivmin).
template <class R>
ES_HD index_t sturm_count(index_t n, const R* d, const R* e2, const R& pivmin, const R& x) {
  R q = guard(R(d[0] - x), pivmin);
  index_t c = q < R(0) ? 1 : 0;
  for (index_t i = 1; i < n; ++i) {
    q = guard(R((d[i] - x) - sturm_div(e2[i - 1], q)), pivmin);
    c += q < R(0) ? 1 : 0;
  }
  return c;
}

/// Lane count type of sturm_count_multi: as wide as R (so the lanes vectorize together).
template <class R>
using LaneCount = typename std::conditional<sizeof(R) == 4, std::int32_t, std::int64_t>::type;

/// W independent Sturm counts at once (each lane is exactly sturm_count; the lanes only give
/// the CPU independent division chains and SIMD lanes). Float counts are 32-bit: n < 2^31.
template <int W, class R>
ES_HD void sturm_count_multi(index_t n, const R* d, const R* e2, const R& pivmin, const R* x,
                             LaneCount<R>* cnt) {
  using C = LaneCount<R>;
  R q[W];
  C c[W];
  const R d0 = d[0];
  const R mpiv = -pivmin;
  for (int w = 0; w < W; ++w) {
    R t = d0 - x[w];
    t = ((t < pivmin) & (mpiv < t)) ? mpiv : t;
    q[w] = t;
    c[w] = t < R(0) ? C(1) : C(0);
  }
  for (index_t i = 1; i < n; ++i) {
    const R di = d[i], ei = e2[i - 1];
#pragma omp simd
    for (int w = 0; w < W; ++w) {
      R t = (di - x[w]) - sturm_div(ei, q[w]);
      t = ((t < pivmin) & (mpiv < t)) ? mpiv : t;
      q[w] = t;
      c[w] += t < R(0) ? C(1) : C(0);
    }
  }
  for (int w = 0; w < W; ++w)
    cnt[w] = c[w];
}

/// The midpoint of [lo, hi].
template <class R>
ES_HD_INLINE R midpoint(const R& lo, const R& hi) {
  return R(0.5) * (lo + hi);
}

/// Whether [lo, hi] with midpoint mid is final: mid not strictly inside, or
/// hi - lo <= max(2u * max(|lo|, |hi|), 2 * pivmin).
template <class R>
ES_HD_INLINE bool converged(const R& lo, const R& hi, const R& mid, const R& pivmin) {
  if (!(lo < mid && mid < hi)) return true;
  const R tol = rmax(R(R(2) * unit_roundoff<R>()) * rmax(rabs(lo), rabs(hi)), R(R(2) * pivmin));
  return hi - lo <= tol;
}

/// The value returned for a converged interval: its midpoint, or exactly 0 when the interval
/// contains 0 (then both ends are within the absolute floor of 0, and 0 is as accurate as the
/// midpoint; an exactly singular T, e.g. a zero or diagonal matrix, gives exact zeros).
template <class R>
ES_HD_INLINE R final_value(const R& lo, const R& hi) {
  if (!(R(0) < lo) && !(hi < R(0))) return R(0);
  return midpoint(lo, hi);
}

/// Eigenvalue k (0-based, ascending) of T by bisection of [gl, gu]: THE canonical definition.
template <class R>
ES_HD R bisect_eigenvalue(index_t n, const R* d, const R* e2, const SturmSetup<R>& s, index_t k) {
  R lo = s.gl, hi = s.gu;
  for (int it = 0; it < kMaxBisectIter; ++it) {
    const R mid = midpoint(lo, hi);
    if (converged(lo, hi, mid, s.pivmin)) break;
    if (sturm_count(n, d, e2, s.pivmin, mid) > k)
      hi = mid;
    else
      lo = mid;
  }
  return final_value(lo, hi);
}

// --- Speculative multisection: the same path, L levels per round -------------------------
//
// The searches below visit exactly the intervals of bisect_eigenvalue and return its bits;
// they only evaluate the counts of the next levels before the decisions that choose among them.
// The points of the next L levels from [lo, hi] form a heap (node 0: midpoint(lo, hi); node j's
// left half gives node 2j+1, its right half node 2j+2):
//
//   level 0                 x0 = mid(lo, hi)
//   level 1       x1 = mid(lo, x0)         x2 = mid(x0, hi)
//   level 2   x3 = mid(lo, x1)  x4 = mid(x1, x0)  x5 = mid(x0, x2)  x6 = mid(x2, hi)
//
// spec_replay then takes the sequential steps one by one: the cap test, mid = midpoint(lo, hi),
// the canonical converged() test, and count(mid) > k ? hi = mid : lo = mid, where count(mid) is
// the precomputed count of the heap node reached so far. mid is bit-identical to that node's
// point (same formula on the same operands, derived by the same assignments), so each step is
// the sequential one; counts of nodes that are never reached are discarded.

/// Depth of heap node j (0 for the root): the bit length of j + 1, minus one.
ES_HD_INLINE int spec_depth(int j) {
  int l = 0;
  while (((j + 1) >> (l + 1)) != 0)
    ++l;
  return l;
}

/// The point of heap node j over [lo, hi]: the midpoints along the path from the root, in the
/// order the sequential search forms them.
template <class R>
ES_HD R spec_point(const R& lo, const R& hi, int j) {
  const int v = j + 1;
  R a = lo, b = hi;
  for (int l = spec_depth(j) - 1; l >= 0; --l) {
    const R m = midpoint(a, b);
    if ((v >> l) & 1)
      a = m;
    else
      b = m;
  }
  return midpoint(a, b);
}

/// Whether the sequential search at [lo, hi] after it steps has stopped (the loop test of
/// bisect_eigenvalue: the cap, then converged()).
template <class R>
ES_HD_INLINE bool spec_stopped(const R& lo, const R& hi, int it, const R& pivmin) {
  if (it >= kMaxBisectIter) return true;
  return converged(lo, hi, midpoint(lo, hi), pivmin);
}

/// Up to `levels` sequential steps of bisect_eigenvalue for eigenvalue k from [lo, hi] (it steps
/// taken), with c[j] = count(point j) for the heap nodes j < 2^levels - 1 over [lo, hi]. Updates
/// lo, hi, it; returns true when the search has stopped (the result is final_value(lo, hi)).
template <class R, class Counts>
ES_HD bool spec_replay(R& lo, R& hi, int& it, const R& pivmin, index_t k, int levels,
                       const Counts& c) {
  int j = 0;
  for (int l = 0; l < levels; ++l) {
    if (it >= kMaxBisectIter) return true;
    const R mid = midpoint(lo, hi);
    if (converged(lo, hi, mid, pivmin)) return true;
    if (index_t(c[j]) > k) {
      hi = mid;
      j = 2 * j + 1;
    } else {
      lo = mid;
      j = 2 * j + 2;
    }
    ++it;
  }
  return false;
}

/// The counts at the P points x[0..P): P interleaved sturm_count recurrences (each one is
/// exactly sturm_count(x[w]); the interleaving only gives independent division chains).
template <int P, class R>
ES_HD void sturm_count_ilp(index_t n, const R* d, const R* e2, const R& pivmin, const R* x,
                           index_t* cnt) {
  R q[P];
  index_t c[P];
  for (int w = 0; w < P; ++w) {
    q[w] = guard(R(d[0] - x[w]), pivmin);
    c[w] = q[w] < R(0) ? 1 : 0;
  }
  for (index_t i = 1; i < n; ++i) {
    const R di = d[i], ei = e2[i - 1];
    for (int w = 0; w < P; ++w) {
      q[w] = guard(R((di - x[w]) - sturm_div(ei, q[w])), pivmin);
      c[w] += q[w] < R(0) ? 1 : 0;
    }
  }
  for (int w = 0; w < P; ++w)
    cnt[w] = c[w];
}

/// Eigenvalue k by speculative multisection, L levels (2^L - 1 counts) per round, after the
/// first `top` levels taken from top_counts (the counts at the heap points of the first `top`
/// levels over [gl, gu], shared by all k; top = 0: none). Bitwise equal to bisect_eigenvalue.
template <int L, class R>
ES_HD R bisect_eigenvalue_spec(index_t n, const R* d, const R* e2, const SturmSetup<R>& s,
                               index_t k, int top = 0, const index_t* top_counts = nullptr) {
  constexpr int P = (1 << L) - 1;
  R lo = s.gl, hi = s.gu;
  int it = 0;
  if (top > 0 && spec_replay(lo, hi, it, s.pivmin, k, top, top_counts)) return final_value(lo, hi);
  while (!spec_stopped(lo, hi, it, s.pivmin)) {
    R x[P];
    index_t c[P];
    for (int j = 0; j < P; ++j)
      x[j] = spec_point(lo, hi, j);
    sturm_count_ilp<P>(n, d, e2, s.pivmin, x, c);
    if (spec_replay(lo, hi, it, s.pivmin, k, L, c)) break;
  }
  return final_value(lo, hi);
}

}  // namespace bisect

/// Eigenvalues il..iu (0-based, inclusive, ascending) of the symmetric tridiagonal T of order
/// n with diagonal d[0..n) and off-diagonal e[0..n-1), by canonical bisection; w[0..iu-il].
/// Each w[k-il] is a pure function of (d, e, k): the same bits for any thread count, any
/// subset and the naive reference below. Requires 0 <= il, iu < n, il <= iu + 1.
/// Shares the bisection steps of eigenvalues whose searches coincide (an interval tree) and
/// evaluates several counts at once.
template <class R>
void bisection_eigenvalues(const Context& ctx, index_t n, const R* d, const R* e, index_t il,
                           index_t iu, R* w);

/// The same result computed eigenvalue by eigenvalue with bisect::bisect_eigenvalue (the
/// executable definition; slow, for tests).
template <class R>
void bisection_eigenvalues_naive(index_t n, const R* d, const R* e, index_t il, index_t iu, R* w);

/// The index range [il, iu] of the eigenvalues in (vl, vu]: il = count(vl), iu = count(vu)-1
/// (iu = il - 1 when there are none). Requires vl < vu.
template <class R>
void bisection_index_range(index_t n, const R* d, const R* e, R vl, R vu, index_t& il, index_t& iu);

}  // namespace eigsolve
