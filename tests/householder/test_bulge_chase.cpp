// band_to_tridiagonal (docs/canonical-two-stage.md, "Stage 2"): eigenvalues of (d, e) against
// LAPACK on the band (s, d, c, z), dd against double and against the trace and Frobenius norm in
// dd, the state it leaves (a real tridiagonal, everything below the subdiagonal +-0), bitwise
// repeatability, argument checks, and a literal dense transcription of the spec that must give
// the same bits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <lapacke.h>

#include "core/errors.hpp"
#include "core/precision.hpp"
#include "householder/larfg.hpp"
#include "householder/two_stage.hpp"
#include "tests/common/random_scalar.hpp"
#include "tests/common/structured_zeros.hpp"

using namespace eigsolve;

namespace {

template <class T>
using Vec = std::vector<T>;

using eigsolve::test_util::random_scalar;
using eigsolve::test_util::rounded;
using eigsolve::test_util::Zeros;

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

/// A random Hermitian band matrix of half-width b in band storage with leading dimension ldab.
/// Everything the chase must not read (rows b+1 .. ldab-1, and entries past row n-1) is NaN.
template <class T>
Vec<T> random_band(index_t n, index_t b, index_t ldab, std::uint64_t seed) {
  using R = real_t<T>;
  std::mt19937_64 g(seed);
  const R nan = R(std::numeric_limits<double>::quiet_NaN());
  Vec<T> AB(sz(ldab * std::max<index_t>(n, 1)), make_scalar<T>(nan, nan));
  for (index_t c = 0; c < n; ++c)
    for (index_t k = 0; k <= b && c + k < n; ++k) {
      const T a = random_scalar<T>(g);
      AB[sz(k + c * ldab)] = k == 0 ? T(real_part(a)) : a;
    }
  return AB;
}

/// The full n x n Hermitian matrix of a band.
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

template <class T>
struct Tri {
  Vec<real_t<T>> d, e;
  Vec<T> AB;  // the band storage on exit
};

template <class T>
Tri<T> chase(index_t n, index_t b, Vec<T> AB, index_t ldab) {
  Tri<T> t{Vec<real_t<T>>(sz(n)), Vec<real_t<T>>(sz(std::max<index_t>(n - 1, 0))), {}};
  band_to_tridiagonal(Context{}, n, b, AB.data(), ldab, t.d.data(), t.e.data());
  t.AB = std::move(AB);
  return t;
}

template <class T>
Vec<double> lapack_eig(index_t n, Vec<T> F) {
  Vec<real_t<T>> w(sz(n));
  int info = 0;
  if (n == 0) return {};
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
  if (d.empty()) return {};
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
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

template <class T>
double fro(const Vec<T>& F) {
  double s = 0;
  for (const T& a : F)
    s += mag(a) * mag(a);
  return std::sqrt(s);
}

/// The state band_to_tridiagonal leaves: a real diagonal and subdiagonal (complex: imaginary
/// parts exactly zero before d and e were read from them) and every stored entry below the
/// subdiagonal zero (each was annihilated by a reflector and never written again).
template <class T>
void expect_tridiagonal_state(index_t n, index_t ldab, const Tri<T>& t) {
  for (index_t c = 0; c < n; ++c) {
    if constexpr (is_complex_v<T>) {
      EXPECT_EQ(imag_part(t.AB[sz(c * ldab)]), real_t<T>(0)) << "diagonal " << c;
      if (c + 1 < n) {
        EXPECT_EQ(imag_part(t.AB[sz(1 + c * ldab)]), real_t<T>(0)) << "e " << c;
      }
    }
    for (index_t k = 2; k < ldab && c + k < n; ++k)
      EXPECT_TRUE(t.AB[sz(k + c * ldab)] == T(0)) << "B(" << c + k << ", " << c << ")";
  }
}

// --- A literal transcription of the spec's Stage 2 on dense storage ----------------------------

/// B(r, c), r >= c, of an n x n column-major lower triangle (the bulge lives there too).
template <class T>
struct Dense {
  index_t n;
  Vec<T> a;
  T& operator()(index_t r, index_t c) { return a[sz(r + c * n)]; }
};

template <class T>
T minus_half_times(const T& tau) {
  if constexpr (is_complex_v<T>)
    return T(tau.re * real_t<T>(-0.5), tau.im * real_t<T>(-0.5));
  else
    return T(-0.5) * tau;
}

template <class T>
void spec_sym2(Dense<T>& B, index_t s, index_t L, const Vec<T>& v, const T& tau) {
  auto full = [&](index_t r, index_t c) {
    if (c < r) return B(s + r, s + c);
    if (c == r) return T(real_part(B(s + r, s + r)));
    return conj(B(s + c, s + r));
  };
  Vec<T> y(sz(L));
  for (index_t r = 0; r < L; ++r) {
    T acc = T(0);
    for (index_t c = 0; c < L; ++c)
      acc = madd(full(r, c), v[c], acc);
    y[r] = tau * acc;
  }
  T acc = T(0);
  for (index_t c = 0; c < L; ++c)
    acc = madd_conj(y[c], v[c], acc);
  const T alpha = minus_half_times(tau) * acc;
  for (index_t c = 0; c < L; ++c)
    y[c] = madd(alpha, v[c], y[c]);
  for (index_t c = 0; c < L; ++c)
    for (index_t r = c; r < L; ++r) {
      B(s + r, s + c) = madd(-rounded(v[r]), conj(y[c]), B(s + r, s + c));
      B(s + r, s + c) = madd(-rounded(y[r]), conj(v[c]), B(s + r, s + c));
    }
  for (index_t r = 0; r < L; ++r)
    B(s + r, s + r) = T(real_part(B(s + r, s + r)));
}

/// v = [1; the m-1 entries below (r, c)], which become 0.
template <class T>
Vec<T> spec_take(Dense<T>& B, index_t r, index_t c, index_t m) {
  Vec<T> v(sz(m));
  v[0] = T(1);
  for (index_t k = 1; k < m; ++k) {
    v[k] = B(r + k, c);
    B(r + k, c) = T(0);
  }
  return v;
}

/// One sweep of the spec between its levels: level 0 is task A, level k >= 1 tasks B and C of the
/// k-th block below; (st, ed, L, v, tau) are the last diagonal block's.
template <class T>
struct SpecSweep {
  index_t i = 0, st = 0, ed = 0, L = 0;
  Vec<T> v;
  T tau = T(0);
  index_t next = 0;  // the next level
  bool done = false;
};

/// Where spec_chase keeps the reflectors (band_to_tridiagonal's V2 / tau2 layout: level k of
/// sweep i in column i of V2 from its first row, its tau at tau2[k + i * ldt2]); nullptr: nowhere.
template <class T>
struct SpecKeep {
  T* V2 = nullptr;
  index_t ldv2 = 0;
  T* tau2 = nullptr;
  index_t ldt2 = 0;
  void keep(index_t i, index_t k, index_t row, const Vec<T>& v, const T& tau) const {
    if (V2 == nullptr) return;
    for (index_t q = 0; q < index_t(v.size()); ++q)
      V2[(row + q) + i * ldv2] = v[sz(q)];
    tau2[k + i * ldt2] = tau;
  }
};

/// Runs level s.next of sweep s (or marks the sweep done when it has no such level).
template <class T>
void spec_level(index_t n, index_t b, Dense<T>& B, SpecSweep<T>& s, const SpecKeep<T>& kp) {
  const index_t i = s.i;
  if (s.next++ == 0) {
    s.st = i + 1;
    s.ed = std::min(i + b, n - 1);
    s.L = s.ed - s.st + 1;
    s.tau = hh_detail::larfg(s.L, B(s.st, i), &B(s.st, i) + 1);
    s.v = spec_take(B, s.st, i, s.L);
    kp.keep(i, 0, s.st, s.v, s.tau);
    spec_sym2(B, s.st, s.L, s.v, s.tau);
    return;
  }
  const index_t J1 = s.ed + 1, st = s.st, L = s.L;
  if (J1 > n - 1) {
    s.done = true;
    return;
  }
  const index_t J2 = std::min(s.ed + b, n - 1), M = J2 - J1 + 1;
  auto C = [&](index_t r, index_t c) -> T& { return B(J1 + r, st + c); };
  for (index_t r = 0; r < M; ++r) {  // right
    T acc = T(0);
    for (index_t c = 0; c < L; ++c)
      acc = madd(C(r, c), s.v[c], acc);
    const T t = -rounded(s.tau * acc);  // the rounded product, negated
    for (index_t c = 0; c < L; ++c)
      C(r, c) = madd(t, conj(s.v[c]), C(r, c));
  }
  const T taun = hh_detail::larfg(M, C(0, 0), &C(0, 0) + 1);
  const Vec<T> vn = spec_take(B, J1, st, M);
  kp.keep(i, s.next - 1, J1, vn, taun);
  for (index_t c = 1; c < L; ++c) {  // left
    T acc = T(0);
    for (index_t r = 0; r < M; ++r)
      acc = madd_conj(vn[r], C(r, c), acc);
    const T u = -rounded(conj(taun) * acc);
    for (index_t r = 0; r < M; ++r)
      C(r, c) = madd(vn[r], u, C(r, c));
  }
  spec_sym2(B, J1, M, vn, taun);
  s.st = J1;
  s.ed = J2;
  s.L = M;
  s.v = vn;
  s.tau = taun;
}

/// The spec on the dense lower triangle of the band, its tasks in one of two orders:
/// lag = 0: the spec's (sweep after sweep); lag >= 1: a pipeline, level k of sweep i at time step
/// k + lag * i, the sweeps of a time step in *descending* i (the reverse of the spec's order, so
/// any two tasks of one step that touch the same entry would change the bits).
/// With `out`, the band storage on exit is written there too (ldab, where c + k < n) and the
/// reflectors are kept as `kp` says.
template <class T>
Tri<T> spec_chase(index_t n, index_t b, const Vec<T>& AB, index_t ldab, index_t lag,
                  Vec<T>* out = nullptr, const SpecKeep<T>& kp = {}) {
  Dense<T> B{n, Vec<T>(sz(n * n), T(0))};
  for (index_t c = 0; c < n; ++c)
    for (index_t k = 0; k <= b && c + k < n; ++k)
      B(c + k, c) = AB[sz(k + c * ldab)];
  Vec<SpecSweep<T>> sw;
  for (index_t i = 0; i <= n - 2; ++i) {
    sw.emplace_back();
    sw.back().i = i;
  }
  if (lag == 0) {
    for (SpecSweep<T>& s : sw)
      while (!s.done)
        spec_level(n, b, B, s, kp);
  } else {
    for (index_t t = 0, left = index_t(sw.size()); left > 0; ++t)
      for (index_t i = index_t(sw.size()) - 1; i >= 0; --i)
        if (!sw[sz(i)].done && sw[sz(i)].next == t - lag * i) {
          spec_level(n, b, B, sw[sz(i)], kp);
          left -= sw[sz(i)].done;
        }
  }
  Tri<T> t{Vec<real_t<T>>(sz(n)), Vec<real_t<T>>(sz(std::max<index_t>(n - 1, 0))), {}};
  for (index_t i = 0; i < n; ++i)
    t.d[sz(i)] = real_part(B(i, i));
  for (index_t i = 0; i + 1 < n; ++i)
    t.e[sz(i)] = real_part(B(i + 1, i));
  if (out)
    for (index_t c = 0; c < n; ++c)
      for (index_t k = 0; k < ldab && c + k < n; ++k)
        (*out)[sz(k + c * ldab)] = B(c + k, c);
  return t;
}

template <class T>
class BulgeChaseTest : public ::testing::Test {};
using Scalars = ::testing::Types<float, double, cfloat, cdouble, dd_real>;
TYPED_TEST_SUITE(BulgeChaseTest, Scalars);

TYPED_TEST(BulgeChaseTest, MatchesTheLiteralSpec) {
  using T = TypeParam;
  for (index_t b : {1, 3, 8}) {
    for (index_t n : {index_t(1), index_t(2), b + 2, index_t(40)}) {
      const index_t ldab = 2 * b + 1;
      const Vec<T> AB = random_band<T>(n, b, ldab, 7000 + 10 * n + b);
      const Tri<T> t = chase(n, b, AB, ldab), s = spec_chase(n, b, AB, ldab, 0);
      EXPECT_TRUE(same_bits(t.d, s.d) && same_bits(t.e, s.e)) << "n = " << n << " b = " << b;
    }
  }
}

/// The dependency rule of the spec: level k of sweep i may run once sweep i-1 has finished level
/// k+1. The pipeline with exactly that lag (time step k + 2i), its concurrent tasks run in reverse
/// order, gives the sequential bits; with lag 1 (level k beside sweep i-1's level k+1) it does not
/// (except for a real band with b = 1, already tridiagonal: every tau is 0).
TYPED_TEST(BulgeChaseTest, PipelinedScheduleGivesTheSameBits) {
  using T = TypeParam;
  for (index_t b : {1, 2, 3, 8}) {
    for (index_t n : {b + 2, 3 * b + 2, index_t(40)}) {
      const index_t ldab = 2 * b;
      const Vec<T> AB = random_band<T>(n, b, ldab, 8000 + 10 * n + b);
      const Tri<T> t = chase(n, b, AB, ldab), s2 = spec_chase(n, b, AB, ldab, 2);
      EXPECT_TRUE(same_bits(t.d, s2.d) && same_bits(t.e, s2.e)) << "n = " << n << " b = " << b;
      if (n == 40 && (b > 1 || is_complex_v<T>)) {  // real, b = 1: every tau is 0
        const Tri<T> s1 = spec_chase(n, b, AB, ldab, 1);
        EXPECT_FALSE(same_bits(t.d, s1.d) && same_bits(t.e, s1.e)) << "n = " << n << " b = " << b;
      }
    }
  }
}

/// The entries of band storage (ldab) that lie in the matrix (c + k < n), column by column.
template <class T>
Vec<T> in_matrix(const Vec<T>& AB, index_t n, index_t ldab) {
  Vec<T> r;
  for (index_t c = 0; c < n; ++c)
    for (index_t k = 0; k < ldab && c + k < n; ++k)
      r.push_back(AB[sz(k + c * ldab)]);
  return r;
}

/// Structured exact zeros (tests/common/structured_zeros.hpp: block diagonal, a 2 x 2 block in a
/// zero band, diagonal, zero rows and columns, +0 and -0 mixed, all -0): d, e, the band storage
/// on exit and the kept reflectors V2 / tau2 bitwise equal to the literal spec, the sign of every
/// zero included. right's t = -(tau * s) and left's u = -(conj(tau') * s) are the rounded
/// products negated; a negation folded into the product's last fma (fnmsub / fnmadd) gives +0
/// where the spec gives -0.
TYPED_TEST(BulgeChaseTest, StructuredZerosMatchTheLiteralSpecBitwise) {
  using T = TypeParam;
  using R = real_t<T>;
  const T nan = make_scalar<T>(R(std::numeric_limits<double>::quiet_NaN()),
                               R(std::numeric_limits<double>::quiet_NaN()));
  for (Zeros z : test_util::all_zero_kinds())
    for (index_t b : {1, 3, 8})
      for (index_t n : {index_t(2), b + 2, index_t(40)}) {
        const index_t ldab = 2 * b + 1, ldt2 = chase_levels(n, b);
        const Vec<T> AB = test_util::structured_band<T>(n, b, ldab, z, 300 + 10 * n + b);
        Vec<T> V2(sz(n * n), nan), tau2(sz(ldt2 * n), nan), sV2 = V2, stau2 = tau2;
        Vec<T> lab = AB, sab = AB;
        Tri<T> t{Vec<R>(sz(n)), Vec<R>(sz(n - 1)), {}};
        band_to_tridiagonal(Context{}, n, b, lab.data(), ldab, t.d.data(), t.e.data(), V2.data(), n,
                            tau2.data(), ldt2);
        const Tri<T> s =
            spec_chase(n, b, AB, ldab, 0, &sab, SpecKeep<T>{sV2.data(), n, stau2.data(), ldt2});
        const std::string what =
            test_util::zeros_name(z) + ", n = " + std::to_string(n) + ", b = " + std::to_string(b);
        EXPECT_TRUE(same_bits(t.d, s.d)) << "d: " << what;
        EXPECT_TRUE(same_bits(t.e, s.e)) << "e: " << what;
        EXPECT_TRUE(same_bits(in_matrix(lab, n, ldab), in_matrix(sab, n, ldab)))
            << "band on exit: " << what;
        EXPECT_TRUE(same_bits(V2, sV2) && same_bits(tau2, stau2)) << "V2 / tau2: " << what;
      }
}

TYPED_TEST(BulgeChaseTest, RepeatableAndLeavesATridiagonal) {
  using T = TypeParam;
  for (index_t b : {1, 2, 8, 32}) {
    for (index_t n : {index_t(0), index_t(1), index_t(2), b, b + 1, 2 * b + 1, index_t(100)}) {
      for (index_t ldab : {2 * b, 2 * b + 3}) {
        const Vec<T> AB = random_band<T>(n, b, ldab, 9000 + 7 * n + b + ldab);
        const Tri<T> t1 = chase(n, b, AB, ldab), t2 = chase(n, b, AB, ldab);
        EXPECT_TRUE(same_bits(t1.d, t2.d) && same_bits(t1.e, t2.e) && same_bits(t1.AB, t2.AB))
            << "n = " << n << " b = " << b;
        expect_tridiagonal_state(n, ldab, t1);
      }
    }
  }
}

TYPED_TEST(BulgeChaseTest, RejectsBadArguments) {
  using T = TypeParam;
  Vec<T> AB(64, T(0));
  Vec<real_t<T>> d(4), e(4);
  EXPECT_THROW(band_to_tridiagonal(Context{}, -1, 2, AB.data(), 4, d.data(), e.data()), Error);
  EXPECT_THROW(band_to_tridiagonal(Context{}, 4, 0, AB.data(), 4, d.data(), e.data()), Error);
  EXPECT_THROW(band_to_tridiagonal(Context{}, 4, 2, AB.data(), 3, d.data(), e.data()), Error);
  EXPECT_NO_THROW(band_to_tridiagonal(Context{}, 4, 2, AB.data(), 4, d.data(), e.data()));
}

template <class T>
class BulgeChaseLapackTest : public ::testing::Test {};
using LapackScalars = ::testing::Types<float, double, cfloat, cdouble>;
TYPED_TEST_SUITE(BulgeChaseLapackTest, LapackScalars);

TYPED_TEST(BulgeChaseLapackTest, EigenvaluesMatchLapack) {
  using T = TypeParam;
  const double eps = 2 * ScalarTraits<T>::unit_roundoff();
  for (index_t b : {1, 2, 3, 8, 32}) {
    for (index_t n : {index_t(0), index_t(1), index_t(2), index_t(3), b, b + 1, 2 * b + 1,
                      index_t(100), index_t(300)}) {
      const index_t ldab = 2 * b + (n % 2);
      const Vec<T> AB = random_band<T>(n, b, ldab, 100 + 31 * n + b);
      const Tri<T> t = chase(n, b, AB, ldab);
      const Vec<T> F = dense_of(n, b, AB, ldab);
      const Vec<double> wt = sterf(t.d, t.e), wa = lapack_eig(n, F);
      const double tol = 10 * double(n) * eps * fro(F);
      for (index_t k = 0; k < n; ++k)
        EXPECT_LE(std::fabs(wt[k] - wa[k]), tol) << "n = " << n << " b = " << b << " k = " << k;
    }
  }
}

/// dd: the eigenvalues agree with double LAPACK on the rounded band; the trace and the Frobenius
/// norm (invariants of a unitary similarity) hold to dd accuracy.
TEST(BulgeChaseDd, AgreesWithDoubleAndKeepsInvariants) {
  for (index_t b : {1, 3, 8, 32}) {
    for (index_t n : {index_t(1), index_t(2), b + 1, 2 * b + 1, index_t(120)}) {
      const index_t ldab = 2 * b;
      const Vec<dd_real> AB = random_band<dd_real>(n, b, ldab, 500 + n + b);
      const Tri<dd_real> t = chase(n, b, AB, ldab);
      expect_tridiagonal_state(n, ldab, t);
      Vec<double> ABd(AB.size()), d(sz(n)), e(sz(n - 1));
      for (size_t k = 0; k < AB.size(); ++k)
        ABd[k] = AB[k].hi;
      for (index_t k = 0; k < n; ++k)
        d[k] = to_double(t.d[k]);
      for (index_t k = 0; k + 1 < n; ++k)
        e[k] = to_double(t.e[k]);
      const Vec<double> F = dense_of(n, b, ABd, ldab);
      const Vec<double> wt = sterf(d, e), wa = lapack_eig(n, F);
      const double tol = 10 * double(n) * 0x1p-52 * fro(F);
      for (index_t k = 0; k < n; ++k)
        EXPECT_LE(std::fabs(wt[k] - wa[k]), tol) << "n = " << n << " b = " << b << " k = " << k;
      dd_real tr0(0.0), tr1(0.0), fr0(0.0), fr1(0.0);
      for (index_t c = 0; c < n; ++c) {
        tr0 += AB[sz(c * ldab)];
        fr0 += AB[sz(c * ldab)] * AB[sz(c * ldab)];
        for (index_t k = 1; k <= b && c + k < n; ++k)
          fr0 += dd_real(2.0) * AB[sz(k + c * ldab)] * AB[sz(k + c * ldab)];
        tr1 += t.d[c];
        fr1 += t.d[c] * t.d[c];
        if (c + 1 < n) fr1 += dd_real(2.0) * t.e[c] * t.e[c];
      }
      const double u = 0x1p-104 * double(n + b);
      EXPECT_LE(std::fabs(to_double(tr1 - tr0)), 10 * u * std::sqrt(to_double(fr0))) << "n = " << n;
      EXPECT_LE(std::fabs(to_double(fr1 - fr0)), 10 * u * to_double(fr0)) << "n = " << n;
    }
  }
}

}  // namespace
