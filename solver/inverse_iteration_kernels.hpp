// The per-eigenvector pieces of the canonical inverse iteration (docs/canonical-eigenvectors.md),
// shared by the CPU driver (solver/inverse_iteration.cpp) and a device kernel (one thread per
// eigenvector): ES_HD code over raw pointers, no containers, no exceptions.
//
//   Phase A, one eigenvalue j (shift x_j, global index k = k0 + j):
//     b = start(k)                               fixed hash-based vector in (-1, 1)
//     LU = P (T - x_j I)                         partial pivoting, |u_ii| >= tol = eps*||T||
//     repeat (<= 5):  b *= n*||T||*max(eps,|u_nn|) / sum|b|;  b = LU^-1 b;
//                     [fallback only: b -= (q_p . b) q_p, p ascending (MGS)]
//                     stop once max|b| >= sqrt(0.1/n) held in 3 iterations
//     [fallback only: MGS once more]
//     b /= max|b|;  y_j = b / sqrt(b . b)
//
// Work vectors are strided (element i of each at [i * inc]) so that a kernel can interleave the
// work arrays of its threads; the output column and the q columns are contiguous.
#pragma once

#include <cstdint>

#include "core/arith.hpp"
#include "core/canonical.hpp"
#include "core/dd_real.hpp"
#include "core/hd.hpp"
#include "core/precision.hpp"
#include "solver/bisection.hpp"

namespace eigsolve {
namespace invit {

inline constexpr int kMaxIter = 5;            // inverse iterations at most
inline constexpr int kExtraIter = 2;          // iterations after the growth test first passes
inline constexpr index_t kBlock = 32;         // Phase B block size (a constant of the spec)
inline constexpr double kOrtolFactor = 1e-3;  // ortol = 1e-3 * ||T||_1
inline constexpr double kFallbackNorm = 0.1;  // Phase B: ||y|| below this -> fallback

/// A value in (-1, 1) that depends only on (k, i): splitmix64, top 53 bits.
ES_HD_INLINE double start_value(index_t k, index_t i) {
  std::uint64_t x = static_cast<std::uint64_t>(k) * 0x9E3779B97F4A7C15ull ^
                    (static_cast<std::uint64_t>(i) + 0x632BE59BD9B4E019ull);
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  x ^= x >> 31;
  const double u = static_cast<double>(x >> 11) * 0x1p-53;  // [0, 1)
  return 2.0 * u - 1.0;
}

/// The scalars every vector uses (Phase 0; T already scaled so that ||T||_1 lies in [1, 2)).
template <class R>
struct Params {
  R onenrm;  // ||T||_1 (scaled)
  R eps;     // 2u
  R tol;     // eps * onenrm: smallest pivot magnitude
  R dtpcrt;  // sqrt(0.1 / n): growth test
  R nr;      // n as an R
};

/// Work vectors of one eigenvector: element i of each at [i * inc].
template <class R>
struct Work {
  R* dl;
  R* dd;
  R* du;
  R* du2;
  R* b;
  unsigned char* swapped;
  index_t inc;
};

/// LU of T - x I with partial pivoting (LAPACK ?gttrf), pivots below tol set to +-tol.
template <class R>
ES_HD void factor(index_t n, const R* d, const R* e, const R& x, const R& tol, const Work<R>& W) {
  const index_t s = W.inc;
  for (index_t i = 0; i < n; ++i) {
    W.dd[i * s] = d[i] - x;
    W.du2[i * s] = R(0);
    W.swapped[i * s] = 0;
    if (i + 1 < n) {
      W.dl[i * s] = e[i];
      W.du[i * s] = e[i];
    }
  }
  for (index_t i = 0; i + 1 < n; ++i) {
    R& di = W.dd[i * s];
    R& dn = W.dd[(i + 1) * s];
    if (bisect::rabs(di) >= bisect::rabs(W.dl[i * s])) {
      if (di < tol && -di < tol) di = di < R(0) ? -tol : tol;
      const R fact = W.dl[i * s] / di;
      W.dl[i * s] = fact;
      dn = dn - fact * W.du[i * s];
    } else {
      const R fact = di / W.dl[i * s];
      di = W.dl[i * s];
      W.dl[i * s] = fact;
      const R temp = W.du[i * s];
      W.du[i * s] = dn;
      dn = temp - fact * dn;
      if (i + 2 < n) {
        W.du2[i * s] = W.du[(i + 1) * s];
        W.du[(i + 1) * s] = -fact * W.du[(i + 1) * s];
      }
      W.swapped[i * s] = 1;
    }
  }
  for (index_t i = 0; i < n; ++i) {
    R& u = W.dd[i * s];
    if (u < tol && -u < tol) u = u < R(0) ? -tol : tol;
  }
}

/// b = LU^-1 b (the factorization of `factor`).
template <class R>
ES_HD void solve(index_t n, const Work<R>& W) {
  const index_t s = W.inc;
  R* b = W.b;
  for (index_t i = 0; i + 1 < n; ++i) {
    if (!W.swapped[i * s]) {
      b[(i + 1) * s] = b[(i + 1) * s] - W.dl[i * s] * b[i * s];
    } else {
      const R t = b[i * s];
      b[i * s] = b[(i + 1) * s];
      b[(i + 1) * s] = t - W.dl[i * s] * b[i * s];
    }
  }
  b[(n - 1) * s] = b[(n - 1) * s] / W.dd[(n - 1) * s];
  if (n > 1)
    b[(n - 2) * s] = (b[(n - 2) * s] - W.du[(n - 2) * s] * b[(n - 1) * s]) / W.dd[(n - 2) * s];
  for (index_t i = n - 3; i >= 0; --i)
    b[i * s] =
        ((b[i * s] - W.du[i * s] * b[(i + 1) * s]) - W.du2[i * s] * b[(i + 2) * s]) / W.dd[i * s];
}

/// max |x[i * inc]| (ascending, comparisons only).
template <class R>
ES_HD R max_abs(index_t n, const R* x, index_t inc) {
  R m = R(0);
  for (index_t i = 0; i < n; ++i)
    m = bisect::rmax(m, bisect::rabs(x[i * inc]));
  return m;
}

/// canonical_dot(n, x, incx, y, incy) (core/canonical.hpp) written out for device code: chunks
/// of 8 (fma chains), the fixed tree of 8 chunks per tile of 64, tiles ascending. Same bits.
template <class R>
ES_HD R strided_dot(index_t n, const R* x, index_t incx, const R* y, index_t incy) {
  R acc = R(0);
  for (index_t t0 = 0; t0 < n; t0 += kTile) {
    R c[kChunk];
    for (int k = 0; k < kChunk; ++k) {
      R s = R(0);
      const index_t lo = t0 + index_t(k) * kChunk;
      const index_t hi = lo + kChunk < n ? lo + kChunk : n;
      for (index_t i = lo; i < hi; ++i)
        s = madd(x[i * incx], y[i * incy], s);
      c[k] = s;
    }
    const R p = tile_tree(c);
    acc = (t0 == 0) ? p : acc + p;
  }
  return acc;
}

/// Modified Gram-Schmidt of b (stride inc) against the nq contiguous columns q(:, p) (leading
/// dimension ldq), p ascending: c = q_p . b (canonical dot); b[i] = madd(-c, q_p[i], b[i]).
template <class R>
ES_HD void mgs(index_t n, R* b, index_t inc, const R* q, index_t nq, index_t ldq) {
  for (index_t p = 0; p < nq; ++p) {
    const R* qp = q + p * ldq;
    const R c = strided_dot(n, qp, index_t(1), b, inc);
    for (index_t i = 0; i < n; ++i)
      b[i * inc] = madd(-c, qp[i], b[i * inc]);
  }
}

/// The iteration on W.b (filled by the caller): LU of T - x I, at most kMaxIter scaled solves,
/// each followed by MGS against q (nq = 0 in Phase A: no orthogonalization), MGS once more,
/// then y = b / max|b| / ||b / max|b|||_2 (y contiguous).
template <class R>
ES_HD void iterate(index_t n, const R* d, const R* e, const R& x, const Params<R>& P,
                   const Work<R>& W, const R* q, index_t nq, index_t ldq, R* y) {
  const index_t s = W.inc;
  R* b = W.b;
  factor(n, d, e, x, P.tol, W);
  const R unn = bisect::rmax(P.eps, bisect::rabs(W.dd[(n - 1) * s]));
  int extra = 0;
  for (int its = 0; its < kMaxIter; ++its) {
    R asum = R(0);
    for (index_t i = 0; i < n; ++i)
      asum = asum + bisect::rabs(b[i * s]);
    const R scl = (P.nr * P.onenrm * unn) / asum;
    for (index_t i = 0; i < n; ++i)
      b[i * s] = b[i * s] * scl;
    solve(n, W);
    mgs(n, b, s, q, nq, ldq);
    if (max_abs(n, b, s) >= P.dtpcrt && ++extra > kExtraIter) break;
  }
  mgs(n, b, s, q, nq, ldq);
  const R mx = max_abs(n, b, s);
  for (index_t i = 0; i < n; ++i)
    b[i * s] = b[i * s] / mx;
  const R nrm = sqrt_(strided_dot(n, b, s, b, s));
  for (index_t i = 0; i < n; ++i)
    y[i] = b[i * s] / nrm;
}

/// Phase A for eigenvalue k = k0 + j with shift x: y = the unit inverse-iteration vector.
template <class R>
ES_HD void phase_a(index_t n, const R* d, const R* e, const R& x, const Params<R>& P, index_t k,
                   const Work<R>& W, R* y) {
  for (index_t i = 0; i < n; ++i)
    W.b[i * W.inc] = R(start_value(k, i));
  iterate(n, d, e, x, P, W, static_cast<const R*>(nullptr), index_t(0), index_t(1), y);
}

/// Phase B fallback for column j (||y||_2 = nrm < kFallbackNorm after the projections): start
/// again from the start vector and iterate with MGS against the nq columns q (the window and
/// the block's earlier vectors) inside every iteration, as ?stein does. (Starting from the
/// remainder y / nrm instead amplified its rounding noise: float mhd1280b, a near-null
/// cluster of ~200 numerically equal eigenvalues, lost orthogonality to 4e-2.)
template <class R>
ES_HD void fallback(index_t n, const R* d, const R* e, const R& x, const Params<R>& P, index_t k,
                    const R& nrm, const Work<R>& W, const R* q, index_t nq, index_t ldq, R* y) {
  (void)nrm;
  for (index_t i = 0; i < n; ++i)
    W.b[i * W.inc] = R(start_value(k, i));
  iterate(n, d, e, x, P, W, q, nq, ldq, y);
}

}  // namespace invit
}  // namespace eigsolve
