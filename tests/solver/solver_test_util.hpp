// Shared helpers of the solver tests: tridiagonal families, norms, residuals.
#pragma once

#include <cmath>
#include <vector>

#include "core/precision.hpp"

namespace eigsolve::test {

template <class R>
struct Tridiag {
  std::vector<R> d, e;  // e has n entries (last one 0)
  index_t n() const { return static_cast<index_t>(d.size()); }
};

/// tridiag(-1, 2, -1) of order n: lambda_k = 2 - 2 cos(k pi/(n+1)), k = 1..n.
template <class R>
Tridiag<R> laplace_1d(index_t n) {
  Tridiag<R> t;
  t.d.assign(n, R(2));
  t.e.assign(n, R(-1));
  t.e[n - 1] = R(0);
  return t;
}

/// Kac/Clement matrix of order n+1: d = 0, e_k = sqrt(k (n+1-k)); spectrum -n, -n+2, ..., n.
template <class R>
Tridiag<R> kac(index_t n) {
  Tridiag<R> t;
  t.d.assign(n + 1, R(0));
  t.e.assign(n + 1, R(0));
  for (index_t k = 1; k <= n; ++k)
    t.e[k - 1] = sqrt_(R(static_cast<double>(k * (n + 1 - k))));
  return t;
}

/// Wilkinson W+_{2m+1}: d_i = |m - i|, e = 1.
template <class R>
Tridiag<R> wilkinson(index_t m) {
  Tridiag<R> t;
  const index_t n = 2 * m + 1;
  t.d.resize(n);
  t.e.assign(n, R(1));
  t.e[n - 1] = R(0);
  for (index_t i = 0; i < n; ++i)
    t.d[i] = R(static_cast<double>(i < m ? m - i : i - m));
  return t;
}

/// Deterministic pseudo-random doubles in [-1, 1).
inline double rnd(std::uint64_t& s) {
  s = s * 6364136223846793005ull + 1442695040888963407ull;
  return static_cast<double>(s >> 11) * 0x1p-52 - 1.0;
}

template <class R>
Tridiag<R> random_tridiag(index_t n, std::uint64_t seed) {
  Tridiag<R> t;
  t.d.resize(n);
  t.e.assign(n, R(0));
  for (index_t i = 0; i < n; ++i)
    t.d[i] = R(rnd(seed));
  for (index_t i = 0; i + 1 < n; ++i)
    t.e[i] = R(rnd(seed));
  return t;
}

/// Block diagonal with repeated eigenvalues: blocks [2 1; 1 2] (eigenvalues 1, 3) separated by
/// e = 0, and isolated 1's and 3's: heavy multiplicities.
template <class R>
Tridiag<R> repeated_blocks(index_t nblocks) {
  Tridiag<R> t;
  for (index_t b = 0; b < nblocks; ++b) {
    t.d.push_back(R(2));
    t.d.push_back(R(2));
    t.d.push_back(R(b % 2 ? 1 : 3));
    t.e.push_back(R(1));
    t.e.push_back(R(0));
    t.e.push_back(R(0));
  }
  return t;
}

template <class R>
double dbl(const R& x) {
  return to_double(x);
}

/// max |T| entry-based 1-norm of T.
template <class R>
double norm1(const Tridiag<R>& t) {
  double m = 0;
  const index_t n = t.n();
  for (index_t i = 0; i < n; ++i) {
    double r = std::fabs(dbl(t.d[i]));
    if (i > 0) r += std::fabs(dbl(t.e[i - 1]));
    if (i + 1 < n) r += std::fabs(dbl(t.e[i]));
    m = std::max(m, r);
  }
  return m;
}

/// ||T Z - Z diag(w)||_max / (n ||T||) and ||I - Z^T Z||_max / n, evaluated in R.
template <class R>
void tridiag_residuals(const Tridiag<R>& t, index_t m, const R* w, const R* z, double& res,
                       double& orth) {
  const index_t n = t.n();
  const double tn = std::max(norm1(t), 1e-300);
  res = 0;
  orth = 0;
  for (index_t j = 0; j < m; ++j) {
    const R* zj = z + j * n;
    for (index_t i = 0; i < n; ++i) {
      R v = t.d[i] * zj[i] - w[j] * zj[i];
      if (i > 0) v = v + t.e[i - 1] * zj[i - 1];
      if (i + 1 < n) v = v + t.e[i] * zj[i + 1];
      res = std::max(res, std::fabs(dbl(v)));
    }
    for (index_t k = 0; k < m; ++k) {
      R s = R(0);
      for (index_t i = 0; i < n; ++i)
        s = s + zj[i] * z[i + k * n];
      if (j == k) s = s - R(1);
      orth = std::max(orth, std::fabs(dbl(s)));
    }
  }
  res /= double(n) * tn;
  orth /= double(n);
}

}  // namespace eigsolve::test
