// The sloppy double-double sum (core/dd_real.hpp sloppy_add, docs/dd.md "madd") against MPFR:
// its normwise bound |r - (a + b)| <= 3u^2 (|a| + |b|) on random and cancelling operands, its
// relative bound without cancellation, special values; madd is this build's sum; the AVX-512
// lanes (core/dd_avx512.hpp) give the scalar bits.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "core/cpu_features.hpp"
#include "core/dd_avx512.hpp"
#include "solver/bisection.hpp"
#include "solver/sturm_dd_avx512.hpp"
#include "core/dd_real.hpp"
#include "dd_test_util.hpp"

namespace {

using ddtest::Gen;
using ddtest::kU2;
using ddtest::Mp;
using ddtest::same_bits;
using eigsolve::dd_real;

// 3u^2 (|a| + |b|): the 2Sum is exact; t = fl(a.lo + b.lo) and s2 = fl(e + t) add at most
// u(|a.lo| + |b.lo|) + u(|e| + |t|) <= 2u^2 (|a| + |b|) (1 + O(u)), the Fast2Sum at most
// u^2 |r|; a small factor for the O(u) terms.
constexpr double kNormBound = 3.0 * (1.0 + 0x1p-40);

/// |sloppy_add(a, b) - (a + b)| / (|a| + |b|) in units of u^2, and |.| / |a + b| (relative;
/// 0 for an exact zero).
void sloppy_errors(const dd_real& a, const dd_real& b, double& norm_err, double& rel_err) {
  const dd_real c = eigsolve::sloppy_add(a, b);
  EXPECT_TRUE(ddtest::normalized(c)) << std::hexfloat << c.hi << " " << c.lo;
  Mp x(2400), y(2400), exact(2400), got(2400), scale(2400);
  ddtest::set_dd(x.v, a);
  ddtest::set_dd(y.v, b);
  mpfr_add(exact.v, x.v, y.v, MPFR_RNDN);  // exact in 2400 bits
  ddtest::set_dd(got.v, c);
  mpfr_sub(got.v, got.v, exact.v, MPFR_RNDN);
  mpfr_abs(got.v, got.v, MPFR_RNDN);
  mpfr_abs(x.v, x.v, MPFR_RNDN);
  mpfr_abs(y.v, y.v, MPFR_RNDN);
  mpfr_add(scale.v, x.v, y.v, MPFR_RNDN);
  Mp q(64);
  mpfr_div(q.v, got.v, scale.v, MPFR_RNDN);
  norm_err = mpfr_get_d(q.v, MPFR_RNDN) / kU2;
  if (mpfr_zero_p(exact.v)) {
    EXPECT_EQ(c.hi, 0.0);
    EXPECT_EQ(c.lo, 0.0);
    rel_err = 0.0;
    return;
  }
  mpfr_abs(exact.v, exact.v, MPFR_RNDN);
  mpfr_div(q.v, got.v, exact.v, MPFR_RNDN);
  rel_err = mpfr_get_d(q.v, MPFR_RNDN) / kU2;
}

TEST(DdSloppy, NormwiseBoundOnRandomAndCancellingSums) {
  Gen g(20261205);
  double worst_norm = 0.0, worst_rel_same_sign = 0.0, worst_rel_cancel = 0.0;
  for (int i = 0; i < 250000; ++i) {
    const dd_real a = g.dd(-300, 300);
    dd_real b;
    switch (i % 5) {
      case 0:  // independent magnitudes
        b = g.dd(-300, 300);
        break;
      case 1:  // the same binade, either sign
        b = dd_real::from_sum(std::ldexp(g.significand(), std::ilogb(a.hi)) * (g.coin() ? 1 : -1),
                              (g.uniform() - 0.5) * ddtest::ulp(a.hi));
        break;
      case 2:  // massive cancellation: b = -a + tiny
        b = -a + dd_real(std::ldexp(a.hi, -g.uniform_int(1, 200)) * g.uniform(), 0.0);
        break;
      case 3:  // the same hi, another lo: a + b is the sum of the lo parts plus 0
        b = dd_real::from_sum(-a.hi, (g.uniform() - 0.5) * ddtest::ulp(a.hi));
        break;
      default: {  // hi parts a few ulps apart, full lo parts: fl(a.hi + b.hi) can be smaller
                  // than the lo parts' sum (the Fast2Sum's precondition fails)
        double h = -a.hi;
        for (int k = g.uniform_int(1, 3); k > 0; --k)
          h = std::nextafter(h, g.coin() ? 0.0 : 2.0 * h);
        const double l = (g.uniform() - 0.5) * ddtest::ulp(h);
        b = dd_real::from_sum(h, l);
        break;
      }
    }
    double en = 0.0, er = 0.0;
    sloppy_errors(a, b, en, er);
    ASSERT_LE(en, kNormBound) << std::hexfloat << a.hi << "," << a.lo << " + " << b.hi << ","
                              << b.lo;
    worst_norm = std::max(worst_norm, en);
    if ((a.hi > 0) == (b.hi > 0)) {
      // Same sign: no cancellation, the relative error is bounded too (|a + b| = |a| + |b|).
      ASSERT_LE(er, kNormBound);
      worst_rel_same_sign = std::max(worst_rel_same_sign, er);
    } else {
      worst_rel_cancel = std::max(worst_rel_cancel, er);
    }
  }
  std::printf(
      "sloppy sum, max error / u^2: normwise %.3f, relative same sign %.3f, relative "
      "under cancellation %.3g (unbounded: the normwise bound is the guarantee)\n",
      worst_norm, worst_rel_same_sign, worst_rel_cancel);
}

TEST(DdSloppy, SpecialValuesAndSignedZeros) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  using eigsolve::sloppy_add;
  EXPECT_FALSE(eigsolve::is_finite(sloppy_add(dd_real(inf), dd_real(1.0))));
  EXPECT_FALSE(eigsolve::is_finite(sloppy_add(dd_real(1.0), dd_real(nan))));
  EXPECT_FALSE(eigsolve::is_finite(sloppy_add(dd_real(1.0, nan), dd_real(1.0))));
  EXPECT_FALSE(eigsolve::is_finite(sloppy_add(dd_real(inf), dd_real(-inf))));
  // IEEE signs of zero sums, as operator+: -0 + -0 = -0, -0 + +0 = +0, x + (-x) = +0.
  const dd_real mz = sloppy_add(dd_real(-0.0, -0.0), dd_real(-0.0, -0.0));
  EXPECT_TRUE(std::signbit(mz.hi));
  EXPECT_FALSE(std::signbit(sloppy_add(dd_real(-0.0), dd_real(0.0)).hi));
  const dd_real x = dd_real::from_sum(1.5, 0x1p-60);
  const dd_real z = sloppy_add(x, -x);
  EXPECT_EQ(z.hi, 0.0);
  EXPECT_EQ(z.lo, 0.0);
  EXPECT_FALSE(std::signbit(z.hi));
  // Exact cases: integers, and a pair whose lo parts carry the whole sum.
  EXPECT_TRUE(same_bits(sloppy_add(dd_real(3.0), dd_real(-5.0)), dd_real(-2.0)));
  const dd_real a = dd_real::from_sum(1.0, 0x1p-70), b = dd_real::from_sum(-1.0, 0x1p-71);
  EXPECT_TRUE(same_bits(sloppy_add(a, b), dd_real(0x1p-70 + 0x1p-71)));
  // Every fix-up form (branch-free, branchy, high word) gives the same bits on these pairs (the
  // device forms: tests/gpu/test_gpu_arith.cu).
  const dd_real cases[] = {dd_real(-0.0, -0.0), dd_real(0.0),       dd_real(-0.0), x, -x, a, b,
                           dd_real(0x1p-1074),  dd_real(-0x1p-1074)};
  for (const dd_real& p : cases)
    for (const dd_real& q : cases) {
      const dd_real r = sloppy_add(p, q);
      EXPECT_TRUE(same_bits(sloppy_add<false>(p, q), r));
      EXPECT_TRUE(same_bits(sloppy_add<true, true>(p, q), r));
    }
}

TEST(DdSloppy, MaddUsesThisBuildsSum) {
  Gen g(77);
  long differ = 0;
  for (int i = 0; i < 20000; ++i) {
    const dd_real a = g.dd(-20, 20), b = g.dd(-20, 20);
    // Cancellation in the sum, where the two sums differ most often.
    const dd_real c = g.coin() ? -(a * b) + dd_real(g.dd(-60, -40).hi) : g.dd(-40, 40);
    const dd_real want = eigsolve::kDdSloppyMadd ? eigsolve::sloppy_add(a * b, c) : a * b + c;
    ASSERT_TRUE(same_bits(eigsolve::madd(a, b, c), want));
    ASSERT_TRUE(same_bits(eigsolve::madd_conj(a, b, c), want));
    if (!same_bits(eigsolve::sloppy_add(a * b, c), a * b + c)) ++differ;
  }
  // The two sums are different functions (else the build option would be pointless and this
  // test could not tell them apart).
  EXPECT_GT(differ, 100);
}

#if defined(EIGSOLVE_DD_AVX512)
/// The lanes' sloppy sums a + c and multiply-adds a * b + c of 8 values.
__attribute__((target("avx512f"))) void lanes8(const dd_real* a, const dd_real* b, const dd_real* c,
                                               dd_real* s, dd_real* m) {
  namespace v = eigsolve::dd512;
  v::store8(s, v::sloppy_add(v::load8(a), v::load8(c)));
  v::store8(m, v::madd(v::load8(a), v::load8(b), v::load8(c)));
}

TEST(DdSloppy, Avx512LanesGiveTheScalarBits) {
  if (!eigsolve::has_avx512f()) GTEST_SKIP() << "no AVX-512F on this CPU";
  Gen g(4711);
  const double inf = std::numeric_limits<double>::infinity();
  for (int rep = 0; rep < 4000; ++rep) {
    dd_real a[8], b[8], c[8];
    for (int l = 0; l < 8; ++l) {
      a[l] = g.dd(-30, 30), b[l] = g.dd(-30, 30), c[l] = g.dd(-30, 30);
      if (l == 1) c[l] = -(a[l] * b[l]) + dd_real(g.dd(-90, -70).hi);  // cancellation
      if (l == 2 && rep % 8 == 0) c[l] = dd_real(-0.0, -0.0), a[l] = dd_real(-0.0);
      if (l == 3 && rep % 16 == 0) c[l] = dd_real(inf);
    }
    dd_real s[8], m[8];
    lanes8(a, b, c, s, m);
    for (int l = 0; l < 8; ++l) {
      ASSERT_TRUE(same_bits(s[l], eigsolve::sloppy_add(a[l], c[l]))) << rep << " lane " << l;
      ASSERT_TRUE(same_bits(m[l], eigsolve::madd(a[l], b[l], c[l]))) << rep << " lane " << l;
    }
  }
}

/// The Sturm count's two-quotient division (solver/sturm_dd_avx512.hpp) lane by lane against
/// the scalar bisect::sturm_div, special values included.
__attribute__((target("avx512f"))) void sturm_div8(const dd_real* a, const dd_real* b, dd_real* q) {
  namespace v = eigsolve::dd512;
  v::store8(q, eigsolve::sturm_dd::sturm_div(v::load8(a), v::load8(b)));
}

TEST(DdSloppy, Avx512SturmDivisionGivesTheScalarBits) {
  if (!eigsolve::has_avx512f()) GTEST_SKIP() << "no AVX-512F on this CPU";
  Gen g(5454);
  const double inf = std::numeric_limits<double>::infinity();
  for (int rep = 0; rep < 4000; ++rep) {
    dd_real a[8], b[8];
    for (int l = 0; l < 8; ++l) {
      a[l] = g.dd(-300, 300), b[l] = g.dd(-300, 300);
      if (l == 1) a[l] = b[l] * dd_real(3.0);  // exact quotient
      if (l == 2 && rep % 8 == 0) a[l] = dd_real(-0.0), b[l] = g.dd(-3, 3);
      if (l == 3 && rep % 16 == 0) b[l] = dd_real(rep % 32 ? 0.0 : -0.0);  // division by zero
      if (l == 4 && rep % 16 == 0) a[l] = dd_real(inf);
      if (l == 5) b[l] = g.dd(-969, -960);  // pivmin's scale
    }
    dd_real q[8];
    sturm_div8(a, b, q);
    for (int l = 0; l < 8; ++l) {
      const dd_real want = eigsolve::bisect::sturm_div(a[l], b[l]);
      if (std::isnan(want.hi)) {
        ASSERT_TRUE(std::isnan(q[l].hi)) << rep << " lane " << l;
        continue;
      }
      ASSERT_TRUE(same_bits(q[l], want)) << rep << " lane " << l;
    }
  }
}
#endif

}  // namespace
