// Stage 2 of the two-stage reduction: Hermitian band (half-width b) -> real tridiagonal, by the
// canonical bulge chase of docs/canonical-two-stage.md ("Stage 2"):
//
//   sweep i = 0 .. n-2:
//     A  reflector of column i (rows i+1 .. i+b); sym2 on the diagonal block D it acts on
//     B  right() on the block C below D, a reflector of C's first column (the bulge's),
//        left() on C's other columns                                   } block by block,
//     C  sym2 on the next diagonal block                               } down the band
//
// Everything runs in place in band storage (B(r, c), r >= c, at AB[(r - c) + c * ldab]), where a
// column of any block is contiguous and the block's columns are ldab - 1 apart (C(r, c) at
// C[r + c * (ldab - 1)]). Independent chains run side by side (sym2's y and right's t: one
// accumulator per row, the column loop outside; left's: one per column, the row loop outside);
// each chain still takes its terms in the spec's ascending order, so the bits are the spec's.
//
// With V2/tau2 every reflector is also stored for the eigenvectors ("Stage 2's reflectors"):
// level k of sweep i in column i of V2, rows i+1+kb .. (unit stored as exactly 1), its scalar in
// tau2[k + i * ldt2]. Storing copies values; the chase's own operations do not change.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "core/errors.hpp"
#include "core/neg_rounded.hpp"
#include "householder/larfg.hpp"
#include "householder/two_stage.hpp"

namespace eigsolve {
namespace {

/// `-0.5·tau`: complex, both components times -0.5; real, the T product with T(-0.5). Exact.
template <class T>
T neg_half(const T& tau) {
  if constexpr (is_complex_v<T>)
    return tau * real_t<T>(-0.5);
  else
    return T(-0.5) * tau;
}

template <class T>
T real_of(const T& a) {
  return T(real_part(a));
}

/// Scratch of one call, b elements each: the reflector vectors of the current and the next block,
/// sym2's y with -y and -v, the chains' accumulators of right and left.
template <class T>
struct ChaseWork {
  std::vector<T> v, vn, y, ny, nv, acc;
  explicit ChaseWork(index_t b)
      : v(size_t(b)), vn(size_t(b)), y(size_t(b)), ny(size_t(b)), nv(size_t(b)), acc(size_t(b)) {}
};

/// v = [1; x[0 .. m-1)], then x := 0 (the reflector leaves the band, its entries are annihilated).
template <class T>
void take_reflector(index_t m, T* x, T* v) {
  v[0] = T(1);
  for (index_t k = 1; k < m; ++k) {
    v[k] = x[k - 1];
    x[k - 1] = T(0);
  }
}

/// sym2 on the L x L diagonal block D at rows/columns s .. s+L-1: D := H^H D H.
template <class T>
void sym2(T* AB, index_t ldab, index_t s, index_t L, const T* v, const T& tau, ChaseWork<T>& w) {
  // y_r = tau * (chain c = 0 .. L-1: madd(D^(r, c), v_c)), all rows' chains at step c together:
  // D^(r, c) is conj(D(c, r)) for r < c (row c of the lower triangle, ldab - 1 apart in band
  // storage), real(D(c, c)), then D(r, c) for r > c (column c, contiguous).
  T* y = w.y.data();
  for (index_t r = 0; r < L; ++r)
    y[r] = T(0);
  for (index_t c = 0; c < L; ++c) {
    const T vc = v[c];
    const T* row = AB + s * ldab + c;  // D(c, r) at row[r * (ldab - 1)], r <= c
    for (index_t r = 0; r < c; ++r)
      y[r] = madd(conj(row[r * (ldab - 1)]), vc, y[r]);
    const T* col = AB + (s + c) * ldab - c;  // D(r, c) at col[r], r >= c
    y[c] = madd(real_of(col[c]), vc, y[c]);
    for (index_t r = c + 1; r < L; ++r)
      y[r] = madd(col[r], vc, y[r]);
  }
  for (index_t r = 0; r < L; ++r)
    y[r] = tau * y[r];
  T sum = T(0);
  for (index_t c = 0; c < L; ++c)
    sum = madd_conj(y[c], v[c], sum);
  const T alpha = neg_half(tau) * sum;
  for (index_t c = 0; c < L; ++c)
    y[c] = madd(alpha, v[c], y[c]);
  // D(r, c) -= v_r conj(y_c) + y_r conj(v_c) on the lower triangle, column by column.
  // -y_r and -v_r of the rounded values (core/neg_rounded.hpp).
  T* ny = w.ny.data();
  T* nv = w.nv.data();
  neg_rounded_stored(y, ny, L);
  neg_rounded_stored(v, nv, L);
  for (index_t c = 0; c < L; ++c) {
    T* dc = AB + (s + c) * ldab - c;  // D(r, c) at dc[r], r >= c
    const T cy = conj(y[c]), cv = conj(v[c]);
    for (index_t r = c; r < L; ++r) {
      T a = madd(nv[r], cy, dc[r]);
      dc[r] = madd(ny[r], cv, a);
    }
    if constexpr (is_complex_v<T>) dc[c].im = real_t<T>(0);
  }
}

/// right on the M x L block C (C(r, c) at C[r + c * ldc]): C := C H.
template <class T>
void right(T* C, index_t ldc, index_t M, index_t L, const T* v, const T& tau, ChaseWork<T>& w) {
  T* t = w.acc.data();
  for (index_t r = 0; r < M; ++r)
    t[r] = T(0);
  for (index_t c = 0; c < L; ++c) {
    const T vc = v[c];
    const T* cc = C + c * ldc;
    for (index_t r = 0; r < M; ++r)
      t[r] = madd(cc[r], vc, t[r]);
  }
  // t = -(tau * s): the rounded products, then negated (core/neg_rounded.hpp: not fnmsub).
  for (index_t r = 0; r < M; ++r)
    t[r] = tau * t[r];
  neg_rounded_stored(t, M);
  for (index_t c = 0; c < L; ++c) {
    const T cv = conj(v[c]);
    T* cc = C + c * ldc;
    for (index_t r = 0; r < M; ++r)
      cc[r] = madd(t[r], cv, cc[r]);
  }
}

/// left on the M x nc columns at C (C(r, c) at C[r + c * ldc]): C := H'^H C. The columns' chains
/// run side by side (row loop outside), each still over r ascending.
template <class T>
void left(T* C, index_t ldc, index_t M, index_t nc, const T* v, const T& tau, ChaseWork<T>& w) {
  T* s = w.acc.data();
  for (index_t c = 0; c < nc; ++c)
    s[c] = T(0);
  for (index_t r = 0; r < M; ++r) {
    const T vr = v[r];
    const T* cr = C + r;
    for (index_t c = 0; c < nc; ++c)
      s[c] = madd_conj(vr, cr[c * ldc], s[c]);
  }
  // u = -(conj(tau') * s): the rounded product, then negated (core/neg_rounded.hpp). Complex:
  // all the products first, negated behind one barrier (a register barrier per column made the
  // update loop below cost ~1% more of the chase's instructions); real: column by column.
  const T ctau = conj(tau);
  if constexpr (is_complex_v<T>) {
    for (index_t c = 0; c < nc; ++c)
      s[c] = ctau * s[c];
    neg_rounded_stored(s, nc);
  }
  for (index_t c = 0; c < nc; ++c) {
    T u;
    if constexpr (is_complex_v<T>)
      u = s[c];
    else
      u = neg_rounded(ctau * s[c]);
    T* cc = C + c * ldc;
    for (index_t r = 0; r < M; ++r)
      cc[r] = madd(v[r], u, cc[r]);
  }
}

/// Keeps level k of sweep i (m rows from `row`, v, tau) in V2/tau2 when they are given.
template <class T>
void keep_reflector(T* V2, index_t ldv2, T* tau2, index_t ldt2, index_t i, index_t k, index_t row,
                    index_t m, const T* v, const T& tau) {
  if (V2 == nullptr) return;
  T* col = V2 + row + i * ldv2;
  for (index_t q = 0; q < m; ++q)
    col[q] = v[q];
  tau2[k + i * ldt2] = tau;
}

}  // namespace

template <class T>
void band_to_tridiagonal(const Context& ctx, index_t n, index_t b, T* AB, index_t ldab,
                         real_t<T>* d, real_t<T>* e, T* V2, index_t ldv2, T* tau2, index_t ldt2) {
  (void)ctx;  // one sequential sweep order (the bits are its)
  if (n < 0) throw DimensionError("band_to_tridiagonal: n = " + std::to_string(n) + " < 0");
  if (b < 1) throw UsageError("band_to_tridiagonal: band width " + std::to_string(b) + " < 1");
  if (ldab < 2 * b)
    throw DimensionError("band_to_tridiagonal: ldab = " + std::to_string(ldab) +
                         " < 2b = " + std::to_string(2 * b));
  if ((V2 == nullptr) != (tau2 == nullptr))
    throw UsageError("band_to_tridiagonal: V2 and tau2 must be given together");
  if (V2 != nullptr) {
    if (ldv2 < n)
      throw DimensionError("band_to_tridiagonal: ldv2 = " + std::to_string(ldv2) +
                           " < n = " + std::to_string(n));
    if (ldt2 < chase_levels(n, b))
      throw DimensionError("band_to_tridiagonal: ldt2 = " + std::to_string(ldt2) +
                           " < chase_levels = " + std::to_string(chase_levels(n, b)));
  }
  for (index_t c = 0; c < n; ++c)
    for (index_t r = b + 1; r < ldab; ++r)
      AB[r + c * ldab] = T(0);
  ChaseWork<T> w(b);
  const index_t ldc = ldab - 1;
  for (index_t i = 0; i + 1 < n; ++i) {
    // Task A: column i's reflector (B(st, i) at AB[1 + i * ldab], the rows below it after it).
    index_t st = i + 1, ed = std::min(i + b, n - 1), L = ed - st + 1;
    T* ci = AB + 1 + i * ldab;
    T tau = hh_detail::larfg(L, ci[0], ci + 1);
    take_reflector(L, ci + 1, w.v.data());
    keep_reflector(V2, ldv2, tau2, ldt2, i, 0, st, L, w.v.data(), tau);
    sym2(AB, ldab, st, L, w.v.data(), tau, w);
    for (index_t k = 1;; ++k) {
      const index_t J1 = ed + 1;
      if (J1 > n - 1) break;
      const index_t J2 = std::min(ed + b, n - 1), M = J2 - J1 + 1;
      // Task B: C = B(J1 .. J2, st .. ed); C(0, 0) = B(J1, st) is row J1 - st = L of column st.
      T* C = AB + L + st * ldab;
      right(C, ldc, M, L, w.v.data(), tau, w);
      const T taun = hh_detail::larfg(M, C[0], C + 1);
      take_reflector(M, C + 1, w.vn.data());
      keep_reflector(V2, ldv2, tau2, ldt2, i, k, J1, M, w.vn.data(), taun);
      left(C + ldc, ldc, M, L - 1, w.vn.data(), taun, w);
      // Task C.
      sym2(AB, ldab, J1, M, w.vn.data(), taun, w);
      st = J1;
      ed = J2;
      L = M;
      tau = taun;
      std::swap(w.v, w.vn);
    }
  }
  for (index_t i = 0; i < n; ++i)
    d[i] = real_part(AB[i * ldab]);
  for (index_t i = 0; i + 1 < n; ++i)
    e[i] = real_part(AB[1 + i * ldab]);
}

#define EIGSOLVE_INSTANTIATE_BULGE_CHASE(T)                                                       \
  template void band_to_tridiagonal<T>(const Context&, index_t, index_t, T*, index_t, real_t<T>*, \
                                       real_t<T>*, T*, index_t, T*, index_t);
EIGSOLVE_FOR_EACH_SCALAR(EIGSOLVE_INSTANTIATE_BULGE_CHASE)
#undef EIGSOLVE_INSTANTIATE_BULGE_CHASE

}  // namespace eigsolve
