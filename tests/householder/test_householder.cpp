// tridiagonalize: backward error and orthogonality, LAPACK-compatible reflector storage
// (?ormtr/?unmtr), eigenvalues of T against ?syev/?heev and exact (Hadamard) spectra,
// bitwise independence of the thread count and of the run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include <lapacke.h>

#include "core/errors.hpp"
#include "core/precision.hpp"
#include "tests/common/hermitian_matrices.hpp"
#include "tests/common/random_scalar.hpp"
#include "householder/tridiagonalize.hpp"

using namespace eigsolve;

namespace {

template <class T>
using Vec = std::vector<T>;

using eigsolve::test_util::hadamard_matrix;
using eigsolve::test_util::random_hermitian;
using eigsolve::test_util::random_scalar;

template <class T>
double mag(const T& a) {
  if constexpr (is_complex_v<T>)
    return std::sqrt(to_double(abs2(a)));
  else
    return std::fabs(to_double(a));
}

double eps_of(double u) {
  return 2 * u;
}

template <class T>
struct Result {
  Vec<T> A, tau;
  Vec<real_t<T>> d, e;
};

template <class T>
Result<T> run(const Vec<T>& F, index_t n, int threads, int nb = 32) {
  Result<T> r;
  r.A = F;
  // The strict upper triangle must not be read: poison it.
  for (index_t j = 0; j < n; ++j)
    for (index_t i = 0; i < j; ++i)
      r.A[i + n * j] = T(std::nan(""));
  r.d.resize(n);
  r.e.resize(std::max<index_t>(n - 1, 0));
  r.tau.resize(std::max<index_t>(n - 1, 0));
  Context ctx;
  ctx.threads = threads;
  TridiagOptions opt;
  opt.nb = nb;
  tridiagonalize(ctx, n, r.A.data(), n, r.d.data(), r.e.data(), r.tau.data(), opt);
  return r;
}

/// Q = H(0) H(1) ... H(n-2) built from the reflectors by our own loop.
template <class T>
Vec<T> build_q(index_t n, const Result<T>& r) {
  Vec<T> Q(static_cast<size_t>(n * n), T(0));
  for (index_t i = 0; i < n; ++i)
    Q[i + n * i] = T(1);
  Vec<T> v(n);
  for (index_t g = n - 2; g >= 0; --g) {
    for (index_t i = 0; i < n; ++i)
      v[i] = T(0);
    v[g + 1] = T(1);
    for (index_t i = g + 2; i < n; ++i)
      v[i] = r.A[i + n * g];
    for (index_t c = 0; c < n; ++c) {
      T s = T(0);
      for (index_t i = g + 1; i < n; ++i)
        s = s + conj(v[i]) * Q[i + n * c];
      s = r.tau[g] * s;
      for (index_t i = g + 1; i < n; ++i)
        Q[i + n * c] = Q[i + n * c] - v[i] * s;
    }
  }
  return Q;
}

/// ||F - Q T Q^H||_F / (n ||F||_F) and ||I - Q^H Q||_F / n.
template <class T>
std::pair<double, double> residuals(index_t n, const Vec<T>& F, const Vec<T>& Q,
                                    const Result<T>& r) {
  double fn = 0, rn = 0, on = 0;
  Vec<T> QT(static_cast<size_t>(n * n));  // Q T
  for (index_t j = 0; j < n; ++j)
    for (index_t i = 0; i < n; ++i) {
      T s = Q[i + n * j] * T(r.d[j]);
      if (j > 0) s = s + Q[i + n * (j - 1)] * T(r.e[j - 1]);
      if (j + 1 < n) s = s + Q[i + n * (j + 1)] * T(r.e[j]);
      QT[i + n * j] = s;
    }
  for (index_t j = 0; j < n; ++j)
    for (index_t i = 0; i < n; ++i) {
      T s = T(0), o = T(0);
      for (index_t k = 0; k < n; ++k) {
        s = s + QT[i + n * k] * conj(Q[j + n * k]);
        o = o + conj(Q[k + n * i]) * Q[k + n * j];
      }
      const double x = mag(F[i + n * j] - s), y = mag(o - T(i == j ? 1 : 0));
      rn += x * x;
      on += y * y;
      fn += mag(F[i + n * j]) * mag(F[i + n * j]);
    }
  return {std::sqrt(rn) / (n * std::sqrt(fn)), std::sqrt(on) / n};
}

/// Eigenvalues of the tridiagonal (d, e) by bisection on Sturm counts in real_t<T>.
template <class R>
Vec<double> tridiag_eigs(const Vec<R>& d, const Vec<R>& e) {
  const index_t n = static_cast<index_t>(d.size());
  R bound = R(0);
  for (index_t i = 0; i < n; ++i) {
    R s = eigsolve::abs(d[i]);
    if (i > 0) s = s + eigsolve::abs(e[i - 1]);
    if (i + 1 < n) s = s + eigsolve::abs(e[i]);
    if (s > bound) bound = s;
  }
  auto count_below = [&](R x) {
    index_t c = 0;
    R q = d[0] - x;
    if (q < R(0)) ++c;
    for (index_t i = 1; i < n; ++i) {
      if (q == R(0)) q = R(1e-300);
      q = (d[i] - x) - (e[i - 1] * e[i - 1]) / q;
      if (q < R(0)) ++c;
    }
    return c;
  };
  Vec<double> w(n);
  for (index_t k = 0; k < n; ++k) {
    R lo = -bound - R(1), hi = bound + R(1);
    for (int it = 0; it < 200; ++it) {
      R mid = (lo + hi) * R(0.5);
      if (!(mid > lo && mid < hi)) break;
      if (count_below(mid) > k)
        hi = mid;
      else
        lo = mid;
    }
    w[k] = to_double(lo);
  }
  return w;
}

// --- LAPACKE bindings (s/d/c/z) -------------------------------------------------------------
int lapack_q(index_t n, const float* A, const float* tau, float* C) {
  return LAPACKE_sormtr(LAPACK_COL_MAJOR, 'L', 'L', 'N', n, n, A, n, tau, C, n);
}
int lapack_q(index_t n, const double* A, const double* tau, double* C) {
  return LAPACKE_dormtr(LAPACK_COL_MAJOR, 'L', 'L', 'N', n, n, A, n, tau, C, n);
}
int lapack_q(index_t n, const cfloat* A, const cfloat* tau, cfloat* C) {
  return LAPACKE_cunmtr(LAPACK_COL_MAJOR, 'L', 'L', 'N', n, n, (const lapack_complex_float*)A, n,
                        (const lapack_complex_float*)tau, (lapack_complex_float*)C, n);
}
int lapack_q(index_t n, const cdouble* A, const cdouble* tau, cdouble* C) {
  return LAPACKE_zunmtr(LAPACK_COL_MAJOR, 'L', 'L', 'N', n, n, (const lapack_complex_double*)A, n,
                        (const lapack_complex_double*)tau, (lapack_complex_double*)C, n);
}
template <class T>
Vec<double> lapack_eig(index_t n, Vec<T> F) {
  Vec<real_t<T>> w(n);
  int info = 0;
  if constexpr (std::is_same_v<T, float>)
    info = LAPACKE_ssyev(LAPACK_COL_MAJOR, 'N', 'L', n, F.data(), n, w.data());
  else if constexpr (std::is_same_v<T, double>)
    info = LAPACKE_dsyev(LAPACK_COL_MAJOR, 'N', 'L', n, F.data(), n, w.data());
  else if constexpr (std::is_same_v<T, cfloat>)
    info =
        LAPACKE_cheev(LAPACK_COL_MAJOR, 'N', 'L', n, (lapack_complex_float*)F.data(), n, w.data());
  else
    info =
        LAPACKE_zheev(LAPACK_COL_MAJOR, 'N', 'L', n, (lapack_complex_double*)F.data(), n, w.data());
  EXPECT_EQ(info, 0);
  return Vec<double>(w.begin(), w.end());
}
template <class R>
Vec<double> sterf(Vec<R> d, Vec<R> e) {
  int info;
  if constexpr (std::is_same_v<R, float>)
    info = LAPACKE_ssterf(static_cast<lapack_int>(d.size()), d.data(), e.data());
  else
    info = LAPACKE_dsterf(static_cast<lapack_int>(d.size()), d.data(), e.data());
  EXPECT_EQ(info, 0);
  return Vec<double>(d.begin(), d.end());
}

template <class T>
bool same_bits(const Vec<T>& a, const Vec<T>& b) {
  // memcmp must not see the null data() of an empty vector (UBSan: nonnull argument).
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}
template <class T>
bool same_result(const Result<T>& a, const Result<T>& b) {
  return same_bits(a.A, b.A) && same_bits(a.d, b.d) && same_bits(a.e, b.e) &&
         same_bits(a.tau, b.tau);
}

double fro(const Vec<double>& x) {
  double s = 0;
  for (double v : x)
    s += v * v;
  return std::sqrt(s);
}

template <class T>
class TridiagTest : public ::testing::Test {};
using Scalars = ::testing::Types<float, double, cfloat, cdouble, dd_real>;
TYPED_TEST_SUITE(TridiagTest, Scalars);

template <class T>
Vec<index_t> sizes() {
  if constexpr (std::is_same_v<T, dd_real>) return {1, 2, 3, 31, 32, 33, 64, 100};
  return {1, 2, 3, 31, 32, 33, 64, 100, 130};
}

TYPED_TEST(TridiagTest, BackwardStableAndOrthogonal) {
  using T = TypeParam;
  const double eps = eps_of(ScalarTraits<T>::unit_roundoff());
  for (index_t n : sizes<T>()) {
    for (int nb : {32, 5}) {
      const Vec<T> F = random_hermitian<T>(n, 100 + n);
      const Result<T> r = run(F, n, 2, nb);
      const Vec<T> Q = build_q(n, r);
      auto [res, orth] = residuals(n, F, Q, r);
      EXPECT_LT(res, 50 * eps) << "n = " << n << " nb = " << nb;
      EXPECT_LT(orth, 50 * eps) << "n = " << n << " nb = " << nb;
      if constexpr (has_vendor_lapack_v<T>) {
        // The reflectors are stored as LAPACK stores them: ?ormtr/?unmtr gives the same Q.
        Vec<T> QL(static_cast<size_t>(n * n), T(0));
        for (index_t i = 0; i < n; ++i)
          QL[i + n * i] = T(1);
        // LAPACKE checks the whole square A for NaN: clear the poisoned upper triangle.
        Vec<T> AL = r.A;
        for (index_t j = 0; j < n; ++j)
          for (index_t i = 0; i < j; ++i)
            AL[i + n * j] = T(0);
        EXPECT_EQ(lapack_q(n, AL.data(), r.tau.data(), QL.data()), 0);
        auto [res2, orth2] = residuals(n, F, QL, r);
        EXPECT_LT(res2, 50 * eps) << "LAPACK Q, n = " << n;
        EXPECT_LT(orth2, 50 * eps) << "LAPACK Q, n = " << n;
        // Eigenvalues of T against LAPACK on A.
        const Vec<double> wt = sterf(r.d, r.e), wa = lapack_eig(n, F);
        double an = 0;
        for (const T& a : F)
          an += mag(a) * mag(a);
        an = std::sqrt(an);
        for (index_t k = 0; k < n; ++k)
          EXPECT_LE(std::fabs(wt[k] - wa[k]), 50 * n * eps * an) << "n = " << n << " k = " << k;
      }
    }
  }
}

TYPED_TEST(TridiagTest, HadamardSpectrumIsRecovered) {
  using T = TypeParam;
  const double eps = eps_of(ScalarTraits<T>::unit_roundoff());
  const index_t max_n = std::is_same_v<T, dd_real> ? 64 : 128;
  for (index_t n = 2; n <= max_n; n *= 2) {
    Vec<double> lambda(n);
    for (index_t k = 0; k < n; ++k)
      lambda[k] = double((k * 7) % 11) - 5.0 + (k % 3 == 0 ? 0 : 16);
    const Vec<T> F = hadamard_matrix<T>(n, lambda);
    const Result<T> r = run(F, n, 3);
    Vec<double> w = tridiag_eigs(r.d, r.e);
    std::sort(lambda.begin(), lambda.end());
    const double tol =
        std::is_same_v<T, dd_real> ? 1e-29 * fro(lambda) : 50 * n * eps * fro(lambda);
    for (index_t k = 0; k < n; ++k)
      EXPECT_LE(std::fabs(w[k] - lambda[k]), tol) << n << " " << k;
    if constexpr (has_vendor_lapack_v<T>) {
      const Vec<double> ws = sterf(r.d, r.e);
      for (index_t k = 0; k < n; ++k)
        EXPECT_LE(std::fabs(ws[k] - lambda[k]), tol);
    }
  }
}

TYPED_TEST(TridiagTest, BitwiseIndependentOfThreadsAndRuns) {
  using T = TypeParam;
  for (index_t n : sizes<T>()) {
    const Vec<T> F = random_hermitian<T>(n, 7 + n);
    const Result<T> r1 = run(F, n, 1);
    EXPECT_TRUE(same_result(r1, run(F, n, 2))) << "threads 2, n = " << n;
    EXPECT_TRUE(same_result(r1, run(F, n, 5))) << "threads 5, n = " << n;
    EXPECT_TRUE(same_result(r1, run(F, n, 1))) << "rerun, n = " << n;
  }
}

TEST(Tridiag, BitwiseIndependentOfThreadsAtASizeWhereEveryStageIsSplit) {
  const index_t n = 300;
  const Vec<double> F = random_hermitian<double>(n, 11);
  const Result<double> r1 = run(F, n, 1);
  EXPECT_TRUE(same_result(r1, run(F, n, 3)));
  const Vec<cdouble> G = random_hermitian<cdouble>(n, 12);
  const Result<cdouble> g1 = run(G, n, 1);
  EXPECT_TRUE(same_result(g1, run(G, n, 2)));
}

TEST(Tridiag, ResultsDependOnTheBlockSizeButStayAccurate) {
  // nb is part of the options of the contract (docs/canonical-tridiagonalization.md).
  const index_t n = 100;
  const Vec<double> F = random_hermitian<double>(n, 13);
  const Result<double> a = run(F, n, 2, 32), b = run(F, n, 2, 16);
  EXPECT_FALSE(same_bits(a.d, b.d) && same_bits(a.e, b.e));
  double diff = 0;
  for (index_t i = 0; i < n; ++i)
    diff = std::max(diff, std::fabs(a.d[i] - b.d[i]));
  EXPECT_LT(diff, 1e-12);
}

TEST(Tridiag, ProgressIsReportedAndDimensionsChecked) {
  const index_t n = 100;
  Vec<double> F = random_hermitian<double>(n, 3);
  Vec<double> d(n), e(n - 1), tau(n - 1);
  Vec<index_t> seen;
  TridiagOptions opt;
  opt.progress = [&](index_t done, index_t total) {
    EXPECT_EQ(total, n);
    seen.push_back(done);
  };
  Context ctx;
  tridiagonalize(ctx, n, F.data(), n, d.data(), e.data(), tau.data(), opt);
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.back(), n);
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
  EXPECT_GE(seen.size(), 3u);
  EXPECT_THROW(tridiagonalize(ctx, index_t(-1), F.data(), n, d.data(), e.data(), tau.data()),
               DimensionError);
  EXPECT_THROW(tridiagonalize(ctx, n, F.data(), n - 1, d.data(), e.data(), tau.data()),
               DimensionError);
  opt.nb = 0;
  EXPECT_THROW(tridiagonalize(ctx, n, F.data(), n, d.data(), e.data(), tau.data(), opt),
               UsageError);
}

}  // namespace
