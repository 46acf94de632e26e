// parse_dd / dd_to_string against MPFR: correct rounding of hi and lo, exact dyadic strings,
// round trips, malformed input, overflow and underflow.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "core/dd_io.hpp"
#include "core/errors.hpp"
#include "dd_test_util.hpp"

namespace {

using ddtest::Gen;
using ddtest::Mp;
using eigsolve::dd_real;
using eigsolve::dd_to_string;
using eigsolve::dd_to_string_roundtrip;
using eigsolve::parse_dd;

bool same_bits(const dd_real& a, const dd_real& b) {
  return std::signbit(a.hi) == std::signbit(b.hi) && a.hi == b.hi && a.lo == b.lo &&
         std::signbit(a.lo) == std::signbit(b.lo);
}

/// The reference: the decimal at 2400 bits (exact for every dyadic dd value, error 2^-2400
/// otherwise), hi = RN(x), lo = RN(x - hi) by MPFR, then renormalized. False when hi
/// overflows.
bool oracle(std::string s, dd_real& out) {
  for (char& c : s)
    if (c == 'd' || c == 'D') c = 'e';
  Mp x(2400), r(2400);
  EXPECT_EQ(mpfr_set_str(x.v, s.c_str(), 10, MPFR_RNDN), 0) << s;
  const double hi = mpfr_get_d(x.v, MPFR_RNDN);
  if (std::isinf(hi)) return false;
  mpfr_sub_d(r.v, x.v, hi, MPFR_RNDN);
  const double lo = mpfr_get_d(r.v, MPFR_RNDN);
  out = dd_real::from_sum(hi, lo);  // the canonical pair (docs/dd.md)
  if (out.lo == 0.0) out.lo = 0.0;
  return true;
}

/// A random well-formed decimal string with 1..maxdig significant digits.
std::string random_decimal(Gen& g, int maxdig, int emin, int emax) {
  std::string s;
  const int sign = g.uniform_int(0, 2);
  if (sign == 1) s += '-';
  if (sign == 2) s += '+';
  const int nd = g.uniform_int(1, maxdig);
  std::string digits;
  for (int i = 0; i < nd; ++i)
    digits += static_cast<char>('0' + g.uniform_int(i == 0 ? 1 : 0, 9));
  const int zeros = g.uniform_int(0, 3);
  const int dot = g.uniform_int(-1, nd);  // -1: no dot
  if (dot >= 0) {
    s += std::string(static_cast<std::size_t>(zeros), '0') + digits.substr(0, dot) + "." +
         digits.substr(dot);
  } else {
    s += digits;
  }
  const int e = g.uniform_int(emin, emax);
  if (e != 0 || g.coin()) s += std::string(1, "eEdD"[g.uniform_int(0, 3)]) + std::to_string(e);
  return s;
}

TEST(DdIo, ParseAgainstMpfrRandom) {
  Gen g(31337);
  int fast = 0;
  for (int i = 0; i < 40000; ++i) {
    // Short strings with small exponents (the fast path), long ones over the whole range.
    const std::string s =
        (i % 2 == 0) ? random_decimal(g, 17, -25, 25) : random_decimal(g, 45, -345, 330);
    dd_real got(7.0), ref;
    const bool ok_ref = oracle(s, ref);
    const bool ok = parse_dd(s, got);
    ASSERT_EQ(ok, ok_ref) << s;
    if (!ok) continue;
    ASSERT_TRUE(same_bits(got, ref)) << s << ": got (" << got.hi << ", " << got.lo << ") want ("
                                     << ref.hi << ", " << ref.lo << ")";
    ASSERT_TRUE(ddtest::normalized(got)) << s;
    fast += (i % 2 == 0);
  }
  EXPECT_GT(fast, 0);
}

TEST(DdIo, FortyDigitStrings) {
  const char* cases[] = {
      "3.141592653589793238462643383279502884197",
      "-2.718281828459045235360287471352662497757e-200",
      "1.414213562373095048801688724209698078570e+300",
      "6.022140760000000000000000000000000000001e23",
      "9.999999999999999999999999999999999999999e-310",  // subnormal hi
      "1.797693134862315708145274237317043567980e308",   // DBL_MAX + tiny (rounds to DBL_MAX)
  };
  for (const char* s : cases) {
    dd_real got, ref;
    ASSERT_TRUE(oracle(s, ref)) << s;
    ASSERT_TRUE(parse_dd(s, got)) << s;
    EXPECT_TRUE(same_bits(got, ref)) << s;
  }
  dd_real pi;
  ASSERT_TRUE(parse_dd(cases[0], pi));
  EXPECT_EQ(pi.hi, 3.141592653589793);
  EXPECT_EQ(pi.lo, 1.2246467991473532e-16);
}

TEST(DdIo, ExactDyadicStrings) {
  dd_real x;
  ASSERT_TRUE(parse_dd("0.1000000000000000055511151231257827021181583404541015625", x));
  EXPECT_TRUE(same_bits(x, dd_real(0.1, 0.0)));
  // 2^-1 + 2^-60 written out in full.
  ASSERT_TRUE(parse_dd("0.500000000000000000867361737988403547205962240695953369140625", x));
  EXPECT_TRUE(same_bits(x, dd_real(0.5, 0x1p-60)));
  // 1 + 2^-53 (a tie for hi: stays 1, lo = 2^-53).
  ASSERT_TRUE(parse_dd("1.00000000000000011102230246251565404236316680908203125", x));
  EXPECT_TRUE(same_bits(x, dd_real(1.0, 0x1p-53)));
  // 2^-1075 exactly: a tie between 0 and the smallest subnormal, to even = 0.
  ASSERT_TRUE(parse_dd(dd_to_string(dd_real(0x1p-1074), 751), x));  // exact: 751 digits
  EXPECT_TRUE(same_bits(x, dd_real(0x1p-1074)));
  Mp h(100);
  mpfr_set_ui_2exp(h.v, 1, -1075, MPFR_RNDN);
  mpfr_exp_t he = 0;
  char* hs = mpfr_get_str(nullptr, &he, 10, 760, h.v, MPFR_RNDN);  // 2^-1075, exact
  const std::string half = std::string("0.") + hs + "e" + std::to_string(he);
  mpfr_free_str(hs);
  ASSERT_TRUE(parse_dd(half, x)) << half;
  EXPECT_TRUE(x.hi == 0.0 && x.lo == 0.0);  // tie between 0 and 2^-1074: to even
  ASSERT_TRUE(
      parse_dd("-" + half.substr(0, half.find('e') - 1) + "9" + half.substr(half.find('e')), x));
  EXPECT_EQ(x.hi, -0x1p-1074);  // just above the tie
  // Random dd values written out exactly (up to ~770 significant digits) come back exactly.
  Gen g(5);
  for (int i = 0; i < 300; ++i) {
    const dd_real v = g.dd(-1000, 1000);
    const std::string s = dd_to_string(v, 1100);  // longer than the exact expansion
    ASSERT_TRUE(parse_dd(s, x)) << s;
    ASSERT_TRUE(x.hi == v.hi && x.lo == v.lo) << s;
  }
}

TEST(DdIo, Malformed) {
  const char* bad[] = {"",     "1e",   "--1", "1.2.3", "0x10", ".",        "+",     "-",   "e5",
                       "1e+",  "inf",  "nan", "NaN",   "1 ",   " 1",       "1e5.0", "1,5", "++1",
                       "1..2", "-inf", "1e-", ".e1",   "1f",   "Infinity", "1e5e5"};
  for (const char* s : bad) {
    dd_real x(42.0);
    EXPECT_FALSE(parse_dd(s, x)) << "'" << s << "'";
    EXPECT_EQ(x, dd_real(42.0)) << s;  // untouched
  }
  const std::pair<const char*, double> good[] = {
      {"+1", 1.0},    {"-.5", -0.5},    {"5.", 5.0},          {"1d3", 1000.0},
      {"1D-3", 1e-3}, {"1E+3", 1000.0}, {"00012.5000", 12.5}, {"0e99999999999", 0.0}};
  for (const auto& [s, v] : good) {
    dd_real x;
    ASSERT_TRUE(parse_dd(s, x)) << s;
    EXPECT_EQ(x.hi, v) << s;
  }
  dd_real z;
  ASSERT_TRUE(parse_dd("-0.000", z));
  EXPECT_TRUE(std::signbit(z.hi));
  EXPECT_EQ(z.lo, 0.0);
}

TEST(DdIo, OverflowAndUnderflow) {
  dd_real x;
  EXPECT_FALSE(parse_dd("1e309", x));
  EXPECT_FALSE(parse_dd("-1.8e308", x));
  EXPECT_FALSE(parse_dd("1e99999999999999999999", x));
  ASSERT_TRUE(parse_dd("1.7976931348623157e308", x));
  EXPECT_EQ(x.hi, 0x1.fffffffffffffp1023);
  ASSERT_TRUE(parse_dd("1e-400", x));
  EXPECT_TRUE(x.hi == 0.0 && !std::signbit(x.hi));
  ASSERT_TRUE(parse_dd("-2e-324", x));  // slow path, rounds to -0
  EXPECT_TRUE(x.hi == 0.0 && std::signbit(x.hi));
  ASSERT_TRUE(parse_dd("-1e-99999999999999", x));
  EXPECT_TRUE(x.hi == 0.0 && std::signbit(x.hi));
  ASSERT_TRUE(parse_dd("2.4703282292062328e-324", x));  // just above 2^-1075
  EXPECT_EQ(x.hi, 0x1p-1074);
  ASSERT_TRUE(parse_dd("2.4703282292062327e-324", x));  // just below
  EXPECT_EQ(x.hi, 0.0);
  ASSERT_TRUE(parse_dd("1e-320", x));  // subnormal hi, lo = RN(x - hi) also subnormal
  dd_real ref;
  ASSERT_TRUE(oracle("1e-320", ref));
  EXPECT_TRUE(same_bits(x, ref));
}

TEST(DdIo, ToStringFormat) {
  EXPECT_EQ(dd_to_string(dd_real(1.0), 5), "1.0000e+00");
  EXPECT_EQ(dd_to_string(dd_real(-1234.5), 3), "-1.23e+03");  // tie 1234.5 -> 1.23|45: down
  EXPECT_EQ(dd_to_string(dd_real(1.235e-5), 1), "1e-05");
  EXPECT_EQ(dd_to_string(dd_real(0.1)), "1.000000000000000055511151231257827e-01");
  EXPECT_EQ(dd_to_string(dd_real(1.0, 0x1p-60), 20), "1.0000000000000000009e+00");
  EXPECT_EQ(dd_to_string(dd_real(0x1p-1000), 3), "9.33e-302");
  EXPECT_EQ(dd_to_string(dd_real(-0.0), 3), "-0.00e+00");
  EXPECT_EQ(dd_to_string(dd_real(0.0), 1), "0e+00");
  EXPECT_EQ(dd_to_string(dd_real(HUGE_VAL), 3), "inf");
  EXPECT_EQ(dd_to_string(dd_real(-HUGE_VAL), 3), "-inf");
  EXPECT_EQ(dd_to_string(dd_real(NAN), 3), "nan");
  EXPECT_EQ(dd_to_string(dd_real(9.96), 2), "1.0e+01");  // carry into the exponent
  EXPECT_THROW(dd_to_string(dd_real(1.0), 0), eigsolve::UsageError);
}

TEST(DdIo, RoundTrip) {
  Gen g(8080);
  const int n = 100000;
  int ok33 = 0, ok34 = 0, guaranteed = 0;
  for (int i = 0; i < n; ++i) {
    const dd_real v = g.dd(-1020, 1020);
    dd_real x;
    const std::string s = dd_to_string_roundtrip(v);
    ASSERT_TRUE(parse_dd(s, x)) << s;
    ASSERT_TRUE(same_bits(x, v) || (x.hi == v.hi && x.lo == v.lo)) << s;
    ASSERT_GE(s.size(), 33u);
    const std::string s34 = dd_to_string(v, 34);
    const bool rt34 = parse_dd(s34, x) && x.hi == v.hi && x.lo == v.lo;
    ok34 += rt34;
    if (i < 20000) ok33 += parse_dd(dd_to_string(v, 33), x) && x.hi == v.hi && x.lo == v.lo;
    // Guaranteed (docs/dd.md): |lo| >= 2^-55 |hi|, lo not a tie, lo normal.
    if (std::fabs(v.lo) >= std::ldexp(std::fabs(v.hi), -55) &&
        std::fabs(v.lo) != ddtest::ulp(v.hi) / 2 && std::fabs(v.lo) >= 0x1p-1022) {
      ++guaranteed;
      ASSERT_TRUE(rt34) << s34 << " from (" << v.hi << ", " << v.lo << ")";
    }
  }
  std::printf(
      "round trip of %d random dd: 34 digits %d (guaranteed class %d); 33 digits %d of "
      "the first 20000\n",
      n, ok34, guaranteed, ok33);
}

TEST(DdIo, Speed) {  // prints throughput, asserts nothing about time
  std::vector<std::string> shorts, longs;
  Gen g(1);
  for (int i = 0; i < 20000; ++i) {
    shorts.push_back(random_decimal(g, 15, -20, 20));
    longs.push_back(dd_to_string(g.dd(-300, 300), 34));
  }
  for (auto* set : {&shorts, &longs}) {
    const auto t0 = std::chrono::steady_clock::now();
    double sum = 0;
    for (const auto& s : *set) {
      dd_real x;
      ASSERT_TRUE(parse_dd(s, x));
      sum += x.hi;
    }
    const double ns =
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() /
        set->size();
    std::printf("parse_dd %s strings: %.0f ns each (checksum %g)\n",
                set == &shorts ? "<=15-digit" : "34-digit", ns, sum);
  }
}

}  // namespace
