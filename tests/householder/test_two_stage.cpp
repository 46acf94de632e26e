// The two-stage reduction through the whole pipeline (eigensolve with Reduction::two_stage,
// docs/canonical-two-stage.md): exact spectra for every scalar, agreement with the one-stage
// order and LAPACK, bitwise independence of the thread count, and its usage errors.
#include <gtest/gtest.h>
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "core/errors.hpp"
#include "householder/two_stage.hpp"
#include "solver/eigensolve.hpp"
#include "tests/common/hermitian_matrices.hpp"

namespace eigsolve {
namespace {

/// The spectrum used with a Hadamard matrix of order n (multiplicities, signs, a zero).
std::vector<double> spectrum(index_t n) {
  static const double pattern[] = {-3, -1, -1, 0, 0, 0, 1, 2, 2, 2, 5, -4, 7, 7, 3, -2};
  std::vector<double> l(n);
  for (index_t k = 0; k < n; ++k)
    l[k] = pattern[k % 16] + (k >= 16 ? 16 * ((k / 16) % 2) : 0);
  return l;
}

/// The Hadamard matrix of tests/common/hermitian_matrices.hpp (exact entries, spectrum l).
template <class T>
HostMatrix<T> hadamard_matrix(index_t n, const std::vector<double>& l) {
  const auto F = test_util::hadamard_matrix<T>(n, l);
  HostMatrix<T> A(n);
  std::copy(F.begin(), F.end(), A.ptr());
  return A;
}

template <class T>
HostMatrix<T> random_hermitian(index_t n, unsigned seed) {
  using R = real_t<T>;
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  HostMatrix<T> A(n);
  for (index_t j = 0; j < n; ++j)
    for (index_t i = j; i < n; ++i) {
      if constexpr (is_complex_v<T>)
        A(i, j) = T(R(u(g)), i == j ? R(0) : R(u(g)));
      else
        A(i, j) = R(u(g));
    }
  return A;
}

template <class T>
double unit_roundoff() {
  if constexpr (std::is_same<real_t<T>, float>::value) return 0x1p-24;
  if constexpr (std::is_same<real_t<T>, double>::value) return 0x1p-53;
  return 0x1p-104;  // dd_real
}

template <class T>
SolveResult<T> solve(HostMatrix<T> A, int threads, Reduction red, int band,
                     Backend backend = Backend::cpu) {
  Context ctx;
  ctx.threads = threads;
  ctx.backend = backend;
  SolveOptions opt;
  opt.reduction = red;
  opt.band = band;
  return eigensolve(ctx, A, opt);
}

template <class T>
class TwoStageTyped : public ::testing::Test {};
using Scalars = ::testing::Types<float, double, Complex<float>, Complex<double>, dd_real>;
TYPED_TEST_SUITE(TwoStageTyped, Scalars);

// Exact spectra: |lambda - exact| <= 4 n u ||A|| (a backward-stable reduction and bisection).
TYPED_TEST(TwoStageTyped, HadamardExactSpectrum) {
  using T = TypeParam;
  for (index_t n : {16, 64, 128})
    for (int b : {1, 3, 8, 32}) {
      const auto l = spectrum(n);
      const auto res = solve(hadamard_matrix<T>(n, l), 2, Reduction::two_stage, b);
      auto exact = l;
      std::sort(exact.begin(), exact.end());
      double amax = 0;
      for (double v : exact)
        amax = std::max(amax, std::fabs(v));
      ASSERT_EQ(res.w.size(), exact.size());
      const double tol = 4.0 * double(n) * unit_roundoff<T>() * amax;
      for (index_t k = 0; k < n; ++k)
        EXPECT_LE(std::fabs(to_double(res.w[k]) - exact[k]), tol)
            << "n = " << n << ", b = " << b << ", k = " << k;
    }
}

// The thread count never changes a bit, and neither does running again.
TYPED_TEST(TwoStageTyped, BitwiseForThreadCounts) {
  using T = TypeParam;
  const index_t n = std::is_same<T, dd_real>::value ? 90 : 230;
  const auto A = random_hermitian<T>(n, 7);
  const auto r1 = solve(A, 1, Reduction::two_stage, 8);
  for (int threads : {2, 3, 1}) {
    const auto r = solve(A, threads, Reduction::two_stage, 8);
    ASSERT_EQ(r.w.size(), r1.w.size());
    EXPECT_EQ(0, std::memcmp(r.w.data(), r1.w.data(), sizeof(r.w[0]) * r.w.size()))
        << "threads = " << threads;
  }
}

// Small orders around the band width, and n <= b + 1 (the whole matrix is one band).
TYPED_TEST(TwoStageTyped, SmallOrders) {
  using T = TypeParam;
  for (index_t n : {1, 2, 3, 4, 7, 8, 9, 33, 34})
    for (int b : {1, 2, 8, 32}) {
      const auto A = random_hermitian<T>(n, unsigned(100 + n));
      const auto two = solve(A, 2, Reduction::two_stage, b);
      const auto one = solve(A, 2, Reduction::one_stage, 32);
      ASSERT_EQ(two.w.size(), size_t(n));
      for (index_t k = 0; k < n; ++k)
        EXPECT_NEAR(to_double(two.w[k]), to_double(one.w[k]),
                    8.0 * double(n + 1) * unit_roundoff<T>() * double(n))
            << "n = " << n << ", b = " << b << ", k = " << k;
    }
}

// Random matrices against LAPACK ?syev / ?heev (d and z), and the one-stage order: a different
// canonical order, the same eigenvalues to rounding.
TEST(TwoStage, RandomAgainstLapack) {
  for (index_t n : {100, 257}) {
    const auto A = random_hermitian<double>(n, 11);
    auto L = A;
    std::vector<double> w(n);
    ASSERT_EQ(0, LAPACKE_dsyev(LAPACK_COL_MAJOR, 'N', 'L', n, L.ptr(), n, w.data()));
    for (int b : {4, 32, 64}) {
      const auto r = solve(A, 2, Reduction::two_stage, b);
      for (index_t k = 0; k < n; ++k)
        EXPECT_NEAR(r.w[k], w[k], 1e-12 * double(n)) << "n = " << n << ", b = " << b;
    }
    const auto Z = random_hermitian<Complex<double>>(n, 12);
    auto LZ = Z;
    ASSERT_EQ(0, LAPACKE_zheev(LAPACK_COL_MAJOR, 'N', 'L', n,
                               reinterpret_cast<lapack_complex_double*>(LZ.ptr()), n, w.data()));
    const auto rz = solve(Z, 2, Reduction::two_stage, 16);
    for (index_t k = 0; k < n; ++k)
      EXPECT_NEAR(rz.w[k], w[k], 1e-12 * double(n)) << "z, n = " << n;
  }
}

// The band width is part of the contract: another b, another (close) result.
TEST(TwoStage, ReductionAndBandAreOptionsOfTheContract) {
  const auto A = random_hermitian<double>(150, 5);
  const auto a = solve(A, 2, Reduction::two_stage, 8);
  const auto b = solve(A, 2, Reduction::two_stage, 16);
  const auto c = solve(A, 2, Reduction::one_stage, 32);
  double dab = 0, dac = 0;
  for (size_t k = 0; k < a.w.size(); ++k) {
    dab = std::max(dab, std::fabs(a.w[k] - b.w[k]));
    dac = std::max(dac, std::fabs(a.w[k] - c.w[k]));
  }
  EXPECT_LT(dab, 1e-11);
  EXPECT_LT(dac, 1e-11);
}

TEST(TwoStage, UsageErrors) {
  auto A = random_hermitian<double>(20, 3);
  Context ctx;
  SolveOptions opt;
  opt.reduction = Reduction::two_stage;
  opt.vectors = true;
  opt.back_transform = BackTransformMethod::lapack;  // ?ormtr has no two-stage form
  EXPECT_THROW(eigensolve(ctx, A, opt), UsageError);
  opt.reduction = Reduction::automatic;  // n = 20: one-stage, where lapack is allowed
  EXPECT_NO_THROW(eigensolve(ctx, A, opt));
  opt.back_transform = BackTransformMethod::canonical;
  opt.reduction = Reduction::two_stage;
  opt.vectors = false;
  opt.band = 0;
  EXPECT_THROW(eigensolve(ctx, A, opt), UsageError);
  opt.reduction = Reduction::automatic;  // the band width is checked whatever n is
  EXPECT_THROW(eigensolve(ctx, A, opt), UsageError);
  opt.band = 32;
  EXPECT_EQ(parse_reduction("two-stage"), Reduction::two_stage);
  EXPECT_EQ(parse_reduction("one-stage"), Reduction::one_stage);
  EXPECT_EQ(parse_reduction("auto"), Reduction::automatic);
  EXPECT_STREQ(reduction_name(Reduction::automatic), "auto");
  EXPECT_THROW(parse_reduction("2"), UsageError);
  std::vector<double> d(4), e(4);
  std::vector<double> M(16, 0.0);
  EXPECT_THROW(tridiagonalize_two_stage(Context{}, 4, 0, M.data(), 4, d.data(), e.data()),
               UsageError);
  EXPECT_THROW(tridiagonalize_two_stage(Context{}, 4, 2, M.data(), 3, d.data(), e.data()),
               DimensionError);
}

// --reduction auto, the default: a function of n, the precision and --vectors only (so every
// backend picks the same); for eigenvalues two-stage from the orders docs/reproducibility.md
// lists (sessions 42 and 47: s and d at every order), with vectors the same in s and d (their
// eigenvalue bits never depend on --vectors) and never in c, z and dd.
TEST(TwoStage, AutoPicksByOrderPrecisionAndVectors) {
  const std::pair<Precision, index_t> documented[] = {{Precision::s, 1},
                                                      {Precision::d, 1},
                                                      {Precision::c, 4096},
                                                      {Precision::z, 7168},
                                                      {Precision::dd, 10240}};
  for (const auto& [p, n_doc] : documented) {
    const index_t n0 = two_stage_min_order(p);
    EXPECT_EQ(n0, n_doc) << precision_name(p);
    EXPECT_GE(n0, 1);
    EXPECT_LE(n0, 16384);  // the sizes run the faster reduction
    if (n0 > 1) {
      EXPECT_EQ(resolve_reduction(Reduction::automatic, n0 - 1, p, false), Reduction::one_stage);
    }
    EXPECT_EQ(resolve_reduction(Reduction::automatic, n0, p, false), Reduction::two_stage);
    EXPECT_EQ(resolve_reduction(Reduction::automatic, 4 * n0, p, false), Reduction::two_stage);
    const index_t nv = two_stage_min_order_vectors(p);
    EXPECT_GE(nv, n0);  // vectors never move the crossover down
    EXPECT_EQ(resolve_reduction(Reduction::automatic, 4 * n0, p, true),
              4 * n0 >= nv ? Reduction::two_stage : Reduction::one_stage);
    if (p == Precision::d || p == Precision::s) {
      EXPECT_EQ(nv, n0);  // one rule: the eigenvalue bits do not depend on --vectors
      for (const index_t n : {index_t(1), index_t(2), index_t(33), index_t(1000), index_t(20000)}) {
        EXPECT_EQ(resolve_reduction(Reduction::automatic, n, p, true), Reduction::two_stage);
        EXPECT_EQ(resolve_reduction(Reduction::automatic, n, p, false), Reduction::two_stage);
      }
    } else {
      EXPECT_EQ(resolve_reduction(Reduction::automatic, nv - 1, p, true), Reduction::one_stage);
      EXPECT_EQ(resolve_reduction(Reduction::automatic, index_t(1) << 40, p, true),
                Reduction::one_stage);
    }
    EXPECT_EQ(resolve_reduction(Reduction::one_stage, 4 * n0, p, false), Reduction::one_stage);
    EXPECT_EQ(resolve_reduction(Reduction::two_stage, 2, p, true), Reduction::two_stage);
  }
  EXPECT_EQ(SolveOptions{}.reduction, Reduction::automatic);
  auto A = random_hermitian<double>(40, 5);
  const auto res = eigensolve(Context{}, A, SolveOptions{});
  EXPECT_EQ(res.reduction, Reduction::two_stage);  // d: every order
  auto Z = random_hermitian<Complex<double>>(40, 5);
  EXPECT_EQ(eigensolve(Context{}, Z, SolveOptions{}).reduction, Reduction::one_stage);  // 40 < 7168
  // LAPACK's back-transformation knows only the one-stage reflectors: auto picks that reduction
  // for it (never the canonical back-transformation in its place).
  SolveOptions lap;
  lap.vectors = true;
  lap.back_transform = BackTransformMethod::lapack;
  for (const Precision p : {Precision::s, Precision::d, Precision::c, Precision::z})
    for (const index_t n : {index_t(1), index_t(40), index_t(20000)}) {
      EXPECT_EQ(resolve_reduction(lap, n, p), Reduction::one_stage);
      SolveOptions canon = lap;
      canon.back_transform = BackTransformMethod::canonical;
      EXPECT_EQ(resolve_reduction(canon, n, p),
                resolve_reduction(Reduction::automatic, n, p, true));
    }
  SolveOptions values = lap;
  values.vectors = false;  // no vectors: the back-transformation does not choose
  EXPECT_EQ(resolve_reduction(values, 40, Precision::d), Reduction::two_stage);
  auto B = random_hermitian<double>(40, 6);
  const auto rl = eigensolve(Context{}, B, lap);
  EXPECT_EQ(rl.reduction, Reduction::one_stage);
  EXPECT_EQ(rl.z.size(), std::size_t(40 * 40));
}

}  // namespace
}  // namespace eigsolve
