// reduce_to_band (stage 1 of the two-stage reduction, docs/canonical-two-stage.md): the band's
// eigenvalues against ?syev/?heev and exact (Hadamard) spectra, backward error and
// orthogonality of Q1 rebuilt from the reflectors, bitwise independence of the thread count and
// of the run, and bitwise equality with a literal scalar transcription of the spec.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <lapacke.h>

#include "core/canonical.hpp"
#include "core/errors.hpp"
#include "core/precision.hpp"
#include "householder/larfg.hpp"
#include "householder/tridiagonalize.hpp"
#include "householder/two_stage.hpp"
#include "tests/common/hermitian_matrices.hpp"
#include "tests/common/random_scalar.hpp"
#include "tests/common/structured_zeros.hpp"

using namespace eigsolve;

namespace {

template <class T>
using Vec = std::vector<T>;

using eigsolve::test_util::hadamard_matrix;
using eigsolve::test_util::random_hermitian;
using eigsolve::test_util::random_scalar;
using eigsolve::test_util::rounded;
using eigsolve::test_util::Zeros;

template <class T>
double mag(const T& a) {
  if constexpr (is_complex_v<T>)
    return std::sqrt(to_double(abs2(a)));
  else
    return std::fabs(to_double(a));
}

template <class T>
double eps_of() {
  return 2 * ScalarTraits<T>::unit_roundoff();
}

template <class T>
struct Result {
  Vec<T> A, tau;
};

/// reduce_to_band on a copy of F whose strict upper triangle is poisoned with NaN (never read).
template <class T>
Result<T> run(const Vec<T>& F, index_t n, index_t b, int threads) {
  Result<T> r;
  r.A = F;
  for (index_t j = 0; j < n; ++j)
    for (index_t i = 0; i < j; ++i)
      r.A[i + n * j] = T(std::nan(""));
  r.tau.assign(static_cast<size_t>(n), T(7));  // must all be written
  Context ctx;
  ctx.threads = threads;
  reduce_to_band(ctx, n, b, r.A.data(), std::max<index_t>(n, 1), r.tau.data());
  return r;
}

/// The full Hermitian band matrix B: B(r, c) from the result for 0 <= r - c <= b, mirrored.
template <class T>
Vec<T> band_matrix(index_t n, index_t b, const Vec<T>& A) {
  Vec<T> B(static_cast<size_t>(n * n), T(0));
  for (index_t c = 0; c < n; ++c)
    for (index_t r = c; r < n && r - c <= b; ++r) {
      B[r + n * c] = A[r + n * c];
      B[c + n * r] = conj(A[r + n * c]);
    }
  return B;
}

/// Q1 = H_0 H_1 ... H_{n-1}: reflector j has its unit at row j + b and v below it in column j.
template <class T>
Vec<T> build_q1(index_t n, index_t b, const Result<T>& r) {
  Vec<T> Q(static_cast<size_t>(n * n), T(0));
  for (index_t i = 0; i < n; ++i)
    Q[i + n * i] = T(1);
  Vec<T> v(static_cast<size_t>(n));
  for (index_t j = n - 1; j >= 0; --j) {
    const index_t u = j + b;
    if (u >= n) {
      EXPECT_TRUE(r.tau[j] == T(0)) << "no reflector at column " << j;
      continue;
    }
    v[u] = T(1);
    for (index_t i = u + 1; i < n; ++i)
      v[i] = r.A[i + n * j];
    for (index_t c = 0; c < n; ++c) {
      T s = T(0);
      for (index_t i = u; i < n; ++i)
        s = s + conj(v[i]) * Q[i + n * c];
      s = r.tau[j] * s;
      for (index_t i = u; i < n; ++i)
        Q[i + n * c] = Q[i + n * c] - v[i] * s;
    }
  }
  return Q;
}

/// ||Q^H F Q - B||_F / (n ||F||_F) and ||I - Q^H Q||_F / n.
template <class T>
std::pair<double, double> residuals(index_t n, const Vec<T>& F, const Vec<T>& Q, const Vec<T>& B) {
  Vec<T> FQ(static_cast<size_t>(n * n));
  for (index_t j = 0; j < n; ++j)
    for (index_t i = 0; i < n; ++i) {
      T s = T(0);
      for (index_t k = 0; k < n; ++k)
        s = s + F[i + n * k] * Q[k + n * j];
      FQ[i + n * j] = s;
    }
  double fn = 0, rn = 0, on = 0;
  for (index_t j = 0; j < n; ++j)
    for (index_t i = 0; i < n; ++i) {
      T s = T(0), o = T(0);
      for (index_t k = 0; k < n; ++k) {
        s = s + conj(Q[k + n * i]) * FQ[k + n * j];
        o = o + conj(Q[k + n * i]) * Q[k + n * j];
      }
      const double x = mag(s - B[i + n * j]), y = mag(o - T(i == j ? 1 : 0));
      rn += x * x;
      on += y * y;
      fn += mag(F[i + n * j]) * mag(F[i + n * j]);
    }
  return {std::sqrt(rn) / (n * std::sqrt(fn)), std::sqrt(on) / n};
}

template <class T>
double fro(index_t n, const Vec<T>& F) {
  double s = 0;
  for (index_t i = 0; i < n * n; ++i)
    s += mag(F[i]) * mag(F[i]);
  return std::sqrt(s);
}

template <class T>
Vec<double> lapack_eig(index_t n, Vec<T> F) {
  Vec<real_t<T>> w(static_cast<size_t>(n));
  if (n == 0) return {};
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

/// Eigenvalues of the Hermitian F in real_t<T> (dd included): the one-stage tridiagonalize, then
/// bisection on Sturm counts.
template <class T>
Vec<double> own_eig(index_t n, Vec<T> F) {
  using R = real_t<T>;
  Vec<R> d(static_cast<size_t>(n)), e(static_cast<size_t>(std::max<index_t>(n - 1, 0)));
  Vec<T> tau(e.size());
  Context ctx;
  ctx.threads = 1;
  tridiagonalize(ctx, n, F.data(), n, d.data(), e.data(), tau.data());
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
      if (q == R(0)) q = R(std::numeric_limits<float>::min());
      q = (d[i] - x) - (e[i - 1] * e[i - 1]) / q;
      if (q < R(0)) ++c;
    }
    return c;
  };
  Vec<double> w(static_cast<size_t>(n));
  for (index_t k = 0; k < n; ++k) {
    R lo = -bound - R(1), hi = bound + R(1);
    for (int it = 0; it < 250; ++it) {
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

template <class T>
bool same_bits(const Vec<T>& a, const Vec<T>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}
template <class T>
bool same_result(const Result<T>& a, const Result<T>& b) {
  return same_bits(a.A, b.A) && same_bits(a.tau, b.tau);
}

template <class T>
void expect_real_diagonal(index_t n, const Vec<T>& A) {
  if constexpr (is_complex_v<T>) {
    for (index_t i = 0; i < n; ++i)
      EXPECT_EQ(A[i + n * i].im, real_t<T>(0)) << "i = " << i;
  }
}

// --- A literal transcription of docs/canonical-two-stage.md, "Stage 1" ----------------------

template <class T>
T spec_half(const T& s) {  // "0.5·s scales both components by the real constant"
  if constexpr (is_complex_v<T>)
    return T(real_t<T>(0.5) * s.re, real_t<T>(0.5) * s.im);
  else if constexpr (std::is_same_v<T, dd_real>)
    return dd_real(0.5 * s.hi, 0.5 * s.lo);
  else
    return T(0.5) * s;
}

template <class T>
void spec_reduce_to_band(index_t n, index_t b, Vec<T>& A, Vec<T>& tau1) {
  auto a = [&](index_t r, index_t c) -> T& { return A[r + n * c]; };
  for (index_t i = 0; i < n; ++i)
    a(i, i) = T(real_part(a(i, i)));
  tau1.assign(static_cast<size_t>(n), T(0));
  for (index_t j0 = 0; j0 + b < n; j0 += b) {
    const index_t r0 = j0 + b, m = n - r0, k = std::min(b, m);
    auto P = [&](index_t r, index_t c) -> T& { return a(r0 + r, j0 + c); };
    auto A22 = [&](index_t r, index_t c) -> T& { return a(r0 + r, r0 + c); };
    Vec<T> V(static_cast<size_t>(m * k), T(0)), tau(static_cast<size_t>(k));
    auto v = [&](index_t r, index_t c) -> T& { return V[r + m * c]; };
    // 1. Panel QR.
    for (index_t i = 0; i < k; ++i) {
      T alpha = P(i, i);
      tau[i] = hh_detail::larfg(m - i, alpha, &P(std::min(i + 1, m - 1), i));
      P(i, i) = alpha;
      v(i, i) = T(1);
      for (index_t r = i + 1; r < m; ++r)
        v(r, i) = P(r, i);
      for (index_t c = i + 1; c < b; ++c) {
        const T w = canonical_dot<true>(m - i, &v(i, i), 1, &P(i, c), 1);
        const T u = -rounded(conj(tau[i]) * w);  // the rounded product, negated
        for (index_t r = i; r < m; ++r)
          P(r, c) = madd(v(r, i), u, P(r, c));
      }
      tau1[j0 + i] = tau[i];
    }
    // 2. T.
    Vec<T> Tm(static_cast<size_t>(k * k), T(0));
    auto t = [&](index_t r, index_t c) -> T& { return Tm[r + k * c]; };
    for (index_t i = 0; i < k; ++i) {
      t(i, i) = tau[i];
      Vec<T> g(static_cast<size_t>(i));
      for (index_t l = 0; l < i; ++l)
        g[l] = canonical_dot<true>(m, &v(0, l), 1, &v(0, i), 1);
      for (index_t q = 0; q < i; ++q) {
        T z = T(0);
        for (index_t l = q; l < i; ++l)
          z = madd(t(q, l), g[l], z);
        t(q, i) = (-tau[i]) * z;
      }
    }
    // 3. X = A22 V: per row, the full Hermitian row and the canonical dot (docs/canonical-symv.md).
    Vec<T> X(static_cast<size_t>(m * k)), row(static_cast<size_t>(m));
    for (index_t q = 0; q < k; ++q)
      for (index_t i = 0; i < m; ++i) {
        for (index_t j = 0; j < m; ++j)
          row[j] = j < i ? A22(i, j) : j == i ? T(real_part(A22(i, i))) : conj(A22(j, i));
        X[i + m * q] = T(1) * canonical_dot<false>(m, row.data(), 1, &v(0, q), 1);
      }
    // 4. Y = X T.
    Vec<T> Y(static_cast<size_t>(m * k));
    for (index_t q = 0; q < k; ++q)
      for (index_t r = 0; r < m; ++r) {
        T y = T(0);
        for (index_t l = 0; l <= q; ++l)
          y = madd(X[r + m * l], t(l, q), y);
        Y[r + m * q] = y;
      }
    // 5. Z = V^H Y.
    Vec<T> Z(static_cast<size_t>(k * k));
    for (index_t q = 0; q < k; ++q)
      for (index_t p = 0; p < k; ++p)
        Z[p + k * q] = canonical_dot<true>(m, &v(0, p), 1, &Y[m * q], 1);
    // 6. M = T^H Z.
    Vec<T> M(static_cast<size_t>(k * k));
    for (index_t q = 0; q < k; ++q)
      for (index_t p = 0; p < k; ++p) {
        T s = T(0);
        for (index_t l = 0; l <= p; ++l)
          s = madd_conj(t(l, p), Z[l + k * q], s);
        M[p + k * q] = s;
      }
    // 7. W = Y - 0.5 V M.
    Vec<T> W(static_cast<size_t>(m * k));
    for (index_t q = 0; q < k; ++q)
      for (index_t r = 0; r < m; ++r) {
        T s = T(0);
        for (index_t p = 0; p < k; ++p)
          s = madd(v(r, p), M[p + k * q], s);
        W[r + m * q] = Y[r + m * q] - spec_half(s);
      }
    // 8. A22 -= V W^H + W V^H.
    for (index_t c = 0; c < m; ++c)
      for (index_t r = c; r < m; ++r) {
        T x = A22(r, c);
        for (index_t p = 0; p < k; ++p) {
          x = madd(-rounded(v(r, p)), conj(W[c + m * p]), x);
          x = madd(-rounded(W[r + m * p]), conj(v(c, p)), x);
        }
        A22(r, c) = x;
      }
    for (index_t c = 0; c < m; ++c)
      A22(c, c) = T(real_part(A22(c, c)));
  }
}

template <class T>
class BandReduceTest : public ::testing::Test {};
using Scalars = ::testing::Types<float, double, cfloat, cdouble, dd_real>;
TYPED_TEST_SUITE(BandReduceTest, Scalars);

template <class T>
class BandReduceLapackTest : public ::testing::Test {};
using LapackScalars = ::testing::Types<float, double, cfloat, cdouble>;
TYPED_TEST_SUITE(BandReduceLapackTest, LapackScalars);

Vec<index_t> band_widths() {
  return {1, 2, 8, 32, 64};
}
Vec<index_t> sizes_for(index_t b) {
  Vec<index_t> s = {0, 1, 2, b - 1, b, b + 1, 2 * b + 3, 100, 257};
  std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
  return s;
}

TYPED_TEST(BandReduceLapackTest, BandEigenvaluesMatchLapack) {
  using T = TypeParam;
  const double eps = eps_of<T>();
  for (index_t b : band_widths())
    for (index_t n : sizes_for(b)) {
      const Vec<T> F = random_hermitian<T>(n, 1000 * b + n);
      const Result<T> r = run(F, n, b, 2);
      expect_real_diagonal(n, r.A);
      const Vec<double> wb = lapack_eig(n, band_matrix(n, b, r.A)), wa = lapack_eig(n, F);
      const double tol = 10 * std::max<index_t>(n, 1) * eps * fro(n, F);
      for (index_t k = 0; k < n; ++k)
        EXPECT_LE(std::fabs(wb[k] - wa[k]), tol) << "n = " << n << " b = " << b << " k = " << k;
    }
}

TYPED_TEST(BandReduceTest, HadamardSpectrumIsKeptByTheBand) {
  using T = TypeParam;
  const double eps = eps_of<T>();
  const index_t max_n = std::is_same_v<T, dd_real> ? 64 : 128;
  for (index_t b : {1, 2, 8, 32})
    for (index_t n = 2; n <= max_n; n *= 2) {
      Vec<double> lambda(static_cast<size_t>(n));
      for (index_t k = 0; k < n; ++k)
        lambda[k] = double((k * 7) % 11) - 5.0 + (k % 3 == 0 ? 0 : 16);
      const Vec<T> F = hadamard_matrix<T>(n, lambda);
      const Result<T> r = run(F, n, b, 3);
      const Vec<double> w = own_eig(n, band_matrix(n, b, r.A));
      std::sort(lambda.begin(), lambda.end());
      double ln = 0;
      for (double x : lambda)
        ln += x * x;
      ln = std::sqrt(ln);
      const double tol = std::is_same_v<T, dd_real> ? 1e-29 * ln : 50 * n * eps * ln;
      for (index_t k = 0; k < n; ++k)
        EXPECT_LE(std::fabs(w[k] - lambda[k]), tol) << "n = " << n << " b = " << b << " k = " << k;
    }
}

TYPED_TEST(BandReduceTest, BackwardStableAndOrthogonal) {
  using T = TypeParam;
  if constexpr (std::is_same_v<T, double> || std::is_same_v<T, cdouble> ||
                std::is_same_v<T, dd_real>) {
    const double eps = eps_of<T>();
    const Vec<index_t> ns =
        std::is_same_v<T, dd_real> ? Vec<index_t>{2, 9, 37, 70} : Vec<index_t>{2, 9, 37, 100, 257};
    for (index_t b : {1, 2, 8, 32})
      for (index_t n : ns) {
        const Vec<T> F = random_hermitian<T>(n, 77 * b + n);
        const Result<T> r = run(F, n, b, 2);
        const Vec<T> Q = build_q1(n, b, r);
        auto [res, orth] = residuals(n, F, Q, band_matrix(n, b, r.A));
        EXPECT_LT(res, 50 * eps) << "n = " << n << " b = " << b;
        EXPECT_LT(orth, 50 * eps) << "n = " << n << " b = " << b;
      }
  }
}

TYPED_TEST(BandReduceTest, BitwiseIndependentOfThreadsAndRuns) {
  using T = TypeParam;
  const Vec<std::pair<index_t, index_t>> cases =
      std::is_same_v<T, dd_real>
          ? Vec<std::pair<index_t, index_t>>{{37, 4}, {100, 8}, {300, 32}}
          : Vec<std::pair<index_t, index_t>>{{37, 4}, {100, 8}, {300, 32}, {700, 32}, {300, 64}};
  for (auto [n, b] : cases) {
    const Vec<T> F = random_hermitian<T>(n, 5 + n + b);
    const Result<T> r1 = run(F, n, b, 1);
    EXPECT_TRUE(same_result(r1, run(F, n, b, 2))) << "threads 2, n = " << n << " b = " << b;
    EXPECT_TRUE(same_result(r1, run(F, n, b, 3))) << "threads 3, n = " << n << " b = " << b;
    EXPECT_TRUE(same_result(r1, run(F, n, b, 1))) << "rerun, n = " << n << " b = " << b;
  }
}

TEST(BandReduce, BitwiseIndependentOfThreadsWhereThePanelQrIsSplitToo) {
  // m ~ 1100 rows and 63 later columns: step 1's columns go to several threads as well.
  const index_t n = 1200, b = 64;
  const Vec<double> F = random_hermitian<double>(n, 21);
  const Result<double> r1 = run(F, n, b, 1);
  EXPECT_TRUE(same_result(r1, run(F, n, b, 2)));
  EXPECT_TRUE(same_result(r1, run(F, n, b, 3)));
  const Vec<cdouble> G = random_hermitian<cdouble>(n, 22);
  const Result<cdouble> g1 = run(G, n, b, 1);
  EXPECT_TRUE(same_result(g1, run(G, n, b, 2)));
  EXPECT_TRUE(same_result(g1, run(G, n, b, 3)));
}

TYPED_TEST(BandReduceTest, BitwiseTheLiteralTranscriptionOfTheSpec) {
  using T = TypeParam;
  for (index_t n : {37, 70})
    for (index_t b : {1, 4, 8, 32}) {
      const Vec<T> F = random_hermitian<T>(n, 31 * n + b);
      const Result<T> r = run(F, n, b, 2);
      Result<T> s;
      s.A = r.A;  // the poisoned upper triangle, never touched by either
      for (index_t j = 0; j < n; ++j)
        for (index_t i = j; i < n; ++i)
          s.A[i + n * j] = F[i + n * j];
      spec_reduce_to_band(n, b, s.A, s.tau);
      EXPECT_TRUE(same_bits(r.A, s.A)) << "A, n = " << n << " b = " << b;
      EXPECT_TRUE(same_bits(r.tau, s.tau)) << "tau1, n = " << n << " b = " << b;
    }
}

/// Structured exact zeros (tests/common/structured_zeros.hpp: block diagonal, a 2 x 2 block in a
/// zero matrix, diagonal, zero rows and columns, +0 and -0 mixed, all -0): the whole matrix and
/// tau1 bitwise equal to the literal transcription, the sign of every zero included. Step 1's
/// u = -(conj(tau_i) * w) is the rounded product negated; a negation folded into the product's
/// last fma (fnmsub / fnmadd) gives +0 where the spec gives -0.
TYPED_TEST(BandReduceTest, StructuredZerosBitwiseTheLiteralTranscription) {
  using T = TypeParam;
  for (Zeros z : test_util::all_zero_kinds())
    for (index_t n : {9, 37, 70})
      for (index_t b : {1, 4, 8, 32}) {
        const Vec<T> F = test_util::structured_hermitian<T>(n, z, 41 * n + b);
        const Result<T> r = run(F, n, b, 2);
        Result<T> s{r.A, {}};  // the poisoned upper triangle, never touched by either
        for (index_t j = 0; j < n; ++j)
          for (index_t i = j; i < n; ++i)
            s.A[i + n * j] = F[i + n * j];
        spec_reduce_to_band(n, b, s.A, s.tau);
        const std::string what =
            test_util::zeros_name(z) + ", n = " + std::to_string(n) + ", b = " + std::to_string(b);
        EXPECT_TRUE(same_bits(r.A, s.A)) << "A, " << what;
        EXPECT_TRUE(same_bits(r.tau, s.tau)) << "tau1, " << what;
      }
}

TEST(BandReduce, ComplexDiagonalIsMadeRealFirstAndTauZeroWithoutReflector) {
  // A non-real diagonal on input: its imaginary parts are dropped before anything else, so the
  // result is that of the matrix with a real diagonal.
  const index_t n = 20, b = 8;
  Vec<cdouble> F = random_hermitian<cdouble>(n, 3), G = F;
  for (index_t i = 0; i < n; ++i)
    G[i + n * i].im = 0.25 * double(i + 1);
  const Result<cdouble> r = run(F, n, b, 1), g = run(G, n, b, 1);
  EXPECT_TRUE(same_result(r, g));
  for (index_t j = n - b; j < n; ++j)
    EXPECT_TRUE(r.tau[j] == cdouble(0)) << j;
  // n <= b: nothing to reduce; only the diagonal is made real and tau1 zeroed.
  Vec<cdouble> H = random_hermitian<cdouble>(5, 4);
  H[0].im = 1.0;
  const Result<cdouble> h = run(H, 5, 8, 1);
  for (index_t j = 0; j < 5; ++j)
    for (index_t i = j; i < 5; ++i)
      EXPECT_TRUE(h.A[i + 5 * j] == (i == j ? cdouble(H[i + 5 * i].re) : H[i + 5 * j]));
  for (const cdouble& t : h.tau)
    EXPECT_TRUE(t == cdouble(0));
}

TEST(BandReduce, ArgumentsAreChecked) {
  Context ctx;
  Vec<double> A(16), tau(4);
  EXPECT_THROW(reduce_to_band(ctx, index_t(-1), index_t(2), A.data(), 4, tau.data()),
               DimensionError);
  EXPECT_THROW(reduce_to_band(ctx, index_t(4), index_t(2), A.data(), 3, tau.data()),
               DimensionError);
  EXPECT_THROW(reduce_to_band(ctx, index_t(4), index_t(0), A.data(), 4, tau.data()), UsageError);
}

}  // namespace
