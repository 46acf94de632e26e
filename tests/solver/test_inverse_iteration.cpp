// Canonical inverse iteration (docs/canonical-eigenvectors.md): thread-count independent bits,
// residual and orthogonality bounds on hard spectra (big clusters, exact multiplicities), the
// Phase B fallback, and the device-ready dot against core/canonical.hpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "core/canonical.hpp"
#include "core/context.hpp"
#include "solver/bisection.hpp"
#include "solver/inverse_iteration.hpp"
#include "solver/inverse_iteration_kernels.hpp"
#include "solver/inverse_iteration_lanes.hpp"
#include "solver_test_util.hpp"

namespace eigsolve {
namespace {

using test::Tridiag;

template <class R>
class InvitTyped : public ::testing::Test {};
using Reals = ::testing::Types<float, double, dd_real>;
TYPED_TEST_SUITE(InvitTyped, Reals);

template <class R>
constexpr bool is_dd() {
  return std::is_same_v<R, dd_real>;
}

/// k copies of Wilkinson's W+_{2h+1} glued by off-diagonals delta: every eigenvalue of W+
/// becomes a cluster of k within ~delta (the close pairs of W+: clusters of 2k).
template <class R>
Tridiag<R> glued_wilkinson(index_t h, index_t k, double delta) {
  Tridiag<R> t;
  const auto w = test::wilkinson<R>(h);
  for (index_t c = 0; c < k; ++c) {
    t.d.insert(t.d.end(), w.d.begin(), w.d.end());
    t.e.insert(t.e.end(), w.e.begin(), w.e.end());
    t.e.back() = c + 1 < k ? R(delta) : R(0);
  }
  return t;
}

/// An nfold-fold eigenvalue 1 (diagonal, e = 0), then tridiag(-1, 2, -1) of order 50 (whose
/// 17th eigenvalue 2 - 2 cos(pi/3) is 1 up to rounding) split off by e = 0.
template <class R>
Tridiag<R> many_fold(index_t nfold) {
  Tridiag<R> t;
  t.d.assign(nfold, R(1));
  t.e.assign(nfold, R(0));
  const auto l = test::laplace_1d<R>(50);
  t.d.insert(t.d.end(), l.d.begin(), l.d.end());
  t.e.insert(t.e.end(), l.e.begin(), l.e.end());
  return t;
}

/// copies of [2 1 0; 1 2 1; 0 1 2] split by e = 0: 2 - sqrt 2, 2, 2 + sqrt 2, each `copies`-fold,
/// with eigenvectors spread over three rows.
template <class R>
Tridiag<R> repeated_3x3(index_t copies) {
  Tridiag<R> t;
  for (index_t c = 0; c < copies; ++c) {
    t.d.insert(t.d.end(), {R(2), R(2), R(2)});
    t.e.insert(t.e.end(), {R(1), R(1), R(0)});
  }
  return t;
}

/// Eigenvalues il..iu by bisection, vectors with 2 threads; 1 and 3 threads give the same bits;
/// residual and orthogonality below c * eps (test::tridiag_residuals: divided by n ||T|| and
/// by n). Returns the number of Phase B fallbacks.
template <class R>
index_t check(const Tridiag<R>& t, index_t il, index_t iu, double c = 50.0) {
  const index_t n = t.n(), m = iu - il + 1;
  Context ctx;
  ctx.threads = 2;
  std::vector<R> w(m), z(n * m), z1(n * m);
  bisection_eigenvalues(ctx, n, t.d.data(), t.e.data(), il, iu, w.data());
  const index_t fb =
      inverse_iteration_counted(ctx, n, t.d.data(), t.e.data(), m, w.data(), il, z.data(), n);
  double res, orth;
  test::tridiag_residuals(t, m, w.data(), z.data(), res, orth);
  const double eps = 2 * ScalarTraits<R>::unit_roundoff();
  EXPECT_LE(res, c * eps) << "n=" << n;
  EXPECT_LE(orth, c * eps) << "n=" << n;
  for (int threads : {1, 3}) {
    ctx.threads = threads;
    std::fill(z1.begin(), z1.end(), R(0));
    EXPECT_EQ(
        inverse_iteration_counted(ctx, n, t.d.data(), t.e.data(), m, w.data(), il, z1.data(), n),
        fb);
    EXPECT_EQ(std::memcmp(z.data(), z1.data(), z.size() * sizeof(R)), 0) << threads;
  }
  return fb;
}

TYPED_TEST(InvitTyped, StridedDotIsCanonicalDot) {
  using R = TypeParam;
  std::uint64_t s = 3;
  std::vector<R> x(3 * 200), y(2 * 200);
  for (auto& v : x)
    v = R(test::rnd(s));
  for (auto& v : y)
    v = R(test::rnd(s));
  for (index_t n : {0, 1, 5, 8, 9, 63, 64, 65, 130, 200}) {
    for (index_t incx : {1, 3})
      for (index_t incy : {1, 2}) {
        const R a = invit::strided_dot(n, x.data(), incx, y.data(), incy);
        const R b = canonical_dot(n, x.data(), incx, y.data(), incy);
        EXPECT_EQ(std::memcmp(&a, &b, sizeof(R)), 0) << n << " " << incx << " " << incy;
      }
    const R a = invit::strided_dot(n, x.data(), index_t(1), y.data(), index_t(1));
    const R b = contiguous_dot<false>(n, x.data(), y.data());
    EXPECT_EQ(std::memcmp(&a, &b, sizeof(R)), 0) << n;
  }
}

/// The CPU's interleaved Phase A (L lanes, some idle in the last group) == the ES_HD
/// per-vector invit::phase_a, bitwise, with strided work vectors on the scalar side.
template <int L, class R>
void check_lanes(const Tridiag<R>& t, index_t m) {
  const index_t n = t.n();
  std::vector<R> x(m);
  std::uint64_t s = 7;
  for (auto& v : x)
    v = R(2.5 * test::rnd(s));
  if (m > 1) x[1] = x[0];  // equal shifts: identical LU, different start vectors
  invit::Params<R> P;
  P.onenrm = R(1.5);
  P.eps = R(2) * bisect::unit_roundoff<R>();
  P.tol = P.eps * P.onenrm;
  P.dtpcrt = sqrt_(R(0.1) / R(static_cast<double>(n)));
  P.nr = R(static_cast<double>(n));
  const index_t k0 = 11, inc = 3;
  std::vector<R> z(n * m), zs(n * m), dl(n * inc), dd(n * inc), du(n * inc), du2(n * inc),
      b(n * inc);
  std::vector<unsigned char> sw(n * inc);
  const invit::Work<R> W{dl.data(), dd.data(), du.data(), du2.data(), b.data(), sw.data(), inc};
  invit::LaneWork<R, L> LW(n);
  for (index_t j0 = 0; j0 < m; j0 += L)
    invit::phase_a_lanes<R, L>(n, t.d.data(), t.e.data(), x.data(), P, k0, j0,
                               static_cast<int>(std::min<index_t>(L, m - j0)), LW, z.data(), n);
  for (index_t j = 0; j < m; ++j)
    invit::phase_a(n, t.d.data(), t.e.data(), x[j], P, k0 + j, W, zs.data() + j * n);
  EXPECT_EQ(std::memcmp(z.data(), zs.data(), z.size() * sizeof(R)), 0) << "n=" << n;
}

TYPED_TEST(InvitTyped, LanesEqualPerVectorKernel) {
  using R = TypeParam;
  for (index_t n : {2, 3, 17, 130}) {
    auto t = test::random_tridiag<R>(n, 9 + n);
    check_lanes<4>(t, 7);
    check_lanes<4>(t, 4);
    check_lanes<4>(t, 1);
    check_lanes<8>(t, 19);
    check_lanes<8>(t, 8);
  }
  check_lanes<4>(test::repeated_blocks<R>(10), 9);
  check_lanes<8>(test::repeated_blocks<R>(10), 30);
}

TYPED_TEST(InvitTyped, GluedWilkinson) {
  using R = TypeParam;
  const index_t k = is_dd<R>() ? 6 : 20;
  const auto t = glued_wilkinson<R>(10, k, 1e-10);  // clusters of 20 and 40 (dd: 6, 12)
  check(t, 0, t.n() - 1);
  check(t, 5, t.n() / 2);  // a subset that starts inside a cluster
}

TYPED_TEST(InvitTyped, ManyFoldEigenvalueUsesFallback) {
  using R = TypeParam;
  const index_t nfold = is_dd<R>() ? 300 : 1000;
  const auto t = many_fold<R>(nfold);
  const index_t fb = check(t, 0, t.n() - 1);
  EXPECT_GT(fb, 0) << "the last vectors of a " << nfold << "-fold cluster fall back";
}

TYPED_TEST(InvitTyped, RepeatedBlocks) {
  using R = TypeParam;
  const auto t = repeated_3x3<R>(is_dd<R>() ? 60 : 300);
  check(t, 0, t.n() - 1);
  check(test::repeated_blocks<R>(40), 0, 119);
}

TYPED_TEST(InvitTyped, WilkinsonAndRandom) {
  using R = TypeParam;
  check(test::wilkinson<R>(10), 0, 20);
  check(test::wilkinson<R>(50), 0, 100);
  check(test::random_tridiag<R>(is_dd<R>() ? 150 : 700, 17), 0, is_dd<R>() ? 149 : 699);
}

/// Large random T (clusters of hundreds): bits across threads, residual, and orthogonality
/// against the 200 nearest vectors (farther pairs are separated by much more than ortol).
TEST(Invit, LargeRandomCluster) {
  const auto t = test::random_tridiag<double>(3000, 5);
  const index_t n = t.n();
  Context ctx;
  ctx.threads = 2;
  std::vector<double> w(n), z(n * n), z3(n * n);
  bisection_eigenvalues(ctx, n, t.d.data(), t.e.data(), 0, n - 1, w.data());
  inverse_iteration(ctx, n, t.d.data(), t.e.data(), n, w.data(), 0, z.data(), n);
  ctx.threads = 3;
  inverse_iteration(ctx, n, t.d.data(), t.e.data(), n, w.data(), 0, z3.data(), n);
  EXPECT_EQ(std::memcmp(z.data(), z3.data(), z.size() * sizeof(double)), 0);
  const double eps = 0x1p-52, tn = test::norm1(t);
  double res = 0, orth = 0;
  for (index_t j = 0; j < n; ++j) {
    const double* zj = z.data() + j * n;
    for (index_t i = 0; i < n; ++i) {
      double v = t.d[i] * zj[i] - w[j] * zj[i];
      if (i > 0) v += t.e[i - 1] * zj[i - 1];
      if (i + 1 < n) v += t.e[i] * zj[i + 1];
      res = std::max(res, std::fabs(v));
    }
    for (index_t k = std::max<index_t>(0, j - 200); k <= j; ++k) {
      double s = 0;
      for (index_t i = 0; i < n; ++i)
        s += zj[i] * z[i + k * n];
      orth = std::max(orth, std::fabs(j == k ? s - 1 : s));
    }
  }
  EXPECT_LE(res / (n * tn), 50 * eps);
  EXPECT_LE(orth / n, 50 * eps);
}

}  // namespace
}  // namespace eigsolve
