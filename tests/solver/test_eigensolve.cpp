// The whole pipeline eigensolve<T>() on matrices with exactly known spectra, for all scalars.
#include <gtest/gtest.h>
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "core/errors.hpp"
#include "solver/eigensolve.hpp"
#include "solver/lapack.hpp"
#include "solver_test_util.hpp"

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

/// A = H diag(l) H^T / n (Sylvester H), exact; complex: S A S^H with S = diag(i^k).
template <class T>
HostMatrix<T> hadamard_matrix(index_t n, const std::vector<double>& l) {
  using R = real_t<T>;
  auto h = [](index_t i, index_t j) { return __builtin_popcountll(i & j) % 2 ? -1.0 : 1.0; };
  HostMatrix<T> A(n);
  for (index_t j = 0; j < n; ++j)
    for (index_t i = 0; i < n; ++i) {
      double s = 0;
      for (index_t k = 0; k < n; ++k)
        s += h(i, k) * l[k] * h(j, k);
      s /= double(n);
      if constexpr (is_complex_v<T>) {
        const int p = static_cast<int>(((i - j) % 4 + 4) % 4);  // i^(i-j)
        const R re = R(p == 0 ? s : (p == 2 ? -s : 0.0)), im = R(p == 1 ? s : (p == 3 ? -s : 0.0));
        A(i, j) = T(re, im);
      } else {
        A(i, j) = R(s);
      }
    }
  return A;
}

template <class T>
double mag(const T& x) {
  return to_double(abs1(x));
}

/// max |A Z - Z diag(w)| / (n ||A||) and max |I - Z^H Z| / n, in T arithmetic.
template <class T>
void residuals(const HostMatrix<T>& A, const SolveResult<T>& r, double anorm, double& res,
               double& orth) {
  const index_t n = A.n, m = r.m;
  res = orth = 0;
  for (index_t j = 0; j < m; ++j) {
    const T* z = r.z.data() + j * n;
    for (index_t i = 0; i < n; ++i) {
      T s = T(0);
      for (index_t k = 0; k < n; ++k)
        s = madd(A(i, k), z[k], s);
      s = s - z[i] * T(r.w[j]);
      res = std::max(res, mag(s));
    }
    for (index_t k = 0; k < m; ++k) {
      T s = T(0);
      for (index_t i = 0; i < n; ++i)
        s = madd_conj(z[i], r.z[i + k * n], s);
      if (j == k) s = s - T(1);
      orth = std::max(orth, mag(s));
    }
  }
  res /= double(n) * anorm;
  orth /= double(n);
}

template <class T>
SolveResult<T> run(const HostMatrix<T>& A0, TridiagSolver solver, bool vectors, Subset sub = {},
                   int threads = 2) {
  HostMatrix<T> A = A0;
  Context ctx;
  ctx.threads = threads;
  SolveOptions opt;
  opt.solver = solver;
  opt.vectors = vectors;
  opt.subset = sub;
  return eigensolve(ctx, A, opt);
}

template <class T>
void check_hadamard(TridiagSolver solver, index_t n) {
  using R = real_t<T>;
  const auto l = spectrum(n);
  auto sorted = l;
  std::sort(sorted.begin(), sorted.end());
  const double anorm = std::max(std::fabs(sorted.front()), std::fabs(sorted.back()));
  const double u = ScalarTraits<T>::unit_roundoff();
  const double tol = 20.0 * double(n) * u * anorm;
  const auto A = hadamard_matrix<T>(n, l);
  SCOPED_TRACE(std::string(ScalarTraits<T>::name) + " " + tridiag_solver_name(solver));

  auto full = run(A, solver, true);
  ASSERT_EQ(full.m, n);
  for (index_t k = 0; k < n; ++k) {
    EXPECT_LE(std::fabs(to_double(full.w[k] - R(sorted[k]))), tol) << k;
  }
  double res, orth;
  residuals(A, full, anorm, res, orth);
  EXPECT_LE(res, 50 * 2 * u);
  EXPECT_LE(orth, 50 * 2 * u);
  for (index_t j = 0; j < n; ++j) {  // sign normalization
    // The component chosen before scaling is real positive; after the scaling, near-ties
    // (Hadamard vectors have many) may differ by rounding: accept any near-maximal one.
    const T* z = full.z.data() + j * n;
    double mx = 0;
    for (index_t i = 0; i < n; ++i)
      mx = std::max(mx, to_double(abs2(z[i])));
    bool found = false;
    for (index_t i = 0; i < n; ++i)
      found = found || (to_double(abs2(z[i])) >= mx * (1 - 1000 * u) && real_part(z[i]) > R(0) &&
                        imag_part(z[i]) == R(0));
    EXPECT_TRUE(found) << j;
  }
  // Values only == the values of the vector run (bisection: bitwise).
  auto vals = run(A, solver, false);
  ASSERT_EQ(vals.m, n);
  for (index_t k = 0; k < n; ++k)
    EXPECT_LE(std::fabs(to_double(vals.w[k] - full.w[k])), tol);
  // Index subset.
  Subset si;
  si.kind = Subset::Kind::index;
  si.il = 2;
  si.iu = n / 2;
  auto part = run(A, solver, true, si);
  ASSERT_EQ(part.m, si.iu - si.il + 1);
  for (index_t k = 0; k < part.m; ++k) {
    if (solver == TridiagSolver::bisection)
      EXPECT_TRUE(part.w[k] == full.w[k + si.il]) << k;
    else
      EXPECT_LE(std::fabs(to_double(part.w[k] - full.w[k + si.il])), tol) << k;
  }
  residuals(A, part, anorm, res, orth);
  EXPECT_LE(res, 50 * 2 * u);
  EXPECT_LE(orth, 50 * 2 * u);
  // Value subset (-1.5, 2.5]: eigenvalues -1, -1, 0, 0, 0, 1, 2, 2, 2 (+ repeats for n > 16).
  Subset sv;
  sv.kind = Subset::Kind::value;
  sv.vl = -1.5;
  sv.vu = 2.5;
  auto vpart = run(A, solver, false, sv);
  index_t expect_m = 0, first = -1;
  for (index_t k = 0; k < n; ++k)
    if (sorted[k] > -1.5 && sorted[k] <= 2.5) {
      if (first < 0) first = k;
      ++expect_m;
    }
  ASSERT_EQ(vpart.m, expect_m);
  for (index_t k = 0; k < vpart.m; ++k)
    EXPECT_LE(std::fabs(to_double(vpart.w[k] - R(sorted[first + k]))), tol);
}

template <class T>
class EigensolveTyped : public ::testing::Test {};
using Scalars = ::testing::Types<float, double, Complex<float>, Complex<double>, dd_real>;
TYPED_TEST_SUITE(EigensolveTyped, Scalars);

TYPED_TEST(EigensolveTyped, HadamardExactSpectrumAllSolvers) {
  using T = TypeParam;
  check_hadamard<T>(TridiagSolver::bisection, 16);
  if constexpr (has_vendor_lapack_v<T>) {
    for (auto s : {TridiagSolver::sterf, TridiagSolver::stedc, TridiagSolver::stemr})
      check_hadamard<T>(s, 32);
  } else {
    check_hadamard<T>(TridiagSolver::bisection, 32);
    const auto A = hadamard_matrix<T>(8, spectrum(8));
    for (auto s : {TridiagSolver::sterf, TridiagSolver::stedc, TridiagSolver::stemr})
      EXPECT_THROW(run(A, s, false), UsageError);
  }
}

TYPED_TEST(EigensolveTyped, ThreadCountBitwise) {
  using T = TypeParam;
  const index_t n = 24;
  HostMatrix<T> A(n);
  std::uint64_t s = 11;
  for (index_t j = 0; j < n; ++j)
    for (index_t i = j; i < n; ++i) {
      using R = real_t<T>;
      A(i, j) = i == j ? T(R(test::rnd(s))) : make_scalar<T>(R(test::rnd(s)), R(test::rnd(s)));
    }
  auto r1 = run(A, TridiagSolver::bisection, true, {}, 1);
  auto r3 = run(A, TridiagSolver::bisection, true, {}, 3);
  ASSERT_EQ(r1.w.size(), r3.w.size());
  EXPECT_EQ(std::memcmp(r1.w.data(), r3.w.data(), r1.w.size() * sizeof(r1.w[0])), 0);
  EXPECT_EQ(std::memcmp(r1.z.data(), r3.z.data(), r1.z.size() * sizeof(T)), 0);
}

TEST(Eigensolve, RandomVsSyevd) {
  const index_t n = 100;
  HostMatrix<double> A(n);
  std::uint64_t s = 3;
  for (index_t j = 0; j < n; ++j)
    for (index_t i = j; i < n; ++i)
      A(i, j) = A(j, i) = test::rnd(s);
  HostMatrix<double> B = A;
  std::vector<double> w(n);
  ASSERT_EQ(LAPACKE_dsyevd(LAPACK_COL_MAJOR, 'N', 'L', n, B.ptr(), n, w.data()), 0);
  auto r = run(A, TridiagSolver::bisection, false);
  for (index_t k = 0; k < n; ++k)
    EXPECT_NEAR(r.w[k], w[k], 1e-12 * n) << k;
}

TEST(Eigensolve, NamesAndErrors) {
  for (auto s :
       {TridiagSolver::bisection, TridiagSolver::sterf, TridiagSolver::stedc, TridiagSolver::stemr})
    EXPECT_EQ(parse_tridiag_solver(tridiag_solver_name(s)), s);
  EXPECT_THROW(parse_tridiag_solver("qr"), UsageError);
  HostMatrix<double> A(4);
  Context ctx;
  SolveOptions opt;
  opt.subset.kind = Subset::Kind::index;
  opt.subset.il = 2;
  opt.subset.iu = 4;
  EXPECT_THROW(eigensolve(ctx, A, opt), UsageError);
  opt.subset.kind = Subset::Kind::value;
  opt.subset.vl = 1;
  opt.subset.vu = 1;
  EXPECT_THROW(eigensolve(ctx, A, opt), UsageError);
  HostMatrix<double> E(0);
  EXPECT_EQ(eigensolve(ctx, E, SolveOptions{}).m, 0);
  // Progress reaches every stage.
  HostMatrix<double> B(3);
  B(0, 0) = 1;
  B(1, 1) = 2;
  B(2, 2) = 3;
  std::vector<std::string> stages;
  opt = SolveOptions{};
  opt.vectors = true;
  opt.progress = [&](const char* st, double) { stages.push_back(st); };
  auto r = eigensolve(ctx, B, opt);
  ASSERT_EQ(r.m, 3);
  for (index_t k = 0; k < 3; ++k)
    EXPECT_NEAR(r.w[k], double(k + 1), 1e-15);
  EXPECT_NE(std::find(stages.begin(), stages.end(), "back-transform"), stages.end());
}

TEST(Eigensolve, StedcVectorsRefusedWhereLapacksWorkspaceCountWraps) {
  // ?stedc's vector workspace is 1 + 4n + n^2 elements counted in a 32-bit integer: the largest
  // n that fits is 46338; above it LAPACK would get a wrapped (negative or too small) size.
  const index_t n0 = lapack::stedc_vectors_max_order();
  EXPECT_EQ(n0, 46338);
  const std::int64_t cap = std::numeric_limits<lapack_int>::max();
  EXPECT_LE(1 + 4 * n0 + n0 * n0, cap);
  EXPECT_GT(1 + 4 * (n0 + 1) + (n0 + 1) * (n0 + 1), cap);
  // Refused before LAPACK is called (nothing is read: the arrays are far too short).
  double d[1] = {0}, e[1] = {0}, z[1] = {0};
  float fd[1] = {0}, fe[1] = {0}, fz[1] = {0};
  EXPECT_THROW(lapack::stedc(n0 + 1, d, e, z, n0 + 1), DimensionError);
  EXPECT_THROW(lapack::stedc(n0 + 1, fd, fe, fz, n0 + 1), DimensionError);
}

}  // namespace
}  // namespace eigsolve
