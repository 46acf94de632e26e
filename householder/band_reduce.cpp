// Stage 1 of the two-stage reduction: full Hermitian -> band of half-width b, in the canonical
// order of docs/canonical-two-stage.md ("Stage 1"), which this file executes step by step.
//
//   per panel j0 = 0, b, 2b, ... while j0 + b < n   (r0 = j0 + b, m = n - r0, k = min(b, m)):
//     1. panel QR of P = A(r0:n, j0:j0+b)        larfg + one dot and one axpy per later column
//     2. T (k x k, larft forward)                 canonical dots of V's columns, short chains
//     3. X = A22 V                                k canonical SYMVs (symm_reference: each
//                                                 tile read once for a group of them)
//     4.-7. Y = X T, Z = V^H Y, M = T^H Z, W = Y - V M / 2    (per-element chains, dots)
//     8. A22 -= V W^H + W V^H                     the one-stage's rank-2k chains (rank2k.hpp)
//
// V is kept explicitly (m x k, its zeros above the unit diagonal included): the spec makes those
// zeros terms of the chains in steps 2, 3, 5, 7 and 8. Threads only ever split whole elements or
// whole dots (columns in step 1, dots in steps 2 and 5, rows in steps 4 and 7), so the bits do
// not depend on ctx.threads.
#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "core/errors.hpp"
#include "core/neg_rounded.hpp"
#include "core/parallel.hpp"
#include "householder/larfg.hpp"
#include "householder/rank2k.hpp"
#include "householder/two_stage.hpp"
#include "symv/reference.hpp"
#include "symv/tile_kernels.hpp"

namespace eigsolve {
namespace {

using symv_detail::col_dots;

/// Items per thread so that a thread gets at least ~kMinWork multiply-adds.
constexpr index_t kMinWork = index_t(1) << 15;
inline index_t grain_for(index_t work_per_item) {
  return std::max<index_t>(1, kMinWork / std::max<index_t>(1, work_per_item));
}

/// Rows per work item of the row-parallel steps 4 and 7.
constexpr index_t kRowBlock = 64;

template <class T>
void make_real(T& a) {
  if constexpr (is_complex_v<T>) a.im = real_t<T>(0);
  (void)a;
}

/// 0.5·s: every component (real, imaginary; dd: hi and lo) times 1/2, exact.
template <class T>
T half(const T& s) {
  if constexpr (is_complex_v<T>)
    return T(s.re * real_t<T>(0.5), s.im * real_t<T>(0.5));
  else if constexpr (std::is_same<T, dd_real>::value)
    return scale2(s, -1);
  else
    return s * T(0.5);
}

template <class T>
struct Workspace {
  std::vector<T> V, X, Y, W;   // m x k each (ld m), m <= n - b
  std::vector<T> G, Tm, Z, M;  // k x k: V^H V, T, Z, M
  std::vector<T> NW, NV;       // k x m: rank2k_update's workspace
};

/// Step 1: the panel QR of P (m x b, leading dimension lda), V(:, 0:k) filled with its
/// reflectors as full columns [0; 1; v], tau[0:k).
template <class T>
void panel_qr(int nt, index_t m, index_t b, index_t k, T* P, index_t lda, T* V, T* tau) {
  for (index_t i = 0; i < k; ++i) {
    T* pi = P + lda * i;
    T* vi = V + m * i;
    T alpha = pi[i];
    tau[i] = hh_detail::larfg(m - i, alpha, pi + std::min(i + 1, m - 1));
    pi[i] = alpha;
    for (index_t r = 0; r < i; ++r)
      vi[r] = T(0);
    vi[i] = T(1);
    for (index_t r = i + 1; r < m; ++r)
      vi[r] = pi[r];
    // Every later column c = i+1 .. b-1 (also those past k when m < b): P(i:m, c) := H_i^H P.
    const T ct = conj(tau[i]);
    const index_t len = m - i;
    parallel_for(b - i - 1, nt, grain_for(2 * len), [&](index_t cb, index_t ce) {
      for (index_t c = i + 1 + cb; c < i + 1 + ce; ++c) {
        T* pc = P + lda * c + i;
        // u = -(conj(tau_i) * w): the rounded product, negated (core/neg_rounded.hpp).
        const T u = neg_rounded(ct * contiguous_dot<true>(len, vi + i, pc));
        for (index_t r = 0; r < len; ++r)
          pc[r] = madd(vi[i + r], u, pc[r]);
      }
    });
  }
}

/// Step 2: T (k x k upper triangular, ld k) of the forward product H_0 H_1 ... H_{k-1}.
template <class T>
void form_t(int nt, index_t m, index_t k, const T* V, const T* tau, T* G, T* Tm) {
  // G(l, i) = V(:, l)^H V(:, i) over all m rows, l < i (one dot per element, any thread).
  parallel_for(k, nt, grain_for(m * k / 2), [&](index_t ib, index_t ie) {
    for (index_t i = ib; i < ie; ++i)
      col_dots(m, i, V, m, V + m * i, G + k * i);
  });
  for (index_t i = 0; i < k; ++i) {
    Tm[i + k * i] = tau[i];
    const T mt = -tau[i];
    for (index_t q = 0; q < i; ++q) {
      T z = T(0);
      for (index_t l = q; l < i; ++l)
        z = madd(Tm[q + k * l], G[l + k * i], z);
      Tm[q + k * i] = mt * z;
    }
  }
}

/// The panel at j0: steps 1-8 of the spec.
template <class T>
void band_panel(const Context& ctx, index_t n, index_t b, index_t j0, T* A, index_t lda, T* tau1,
                Workspace<T>& ws) {
  const int nt = ctx.num_threads();
  const index_t r0 = j0 + b, m = n - r0, k = std::min(b, m);
  T* P = A + r0 + lda * j0;
  T* A22 = A + r0 + lda * r0;
  T* V = ws.V.data();
  T* X = ws.X.data();
  T* Y = ws.Y.data();
  T* W = ws.W.data();
  T* Tm = ws.Tm.data();
  T* Z = ws.Z.data();
  T* M = ws.M.data();

  // 1. Panel QR.
  panel_qr(nt, m, b, k, P, lda, V, tau1 + j0);
  // 2. T.
  form_t(nt, m, k, V, tau1 + j0, ws.G.data(), Tm);
  // 3. X = A22 V: one canonical SYMV per column of V (tiles from row r0), A22's tiles read once
  // per group of columns (symm_reference: the same bits as the k SYMVs).
  symm_reference(ctx, m, k, A22, lda, V, m, X, m);
  // 4. Y = X T: Y(r, q) = chain over l = 0 .. q of madd(X(r, l), T(l, q), y).
  const index_t nblk = (m + kRowBlock - 1) / kRowBlock;
  parallel_for(nblk, nt, grain_for(kRowBlock * k * k / 2), [&](index_t bb, index_t be) {
    const index_t rb = bb * kRowBlock, re = std::min(m, be * kRowBlock);
    for (index_t q = 0; q < k; ++q) {
      T* yq = Y + m * q;
      for (index_t r = rb; r < re; ++r)
        yq[r] = T(0);
      for (index_t l = 0; l <= q; ++l) {
        const T t = Tm[l + k * q];
        const T* xl = X + m * l;
        for (index_t r = rb; r < re; ++r)
          yq[r] = madd(xl[r], t, yq[r]);
      }
    }
  });
  // 5. Z = V^H Y: Z(p, q) = canonical_dot<conj>(V(:, p), Y(:, q)) over the m rows.
  parallel_for(k, nt, grain_for(m * k), [&](index_t qb, index_t qe) {
    for (index_t q = qb; q < qe; ++q)
      col_dots(m, k, V, m, Y + m * q, Z + k * q);
  });
  // 6. M = T^H Z: M(p, q) = chain over l = 0 .. p of madd_conj(T(l, p), Z(l, q), s).
  for (index_t q = 0; q < k; ++q)
    for (index_t p = 0; p < k; ++p) {
      T s = T(0);
      for (index_t l = 0; l <= p; ++l)
        s = madd_conj(Tm[l + k * p], Z[l + k * q], s);
      M[p + k * q] = s;
    }
  // 7. W = Y - 0.5 V M: W(r, q) = Y(r, q) - 0.5·(chain over p = 0 .. k-1 of madd(V(r, p),
  //    M(p, q), s)); W's column q holds the chains until they are complete.
  parallel_for(nblk, nt, grain_for(kRowBlock * k * k), [&](index_t bb, index_t be) {
    const index_t rb = bb * kRowBlock, re = std::min(m, be * kRowBlock);
    for (index_t q = 0; q < k; ++q) {
      T* wq = W + m * q;
      const T* yq = Y + m * q;
      for (index_t r = rb; r < re; ++r)
        wq[r] = T(0);
      for (index_t p = 0; p < k; ++p) {
        const T mp = M[p + k * q];
        const T* vp = V + m * p;
        for (index_t r = rb; r < re; ++r)
          wq[r] = madd(vp[r], mp, wq[r]);
      }
      for (index_t r = rb; r < re; ++r)
        wq[r] = yq[r] - half(wq[r]);
    }
  });
  // 8. A22 -= V W^H + W V^H (the one-stage's chains, kb = k; complex diagonal made real).
  hh_detail::rank2k_update(nt, m, k, V, m, W, m, A22, lda, ws.NW.data(), ws.NV.data());
}

}  // namespace

template <class T>
void reduce_to_band(const Context& ctx, index_t n, index_t b, T* A, index_t lda, T* tau1) {
  if (n < 0) throw DimensionError("reduce_to_band: n = " + std::to_string(n) + " < 0");
  if (lda < std::max<index_t>(1, n))
    throw DimensionError("reduce_to_band: lda = " + std::to_string(lda) + " < max(1, n)");
  if (b < 1) throw UsageError("reduce_to_band: b = " + std::to_string(b) + " < 1");
  for (index_t j = 0; j < n; ++j) {
    make_real(A[j + lda * j]);
    tau1[j] = T(0);
  }
  if (n <= b) return;  // no panel: A is already a band of half-width b
  const index_t mmax = n - b, kmax = std::min(b, mmax);
  Workspace<T> ws;
  try {
    for (auto* v : {&ws.V, &ws.X, &ws.Y, &ws.W, &ws.NW, &ws.NV})
      v->assign(static_cast<std::size_t>(mmax * kmax), T(0));
    for (auto* v : {&ws.G, &ws.Tm, &ws.Z, &ws.M})
      v->assign(static_cast<std::size_t>(kmax * kmax), T(0));
  } catch (const std::bad_alloc&) {
    throw OutOfMemory("reduce_to_band workspace",
                      static_cast<std::uint64_t>(6 * mmax * kmax + 4 * kmax * kmax) * sizeof(T));
  }
  for (index_t j0 = 0; j0 + b < n; j0 += b)
    band_panel(ctx, n, b, j0, A, lda, tau1, ws);
}

#define EIGSOLVE_INSTANTIATE_BAND_REDUCE(T) \
  template void reduce_to_band<T>(const Context&, index_t, index_t, T*, index_t, T*);
EIGSOLVE_FOR_EACH_SCALAR(EIGSOLVE_INSTANTIATE_BAND_REDUCE)
#undef EIGSOLVE_INSTANTIATE_BAND_REDUCE

}  // namespace eigsolve
