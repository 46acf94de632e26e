#include "app/residuals.hpp"

#include <algorithm>
#include <vector>

#include "core/parallel.hpp"

namespace eigsolve {

template <class T>
Residuals compute_residuals(const Context& ctx, const HostMatrix<T>& A, const SolveResult<T>& r) {
  using R = real_t<T>;
  const index_t n = r.n, m = r.m;
  Residuals out;
  if (n == 0 || m == 0 || r.z.empty()) return out;
  // ||A||_1 (A is Hermitian: max column sum of |a_ij|).
  double anorm = 0;
  for (index_t j = 0; j < n; ++j) {
    double s = 0;
    for (index_t i = 0; i < n; ++i) s += std::sqrt(to_double(abs2(A(i, j))));
    anorm = std::max(anorm, s);
  }
  std::vector<double> rcol(static_cast<std::size_t>(m)), ocol(static_cast<std::size_t>(m));
  const T* Z = r.z.data();
  // Column j of A Z - Z Lambda and of I - Z^H Z, in T arithmetic (dd stays dd), then
  // magnitudes in double. Each column is independent: thread count does not matter.
  parallel_for(m, ctx.num_threads(), 1, [&](index_t j0, index_t j1) {
    std::vector<T> az(static_cast<std::size_t>(n));
    for (index_t j = j0; j < j1; ++j) {
      const T* zj = Z + j * n;
      std::fill(az.begin(), az.end(), T(0));
      for (index_t k = 0; k < n; ++k) {
        const T zk = zj[k];
        const T* ak = &A(0, k);
        for (index_t i = 0; i < n; ++i) az[i] = madd(ak[i], zk, az[i]);
      }
      double s = 0;
      const T lam = T(r.w[j]);
      for (index_t i = 0; i < n; ++i) s += std::sqrt(to_double(abs2(az[i] - lam * zj[i])));
      rcol[j] = s;
      double o = 0;
      for (index_t k = 0; k < m; ++k) {
        const T* zk = Z + k * n;
        T dot = T(0);
        for (index_t i = 0; i < n; ++i) dot = madd_conj(zk[i], zj[i], dot);
        if (k == j) dot = dot - T(R(1));
        o += std::sqrt(to_double(abs2(dot)));
      }
      ocol[j] = o;
    }
  });
  double rmax = *std::max_element(rcol.begin(), rcol.end());
  double omax = *std::max_element(ocol.begin(), ocol.end());
  out.backward = anorm > 0 ? rmax / (static_cast<double>(n) * anorm) : rmax;
  out.orthogonality = omax / static_cast<double>(n);
  return out;
}

#define INSTANTIATE(T) \
  template Residuals compute_residuals<T>(const Context&, const HostMatrix<T>&, const SolveResult<T>&);
EIGSOLVE_FOR_EACH_SCALAR(INSTANTIATE)
#undef INSTANTIATE

}  // namespace eigsolve
