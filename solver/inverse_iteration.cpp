// Inverse iteration (solver/inverse_iteration.hpp), generic over float/double/dd_real.
//
//   per cluster (parallel), per eigenvalue j of the cluster (sequential):
//     b = start(k0 + j)                         fixed hash-based vector in (-1, 1)
//     LU = P (T - x_j I)                         partial pivoting, |u_ii| >= eps*||T||
//     repeat (<= 5):  b *= n*||T||*max(eps,|u_nn|) / sum|b|;  b = LU^-1 b;
//                     b -= (b.z_p) z_p  for the earlier cluster vectors p (MGS, ascending)
//                     stop 2 iterations after max|b| >= sqrt(0.1/n)
//     z_j = b / ||b||_2   (after scaling by 1/max|b|)
#include "solver/inverse_iteration.hpp"

#include <cmath>
#include <cstdint>
#include <vector>

#include "core/canonical.hpp"
#include "core/errors.hpp"
#include "core/parallel.hpp"
#include "solver/bisection.hpp"

namespace eigsolve {
namespace {

using bisect::rabs;
using bisect::rmax;

/// A value in (-1, 1) that depends only on (k, i): splitmix64, top 53 bits.
double start_value(index_t k, index_t i) {
  std::uint64_t x = static_cast<std::uint64_t>(k) * 0x9E3779B97F4A7C15ull ^
                    (static_cast<std::uint64_t>(i) + 0x632BE59BD9B4E019ull);
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  x ^= x >> 31;
  const double u = static_cast<double>(x >> 11) * 0x1p-53;  // [0, 1)
  return 2.0 * u - 1.0;
}

template <class R>
struct Work {
  std::vector<R> dl, dd, du, du2, b;
  std::vector<unsigned char> swapped;
  explicit Work(index_t n) : dl(n), dd(n), du(n), du2(n), b(n), swapped(n) {}
};

/// LU of T - x I with partial pivoting (LAPACK ?gttrf), pivots below tol set to +-tol.
template <class R>
void factor(index_t n, const R* d, const R* e, const R& x, const R& tol, Work<R>& W) {
  for (index_t i = 0; i < n; ++i) {
    W.dd[i] = d[i] - x;
    W.du2[i] = R(0);
    W.swapped[i] = 0;
    if (i + 1 < n) {
      W.dl[i] = e[i];
      W.du[i] = e[i];
    }
  }
  for (index_t i = 0; i + 1 < n; ++i) {
    if (rabs(W.dd[i]) >= rabs(W.dl[i])) {
      if (W.dd[i] < tol && -W.dd[i] < tol) W.dd[i] = W.dd[i] < R(0) ? -tol : tol;
      const R fact = W.dl[i] / W.dd[i];
      W.dl[i] = fact;
      W.dd[i + 1] = W.dd[i + 1] - fact * W.du[i];
    } else {
      const R fact = W.dd[i] / W.dl[i];
      W.dd[i] = W.dl[i];
      W.dl[i] = fact;
      const R temp = W.du[i];
      W.du[i] = W.dd[i + 1];
      W.dd[i + 1] = temp - fact * W.dd[i + 1];
      if (i + 2 < n) {
        W.du2[i] = W.du[i + 1];
        W.du[i + 1] = -fact * W.du[i + 1];
      }
      W.swapped[i] = 1;
    }
  }
  for (index_t i = 0; i < n; ++i) {
    R& u = W.dd[i];
    if (u < tol && -u < tol) u = u < R(0) ? -tol : tol;
  }
}

template <class R>
void solve(index_t n, Work<R>& W) {
  R* b = W.b.data();
  for (index_t i = 0; i + 1 < n; ++i) {
    if (!W.swapped[i]) {
      b[i + 1] = b[i + 1] - W.dl[i] * b[i];
    } else {
      const R t = b[i];
      b[i] = b[i + 1];
      b[i + 1] = t - W.dl[i] * b[i];
    }
  }
  b[n - 1] = b[n - 1] / W.dd[n - 1];
  if (n > 1) b[n - 2] = (b[n - 2] - W.du[n - 2] * b[n - 1]) / W.dd[n - 2];
  for (index_t i = n - 3; i >= 0; --i)
    b[i] = ((b[i] - W.du[i] * b[i + 1]) - W.du2[i] * b[i + 2]) / W.dd[i];
}

template <class R>
R max_abs(index_t n, const R* b) {
  R m = R(0);
  for (index_t i = 0; i < n; ++i)
    m = rmax(m, rabs(b[i]));
  return m;
}

/// Modified Gram-Schmidt of b against the np columns of zc, in ascending order.
template <class R>
void orthogonalize(index_t n, R* b, const R* zc, index_t np, index_t ldz) {
  for (index_t p = 0; p < np; ++p) {
    const R* zp = zc + p * ldz;
    const R ztr = contiguous_dot<false>(n, b, zp);  // canonical_dot's bits, chains interleaved
    for (index_t i = 0; i < n; ++i)
      b[i] = madd(-ztr, zp[i], b[i]);
  }
}

}  // namespace

template <class R>
void inverse_iteration(const Context& ctx, index_t n, const R* d_in, const R* e_in, index_t m,
                       const R* w_in, index_t k0, R* z, index_t ldz) {
  if (m == 0 || n == 0) return;
  if (ldz < n) throw DimensionError("inverse_iteration: ldz < n");
  if (n == 1) {
    for (index_t j = 0; j < m; ++j)
      z[j * ldz] = R(1);
    return;
  }
  // ||T||_1 in ascending order; scale T by a power of two so that it lies in [1, 2).
  R onenrm = R(0);
  for (index_t i = 0; i < n; ++i) {
    R r = rabs(d_in[i]);
    if (i > 0) r = r + rabs(e_in[i - 1]);
    if (i + 1 < n) r = r + rabs(e_in[i]);
    onenrm = rmax(onenrm, r);
  }
  if (onenrm == R(0)) {  // T = 0: the unit vectors
    for (index_t j = 0; j < m; ++j)
      for (index_t i = 0; i < n; ++i)
        z[i + j * ldz] = R((k0 + j) == i ? 1 : 0);
    return;
  }
  const int sh = -std::ilogb(to_double(onenrm));
  std::vector<R> d(n), e(n), w(m);
  for (index_t i = 0; i < n; ++i)
    d[i] = scale2(d_in[i], sh);
  for (index_t i = 0; i + 1 < n; ++i)
    e[i] = scale2(e_in[i], sh);
  for (index_t j = 0; j < m; ++j)
    w[j] = scale2(w_in[j], sh);
  onenrm = scale2(onenrm, sh);

  const R eps = R(2) * bisect::unit_roundoff<R>();
  const R ortol = R(1e-3) * onenrm;
  const R tol = eps * onenrm;
  const R dtpcrt = sqrt_(R(0.1) / R(static_cast<double>(n)));
  const R nr = R(static_cast<double>(n));

  // Clusters: [cb[c], cb[c+1]).
  std::vector<index_t> cb{0};
  for (index_t j = 1; j < m; ++j)
    if (w[j] - w[j - 1] > ortol) cb.push_back(j);
  cb.push_back(m);
  const index_t nclusters = static_cast<index_t>(cb.size()) - 1;

  parallel_for(nclusters, ctx.num_threads(), 1, [&](index_t cbeg, index_t cend) {
    Work<R> W(n);
    R* b = W.b.data();
    for (index_t c = cbeg; c < cend; ++c) {
      R xjm = R(0);
      for (index_t j = cb[c]; j < cb[c + 1]; ++j) {
        R xj = w[j];
        if (j > cb[c]) {
          const R pertol = R(10) * rabs(eps * xj);
          if (xj - xjm < pertol) xj = xjm + pertol;
        }
        xjm = xj;
        for (index_t i = 0; i < n; ++i)
          b[i] = R(start_value(k0 + j, i));
        factor(n, d.data(), e.data(), xj, tol, W);
        const R unn = rmax(eps, rabs(W.dd[n - 1]));
        int extra = 0;
        for (int its = 0; its < 5; ++its) {
          R asum = R(0);
          for (index_t i = 0; i < n; ++i)
            asum = asum + rabs(b[i]);
          const R scl = (nr * onenrm * unn) / asum;
          for (index_t i = 0; i < n; ++i)
            b[i] = b[i] * scl;
          solve(n, W);
          orthogonalize(n, b, z + cb[c] * ldz, j - cb[c], ldz);
          if (max_abs(n, b) >= dtpcrt && ++extra > 2) break;
        }
        orthogonalize(n, b, z + cb[c] * ldz, j - cb[c], ldz);  // twice is enough
        const R mx = max_abs(n, b);
        for (index_t i = 0; i < n; ++i)
          b[i] = b[i] / mx;
        const R nrm = sqrt_(canonical_dot(n, b, index_t(1), b, index_t(1)));
        R* zj = z + j * ldz;
        for (index_t i = 0; i < n; ++i)
          zj[i] = b[i] / nrm;
      }
    }
  });
}

#define EIGSOLVE_INSTANTIATE_INVIT(R)                                                      \
  template void inverse_iteration<R>(const Context&, index_t, const R*, const R*, index_t, \
                                     const R*, index_t, R*, index_t);
EIGSOLVE_FOR_EACH_REAL(EIGSOLVE_INSTANTIATE_INVIT)
#undef EIGSOLVE_INSTANTIATE_INVIT

}  // namespace eigsolve
