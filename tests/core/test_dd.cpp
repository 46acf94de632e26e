// dd_real arithmetic against MPFR (300 bits): proven relative error bounds on random and
// adversarial inputs, special values, signed zeros, conversions.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <vector>

#include "core/dd_chain.hpp"
#include "core/dd_real.hpp"
#include "dd_test_util.hpp"
#include "solver/bisection.hpp"

namespace {

using ddtest::Gen;
using ddtest::kU2;
using ddtest::Mp;
using eigsolve::dd_real;

// Bounds in units of u^2 (docs/dd.md): accurate add 3u^2 (JMP 2017 Thm 3.1, 3u^2/(1-4u));
// product 4u^2 (DWTimesDW3, Muller-Rideau 2022); division 10u^2 (asserted, measured ~2);
// sqrt 4.2u^2 (derivation in docs/dd.md).
constexpr double kAddBound = 3.0 * (1.0 + 0x1p-50);
constexpr double kMulBound = 4.0 * (1.0 + 0x1p-50);
constexpr double kDivBound = 10.0;
constexpr double kSqrtBound = 4.2;

enum class Op { add, sub, mul, div };

/// Checks op(a, b) against MPFR; returns the error in units of u^2 (0 for an exact zero).
double check_binary(Op op, const dd_real& a, const dd_real& b) {
  Mp x(2400), y(2400), r(300);
  ddtest::set_dd(x.v, a);
  ddtest::set_dd(y.v, b);
  dd_real c;
  switch (op) {
    case Op::add:
      c = a + b;
      mpfr_add(r.v, x.v, y.v, MPFR_RNDN);
      break;
    case Op::sub:
      c = a - b;
      mpfr_sub(r.v, x.v, y.v, MPFR_RNDN);
      break;
    case Op::mul:
      c = a * b;
      mpfr_mul(r.v, x.v, y.v, MPFR_RNDN);
      break;
    case Op::div:
      c = a / b;
      mpfr_div(r.v, x.v, y.v, MPFR_RNDN);
      break;
  }
  EXPECT_TRUE(ddtest::normalized(c)) << c.hi << " " << c.lo;
  if (mpfr_zero_p(r.v)) {
    EXPECT_EQ(c.hi, 0.0);
    EXPECT_EQ(c.lo, 0.0);
    return 0.0;
  }
  return ddtest::rel_err_u2(c, r.v);
}

double check_sqrt(const dd_real& a) {
  Mp x(2400), r(300);
  ddtest::set_dd(x.v, a);
  mpfr_sqrt(r.v, x.v, MPFR_RNDN);
  const dd_real c = eigsolve::sqrt_(a);
  EXPECT_TRUE(ddtest::normalized(c));
  return ddtest::rel_err_u2(c, r.v);
}

struct MaxErr {
  double add = 0, mul = 0, div = 0, sqrt = 0;
};

void run_random(Gen& g, int n, int emin, int emax, MaxErr& m) {
  for (int i = 0; i < n; ++i) {
    const dd_real a = g.dd(emin, emax);
    // b: independent, or of the same magnitude (cancellation in a + b), or a tiny offset.
    dd_real b = g.dd(emin, emax);
    if (i % 4 == 1)
      b = dd_real(std::ldexp(b.hi, std::ilogb(a.hi) - std::ilogb(b.hi)), 0.0) +
          dd_real(0.0, b.lo * 0x1p-20);
    const double ea = check_binary(Op::add, a, b);
    const double es = check_binary(Op::sub, a, b);
    const double em = check_binary(Op::mul, a, b);
    const double ed = check_binary(Op::div, a, b);
    const double eq = check_sqrt(eigsolve::abs(a));
    ASSERT_LE(ea, kAddBound) << a.hi << "," << a.lo << " + " << b.hi << "," << b.lo;
    ASSERT_LE(es, kAddBound);
    ASSERT_LE(em, kMulBound) << a.hi << "," << a.lo << " * " << b.hi << "," << b.lo;
    ASSERT_LE(ed, kDivBound) << a.hi << "," << a.lo << " / " << b.hi << "," << b.lo;
    ASSERT_LE(eq, kSqrtBound) << a.hi << "," << a.lo;
    m.add = std::max(m.add, std::max(ea, es));
    m.mul = std::max(m.mul, em);
    m.div = std::max(m.div, ed);
    m.sqrt = std::max(m.sqrt, eq);
  }
}

TEST(DdReal, RandomAgainstMpfr) {
  Gen g(12345);
  MaxErr m;
  run_random(g, 100000, -450, 450, m);
  std::printf("max error / u^2: add %.3f mul %.3f div %.3f sqrt %.3f\n", m.add, m.mul, m.div,
              m.sqrt);
}

/// The Sturm count's two-quotient dd division (solver/bisection.hpp bisect::sturm_div) within
/// its derived bound 11u^2 (docs/dd.md): random operands over the guaranteed range, divisors
/// with significands near all ones and near 1, quotients near an exact double, tiny remainders.
TEST(DdReal, SturmDivisionWithinItsBound) {
  constexpr double kSturmDivBound = 11.0 * (1.0 + 0x1p-40);
  Gen g(54);
  double worst = 0;
  auto check = [&](const dd_real& a, const dd_real& b) {
    Mp x(2400), y(2400), r(300);
    ddtest::set_dd(x.v, a);
    ddtest::set_dd(y.v, b);
    mpfr_div(r.v, x.v, y.v, MPFR_RNDN);
    const dd_real c = eigsolve::bisect::sturm_div(a, b);
    EXPECT_TRUE(ddtest::normalized(c)) << c.hi << " " << c.lo;
    const double e = mpfr_zero_p(r.v) ? 0.0 : ddtest::rel_err_u2(c, r.v);
    worst = std::max(worst, e);
    return e;
  };
  for (int i = 0; i < 200000; ++i) {
    const dd_real a = g.dd(-450, 450);
    dd_real b = g.dd(-450, 450);
    if (i % 4 == 1)  // significand near all ones
      b = dd_real::from_sum(
          std::ldexp(2.0 - std::ldexp(g.uniform_int(1, 4096), -52), g.uniform_int(-20, 20)),
          b.lo * 0x1p-30);
    if (i % 4 == 2)  // near a power of two
      b = dd_real::from_sum(
          std::ldexp(1.0 + std::ldexp(g.uniform_int(0, 4096), -52), g.uniform_int(-20, 20)), b.lo);
    dd_real aa = a;
    if (i % 8 == 3)  // a / b within an ulp of a double: tiny remainders
      aa = b * dd_real(std::ldexp(g.significand(), g.uniform_int(-5, 5))) +
           dd_real(std::ldexp(b.hi, -100 - g.uniform_int(0, 8)));
    ASSERT_LE(check(aa, b), kSturmDivBound)
        << aa.hi << "," << aa.lo << " / " << b.hi << "," << b.lo;
  }
  // the Sturm counts' range: divisors down to the dd pivmin 2^-969, dividends up to 2^900
  for (int i = 0; i < 20000; ++i) {
    ASSERT_LE(check(g.dd(-900, -880), g.dd(-969, -950)), kSturmDivBound);
    ASSERT_LE(check(g.dd(880, 900), g.dd(0, 40)), kSturmDivBound);
  }
  std::printf("sturm_div max error / u^2: %.3f\n", worst);
  // special values as operator/: division by zero is inf or NaN with a zero low word
  const dd_real z = eigsolve::bisect::sturm_div(dd_real(1.0), dd_real(0.0));
  EXPECT_TRUE(std::isinf(z.hi));
  EXPECT_EQ(z.lo, 0.0);
  EXPECT_TRUE(std::isnan(eigsolve::bisect::sturm_div(dd_real(0.0), dd_real(0.0)).hi));
  const dd_real nz = eigsolve::bisect::sturm_div(dd_real(-0.0), dd_real(3.0));
  EXPECT_TRUE(nz.hi == 0.0 && std::signbit(nz.hi));
}

TEST(DdReal, RangeEdges) {
  // Operands and exact results with magnitudes in [2^-960, 2^1022]: the guaranteed range.
  Gen g(778);
  for (int i = 0; i < 20000; ++i) {
    const dd_real a = g.dd(1000, 1020), b = g.dd(1000, 1020);
    ASSERT_LE(check_binary(Op::add, a, b), kAddBound);
    ASSERT_LE(check_binary(Op::sub, a, b), kAddBound);
    ASSERT_LE(check_sqrt(eigsolve::abs(a)), kSqrtBound);
    const dd_real c = g.dd(-40, 0);  // |c| < 2: |a*c| < 2^1022
    ASSERT_LE(check_binary(Op::mul, a, c), kMulBound);
    ASSERT_LE(check_binary(Op::div, a, g.dd(1, 40)), kDivBound);
    const dd_real t = g.dd(-960, -930);
    ASSERT_LE(check_binary(Op::add, t, g.dd(-960, -930)), kAddBound);
    ASSERT_LE(check_binary(Op::mul, t, g.dd(0, 60)), kMulBound);
    ASSERT_LE(check_binary(Op::div, t, g.dd(-60, 0)), kDivBound);
    ASSERT_LE(check_binary(Op::div, g.dd(-900, -880), g.dd(50, 60)), kDivBound);
    ASSERT_LE(check_sqrt(eigsolve::abs(t)), kSqrtBound);
  }
}

TEST(DdReal, Adversarial) {
  Gen g(4242);
  double worst = 0.0;
  for (int i = 0; i < 20000; ++i) {
    const dd_real a = g.dd(-300, 300);
    // Massive cancellation: b = -a + tiny, so a + b is tiny relative to a.
    const dd_real tiny(std::ldexp(a.hi, -g.uniform_int(1, 200)) * g.uniform(), 0.0);
    const dd_real b = -a + tiny;
    worst = std::max(worst, check_binary(Op::add, a, b));
    // Same hi, different lo: a + b = a.lo + b.lo + 2 a.hi exactly representable pieces.
    const dd_real c = dd_real::from_sum(-a.hi, (g.uniform() - 0.5) * ddtest::ulp(a.hi));
    worst = std::max(worst, check_binary(Op::add, a, c));
    // Exact ties: lo = +-ulp(hi)/2 with an even hi (still normalized).
    double h = std::ldexp(g.significand(), g.uniform_int(-100, 100));
    h = std::ldexp(std::floor(std::ldexp(h, 52 - std::ilogb(h)) / 2) * 2, std::ilogb(h) - 52);
    const dd_real t1(h, (g.coin() ? 0.5 : -0.5) * ddtest::ulp(h));
    const dd_real t2(-h * 0.75, 0.0);
    ASSERT_TRUE(ddtest::normalized(t1));
    worst = std::max(worst, check_binary(Op::add, t1, t2));
    ASSERT_LE(check_binary(Op::mul, t1, t1), kMulBound);
    ASSERT_LE(check_binary(Op::div, t1, dd_real(h, 0.0)), kDivBound);
    // Powers of two and their neighbours: hi = 2^k with lo < 0, hi = 2^k (2 - 2^-52).
    const int k = g.uniform_int(-200, 200);
    const dd_real p2(std::ldexp(1.0, k), -std::ldexp(g.uniform(), k - 55));
    const dd_real pm(std::ldexp(2.0 - 0x1p-52, k), std::ldexp(g.uniform(), k - 54));
    ASSERT_LE(check_binary(Op::mul, p2, pm), kMulBound);
    ASSERT_LE(check_binary(Op::div, p2, pm), kDivBound);
    ASSERT_LE(check_binary(Op::div, pm, p2), kDivBound);
    ASSERT_LE(check_sqrt(p2), kSqrtBound);
    ASSERT_LE(check_sqrt(pm), kSqrtBound);
    worst = std::max(worst, check_binary(Op::sub, p2, pm));
  }
  EXPECT_LE(worst, kAddBound);
}

TEST(DdReal, SpecialValues) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const dd_real one(1.0), zero(0.0), mzero(-0.0);
  // Signed zeros follow IEEE: -0 + -0 = -0, x - x = +0, -0 * 1 = -0, 0 / -1 = -0.
  EXPECT_TRUE(std::signbit((mzero + mzero).hi));
  EXPECT_FALSE(std::signbit((zero + mzero).hi));
  const dd_real x(3.0, 0x1p-60);
  EXPECT_FALSE(std::signbit((x - x).hi));
  EXPECT_EQ((x - x).hi, 0.0);
  EXPECT_TRUE(std::signbit((mzero * one).hi));
  EXPECT_TRUE(std::signbit((zero / dd_real(-1.0)).hi));
  EXPECT_FALSE(std::signbit((mzero * dd_real(-2.0)).hi));
  // Division by zero: inf or NaN, never a finite value.
  EXPECT_EQ((one / zero).hi, inf);
  EXPECT_EQ((-one / zero).hi, -inf);
  EXPECT_EQ((one / mzero).hi, -inf);
  EXPECT_TRUE(std::isnan((zero / zero).hi));
  // Non-finite operands propagate to a non-finite result.
  const dd_real dinf(inf), dnan(nan);
  for (const dd_real& s : {dinf, -dinf, dnan}) {
    EXPECT_FALSE(is_finite(s + x));
    EXPECT_FALSE(is_finite(x - s));
    EXPECT_FALSE(is_finite(s * x));
    EXPECT_FALSE(is_finite(s / x));
    EXPECT_FALSE(is_finite(eigsolve::madd(s, x, x)));
  }
  EXPECT_FALSE(is_finite(x / dinf));  // documented: NaN, not 0
  // Overflow gives a non-finite result.
  const dd_real big(0x1.fffffffffffffp1023, 0.0);
  EXPECT_FALSE(is_finite(big * dd_real(2.0)));
  EXPECT_FALSE(is_finite(big + big));
  EXPECT_FALSE(is_finite(big / dd_real(0.5)));
  // sqrt: 0 -> 0 with sign, negative -> NaN, inf -> inf, NaN -> NaN.
  EXPECT_EQ(eigsolve::sqrt_(zero).hi, 0.0);
  EXPECT_FALSE(std::signbit(eigsolve::sqrt_(zero).hi));
  EXPECT_TRUE(std::signbit(eigsolve::sqrt_(mzero).hi));
  EXPECT_TRUE(std::isnan(eigsolve::sqrt_(dd_real(-1.0)).hi));
  EXPECT_TRUE(std::isnan(eigsolve::sqrt_(dd_real(-0x1p-1000)).hi));
  EXPECT_EQ(eigsolve::sqrt_(dinf).hi, inf);
  EXPECT_TRUE(std::isnan(eigsolve::sqrt_(dnan).hi));
  EXPECT_EQ(eigsolve::sqrt_(dd_real(4.0)), dd_real(2.0));
  // abs: +0 for both zeros, exact otherwise.
  EXPECT_FALSE(std::signbit(eigsolve::abs(mzero).hi));
  EXPECT_EQ(eigsolve::abs(dd_real(-3.0, -0x1p-60)), dd_real(3.0, 0x1p-60));
  EXPECT_EQ(eigsolve::abs1(dd_real(-3.0, 0x1p-60)), dd_real(3.0, -0x1p-60));
}

TEST(DdReal, ExactOperations) {
  // Exact results stay exact.
  EXPECT_EQ(dd_real(1.0) + dd_real(0x1p-80), dd_real(1.0, 0x1p-80));
  EXPECT_EQ(dd_real(1.0, 0x1p-80) - dd_real(1.0), dd_real(0x1p-80));
  EXPECT_EQ(dd_real(1.0) / dd_real(3.0) * dd_real(3.0), dd_real(1.0));
  const dd_real t = dd_real(1.0 + 0x1p-52) * dd_real(1.0 + 0x1p-52);  // 1 + 2^-51 + 2^-104
  EXPECT_EQ(t, dd_real(1.0 + 0x1p-51, 0x1p-104));
  EXPECT_EQ(t / dd_real(1.0 + 0x1p-52), dd_real(1.0 + 0x1p-52));
  EXPECT_EQ(eigsolve::sqrt_(t), dd_real(1.0 + 0x1p-52));
  // Comparisons are lexicographic on (hi, lo).
  const dd_real a(1.0, 0x1p-60), b(1.0, -0x1p-60);
  EXPECT_TRUE(b < a);
  EXPECT_TRUE(b <= a && a <= a && a >= b && a > b && a != b);
  EXPECT_FALSE(a < a);
  EXPECT_TRUE(dd_real(0.0) == dd_real(-0.0));
  const dd_real n(std::numeric_limits<double>::quiet_NaN());
  EXPECT_FALSE(n < a || a < n || n == n || n <= a || n >= a);
  // Mixed operands through the implicit conversions.
  EXPECT_EQ(a + 1.0, a + dd_real(1.0));
  EXPECT_EQ(2 * a, dd_real(2.0) * a);
  // madd is the product then the sum (the accurate one, or the sloppy one in a build with
  // EIGSOLVE_DD_SLOPPY_MADD), bit for bit.
  Gen g(99);
  for (int i = 0; i < 1000; ++i) {
    const dd_real x = g.dd(-20, 20), y = g.dd(-20, 20), z = g.dd(-20, 20);
    const dd_real m1 = eigsolve::madd(x, y, z);
    const dd_real m2 = eigsolve::kDdSloppyMadd ? eigsolve::sloppy_add(x * y, z) : x * y + z;
    EXPECT_TRUE(m1.hi == m2.hi && m1.lo == m2.lo);
    EXPECT_EQ(eigsolve::madd_conj(x, y, z), m2);
    EXPECT_EQ(eigsolve::abs2(x), x * x);
    EXPECT_EQ(eigsolve::scale2(x, -7), x * dd_real(0x1p-7));
    EXPECT_EQ(eigsolve::to_double(x), x.hi);
  }
  EXPECT_EQ(eigsolve::real_part(a), a);
  EXPECT_EQ(eigsolve::imag_part(a), dd_real(0.0));
  EXPECT_EQ(eigsolve::conj(a), a);
}

TEST(DdReal, IntegerConversions) {
  EXPECT_EQ(dd_real(7), dd_real(7.0));
  const long long big = 9223372036854775807LL;  // 2^63 - 1 = 2^63 + (-1)
  const dd_real d(big);
  EXPECT_EQ(d.hi, 0x1p63);
  EXPECT_EQ(d.lo, -1.0);
  const dd_real m(static_cast<long long>(-9223372036854775807LL - 1));
  EXPECT_EQ(m, dd_real(-0x1p63));
  const long l = -123456789012345679L;
  const dd_real dl(l);
  EXPECT_EQ(static_cast<long>(dl.hi) + static_cast<long>(dl.lo), l);
  EXPECT_TRUE(ddtest::normalized(dl));
  EXPECT_EQ(dd_real(std::int64_t{-5}), dd_real(-5.0));
  EXPECT_EQ(dd_real::from_sum(1.0, 0x1p-53), dd_real(1.0, 0x1p-53));
  EXPECT_EQ(eigsolve::dd_from_double_sum(0x1p-53, 1.0), dd_real(1.0, 0x1p-53));
}

}  // namespace

using ddtest::same_bits;

// core/dd_chain.hpp: madd_zero(a, b) is madd(a, b, +0) bit for bit: random operands over the
// whole range (products that underflow, are subnormal or overflow included), both signs of
// every zero, non-finite parts, and pairs that are not normalized (lo larger than ulp(hi)/2,
// lo non-zero with hi zero).
TEST(DdReal, MaddZeroSameBitsAsMaddWithZero) {
  Gen g(20261202);
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double tiny = std::numeric_limits<double>::denorm_min();
  std::vector<dd_real> special = {dd_real(0.0),
                                  dd_real(-0.0),
                                  dd_real(0.0, -0.0),
                                  dd_real(-0.0, -0.0),
                                  dd_real(1.0, -0.0),
                                  dd_real(-1.0, -0.0),
                                  dd_real(inf),
                                  dd_real(-inf),
                                  dd_real(nan),
                                  dd_real(1.0, nan),
                                  dd_real(1.0, inf),
                                  dd_real(tiny),
                                  dd_real(-tiny, 0.0),
                                  dd_real(0.0, tiny),
                                  dd_real(1.0, 1.0),
                                  dd_real(1.0, -3.0),
                                  dd_real(0x1p1023, 0x1p970),
                                  dd_real(-0x1p-1022, 0x1p-1074),
                                  dd_real(0x1p-537),
                                  dd_real(1.0, 0x1p-53),
                                  dd_real(1.0, -0x1p-54)};
  long checked = 0;
  for (const dd_real& a : special)
    for (const dd_real& b : special) {
      ASSERT_TRUE(same_bits(eigsolve::madd_zero(a, b), eigsolve::madd(a, b, dd_real(0.0))))
          << a.hi << " " << a.lo << " * " << b.hi << " " << b.lo;
      ++checked;
    }
  for (int i = 0; i < 400000; ++i) {
    dd_real a, b;
    switch (i % 4) {
      case 0:  // ordinary magnitudes
        a = g.dd(-30, 30), b = g.dd(-30, 30);
        break;
      case 1:  // products near underflow (subnormal and zero results) and near overflow
        a = g.dd(-560, -500), b = g.dd(-560, -480);
        if (g.coin()) a = g.dd(500, 520), b = g.dd(490, 515);
        break;
      case 2:  // one operand special, the other random
        a = special[g.uniform_int(0, int(special.size()) - 1)], b = g.dd(-600, 600);
        if (g.coin()) std::swap(a, b);
        break;
      default:  // pairs that are not normalized
        a = dd_real(g.dd(-20, 20).hi, g.dd(-20, 20).hi), b = g.dd(-20, 20);
        break;
    }
    ASSERT_TRUE(same_bits(eigsolve::madd_zero(a, b), eigsolve::madd(a, b, dd_real(0.0))))
        << std::hexfloat << a.hi << " " << a.lo << " * " << b.hi << " " << b.lo;
    ++checked;
  }
  EXPECT_GT(checked, 400000);
}
