// Canonical bisection: closed-form spectra, LAPACK agreement, subsets, thread counts, fast path.
#include <gtest/gtest.h>
#include <lapacke.h>
#include <mpfr.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "core/context.hpp"
#include "core/errors.hpp"
#include "solver/bisection.hpp"
#include "solver_test_util.hpp"

namespace eigsolve {
namespace {

using test::dbl;
using test::Tridiag;

template <class R>
std::vector<R> all_eigs(const Tridiag<R>& t, int threads = 2) {
  Context ctx;
  ctx.threads = threads;
  std::vector<R> w(t.n());
  bisection_eigenvalues(ctx, t.n(), t.d.data(), t.e.data(), 0, t.n() - 1, w.data());
  return w;
}

template <class R>
bool bitwise_equal(const std::vector<R>& a, const std::vector<R>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(R)) == 0;
}

template <class R>
class BisectionTyped : public ::testing::Test {};
using Reals = ::testing::Types<float, double, dd_real>;
TYPED_TEST_SUITE(BisectionTyped, Reals);

template <class R>
double u_of() {
  return ScalarTraits<R>::unit_roundoff();
}

TYPED_TEST(BisectionTyped, KacSpectrumIsExactIntegers) {
  using R = TypeParam;
  for (index_t n : {1, 2, 7, 40}) {
    auto t = test::kac<R>(n);
    auto w = all_eigs(t);
    const double tol = 8.0 * double(n + 1) * u_of<R>() * double(n);
    for (index_t k = 0; k <= n; ++k) {
      R err = w[k] - R(static_cast<double>(-n + 2 * k));
      EXPECT_LE(std::fabs(dbl(err)), tol) << "n=" << n << " k=" << k;
    }
  }
}

/// 2 - 2 cos(k pi/(n+1)) = 4 sin^2(k pi/(2n+2)) with MPFR at 256 bits, as a dd pair.
dd_real laplace_exact(index_t n, index_t k) {
  mpfr_t x, y;
  mpfr_inits2(256, x, y, (mpfr_ptr)0);
  mpfr_const_pi(x, MPFR_RNDN);
  mpfr_mul_si(x, x, static_cast<long>(k), MPFR_RNDN);
  mpfr_div_si(x, x, static_cast<long>(2 * n + 2), MPFR_RNDN);
  mpfr_sin(x, x, MPFR_RNDN);
  mpfr_sqr(x, x, MPFR_RNDN);
  mpfr_mul_ui(x, x, 4, MPFR_RNDN);
  const double hi = mpfr_get_d(x, MPFR_RNDN);
  mpfr_sub_d(y, x, hi, MPFR_RNDN);
  const double lo = mpfr_get_d(y, MPFR_RNDN);
  mpfr_clears(x, y, (mpfr_ptr)0);
  return dd_real(hi, lo);
}

TYPED_TEST(BisectionTyped, Laplace1dMatchesMpfr) {
  using R = TypeParam;
  for (index_t n : {1, 5, 64, 101}) {
    auto t = test::laplace_1d<R>(n);
    auto w = all_eigs(t);
    const double tol = 4.0 * double(n) * u_of<R>() * 4.0;
    for (index_t k = 0; k < n; ++k) {
      const dd_real ex = laplace_exact(n, k + 1);
      dd_real got;
      if constexpr (std::is_same_v<R, dd_real>)
        got = w[k];
      else
        got = dd_real(static_cast<double>(w[k]));
      EXPECT_LE(std::fabs(to_double(got - ex)), tol) << "n=" << n << " k=" << k;
    }
  }
}

TYPED_TEST(BisectionTyped, SubsetsAndThreadsBitwise) {
  using R = TypeParam;
  const index_t n = std::is_same_v<R, dd_real> ? 60 : 300;
  auto t = test::random_tridiag<R>(n, 42);
  auto full = all_eigs(t, 1);
  EXPECT_TRUE(bitwise_equal(full, all_eigs(t, 2)));
  EXPECT_TRUE(bitwise_equal(full, all_eigs(t, 3)));
  // Naive per-eigenvalue definition == fast path.
  std::vector<R> naive(n);
  bisection_eigenvalues_naive(n, t.d.data(), t.e.data(), 0, n - 1, naive.data());
  EXPECT_TRUE(bitwise_equal(full, naive));
  // Index subsets.
  Context ctx;
  ctx.threads = 3;
  for (auto [il, iu] : {std::pair<index_t, index_t>{0, 0}, {n - 1, n - 1}, {5, 17}, {1, n - 2}}) {
    std::vector<R> w(iu - il + 1);
    bisection_eigenvalues(ctx, n, t.d.data(), t.e.data(), il, iu, w.data());
    std::vector<R> slice(full.begin() + il, full.begin() + iu + 1);
    EXPECT_TRUE(bitwise_equal(w, slice)) << il << ".." << iu;
  }
  // Value subsets: (vl, vu] gives an index range, then the same bits.
  index_t il, iu;
  bisection_index_range(n, t.d.data(), t.e.data(), R(-0.5), R(0.25), il, iu);
  ASSERT_LE(il, iu);
  for (index_t k = il; k <= iu; ++k) {
    EXPECT_GT(dbl(full[k]), -0.5 - 1e-5);
    EXPECT_LE(dbl(full[k]), 0.25 + 1e-5);
  }
  if (il > 0) {
    EXPECT_LE(dbl(full[il - 1]), -0.5 + 1e-5);
  }
  if (iu + 1 < n) {
    EXPECT_GT(dbl(full[iu + 1]), 0.25 - 1e-5);
  }
  std::vector<R> w(iu - il + 1);
  bisection_eigenvalues(ctx, n, t.d.data(), t.e.data(), il, iu, w.data());
  EXPECT_TRUE(bitwise_equal(w, std::vector<R>(full.begin() + il, full.begin() + iu + 1)));
}

TYPED_TEST(BisectionTyped, MultiplicitiesAndZeros) {
  using R = TypeParam;
  // Repeated eigenvalues 1 and 3, plus an exactly zero diagonal block: shared tree paths.
  auto t = test::repeated_blocks<R>(20);
  t.d.push_back(R(0));
  t.e.back() = R(0);
  t.e.push_back(R(0));
  auto w = all_eigs(t);
  std::vector<R> naive(t.n());
  bisection_eigenvalues_naive(t.n(), t.d.data(), t.e.data(), 0, t.n() - 1, naive.data());
  EXPECT_TRUE(bitwise_equal(w, naive));
  // The exact zero comes out within the absolute floor 2*pivmin (pivmin = safe_min * 1).
  EXPECT_LE(std::fabs(dbl(w[0])), 4.0 * dbl(bisect::safe_min<R>()));
  for (index_t k = 1; k <= 30; ++k)
    EXPECT_NEAR(dbl(w[k]), 1.0, 10 * u_of<R>()) << k;
  for (index_t k = 31; k <= 60; ++k)
    EXPECT_NEAR(dbl(w[k]), 3.0, 30 * u_of<R>()) << k;
}

template <class R>
void check_vs_sterf(const Tridiag<R>& t) {
  const index_t n = t.n();
  std::vector<R> d(t.d), e(t.e);
  if constexpr (std::is_same_v<R, float>)
    ASSERT_EQ(LAPACKE_ssterf(n, d.data(), e.data()), 0);
  else
    ASSERT_EQ(LAPACKE_dsterf(n, d.data(), e.data()), 0);
  auto w = all_eigs(t);
  const double tol = 10.0 * double(n) * u_of<R>() * test::norm1(t);
  for (index_t k = 0; k < n; ++k)
    EXPECT_NEAR(w[k], d[k], tol) << k;
}

TEST(Bisection, WilkinsonAndRandomVsSterf) {
  check_vs_sterf(test::wilkinson<double>(10));
  check_vs_sterf(test::wilkinson<float>(10));
  check_vs_sterf(test::wilkinson<double>(50));
  check_vs_sterf(test::random_tridiag<double>(500, 7));
  check_vs_sterf(test::random_tridiag<float>(200, 8));
}

TEST(Bisection, SturmSetupEnclosesSpectrum) {
  auto t = test::wilkinson<double>(10);
  std::vector<double> e2(t.n());
  auto s = bisect::sturm_setup(t.n(), t.d.data(), t.e.data(), e2.data());
  EXPECT_EQ(bisect::sturm_count(t.n(), t.d.data(), e2.data(), s.pivmin, s.gl), 0);
  EXPECT_EQ(bisect::sturm_count(t.n(), t.d.data(), e2.data(), s.pivmin, s.gu), t.n());
}

TEST(Bisection, BadRangesThrow) {
  auto t = test::kac<double>(4);
  std::vector<double> w(10);
  Context ctx;
  EXPECT_THROW(bisection_eigenvalues(ctx, 5, t.d.data(), t.e.data(), 0, 5, w.data()),
               DimensionError);
  index_t il, iu;
  EXPECT_THROW(bisection_index_range(5, t.d.data(), t.e.data(), 1.0, 1.0, il, iu), UsageError);
  bisection_index_range(5, t.d.data(), t.e.data(), 0.5, 1.5, il, iu);  // no eigenvalue
  EXPECT_EQ(iu, il - 1);
}

}  // namespace
}  // namespace eigsolve
