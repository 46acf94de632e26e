// Internal to solver/inverse_iteration.cpp: Phase A of the canonical inverse iteration
// (docs/canonical-eigenvectors.md) for L eigenvalues at once on one CPU thread. Every lane runs
// exactly the operations of invit::phase_a (solver/inverse_iteration_kernels.hpp) for its own
// eigenvalue; the lanes only give the CPU L independent dependency chains (the LU and the
// triangular solves are latency-bound: one division per row). A lane whose iteration has
// stopped is left untouched. tests/solver/test_inverse_iteration.cpp checks lane == scalar.
//
//   work arrays interleaved: element i of lane l at [i * L + l]
//   for each row i:  for each lane l:  the scalar step of lane l
#pragma once

#include <vector>

#include "solver/inverse_iteration_kernels.hpp"

namespace eigsolve {
namespace invit {

template <class R, int L>
struct LaneWork {
  std::vector<R> dl, dd, du, du2, b;
  std::vector<unsigned char> swapped;
  explicit LaneWork(index_t n)
      : dl(n * L), dd(n * L), du(n * L), du2(n * L), b(n * L), swapped(n * L) {}
};

/// invit::factor for the lanes l < nl (shifts x[l]).
template <class R, int L>
void factor_lanes(index_t n, const R* d, const R* e, const R* x, const R& tol, int nl,
                  LaneWork<R, L>& W) {
  R *dl = W.dl.data(), *dd = W.dd.data(), *du = W.du.data(), *du2 = W.du2.data();
  unsigned char* sw = W.swapped.data();
  for (index_t i = 0; i < n; ++i)
    for (int l = 0; l < nl; ++l) {
      const index_t k = i * L + l;
      dd[k] = d[i] - x[l];
      du2[k] = R(0);
      sw[k] = 0;
      if (i + 1 < n) {
        dl[k] = e[i];
        du[k] = e[i];
      }
    }
  for (index_t i = 0; i + 1 < n; ++i)
    for (int l = 0; l < nl; ++l) {
      const index_t k = i * L + l, kn = k + L;
      if (bisect::rabs(dd[k]) >= bisect::rabs(dl[k])) {
        if (dd[k] < tol && -dd[k] < tol) dd[k] = dd[k] < R(0) ? -tol : tol;
        const R fact = dl[k] / dd[k];
        dl[k] = fact;
        dd[kn] = dd[kn] - fact * du[k];
      } else {
        const R fact = dd[k] / dl[k];
        dd[k] = dl[k];
        dl[k] = fact;
        const R temp = du[k];
        du[k] = dd[kn];
        dd[kn] = temp - fact * dd[kn];
        if (i + 2 < n) {
          du2[k] = du[kn];
          du[kn] = -fact * du[kn];
        }
        sw[k] = 1;
      }
    }
  for (index_t k = 0; k < n * L; ++k)
    if (k % L < nl) {
      R& u = dd[k];
      if (u < tol && -u < tol) u = u < R(0) ? -tol : tol;
    }
}

/// invit::solve for the lanes with act[l].
template <class R, int L>
void solve_lanes(index_t n, const bool* act, LaneWork<R, L>& W) {
  const R *dl = W.dl.data(), *dd = W.dd.data(), *du = W.du.data(), *du2 = W.du2.data();
  const unsigned char* sw = W.swapped.data();
  R* b = W.b.data();
  for (index_t i = 0; i + 1 < n; ++i)
    for (int l = 0; l < L; ++l) {
      if (!act[l]) continue;
      const index_t k = i * L + l;
      if (!sw[k]) {
        b[k + L] = b[k + L] - dl[k] * b[k];
      } else {
        const R t = b[k];
        b[k] = b[k + L];
        b[k + L] = t - dl[k] * b[k];
      }
    }
  for (int l = 0; l < L; ++l) {
    if (!act[l]) continue;
    const index_t k1 = (n - 1) * L + l, k2 = k1 - L;
    b[k1] = b[k1] / dd[k1];
    if (n > 1) b[k2] = (b[k2] - du[k2] * b[k1]) / dd[k2];
  }
  for (index_t i = n - 3; i >= 0; --i)
    for (int l = 0; l < L; ++l) {
      if (!act[l]) continue;
      const index_t k = i * L + l;
      b[k] = ((b[k] - du[k] * b[k + L]) - du2[k] * b[k + 2 * L]) / dd[k];
    }
}

/// invit::phase_a for eigenvalues j = j0 .. j0+nl-1 (nl <= L): y_j -> z(:, j).
template <class R, int L>
void phase_a_lanes(index_t n, const R* d, const R* e, const R* x, const Params<R>& P, index_t k0,
                   index_t j0, int nl, LaneWork<R, L>& W, R* z, index_t ldz) {
  R* b = W.b.data();
  for (index_t i = 0; i < n; ++i)
    for (int l = 0; l < nl; ++l)
      b[i * L + l] = R(start_value(k0 + j0 + l, i));
  factor_lanes<R, L>(n, d, e, x + j0, P.tol, nl, W);
  R unn[L], asum[L], mx[L];
  bool act[L];
  int extra[L];
  for (int l = 0; l < L; ++l) {
    act[l] = l < nl;
    extra[l] = 0;
    if (act[l]) unn[l] = bisect::rmax(P.eps, bisect::rabs(W.dd[(n - 1) * L + l]));
  }
  for (int its = 0; its < kMaxIter; ++its) {
    for (int l = 0; l < L; ++l)
      asum[l] = R(0);
    for (index_t i = 0; i < n; ++i)
      for (int l = 0; l < nl; ++l)
        asum[l] = asum[l] + bisect::rabs(b[i * L + l]);
    for (int l = 0; l < nl; ++l)
      if (act[l]) asum[l] = (P.nr * P.onenrm * unn[l]) / asum[l];  // the scale
    for (index_t i = 0; i < n; ++i)
      for (int l = 0; l < nl; ++l)
        if (act[l]) b[i * L + l] = b[i * L + l] * asum[l];
    solve_lanes<R, L>(n, act, W);
    for (int l = 0; l < L; ++l)
      mx[l] = R(0);
    for (index_t i = 0; i < n; ++i)
      for (int l = 0; l < nl; ++l)
        mx[l] = bisect::rmax(mx[l], bisect::rabs(b[i * L + l]));
    bool any = false;
    for (int l = 0; l < nl; ++l) {
      if (act[l] && mx[l] >= P.dtpcrt && ++extra[l] > kExtraIter) act[l] = false;
      any = any || act[l];
    }
    if (!any) break;
  }
  for (int l = 0; l < nl; ++l) {
    const R m = max_abs(n, b + l, index_t(L));
    for (index_t i = 0; i < n; ++i)
      b[i * L + l] = b[i * L + l] / m;
    const R nrm = sqrt_(strided_dot(n, b + l, index_t(L), b + l, index_t(L)));
    R* y = z + (j0 + l) * ldz;
    for (index_t i = 0; i < n; ++i)
      y[i] = b[i * L + l] / nrm;
  }
}

}  // namespace invit
}  // namespace eigsolve
