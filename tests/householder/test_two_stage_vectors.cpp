// The back-transformation through the two-stage reduction (docs/canonical-two-stage.md,
// "Eigenvectors"): the chase's reflectors as band_to_tridiagonal keeps them (V2, tau2),
// apply_q2_canonical bitwise equal to a literal scalar transcription of "Z := Q2 Z" for every
// thread count and schedule, Q2 and Q1 Q2 as unitary similarities to the tridiagonal, and the
// eigenvectors of the whole pipeline (inverse iteration, apply_q_two_stage, normalize_signs):
// residual, orthogonality, exact spectra, bitwise independence of the thread count.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "core/precision.hpp"
#include "householder/two_stage.hpp"
#include "householder/two_stage_vectors.hpp"
#include "solver/back_transform.hpp"
#include "solver/bisection.hpp"
#include "solver/inverse_iteration.hpp"
#include "tests/common/hermitian_matrices.hpp"
#include "tests/common/random_scalar.hpp"
#include "tests/common/structured_zeros.hpp"

namespace eigsolve {
namespace {

template <class T>
using Vec = std::vector<T>;

using test_util::random_hermitian;
using test_util::random_scalar;

size_t sz(index_t k) {
  return static_cast<size_t>(k);
}

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
bool same_bits(const Vec<T>& a, const Vec<T>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

index_t levels(index_t n, index_t b, index_t i) {
  return (n - 1 - i + b - 1) / b;
}

// --- The literal transcription of "Z := Q2 Z" ---------------------------------------------------

/// x as it is rounded, opaque to the optimizer: -(tau * s) must negate the rounded product, and
/// GCC folds -fma(a, b, c) (a component of a complex product) into fnmsub, which differs in the
/// sign of an exact zero (householder/q2_kernels.hpp, q2_detail::opaque).
template <class X>
X rounded(X x) {
  asm volatile("" : "+m"(x));
  return x;
}

/// Reflector by reflector, last to first (sweep n-2 down to 0, in each sweep the levels last to
/// first), one column at a time, each a plain chain from +0.
template <class T>
void literal_q2(index_t n, index_t b, const T* V2, index_t ldv2, const T* tau2, index_t ldt2,
                index_t m, T* Z, index_t ldz) {
  for (index_t i = n - 2; i >= 0; --i)
    for (index_t k = levels(n, b, i) - 1; k >= 0; --k) {
      const index_t r0 = i + 1 + k * b, r1 = std::min(i + (k + 1) * b, n - 1);
      const T tau = tau2[k + i * ldt2];
      for (index_t j = 0; j < m; ++j) {
        T s = T(0);
        for (index_t q = 0; q <= r1 - r0; ++q)
          s = madd_conj(V2[(r0 + q) + i * ldv2], Z[(r0 + q) + j * ldz], s);
        const T u = -rounded(tau * s);
        for (index_t q = 0; q <= r1 - r0; ++q)
          Z[(r0 + q) + j * ldz] = madd(V2[(r0 + q) + i * ldv2], u, Z[(r0 + q) + j * ldz]);
      }
    }
}

// --- Helpers ------------------------------------------------------------------------------------

/// Both stages on a copy of the full Hermitian F, keeping the reflectors.
template <class T>
struct Reduced {
  Vec<T> A;  // stage 1's band and reflectors
  Vec<real_t<T>> d, e;
  TwoStageReflectors<T> refl;
};

template <class T>
Reduced<T> reduce(const Vec<T>& F, index_t n, index_t b, int threads = 2) {
  Reduced<T> r;
  r.A = F;
  r.d.assign(sz(n), real_t<T>(0));
  r.e.assign(sz(std::max<index_t>(n, 1)), real_t<T>(0));
  Context ctx;
  ctx.threads = threads;
  tridiagonalize_two_stage(ctx, n, b, r.A.data(), std::max<index_t>(n, 1), r.d.data(), r.e.data(),
                           &r.refl);
  return r;
}

/// n x m random Z with leading dimension ldz; rows n .. ldz-1 hold 7 (never to be written);
/// column 0 is -0 throughout (signed zeros must come out as the chains make them).
template <class T>
Vec<T> random_z(index_t n, index_t m, index_t ldz, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  Vec<T> Z(sz(ldz * m), T(7));
  for (index_t j = 0; j < m; ++j)
    for (index_t i = 0; i < n; ++i)
      Z[sz(i + j * ldz)] = j == 0 ? -T(0) : random_scalar<T>(g);
  return Z;
}

/// Identity of order n (ld n).
template <class T>
Vec<T> identity(index_t n) {
  Vec<T> I(sz(n * n), T(0));
  for (index_t i = 0; i < n; ++i)
    I[sz(i + n * i)] = T(1);
  return I;
}

/// ||Q^H F Q - Tri(d, e)||_F / (n ||F||_F) and ||I - Q^H Q||_F / n, in T arithmetic.
template <class T>
std::pair<double, double> similarity(index_t n, const Vec<T>& F, const Vec<T>& Q,
                                     const Vec<real_t<T>>& d, const Vec<real_t<T>>& e) {
  Vec<T> FQ(sz(n * n));
  for (index_t j = 0; j < n; ++j)
    for (index_t i = 0; i < n; ++i) {
      T s = T(0);
      for (index_t k = 0; k < n; ++k)
        s = madd(F[sz(i + n * k)], Q[sz(k + n * j)], s);
      FQ[sz(i + n * j)] = s;
    }
  double fn = 0, rn = 0, on = 0;
  for (index_t j = 0; j < n; ++j)
    for (index_t i = 0; i < n; ++i) {
      T s = T(0), o = T(0);
      for (index_t k = 0; k < n; ++k) {
        s = madd_conj(Q[sz(k + n * i)], FQ[sz(k + n * j)], s);
        o = madd_conj(Q[sz(k + n * i)], Q[sz(k + n * j)], o);
      }
      T t = T(0);
      if (i == j) t = T(d[sz(i)]);
      if (i == j + 1) t = T(e[sz(j)]);
      if (j == i + 1) t = T(e[sz(i)]);
      const double x = mag(s - t), y = mag(o - T(i == j ? 1 : 0));
      rn += x * x;
      on += y * y;
      fn += mag(F[sz(i + n * j)]) * mag(F[sz(i + n * j)]);
    }
  return {std::sqrt(rn) / (double(n) * std::sqrt(fn)), std::sqrt(on) / double(n)};
}

/// A random Hermitian band of half-width b in band storage (ldab), and its full matrix.
template <class T>
Vec<T> random_band(index_t n, index_t b, index_t ldab, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  Vec<T> AB(sz(ldab * std::max<index_t>(n, 1)), T(0));
  for (index_t c = 0; c < n; ++c)
    for (index_t k = 0; k <= b && c + k < n; ++k) {
      const T a = random_scalar<T>(g);
      AB[sz(k + c * ldab)] = k == 0 ? T(real_part(a)) : a;
    }
  return AB;
}

template <class T>
Vec<T> dense_of(index_t n, index_t b, const Vec<T>& AB, index_t ldab) {
  Vec<T> F(sz(n * n), T(0));
  for (index_t c = 0; c < n; ++c)
    for (index_t k = 0; k <= b && c + k < n; ++k) {
      F[sz((c + k) + c * n)] = AB[sz(k + c * ldab)];
      F[sz(c + (c + k) * n)] = conj(AB[sz(k + c * ldab)]);
    }
  return F;
}

/// The eigenvectors of the pipeline: eigenvalues of (d, e) by bisection, inverse iteration,
/// Z := Q1 Q2 Z, normalize_signs.
template <class T>
struct Eig {
  Vec<real_t<T>> w;
  Vec<T> Z;
};

template <class T>
Eig<T> eigenvectors(const Vec<T>& F, index_t n, index_t b, int threads) {
  using R = real_t<T>;
  Reduced<T> r = reduce(F, n, b, threads);
  Context ctx;
  ctx.threads = threads;
  Eig<T> out;
  out.w.assign(sz(n), R(0));
  bisection_eigenvalues(ctx, n, r.d.data(), r.e.data(), 0, n - 1, out.w.data());
  Vec<R> zt(sz(n * n));
  inverse_iteration(ctx, n, r.d.data(), r.e.data(), n, out.w.data(), 0, zt.data(), n);
  out.Z.resize(sz(n * n));
  for (size_t k = 0; k < zt.size(); ++k)
    out.Z[k] = T(zt[k]);
  apply_q_two_stage(ctx, n, r.A.data(), n, r.refl, n, out.Z.data(), n);
  normalize_signs(ctx, n, n, out.Z.data(), n);
  return out;
}

/// max |A Z - Z diag(w)| / (n ||A||_max-ish) and max |I - Z^H Z| / n, in T arithmetic (the
/// measures of tests/solver/test_eigensolve.cpp).
template <class T>
std::pair<double, double> eig_residuals(index_t n, const Vec<T>& F, const Eig<T>& r, double anorm) {
  double res = 0, orth = 0;
  for (index_t j = 0; j < n; ++j) {
    const T* z = r.Z.data() + j * n;
    for (index_t i = 0; i < n; ++i) {
      T s = T(0);
      for (index_t k = 0; k < n; ++k)
        s = madd(F[sz(i + n * k)], z[k], s);
      s = s - z[i] * T(r.w[sz(j)]);
      res = std::max(res, mag(s));
    }
    for (index_t k = 0; k < n; ++k) {
      T s = T(0);
      for (index_t i = 0; i < n; ++i)
        s = madd_conj(z[i], r.Z[sz(i + k * n)], s);
      if (j == k) s = s - T(1);
      orth = std::max(orth, mag(s));
    }
  }
  return {res / (double(n) * anorm), orth / double(n)};
}

template <class T>
class TwoStageVectorsTest : public ::testing::Test {};
using Scalars = ::testing::Types<float, double, Complex<float>, Complex<double>, dd_real>;
TYPED_TEST_SUITE(TwoStageVectorsTest, Scalars);

// --- V2 / tau2 ---------------------------------------------------------------------------------

// band_to_tridiagonal with V2/tau2: the same d and e bits as without; every reflector in its
// place (unit exactly 1 in row i+1+kb of column i, nothing written at or above row i, tau2 only
// for the sweep's levels).
TYPED_TEST(TwoStageVectorsTest, ChaseStoresItsReflectors) {
  using T = TypeParam;
  using R = real_t<T>;
  for (index_t b : {1, 2, 3, 8})
    for (index_t n : {index_t(1), index_t(2), b + 1, 2 * b + 3, index_t(40)}) {
      const index_t ldab = 2 * b + 1, ldv2 = n + 2, ldt2 = chase_levels(n, b) + 1;
      const Vec<T> AB0 = random_band<T>(n, b, ldab, 300 + 7 * n + b);
      Vec<T> AB = AB0, AB1 = AB0;
      Vec<R> d(sz(n)), e(sz(n)), d1(sz(n)), e1(sz(n));
      const T s5 = T(5), s9 = T(9);  // sentinels
      Vec<T> V2(sz(ldv2 * n), s5), tau2(sz(ldt2 * n), s9);
      band_to_tridiagonal(Context{}, n, b, AB.data(), ldab, d.data(), e.data());
      band_to_tridiagonal(Context{}, n, b, AB1.data(), ldab, d1.data(), e1.data(), V2.data(), ldv2,
                          tau2.data(), ldt2);
      EXPECT_TRUE(same_bits(d, d1) && same_bits(e, e1) && same_bits(AB, AB1))
          << "n = " << n << " b = " << b;
      for (index_t i = 0; i < n; ++i) {
        const index_t lv = i + 1 < n ? levels(n, b, i) : 0;
        for (index_t r = 0; r < ldv2; ++r) {
          const T x = V2[sz(r + i * ldv2)];
          if (r <= i || r >= n) {
            EXPECT_TRUE(same_bits(x, s5)) << "V2(" << r << ", " << i << ") written";
          } else if ((r - i - 1) % b == 0) {
            EXPECT_TRUE(same_bits(x, T(1))) << "unit V2(" << r << ", " << i << ")";
          } else {
            EXPECT_FALSE(same_bits(x, s5)) << "V2(" << r << ", " << i << ") not written";
          }
        }
        for (index_t k = 0; k < ldt2; ++k)
          EXPECT_EQ(same_bits(tau2[sz(k + i * ldt2)], s9), k >= lv)
              << "tau2(" << k << ", " << i << "), n = " << n << " b = " << b;
      }
    }
}

// Q2 (apply_q2_canonical on the identity) is unitary and Q2^H B Q2 is the tridiagonal (d, e):
// the reflectors are those of the chase's similarity.
TYPED_TEST(TwoStageVectorsTest, Q2ReducesTheBand) {
  using T = TypeParam;
  using R = real_t<T>;
  const double eps = eps_of<T>();
  for (index_t b : {1, 2, 3, 8, 32})
    for (index_t n : {index_t(1), index_t(2), index_t(9), b + 2, index_t(70)}) {
      const index_t ldab = 2 * b;
      const Vec<T> AB0 = random_band<T>(n, b, ldab, 500 + 11 * n + b);
      Vec<T> AB = AB0;
      Vec<R> d(sz(n)), e(sz(n));
      const index_t ldt2 = std::max<index_t>(chase_levels(n, b), 1);
      Vec<T> V2(sz(n * n), T(0)), tau2(sz(ldt2 * n), T(0));
      band_to_tridiagonal(Context{}, n, b, AB.data(), ldab, d.data(), e.data(), V2.data(), n,
                          tau2.data(), ldt2);
      Vec<T> Q = identity<T>(n);
      Context ctx;
      ctx.threads = 2;
      apply_q2_canonical(ctx, n, b, V2.data(), n, tau2.data(), ldt2, n, Q.data(), n);
      const auto [res, orth] = similarity(n, dense_of(n, b, AB0, ldab), Q, d, e);
      EXPECT_LT(res, 50 * eps) << "n = " << n << " b = " << b;
      EXPECT_LT(orth, 50 * eps) << "n = " << n << " b = " << b;
    }
}

// --- apply_q2_canonical against the literal spec -----------------------------------------------

// Bitwise the literal transcription, for every thread count, group size and kernel copy (AVX-512,
// AVX2, generic), with m < n and m = n, ldz > n (rows past n untouched), V2/tau2 of a real
// chase (tau = 0 among them: real scalars with b = 1, and the last sweeps).
TYPED_TEST(TwoStageVectorsTest, Q2MatchesTheLiteralSpec) {
  using T = TypeParam;
  const bool dd = std::is_same_v<T, dd_real>;
  for (index_t b : {1, 2, 3, 8, 32}) {
    Vec<index_t> ns = {0, 1, 2, 3, b - 1, b, b + 1, 2 * b + 3, 100, 257};
    std::sort(ns.begin(), ns.end());
    ns.erase(std::unique(ns.begin(), ns.end()), ns.end());
    for (index_t n : ns) {
      if (n < 0) continue;
      const Reduced<T> r = reduce(random_hermitian<T>(n, 40 * n + b), n, b);
      Vec<index_t> ms = {n, n / 3 + 1};
      if (dd && n > 100) ms = {n / 8 + 1, 40};
      for (index_t m : ms) {
        const index_t ldz = n + 3;
        const Vec<T> Z0 = random_z<T>(n, m, ldz, 7 * n + m);
        Vec<T> Zl = Z0;
        if (n >= 2)
          literal_q2(n, b, r.refl.V2.data(), r.refl.ldv2, r.refl.tau2.data(), r.refl.ldt2, m,
                     Zl.data(), ldz);
        for (int threads : {1, 2, 3}) {
          Vec<T> Z = Z0;
          Context ctx;
          ctx.threads = threads;
          apply_q2_canonical(ctx, n, b, r.refl.V2.data(), r.refl.ldv2, r.refl.tau2.data(),
                             r.refl.ldt2, m, Z.data(), ldz);
          EXPECT_TRUE(same_bits(Z, Zl))
              << "n = " << n << " b = " << b << " m = " << m << " threads = " << threads;
        }
        for (index_t group : {0, 1, 2, 5, 33, 1000})
          for (auto kernel : {q2_detail::Q2Kernel::widest, q2_detail::Q2Kernel::avx2,
                              q2_detail::Q2Kernel::generic}) {
            Vec<T> Z = Z0;
            Context ctx;
            ctx.threads = 2;
            q2_detail::apply_q2_scheduled(
                ctx, n, b, r.refl.V2.data(), r.refl.ldv2, r.refl.tau2.data(), r.refl.ldt2, m,
                Z.data(), ldz, q2_detail::Q2Schedule{group, kernel, group % 2 == 1 ? 0 : 3});
            EXPECT_TRUE(same_bits(Z, Zl))
                << "n = " << n << " b = " << b << " m = " << m << " group = " << group << " kernel "
                << static_cast<int>(kernel);
          }
      }
    }
  }
}

// Structured exact zeros (tests/common/structured_zeros.hpp) in the reflectors (both stages of
// block-diagonal, 2 x 2-block, diagonal, zero-line, mixed +-0 and all -0 matrices: V2 with +-0
// entries, tau2 zero) and in Z (test_util::structured_z): Z := Q2 Z bitwise the literal spec on
// every thread count and kernel, the sign of every zero included; then Z := Q1 Q2 Z
// (apply_q_two_stage) is Q2 followed by the one-stage apply_q_canonical moved down b-1 rows.
TYPED_TEST(TwoStageVectorsTest, Q2StructuredZerosMatchTheLiteralSpec) {
  using T = TypeParam;
  for (test_util::Zeros zk : test_util::all_zero_kinds())
    for (index_t b : {1, 3, 8, 32})
      for (index_t n : {index_t(9), index_t(40), index_t(70)}) {
        const Reduced<T> r = reduce(test_util::structured_hermitian<T>(n, zk, 50 * n + b), n, b);
        const index_t m = 12, ldz = n + 1;
        const Vec<T> Z0 = test_util::structured_z<T>(n, m, ldz, 3 * n + b);
        Vec<T> Zl = Z0;
        literal_q2(n, b, r.refl.V2.data(), r.refl.ldv2, r.refl.tau2.data(), r.refl.ldt2, m,
                   Zl.data(), ldz);
        const std::string what =
            test_util::zeros_name(zk) + ", n = " + std::to_string(n) + ", b = " + std::to_string(b);
        for (int threads : {1, 2, 3}) {
          Vec<T> Z = Z0;
          Context ctx;
          ctx.threads = threads;
          apply_q2_canonical(ctx, n, b, r.refl.V2.data(), r.refl.ldv2, r.refl.tau2.data(),
                             r.refl.ldt2, m, Z.data(), ldz);
          EXPECT_TRUE(same_bits(Z, Zl)) << what << ", threads = " << threads;
        }
        for (auto kernel : {q2_detail::Q2Kernel::widest, q2_detail::Q2Kernel::avx2,
                            q2_detail::Q2Kernel::generic}) {
          Vec<T> Z = Z0;
          Context ctx;
          ctx.threads = 2;
          q2_detail::apply_q2_scheduled(ctx, n, b, r.refl.V2.data(), r.refl.ldv2,
                                        r.refl.tau2.data(), r.refl.ldt2, m, Z.data(), ldz,
                                        q2_detail::Q2Schedule{5, kernel, 3});
          EXPECT_TRUE(same_bits(Z, Zl)) << what << ", kernel " << static_cast<int>(kernel);
        }
        Vec<T> Zq = Z0, Zs = Zl;
        Context ctx;
        ctx.threads = 2;
        apply_q_two_stage(ctx, n, r.A.data(), n, r.refl, m, Zq.data(), ldz);
        if (n - b + 1 > 1)
          apply_q_canonical(ctx, n - b + 1, r.A.data() + (b - 1), n, r.refl.tau1.data(), m,
                            Zs.data() + (b - 1), ldz);
        EXPECT_TRUE(same_bits(Zq, Zs)) << "Q1 Q2, " << what;
      }
}

// --- Q1 Q2 -------------------------------------------------------------------------------------

// Q = Q1 Q2 (apply_q_two_stage on the identity) is unitary and Q^H A Q is the tridiagonal (d, e),
// also where stage 1 has no reflector (n <= b + 1).
TYPED_TEST(TwoStageVectorsTest, QReducesTheMatrix) {
  using T = TypeParam;
  const double eps = eps_of<T>();
  for (index_t b : {1, 3, 8, 32})
    for (index_t n : {index_t(2), index_t(9), b + 1, b + 2, index_t(70)}) {
      const Vec<T> F = random_hermitian<T>(n, 900 + 3 * n + b);
      const Reduced<T> r = reduce(F, n, b);
      Vec<T> Q = identity<T>(n);
      Context ctx;
      ctx.threads = 2;
      apply_q_two_stage(ctx, n, r.A.data(), n, r.refl, n, Q.data(), n);
      const auto [res, orth] = similarity(n, F, Q, r.d, r.e);
      EXPECT_LT(res, 50 * eps) << "n = " << n << " b = " << b;
      EXPECT_LT(orth, 50 * eps) << "n = " << n << " b = " << b;
    }
}

// --- The eigenvectors of the pipeline ----------------------------------------------------------

// Random matrices: ||AZ - Z Lambda|| / (n ||A||) and ||I - Z^H Z|| / n within 50 eps (the bounds
// of tests/solver/test_eigensolve.cpp).
TYPED_TEST(TwoStageVectorsTest, EigenvectorsResidualAndOrthogonality) {
  using T = TypeParam;
  const bool dd = std::is_same_v<T, dd_real>;
  const double eps = eps_of<T>();
  for (index_t b : {3, 8, 32})
    for (index_t n : {index_t(33), index_t(dd ? 60 : 120)}) {
      const Vec<T> F = random_hermitian<T>(n, 77 * n + b);
      double anorm = 0;  // the 1-norm bounds the 2-norm of a Hermitian matrix
      for (index_t j = 0; j < n; ++j) {
        double s = 0;
        for (index_t i = 0; i < n; ++i)
          s += mag(F[sz(i + n * j)]);
        anorm = std::max(anorm, s);
      }
      const Eig<T> r = eigenvectors(F, n, b, 2);
      const auto [res, orth] = eig_residuals(n, F, r, anorm);
      EXPECT_LE(res, 50 * eps) << "n = " << n << " b = " << b;
      EXPECT_LE(orth, 50 * eps) << "n = " << n << " b = " << b;
    }
}

// A matrix with an exactly known spectrum (Hadamard, tests/common/hermitian_matrices.hpp):
// multiplicities, a zero eigenvalue, signs; eigenvalues within 20 n u ||A|| of the exact ones.
TYPED_TEST(TwoStageVectorsTest, EigenvectorsOfAnExactSpectrum) {
  using T = TypeParam;
  const double eps = eps_of<T>();
  static const double pattern[] = {-3, -1, -1, 0, 0, 0, 1, 2, 2, 2, 5, -4, 7, 7, 3, -2};
  for (index_t n : {16, 64})
    for (index_t b : {3, 32}) {
      std::vector<double> l(sz(n));
      for (index_t k = 0; k < n; ++k)
        l[sz(k)] = pattern[k % 16] + (k >= 16 ? 16 * ((k / 16) % 2) : 0);
      const Vec<T> F = test_util::hadamard_matrix<T>(n, l);
      std::sort(l.begin(), l.end());
      const double anorm = std::max(std::fabs(l.front()), std::fabs(l.back()));
      const Eig<T> r = eigenvectors(F, n, b, 3);
      for (index_t k = 0; k < n; ++k)
        EXPECT_LE(std::fabs(to_double(r.w[sz(k)]) - l[sz(k)]), 20.0 * double(n) * eps * anorm)
            << "n = " << n << " b = " << b << " k = " << k;
      const auto [res, orth] = eig_residuals(n, F, r, anorm);
      EXPECT_LE(res, 50 * eps) << "n = " << n << " b = " << b;
      EXPECT_LE(orth, 50 * eps) << "n = " << n << " b = " << b;
    }
}

// The thread count changes no bit of the eigenvectors (reduction, inverse iteration, both
// back-transformations, signs).
TYPED_TEST(TwoStageVectorsTest, EigenvectorsBitwiseForThreadCounts) {
  using T = TypeParam;
  const index_t n = std::is_same_v<T, dd_real> ? 90 : 230;
  const Vec<T> F = random_hermitian<T>(n, 17);
  const Eig<T> r1 = eigenvectors(F, n, 8, 1);
  for (int threads : {2, 3}) {
    const Eig<T> r = eigenvectors(F, n, 8, threads);
    EXPECT_TRUE(same_bits(r.w, r1.w) && same_bits(r.Z, r1.Z)) << "threads = " << threads;
  }
}

// --- Arguments ---------------------------------------------------------------------------------

TEST(TwoStageVectors, RejectsBadArguments) {
  const index_t n = 6, b = 2, ldab = 2 * b, lv = chase_levels(n, b);
  Vec<double> AB(sz(ldab * n), 0.0), d(sz(n)), e(sz(n)), V2(sz(n * n)), tau2(sz(lv * n));
  Vec<double> Z(sz(n * n), 0.0);
  const Context ctx;
  // V2 and tau2 both or neither; ldv2 >= n; ldt2 >= chase_levels.
  EXPECT_THROW(band_to_tridiagonal(ctx, n, b, AB.data(), ldab, d.data(), e.data(), V2.data(), n,
                                   static_cast<double*>(nullptr), lv),
               UsageError);
  EXPECT_THROW(band_to_tridiagonal(ctx, n, b, AB.data(), ldab, d.data(), e.data(), V2.data(), n - 1,
                                   tau2.data(), lv),
               DimensionError);
  EXPECT_THROW(band_to_tridiagonal(ctx, n, b, AB.data(), ldab, d.data(), e.data(), V2.data(), n,
                                   tau2.data(), lv - 1),
               DimensionError);
  EXPECT_NO_THROW(band_to_tridiagonal(ctx, n, b, AB.data(), ldab, d.data(), e.data(), V2.data(), n,
                                      tau2.data(), lv));
  EXPECT_THROW(apply_q2_canonical(ctx, n, 0, V2.data(), n, tau2.data(), lv, n, Z.data(), n),
               UsageError);
  EXPECT_THROW(apply_q2_canonical(ctx, n, b, V2.data(), n, tau2.data(), lv, n, Z.data(), n - 1),
               DimensionError);
  EXPECT_THROW(apply_q2_canonical(ctx, n, b, V2.data(), n - 1, tau2.data(), lv, n, Z.data(), n),
               DimensionError);
  EXPECT_THROW(apply_q2_canonical(ctx, n, b, V2.data(), n, tau2.data(), lv - 1, n, Z.data(), n),
               DimensionError);
  EXPECT_THROW(apply_q2_canonical(ctx, -1, b, V2.data(), n, tau2.data(), lv, n, Z.data(), n),
               DimensionError);
  EXPECT_THROW(q2_detail::apply_q2_scheduled(ctx, n, b, V2.data(), n, tau2.data(), lv, n, Z.data(),
                                             n, q2_detail::Q2Schedule{-1}),
               UsageError);
  TwoStageReflectors<double> refl;  // sized for another order: rejected, not read past its end
  Vec<double> A = random_hermitian<double>(n, 3);
  tridiagonalize_two_stage(ctx, n - 2, b, A.data(), n, d.data(), e.data(), &refl);
  EXPECT_THROW(apply_q_two_stage(ctx, n, A.data(), n, refl, n, Z.data(), n), DimensionError);
  tridiagonalize_two_stage(ctx, n, b, A.data(), n, d.data(), e.data(), &refl);
  EXPECT_THROW(apply_q_two_stage(ctx, n, A.data(), n - 1, refl, n, Z.data(), n), DimensionError);
  EXPECT_NO_THROW(apply_q_two_stage(ctx, n, A.data(), n, refl, n, Z.data(), n));
  refl.b = 0;
  EXPECT_THROW(apply_q_two_stage(ctx, n, A.data(), n, refl, n, Z.data(), n), UsageError);
}

}  // namespace
}  // namespace eigsolve
