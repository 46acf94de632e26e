#include "app/residuals.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "app/residuals_cuda.hpp"
#include "app/residuals_dd512.hpp"
#include "core/huge_pages.hpp"
#include "core/parallel.hpp"

namespace eigsolve {
namespace {

// C := A * B for column-major n x k A and k x m B, through BLAS for the vendor precisions.
// Diagnostics only: the order of these sums is BLAS's, which is fine for a residual.
void gemm(index_t n, index_t m, index_t k, const float* A, const float* B, float* C) {
  cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, m, k, 1.0f, A, n, B, k, 0.0f, C, n);
}
void gemm(index_t n, index_t m, index_t k, const double* A, const double* B, double* C) {
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, m, k, 1.0, A, n, B, k, 0.0, C, n);
}
void gemm(index_t n, index_t m, index_t k, const cfloat* A, const cfloat* B, cfloat* C) {
  const float one[2] = {1, 0}, zero[2] = {0, 0};
  cblas_cgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, m, k, one, A, n, B, k, zero, C, n);
}
void gemm(index_t n, index_t m, index_t k, const cdouble* A, const cdouble* B, cdouble* C) {
  const double one[2] = {1, 0}, zero[2] = {0, 0};
  cblas_zgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, m, k, one, A, n, B, k, zero, C, n);
}

// Lower triangle of C := Z^H Z (m x m, Z n x m): ?syrk / ?herk, half the flops of a gemm.
void gram_lower(index_t n, index_t m, const float* Z, float* C) {
  cblas_ssyrk(CblasColMajor, CblasLower, CblasTrans, m, n, 1.0f, Z, n, 0.0f, C, m);
}
void gram_lower(index_t n, index_t m, const double* Z, double* C) {
  cblas_dsyrk(CblasColMajor, CblasLower, CblasTrans, m, n, 1.0, Z, n, 0.0, C, m);
}
void gram_lower(index_t n, index_t m, const cfloat* Z, cfloat* C) {
  cblas_cherk(CblasColMajor, CblasLower, CblasConjTrans, m, n, 1.0f, Z, n, 0.0f, C, m);
}
void gram_lower(index_t n, index_t m, const cdouble* Z, cdouble* C) {
  cblas_zherk(CblasColMajor, CblasLower, CblasConjTrans, m, n, 1.0, Z, n, 0.0, C, m);
}

template <class T>
Residuals residuals_blas(const HostMatrix<T>& A, const SolveResult<T>& r, double anorm) {
  const index_t n = r.n, m = r.m;
  std::vector<T> az, zz;  // on huge pages where granted (core/huge_pages.hpp): fewer faults
  reserve_huge(az, static_cast<std::size_t>(n * m));
  reserve_huge(zz, static_cast<std::size_t>(m * m));
  az.resize(static_cast<std::size_t>(n * m));
  zz.resize(static_cast<std::size_t>(m * m));
  gemm(n, m, n, A.ptr(), r.z.data(), az.data());
  gram_lower(n, m, r.z.data(), zz.data());  // entry (i, j), i < j: the conjugate of (j, i)
  double rmax = 0, omax = 0;
  for (index_t j = 0; j < m; ++j) {
    double s = 0, o = 0;
    const T lam = T(r.w[j]);
    for (index_t i = 0; i < n; ++i)
      s += std::sqrt(to_double(abs2(az[i + j * n] - lam * r.z[i + j * n])));
    for (index_t i = 0; i < m; ++i) {
      T v = i >= j ? zz[i + j * m] : zz[j + i * m];  // |conj(x)| = |x|
      if (i == j) v = v - T(real_t<T>(1));
      o += std::sqrt(to_double(abs2(v)));
    }
    rmax = std::max(rmax, s);
    omax = std::max(omax, o);
  }
  Residuals out;
  out.backward = anorm > 0 ? rmax / (static_cast<double>(n) * anorm) : rmax;
  out.orthogonality = omax / static_cast<double>(n);
  return out;
}

}  // namespace

template <class T>
Residuals compute_residuals(const Context& ctx, const HostMatrix<T>& A, const SolveResult<T>& r) {
  const index_t n = r.n, m = r.m;
  Residuals out;
  if (n == 0 || m == 0 || r.z.empty()) return out;
  // ||A||_1 (A is Hermitian: max column sum of |a_ij|).
  double anorm = 0;
  for (index_t j = 0; j < n; ++j) {
    double s = 0;
    for (index_t i = 0; i < n; ++i)
      s += std::sqrt(to_double(abs2(A(i, j))));
    anorm = std::max(anorm, s);
  }
  // A run on the GPU checks itself there (app/residuals_cuda.hpp: cuBLAS products for s/d/c/z,
  // our own dd products for dd); EIGSOLVE_GPU_RESIDUALS=0 computes them on the host instead
  // (for measurement).
  if constexpr (residuals_on_device_v<T>) {
    const char* dev = std::getenv("EIGSOLVE_GPU_RESIDUALS");
    if (ctx.backend == Backend::cuda && !(dev && std::string(dev) == "0"))
      return compute_residuals_cuda(A, r, anorm);
  }
  if constexpr (has_vendor_lapack_v<T>) {
    return residuals_blas(A, r, anorm);
  } else {
    std::vector<double> rcol(static_cast<std::size_t>(m)), ocol(static_cast<std::size_t>(m));
    // Column j of A Z - Z Lambda and of I - Z^H Z, in T arithmetic (dd stays dd), then
    // magnitudes in double (app/residuals_dd512.hpp: the loop, and for dd on AVX-512 the same
    // chains 8 at a time in the lanes, same bits). Each column is independent: thread count
    // does not matter.
    parallel_for(m, ctx.num_threads(), 1, [&](index_t j0, index_t j1) {
      residuals_detail::residual_columns(A, r, j0, j1, rcol.data(), ocol.data());
    });
    double rmax = *std::max_element(rcol.begin(), rcol.end());
    double omax = *std::max_element(ocol.begin(), ocol.end());
    out.backward = anorm > 0 ? rmax / (static_cast<double>(n) * anorm) : rmax;
    out.orthogonality = omax / static_cast<double>(n);
    return out;
  }
}

#define INSTANTIATE(T)                                                          \
  template Residuals compute_residuals<T>(const Context&, const HostMatrix<T>&, \
                                          const SolveResult<T>&);
EIGSOLVE_FOR_EACH_SCALAR(INSTANTIATE)
#undef INSTANTIATE

}  // namespace eigsolve
