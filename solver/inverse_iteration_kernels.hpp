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

/// Steps per block of the software-pipelined loops below: each loop loads its next block of U
/// rows into registers before it does the arithmetic of the current block, and carries the
/// recurrence values in registers (no store -> load round trip on the chain). kAhead for the
/// loops with a division per row, kAheadLight for the light ones (forward solve, sums).
template <class R>
inline constexpr int kAhead = sizeof(R) <= 8 ? 8 : 4;
template <class R>
inline constexpr int kAheadLight = 2 * kAhead<R>;

#if defined(__CUDA_ARCH__)
#define ES_INVIT_UNROLL _Pragma("unroll")
#else
#define ES_INVIT_UNROLL
#endif

/// min(i, hi): the row a look-ahead load reads (past the last row: the last row again, unused).
ES_HD_INLINE index_t ahead_row(index_t i, index_t hi) {
  return i < hi ? i : hi;
}

/// f(i, b[i * s]) for i = 0 .. n-1 ascending, the next kAheadLight rows loaded while the
/// current ones are processed (the light passes: sums, maxima, the final scaling).
template <class R, class F>
ES_HD_INLINE void for_each_ahead(index_t n, const R* b, index_t s, F&& f) {
  constexpr int U = kAheadLight<R>;
  index_t i = 0;
  if (n >= U) {
    R v[U];
    ES_INVIT_UNROLL
    for (int u = 0; u < U; ++u)
      v[u] = b[u * s];
    for (; i + U <= n; i += U) {
      R v2[U];
      ES_INVIT_UNROLL
      for (int u = 0; u < U; ++u)
        v2[u] = b[ahead_row(i + U + u, n - 1) * s];
      ES_INVIT_UNROLL
      for (int u = 0; u < U; ++u)
        f(i + u, v[u]);
      ES_INVIT_UNROLL
      for (int u = 0; u < U; ++u)
        v[u] = v2[u];
    }
  }
  for (; i < n; ++i)
    f(i, b[i * s]);
}

/// A pivot with |u| < tol becomes +-tol (sign of u; +tol for zero); NaN stays.
template <class R>
ES_HD_INLINE R clamp_pivot(const R& u, const R& tol) {
  return (u < tol && -u < tol) ? (u < R(0) ? -tol : tol) : u;
}

/// LU of T - x I with partial pivoting (LAPACK ?gttrf), pivots below tol set to +-tol (during
/// the elimination and once more at the end).
///
/// Row i (0 <= i < n-1) with the carried values di = dd[i], ui = du[i] (both possibly updated by
/// row i-1), dn = d[i+1] - x, ei = e[i], en = e[i+1] (0 past the end):
///   keep = |di| >= |ei|  (no interchange; false for NaN)
///   keep:  di = clamp(di); fact = ei / di; dd[i+1] = dn - fact * ui
///   else:  fact = di / ei; dd[i] = ei; du[i] = dn; dd[i+1] = ui - fact * dn;
///          du2[i] = en, du[i+1] = -fact * en (if i+2 < n); swapped[i] = 1
/// written here with selects (one division per row, the same operands), the final clamp of
/// dd[i] applied as it is stored (clamp is idempotent).
template <class R>
ES_HD void factor(index_t n, const R* d, const R* e, const R& x, const R& tol, const Work<R>& W) {
  constexpr int U = kAhead<R>;
  const index_t s = W.inc;
  R* __restrict__ dl = W.dl;
  R* __restrict__ dd = W.dd;
  R* __restrict__ du = W.du;
  R* __restrict__ du2 = W.du2;
  unsigned char* __restrict__ sw = W.swapped;
  R dcur = d[0] - x;             // dd[i] before row i
  R ucur = n > 1 ? e[0] : R(0);  // du[i] before row i
  const auto row = [&](index_t i, const R& dn, const R& ei, const R& en) {
    const bool keep = bisect::rabs(dcur) >= bisect::rabs(ei);
    const R cl = clamp_pivot(keep ? dcur : ei, tol);  // the final dd[i]
    const R num = keep ? ei : dcur;  // select the operands: one division, no divergent branch
    const R den = keep ? cl : ei;
    const R fact = num / den;
    const R a = keep ? dn : ucur;
    const R c = keep ? ucur : dn;
    dl[i * s] = fact;
    dd[i * s] = cl;
    du[i * s] = keep ? ucur : dn;
    const bool two = !keep && i + 2 < n;
    du2[i * s] = two ? en : R(0);
    sw[i * s] = keep ? 0 : 1;
    dcur = a - fact * c;
    ucur = keep ? en : -fact * en;
  };
  const index_t steps = n - 1;  // rows 0 .. n-2
  index_t i = 0;
  if (steps >= U) {
    R dn[U], ei[U], en[U];
    ES_INVIT_UNROLL
    for (int u = 0; u < U; ++u) {
      dn[u] = d[u + 1] - x;
      ei[u] = e[u];
      en[u] = u + 2 < n ? e[u + 1] : R(0);
    }
    for (; i + U <= steps; i += U) {
      R dn2[U], ei2[U], en2[U];
      ES_INVIT_UNROLL
      for (int u = 0; u < U; ++u) {
        const index_t r = ahead_row(i + U + u, steps - 1);
        dn2[u] = d[r + 1] - x;
        ei2[u] = e[r];
        en2[u] = r + 2 < n ? e[r + 1] : R(0);
      }
      ES_INVIT_UNROLL
      for (int u = 0; u < U; ++u)
        row(i + u, dn[u], ei[u], en[u]);
      ES_INVIT_UNROLL
      for (int u = 0; u < U; ++u) {
        dn[u] = dn2[u];
        ei[u] = ei2[u];
        en[u] = en2[u];
      }
    }
  }
  for (; i < steps; ++i)
    row(i, d[i + 1] - x, e[i], i + 2 < n ? e[i + 1] : R(0));
  dd[(n - 1) * s] = clamp_pivot(dcur, tol);
  du2[(n - 1) * s] = R(0);
  sw[(n - 1) * s] = 0;
}

namespace detail {

/// b = LU^-1 (scl * b) if Scale, else LU^-1 b (the factorization of `factor`; the scaling
/// b_i * scl done as row i is first read). Forward (?gttrs order), with c the carried b[i]:
///   no interchange at i:  b[i] = c;          c = (b[i+1]) - dl[i] * c
///   interchange at i:     b[i] = b[i+1];     c = c - dl[i] * b[i+1]
/// i.e. (p, q) = swapped ? (c, b[i+1]) : (b[i+1], c); b[i] = q; c = p - dl[i] * q. Backward,
/// bottom row first, with b[i+1], b[i+2] carried:
///   b[n-1] = b[n-1] / dd[n-1];  b[n-2] = (b[n-2] - du[n-2] * b[n-1]) / dd[n-2];
///   b[i] = ((b[i] - du[i] * b[i+1]) - du2[i] * b[i+2]) / dd[i]
template <class R, bool Scale>
ES_HD void solve(index_t n, const Work<R>& W, const R& scl) {
  const index_t s = W.inc;
  const R* __restrict__ dl = W.dl;
  const R* __restrict__ dd = W.dd;
  const R* __restrict__ du = W.du;
  const R* __restrict__ du2 = W.du2;
  const unsigned char* __restrict__ sw = W.swapped;
  R* __restrict__ b = W.b;
  const auto in = [&](index_t i) {
    if constexpr (Scale)
      return b[i * s] * scl;
    else
      return b[i * s];
  };
  R c = in(0);
  R last = c;  // b[n-2] after the forward sweep
  {
    constexpr int U = kAheadLight<R>;
    const auto fwd = [&](index_t i, const R& bn, const R& l, unsigned char f) {
      const R p = f ? c : bn;
      const R q = f ? bn : c;
      b[i * s] = q;
      last = q;
      c = p - l * q;
    };
    const index_t steps = n - 1;
    index_t i = 0;
    if (steps >= U) {
      R bn[U], l[U];
      unsigned char f[U];
      ES_INVIT_UNROLL
      for (int u = 0; u < U; ++u) {
        bn[u] = in(u + 1);
        l[u] = dl[u * s];
        f[u] = sw[u * s];
      }
      for (; i + U <= steps; i += U) {
        R bn2[U], l2[U];
        unsigned char f2[U];
        ES_INVIT_UNROLL
        for (int u = 0; u < U; ++u) {
          const index_t r = ahead_row(i + U + u, steps - 1);
          bn2[u] = in(r + 1);
          l2[u] = dl[r * s];
          f2[u] = sw[r * s];
        }
        ES_INVIT_UNROLL
        for (int u = 0; u < U; ++u)
          fwd(i + u, bn[u], l[u], f[u]);
        ES_INVIT_UNROLL
        for (int u = 0; u < U; ++u) {
          bn[u] = bn2[u];
          l[u] = l2[u];
          f[u] = f2[u];
        }
      }
    }
    for (; i < steps; ++i)
      fwd(i, in(i + 1), dl[i * s], sw[i * s]);
  }
  R x2 = c / dd[(n - 1) * s];  // b[i+2] in the loop below
  b[(n - 1) * s] = x2;
  if (n < 2) return;
  R x1 = (last - du[(n - 2) * s] * x2) / dd[(n - 2) * s];  // b[i+1]
  b[(n - 2) * s] = x1;
  {
    constexpr int U = kAhead<R>;
    const auto bwd = [&](index_t i, const R& bi, const R& ui, const R& u2, const R& di) {
      const R v = ((bi - ui * x1) - u2 * x2) / di;
      b[i * s] = v;
      x2 = x1;
      x1 = v;
    };
    index_t i = n - 3;  // rows n-3 .. 0, descending
    if (i + 1 >= U) {
      R bi[U], ui[U], u2[U], di[U];
      ES_INVIT_UNROLL
      for (int u = 0; u < U; ++u) {
        const index_t r = i - u;
        bi[u] = b[r * s];
        ui[u] = du[r * s];
        u2[u] = du2[r * s];
        di[u] = dd[r * s];
      }
      for (; i + 1 >= U; i -= U) {
        R bi2[U], ui2[U], u22[U], di2[U];
        ES_INVIT_UNROLL
        for (int u = 0; u < U; ++u) {
          const index_t r = i - U - u < 0 ? 0 : i - U - u;  // rows below 0: row 0 again, unused
          bi2[u] = b[r * s];
          ui2[u] = du[r * s];
          u22[u] = du2[r * s];
          di2[u] = dd[r * s];
        }
        ES_INVIT_UNROLL
        for (int u = 0; u < U; ++u)
          bwd(i - u, bi[u], ui[u], u2[u], di[u]);
        ES_INVIT_UNROLL
        for (int u = 0; u < U; ++u) {
          bi[u] = bi2[u];
          ui[u] = ui2[u];
          u2[u] = u22[u];
          di[u] = di2[u];
        }
      }
    }
    for (; i >= 0; --i)
      bwd(i, b[i * s], du[i * s], du2[i * s], dd[i * s]);
  }
}

/// One ascending pass over b: asum = sum |b_i| (ascending) and mx = max |b_i| (max_abs).
template <class R>
ES_HD void sum_max(index_t n, const R* b, index_t s, R& asum, R& mx) {
  R a = R(0), m = R(0);
  for_each_ahead(n, b, s, [&](index_t, const R& v) {
    const R t = bisect::rabs(v);
    a = a + t;
    m = bisect::rmax(m, t);
  });
  asum = a;
  mx = m;
}

}  // namespace detail

/// b = LU^-1 b (the factorization of `factor`).
template <class R>
ES_HD void solve(index_t n, const Work<R>& W) {
  detail::solve<R, false>(n, W, R(1));
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

/// b = the start vector of eigenvalue k; returns sum |b_i| (ascending), the first iteration's.
template <class R>
ES_HD R start(index_t n, index_t k, const Work<R>& W) {
  R* __restrict__ b = W.b;
  const index_t s = W.inc;
  R asum = R(0);
  for (index_t i = 0; i < n; ++i) {
    const R v = R(start_value(k, i));
    b[i * s] = v;
    asum = asum + bisect::rabs(v);
  }
  return asum;
}

/// The iteration on W.b (filled by `start`, asum = its sum |b_i|): LU of T - x I, at most
/// kMaxIter scaled solves, each followed by MGS against q (nq = 0 in Phase A: no
/// orthogonalization), MGS once more, then y = b / max|b| / ||b / max|b|||_2 (y contiguous).
/// Each iteration's pass after the solve computes both max|b| (the growth test) and the next
/// iteration's sum |b| (ascending, as before; unused after the last iteration); with nq = 0 the
/// final MGS is empty and the final max|b| is the last iteration's.
template <class R>
ES_HD void iterate(index_t n, const R* d, const R* e, const R& x, const Params<R>& P,
                   const Work<R>& W, const R* q, index_t nq, index_t ldq, R* y, R asum) {
  const index_t s = W.inc;
  R* __restrict__ b = W.b;
  factor(n, d, e, x, P.tol, W);
  const R unn = bisect::rmax(P.eps, bisect::rabs(W.dd[(n - 1) * s]));
  int extra = 0;
  R mx = R(0);
  for (int its = 0; its < kMaxIter; ++its) {
    const R scl = (P.nr * P.onenrm * unn) / asum;
    detail::solve<R, true>(n, W, scl);
    mgs(n, b, s, q, nq, ldq);
    detail::sum_max(n, b, s, asum, mx);
    if (mx >= P.dtpcrt && ++extra > kExtraIter) break;
  }
  if (nq > 0) {
    mgs(n, b, s, q, nq, ldq);
    mx = max_abs(n, b, s);
  }
  // b_i = b_i / mx and the canonical dot of b with itself (strided_dot's order: chunks of 8,
  // the tile tree, tiles ascending), one chunk of 8 loaded ahead; then y = b / nrm.
  R acc = R(0);
  {
    R v[kChunk], v2[kChunk], c[kChunk];
    ES_INVIT_UNROLL
    for (int u = 0; u < kChunk; ++u)
      v[u] = b[ahead_row(u, n - 1) * s];
    for (index_t t0 = 0; t0 < n; t0 += kTile) {
      ES_INVIT_UNROLL
      for (int k = 0; k < kChunk; ++k) {
        const index_t lo = t0 + index_t(k) * kChunk;
        ES_INVIT_UNROLL
        for (int u = 0; u < kChunk; ++u)
          v2[u] = b[ahead_row(lo + kChunk + u, n - 1) * s];
        R sm = R(0);
        ES_INVIT_UNROLL
        for (int u = 0; u < kChunk; ++u)
          if (lo + u < n) {
            const R w = v[u] / mx;
            b[(lo + u) * s] = w;
            sm = madd(w, w, sm);
          }
        c[k] = sm;
        ES_INVIT_UNROLL
        for (int u = 0; u < kChunk; ++u)
          v[u] = v2[u];
      }
      const R p = tile_tree(c);
      acc = (t0 == 0) ? p : acc + p;
    }
  }
  const R nrm = sqrt_(acc);
  for_each_ahead(n, b, s, [&](index_t i, const R& v) { y[i] = v / nrm; });
}

/// Phase A for eigenvalue k = k0 + j with shift x: y = the unit inverse-iteration vector.
template <class R>
ES_HD void phase_a(index_t n, const R* d, const R* e, const R& x, const Params<R>& P, index_t k,
                   const Work<R>& W, R* y) {
  const R asum = start(n, k, W);
  iterate(n, d, e, x, P, W, static_cast<const R*>(nullptr), index_t(0), index_t(1), y, asum);
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
  const R asum = start(n, k, W);
  iterate(n, d, e, x, P, W, q, nq, ldq, y, asum);
}

}  // namespace invit
}  // namespace eigsolve

#undef ES_INVIT_UNROLL
