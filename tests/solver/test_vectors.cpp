// Inverse iteration, back-transformation (canonical vs ?ormtr/?unmtr) and sign normalization.
#include <gtest/gtest.h>
#include <lapacke.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "core/context.hpp"
#include "solver/back_transform.hpp"
#include "solver/bisection.hpp"
#include "solver/inverse_iteration.hpp"
#include "solver/lapack.hpp"
#include "solver_test_util.hpp"

namespace eigsolve {
namespace {

using test::Tridiag;

template <class R>
class VectorsTyped : public ::testing::Test {};
using Reals = ::testing::Types<float, double, dd_real>;
TYPED_TEST_SUITE(VectorsTyped, Reals);

template <class R>
void check_invit(const Tridiag<R>& t, index_t il, index_t iu, double c = 50.0) {
  const index_t n = t.n(), m = iu - il + 1;
  Context ctx;
  ctx.threads = 2;
  std::vector<R> w(m), z(n * m), z1(n * m);
  bisection_eigenvalues(ctx, n, t.d.data(), t.e.data(), il, iu, w.data());
  inverse_iteration(ctx, n, t.d.data(), t.e.data(), m, w.data(), il, z.data(), n);
  double res, orth;
  test::tridiag_residuals(t, m, w.data(), z.data(), res, orth);
  const double eps = 2 * ScalarTraits<R>::unit_roundoff();
  EXPECT_LE(res, c * eps) << "n=" << n;
  EXPECT_LE(orth, c * eps) << "n=" << n;
  ctx.threads = 1;  // thread-count independent bits
  inverse_iteration(ctx, n, t.d.data(), t.e.data(), m, w.data(), il, z1.data(), n);
  EXPECT_EQ(std::memcmp(z.data(), z1.data(), z.size() * sizeof(R)), 0);
}

TYPED_TEST(VectorsTyped, InverseIterationResidualAndOrthogonality) {
  using R = TypeParam;
  const bool dd = std::is_same_v<R, dd_real>;
  check_invit(test::laplace_1d<R>(dd ? 40 : 200), 0, dd ? 39 : 199);
  check_invit(test::kac<R>(30), 0, 30);
  check_invit(test::wilkinson<R>(10), 0, 20);        // close pairs
  check_invit(test::repeated_blocks<R>(12), 0, 35);  // multiplicities, e = 0 splits
  check_invit(test::random_tridiag<R>(dd ? 50 : 300, 3), 3, dd ? 20 : 150);
}

TEST(Vectors, InverseIterationMatchesStein) {
  auto t = test::wilkinson<double>(10);
  const index_t n = t.n();
  Context ctx;
  std::vector<double> w(n), z(n * n), zs(n * n);
  bisection_eigenvalues(ctx, n, t.d.data(), t.e.data(), 0, n - 1, w.data());
  inverse_iteration(ctx, n, t.d.data(), t.e.data(), n, w.data(), 0, z.data(), n);
  lapack::stein(n, t.d.data(), t.e.data(), n, w.data(), zs.data(), n);
  // Up to sign (W+ vectors are (anti)symmetric: their largest components tie in magnitude).
  for (index_t j = 0; j < n; ++j) {
    // Vectors are determined to ~eps ||T|| / gap: skip the famous near-degenerate pairs.
    double gap = 1e300;
    if (j > 0) gap = std::min(gap, w[j] - w[j - 1]);
    if (j + 1 < n) gap = std::min(gap, w[j + 1] - w[j]);
    if (gap < 1e-6) continue;
    double dp = 0, dm = 0;
    for (index_t i = 0; i < n; ++i) {
      dp = std::max(dp, std::fabs(z[i + j * n] - zs[i + j * n]));
      dm = std::max(dm, std::fabs(z[i + j * n] + zs[i + j * n]));
    }
    EXPECT_LE(std::min(dp, dm), 1e-13 / gap) << j;
  }
}

/// A random Hermitian-like reflector set: A columns random, tau from the LAPACK formula is not
/// needed: any tau makes H(i) a (non-unitary) rank-1 update, and both codes apply the same one.
template <class T>
void check_apply_q(index_t n, index_t m) {
  using R = real_t<T>;
  std::uint64_t s = 99;
  std::vector<T> A(n * n), tau(n), Z(n * m), Zg;
  for (auto& a : A)
    a = make_scalar<T>(R(test::rnd(s)), R(test::rnd(s)));
  for (auto& t : tau)
    t = make_scalar<T>(R(test::rnd(s)), R(test::rnd(s)));
  for (auto& z : Z)
    z = make_scalar<T>(R(test::rnd(s)), R(test::rnd(s)));
  Zg = Z;
  Context ctx;
  ctx.threads = 2;
  lapack::ormtr(n, m, A.data(), n, tau.data(), Z.data(), n);
  apply_q_canonical(ctx, n, A.data(), n, tau.data(), m, Zg.data(), n);
  double err = 0, mx = 0;
  for (index_t k = 0; k < n * m; ++k) {
    err = std::max(err, double(abs1(Z[k] - Zg[k])));
    mx = std::max(mx, double(abs1(Z[k])));
  }
  EXPECT_LE(err, 200.0 * n * ScalarTraits<T>::unit_roundoff() * mx) << "n=" << n;
}

TEST(Vectors, GenericBackTransformMatchesOrmtr) {
  check_apply_q<double>(37, 5);
  check_apply_q<double>(70, 70);
  check_apply_q<float>(33, 4);
  check_apply_q<Complex<double>>(41, 6);
  check_apply_q<Complex<float>>(20, 3);
}

TEST(Vectors, GenericBackTransformThreadIndependentDd) {
  const index_t n = 30, m = 7;
  std::uint64_t s = 5;
  std::vector<dd_real> A(n * n), tau(n), Z(n * m);
  for (auto& a : A)
    a = dd_real(test::rnd(s));
  for (auto& t : tau)
    t = dd_real(test::rnd(s));
  for (auto& z : Z)
    z = dd_real(test::rnd(s));
  auto Z1 = Z;
  Context ctx;
  ctx.threads = 1;
  apply_q_canonical(ctx, n, A.data(), n, tau.data(), m, Z.data(), n);
  ctx.threads = 3;
  apply_q_canonical(ctx, n, A.data(), n, tau.data(), m, Z1.data(), n);
  EXPECT_EQ(std::memcmp(Z.data(), Z1.data(), Z.size() * sizeof(dd_real)), 0);
}

TEST(Vectors, SignNormalization) {
  Context ctx;
  std::vector<double> z{0.1, -0.9, 0.3, 0.5, 0.5, -0.5};  // 3 x 2; col 2 tie -> first
  normalize_signs(ctx, 3, 2, z.data(), 3);
  EXPECT_EQ(z[1], 0.9);
  EXPECT_EQ(z[0], -0.1);
  EXPECT_EQ(z[3], 0.5);
  EXPECT_EQ(z[5], -0.5);
  using C = Complex<double>;
  std::vector<C> c{C(0.1, 0.2), C(0.0, -0.8), C(0.3, 0.0)};
  normalize_signs(ctx, 3, 1, c.data(), 3);
  EXPECT_EQ(c[1].re, 0.8);
  EXPECT_EQ(c[1].im, 0.0);
  // (0.1 + 0.2i) * (i) = -0.2 + 0.1i
  EXPECT_NEAR(c[0].re, -0.2, 1e-15);
  EXPECT_NEAR(c[0].im, 0.1, 1e-15);
}

}  // namespace
}  // namespace eigsolve
