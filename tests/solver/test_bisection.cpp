// Canonical bisection: closed-form spectra, LAPACK agreement, subsets, thread counts, fast path.
#include <gtest/gtest.h>
#include <lapacke.h>
#include <mpfr.h>

#include <algorithm>
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

// --- Speculative multisection (bisect_eigenvalue_spec, the device's stepping) == definition ---

/// Steps the definition takes for eigenvalue k (its loop, counted).
template <class R>
int definition_steps(index_t n, const R* d, const R* e2, const bisect::SturmSetup<R>& s,
                     index_t k) {
  R lo = s.gl, hi = s.gu;
  int it = 0;
  for (; it < bisect::kMaxBisectIter; ++it) {
    const R mid = bisect::midpoint(lo, hi);
    if (bisect::converged(lo, hi, mid, s.pivmin)) break;
    if (bisect::sturm_count(n, d, e2, s.pivmin, mid) > k)
      hi = mid;
    else
      lo = mid;
  }
  return it;
}

/// The shared table of the first `top` levels over [gl, gu] (what the device's top kernel
/// computes): count(spec_point(gl, gu, j)) for the heap nodes j < 2^top - 1.
template <class R>
std::vector<index_t> top_table(index_t n, const R* d, const R* e2, const bisect::SturmSetup<R>& s,
                               int top) {
  std::vector<index_t> c(static_cast<std::size_t>((1 << top) - 1));
  for (int j = 0; j < int(c.size()); ++j)
    c[j] = bisect::sturm_count(n, d, e2, s.pivmin, bisect::spec_point(s.gl, s.gu, j));
  return c;
}

struct SpecCoverage {
  int stop_level[3] = {0, 0, 0};  // L = 3: the definition stops at level (steps % 3) of a round
  int stop_in_top = 0;            // stops inside the shared top levels
  int cases = 0;
};

/// Every k of (d, e): bisect_eigenvalue_spec<1|2|3> with top tables of 0..`max_top` levels
/// == bisect_eigenvalue, bitwise.
template <class R>
void check_spec(const std::vector<R>& d, const std::vector<R>& e, const char* what,
                SpecCoverage& cov, int max_top = 6) {
  const index_t n = static_cast<index_t>(d.size());
  std::vector<R> e2(static_cast<std::size_t>(n > 1 ? n - 1 : 1));
  const bisect::SturmSetup<R> s = bisect::sturm_setup(n, d.data(), e.data(), e2.data());
  std::vector<std::vector<index_t>> tops;
  for (int t = 1; t <= max_top; ++t)
    tops.push_back(top_table(n, d.data(), e2.data(), s, t));
  for (index_t k = 0; k < n; ++k) {
    const R ref = bisect::bisect_eigenvalue(n, d.data(), e2.data(), s, k);
    const int steps = definition_steps(n, d.data(), e2.data(), s, k);
    ++cov.cases;
    ++cov.stop_level[steps % 3];
    R got[3] = {bisect::bisect_eigenvalue_spec<1>(n, d.data(), e2.data(), s, k),
                bisect::bisect_eigenvalue_spec<2>(n, d.data(), e2.data(), s, k),
                bisect::bisect_eigenvalue_spec<3>(n, d.data(), e2.data(), s, k)};
    for (int l = 0; l < 3; ++l)
      EXPECT_EQ(std::memcmp(&ref, &got[l], sizeof(R)), 0)
          << ScalarTraits<R>::name << " " << what << " n=" << n << " k=" << k << " L=" << l + 1;
    for (int t = 1; t <= max_top; ++t) {
      if (steps < t) ++cov.stop_in_top;
      const index_t* c = tops[t - 1].data();
      R g2 = bisect::bisect_eigenvalue_spec<2>(n, d.data(), e2.data(), s, k, t, c);
      R g3 = bisect::bisect_eigenvalue_spec<3>(n, d.data(), e2.data(), s, k, t, c);
      EXPECT_EQ(std::memcmp(&ref, &g2, sizeof(R)), 0)
          << ScalarTraits<R>::name << " " << what << " n=" << n << " k=" << k << " top=" << t;
      EXPECT_EQ(std::memcmp(&ref, &g3, sizeof(R)), 0)
          << ScalarTraits<R>::name << " " << what << " n=" << n << " k=" << k << " top=" << t;
    }
  }
}

TYPED_TEST(BisectionTyped, SpeculativeMultisectionBitwise) {
  using R = TypeParam;
  constexpr bool is_dd = std::is_same_v<R, dd_real>;
  constexpr bool is_f = std::is_same_v<R, float>;
  SpecCoverage cov;
  const index_t big = is_dd ? 40 : 120;
  // Random, n = 1, 2, 3 and larger.
  for (index_t n : {index_t(1), index_t(2), index_t(3), index_t(17), big}) {
    auto t = test::random_tridiag<R>(n, 100 + n);
    t.e.resize(std::max<index_t>(n - 1, 1));
    check_spec(t.d, t.e, "random", cov);
  }
  {  // Glued Wilkinson: 3 copies of W21+ glued by a small coupling (tight pairs).
    auto w = test::wilkinson<R>(10);
    std::vector<R> d, e;
    for (int b = 0; b < 3; ++b) {
      d.insert(d.end(), w.d.begin(), w.d.end());
      e.insert(e.end(), w.e.begin(), w.e.end() - 1);
      e.push_back(R(is_f ? 1e-4 : 1e-8));
    }
    e.pop_back();
    check_spec(d, e, "glued wilkinson", cov);
  }
  {  // All-equal diagonal with tiny e: one tight cluster, stops inside the top levels.
    for (index_t n : {index_t(2), index_t(8), index_t(33)}) {
      std::vector<R> d(n, R(1)), e(n - 1, R(is_f ? 1e-30 : 1e-200));
      check_spec(d, e, "equal diagonal, tiny e", cov, 8);
    }
  }
  {  // Zero e (diagonal T), with zeros, repeats and both signs.
    const index_t n = 13;
    std::vector<R> d(n), e(n - 1, R(0));
    for (index_t i = 0; i < n; ++i)
      d[i] = R(double((i * 7) % 5) - 2.0);
    check_spec(d, e, "diagonal", cov);
    std::vector<R> z(n, R(0));
    check_spec(z, e, "zero", cov);
  }
  {  // Degenerate clusters: repeated 2x2 blocks (eigenvalues 1, 3 with high multiplicity).
    auto t = test::repeated_blocks<R>(is_dd ? 6 : 12);
    t.e.pop_back();
    check_spec(t.d, t.e, "repeated blocks", cov);
  }
  {  // Huge and tiny scales (near overflow: e2 must stay finite; near underflow: pivmin floor).
    const int hd = is_f ? 120 : (is_dd ? 900 : 1015);
    const int he = is_f ? 60 : (is_dd ? 450 : 500);
    const int tiny = is_f ? -120 : (is_dd ? -900 : -1000);
    auto t = test::random_tridiag<R>(24, 77);
    std::vector<R> dh(24), eh(23), dt(24), et(23);
    for (index_t i = 0; i < 24; ++i) {
      dh[i] = scale2(t.d[i], hd);
      dt[i] = scale2(t.d[i], tiny);
    }
    for (index_t i = 0; i < 23; ++i) {
      eh[i] = scale2(t.e[i], he);
      et[i] = scale2(t.e[i], tiny);
    }
    check_spec(dh, eh, "huge", cov);
    check_spec(dt, et, "tiny", cov);
  }
  // The cases stop at every level of an L = 3 round and inside the shared top levels.
  EXPECT_GT(cov.stop_level[0], 0);
  EXPECT_GT(cov.stop_level[1], 0);
  EXPECT_GT(cov.stop_level[2], 0);
  EXPECT_GT(cov.stop_in_top, 0);
}

TEST(Bisection, SpecPointIsTheSequentialMidpoint) {
  // Heap node j's point is the midpoint the sequential search forms after the same decisions.
  const double lo = -3.0, hi = 5.5;
  EXPECT_EQ(bisect::spec_point(lo, hi, 0), 1.25);
  EXPECT_EQ(bisect::spec_point(lo, hi, 1), bisect::midpoint(lo, 1.25));
  EXPECT_EQ(bisect::spec_point(lo, hi, 2), bisect::midpoint(1.25, hi));
  EXPECT_EQ(bisect::spec_point(lo, hi, 5), bisect::midpoint(1.25, bisect::midpoint(1.25, hi)));
  EXPECT_EQ(bisect::spec_depth(0), 0);
  EXPECT_EQ(bisect::spec_depth(2), 1);
  EXPECT_EQ(bisect::spec_depth(3), 2);
  EXPECT_EQ(bisect::spec_depth(6), 2);
  EXPECT_EQ(bisect::spec_depth(7), 3);
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
