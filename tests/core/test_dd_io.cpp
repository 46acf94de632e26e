// parse_dd / dd_to_string against MPFR: correct rounding of hi and lo, exact dyadic strings,
// round trips, malformed input, overflow and underflow; the fixed-width printing against the
// MPFR printing it replaced (character for character).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
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

// ---------------------------------------------------------------------------------------------
// The fixed-width conversion against the MPFR one it replaced (session 18): the same characters
// for every value, and parse_dd reads every printed string back to the same pair.
// ---------------------------------------------------------------------------------------------

/// dd_to_string as it was before the fixed-width fast path (MPFR for every value).
std::string old_dd_to_string(const dd_real& x, int sig_digits) {
  if (std::isnan(x.hi) || std::isnan(x.lo)) return "nan";
  if (std::isinf(x.hi) || std::isinf(x.lo)) {
    const double s = std::isinf(x.hi) ? x.hi : x.lo;
    return s < 0.0 ? "-inf" : "inf";
  }
  std::string res;
  if (x.hi == 0.0 && x.lo == 0.0) {
    if (std::signbit(x.hi)) res.push_back('-');
    res.push_back('0');
    if (sig_digits > 1) res += "." + std::string(static_cast<std::size_t>(sig_digits - 1), '0');
    return res + "e+00";
  }
  mpfr_prec_t prec = 2200;
  if (x.hi != 0.0 && x.lo != 0.0) {
    const int span = std::ilogb(x.hi) - std::ilogb(x.lo);
    if (span >= 0 && span < 2100) prec = span + 56;
  } else if (x.lo == 0.0) {
    prec = 56;
  }
  Mp v(prec);
  mpfr_set_d(v.v, x.hi, MPFR_RNDN);
  mpfr_add_d(v.v, v.v, x.lo, MPFR_RNDN);
  mpfr_exp_t ex = 0;
  char* str = mpfr_get_str(nullptr, &ex, 10, static_cast<std::size_t>(sig_digits), v.v, MPFR_RNDN);
  const char* d = str;
  if (*d == '-') {
    res.push_back('-');
    ++d;
  }
  res.push_back(d[0]);
  if (d[1] != '\0') {
    res.push_back('.');
    res += d + 1;
  }
  mpfr_free_str(str);
  const long e10 = static_cast<long>(ex) - 1;
  res.push_back('e');
  res.push_back(e10 < 0 ? '-' : '+');
  const std::string es = std::to_string(e10 < 0 ? -e10 : e10);
  if (es.size() < 2) res.push_back('0');
  return res + es;
}

/// dd_to_string_roundtrip as it was: print, parse back, lengthen.
std::string old_roundtrip(const dd_real& x) {
  if (!std::isfinite(x.hi) || !std::isfinite(x.lo)) return old_dd_to_string(x, 33);
  int n = 33;
  for (;;) {
    std::string s = old_dd_to_string(x, n);
    dd_real y;
    if (n >= 1100 || (parse_dd(s, y) && std::signbit(y.hi) == std::signbit(x.hi) && y.hi == x.hi &&
                      y.lo == x.lo))
      return s;
    n = n < 40 ? n + 1 : (n * 2 > 1100 ? 1100 : n * 2);
  }
}

/// Values where a decimal conversion goes wrong if it goes wrong anywhere.
std::vector<dd_real> hard_values() {
  std::vector<dd_real> v;
  auto both = [&](double hi, double lo) {
    const dd_real x = dd_real::from_sum(hi, lo);
    v.push_back(x);
    v.push_back(dd_real(-x.hi, -x.lo));
  };
  both(0.0, 0.0);
  v.push_back(dd_real(-0.0, 0.0));
  v.push_back(dd_real(0.0, -0.0));
  v.push_back(dd_real(HUGE_VAL));
  v.push_back(dd_real(-HUGE_VAL));
  v.push_back(dd_real(NAN));
  both(std::numeric_limits<double>::max(), 0.0);
  both(std::numeric_limits<double>::max(), -0x1p969);
  both(0x1p-1074, 0.0);
  both(0x1p-1022, 0.0);
  both(0x1p-1022, 0x1p-1074);
  both(0x1.8p-1000, -0x1p-1074);
  // Powers of two, alone and with lo just inside, at and near the tie ulp(hi)/2 and /4.
  for (int k = -1074; k <= 1023; k += (k > -1000 && k < 1000 ? 7 : 1)) {
    const double h = std::ldexp(1.0, k);
    both(h, 0.0);
    if (k - 54 >= -1074) {
      v.push_back(dd_real(h, std::ldexp(1.0, k - 54)));   // a tie: |lo| = ulp(hi)/2, hi even
      v.push_back(dd_real(h, -std::ldexp(1.0, k - 55)));  // a tie below a power of two
      v.push_back(dd_real(h, std::ldexp(0.75, k - 54)));
      v.push_back(dd_real(h, -std::ldexp(0.75, k - 55)));
      v.push_back(dd_real(h, std::ldexp(1.0, k - 60)));
      v.push_back(dd_real(h, -std::ldexp(1.0, k - 100)));
    }
    if (k - 107 >= -1074) both(h, std::ldexp(1.0, k - 106));
  }
  // Around powers of ten: the nearest dd, its neighbours, the doubles beside 10^k.
  for (int k = -330; k <= 308; ++k) {
    dd_real t;
    if (!parse_dd("1e" + std::to_string(k), t)) continue;
    both(t.hi, t.lo);
    both(t.hi, 0.0);
    both(std::nextafter(t.hi, 0.0), 0.0);
    both(std::nextafter(t.hi, HUGE_VAL), 0.0);
    if (t.lo != 0.0) {
      both(t.hi, std::nextafter(t.lo, 0.0));
      both(t.hi, std::nextafter(t.lo, t.lo > 0 ? HUGE_VAL : -HUGE_VAL));
      both(t.hi, -t.lo);
    }
    dd_real u;  // 9.99...9e(k-1) with 40 nines: just below 10^k
    if (parse_dd("9.999999999999999999999999999999999999999e" + std::to_string(k - 1), u))
      both(u.hi, u.lo);
  }
  // Decimal ties at 33..40 digits: 1 + 2^-j has j decimals ending in 5.
  for (int j = 25; j <= 60; ++j) {
    both(1.0 + std::ldexp(1.0, -std::min(j, 52)), j > 52 ? std::ldexp(1.0, -j) : 0.0);
    both(1.0, std::ldexp(1.0, -j));
    both(std::ldexp(3.0, j), 0.5);
  }
  // Integers (exact expansions) and values beyond 10^33 (the MPFR path).
  for (double m : {1.0, 3.0, 10.0, 123456789.0, 9007199254740993.0, 1e22, 1e23, 1e33, 1e34, 1e40,
                   1e100, 1e300}) {
    both(m, 0.0);
    both(m, m * 0x1p-60);
  }
  // lo in the subnormal range (hi near the bottom of the normals) and tiny-lo pairs.
  for (int k = -1022; k <= -960; ++k) {
    both(std::ldexp(1.2345, k), 0x1p-1074);
    both(std::ldexp(1.75, k), -0x1.8p-1070);
    both(std::ldexp(1.1, k), std::ldexp(1.3, k - 53));
  }
  for (int k = 0; k <= 1000; k += 37)
    both(1.0 / 3.0, std::ldexp(1.0, -60 - k));
  return v;
}

TEST(DdIo, FastConversionMatchesMpfrOnHardCases) {
  const std::vector<dd_real> v = hard_values();
  int checked = 0;
  for (const dd_real& x : v) {
    const std::string s = dd_to_string_roundtrip(x);
    ASSERT_EQ(s, old_roundtrip(x)) << std::hexfloat << x.hi << " " << x.lo;
    for (int n : {1, 2, 3, 16, 17, 20, 33, 34, 35, 36, 40, 41, 80, 160}) {
      ASSERT_EQ(dd_to_string(x, n), old_dd_to_string(x, n))
          << n << " " << std::hexfloat << x.hi << " " << x.lo;
    }
    if (!std::isfinite(x.hi)) continue;
    dd_real y;
    ASSERT_TRUE(parse_dd(s, y)) << s;
    // Every normalized pair comes back bit for bit (lo: as a number).
    if (x.hi + x.lo == x.hi && x.hi != 0.0) {
      double sh = 0.0, sl = 0.0;
      eigsolve::ddops::quick_two_sum(x.hi, x.lo, sh, sl);
      if (sh == x.hi && sl == x.lo) {
        ASSERT_TRUE(same_bits(y, x) || (y.hi == x.hi && y.lo == x.lo)) << s;
        ++checked;
      }
    }
  }
  std::printf("%zu hard values, %d normalized ones read back\n", v.size(), checked);
  EXPECT_GT(checked, 5000);
}

TEST(DdIo, FastConversionMatchesMpfrRandom) {
  Gen g(2026);
  std::mt19937_64 rng(18);
  for (int i = 0; i < 200000; ++i) {
    dd_real x;
    if (i % 4 == 0) {
      x = g.dd(-1074, 1023);
    } else if (i % 4 == 1) {
      x = g.dd(-40, 2);       // eigenvector and eigenvalue magnitudes
    } else if (i % 4 == 2) {  // results of dd arithmetic
      x = dd_real(g.uniform() - 0.5) / dd_real(1.0 + 9.0 * g.uniform());
    } else {  // arbitrary bit patterns (non-normalized pairs included)
      double hi = 0.0, lo = 0.0;
      std::uint64_t a = rng(), b = rng();
      std::memcpy(&hi, &a, sizeof hi);
      std::memcpy(&lo, &b, sizeof lo);
      if (!std::isfinite(hi) || !std::isfinite(lo)) continue;
      if (i % 8 == 3) lo = std::ldexp(lo, std::ilogb(hi) - std::ilogb(lo) - 53);
      x = dd_real(hi, lo);
    }
    const std::string s = dd_to_string_roundtrip(x);
    ASSERT_EQ(s, old_roundtrip(x)) << i << " " << std::hexfloat << x.hi << " " << x.lo;
    if (i % 16 == 0) {
      const int n = g.uniform_int(1, 60);
      ASSERT_EQ(dd_to_string(x, n), old_dd_to_string(x, n))
          << n << " " << std::hexfloat << x.hi << " " << x.lo;
    }
    if (i % 4 != 3) {
      dd_real y;
      ASSERT_TRUE(parse_dd(s, y)) << s;
      ASSERT_TRUE(y.hi == x.hi && y.lo == x.lo && std::signbit(y.hi) == std::signbit(x.hi)) << s;
    }
  }
}

TEST(DdIo, RoundTripSpeed) {  // prints the time per value, asserts nothing about time
  Gen g(3);
  std::vector<dd_real> v;
  for (int i = 0; i < 20000; ++i)
    v.push_back(dd_real(g.uniform() - 0.5) / dd_real(1.0 + 9.0 * g.uniform()));
  for (int old = 0; old < 2; ++old) {
    const auto t0 = std::chrono::steady_clock::now();
    std::size_t len = 0;
    for (const dd_real& x : v)
      len += (old ? old_roundtrip(x) : dd_to_string_roundtrip(x)).size();
    const double ns =
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() /
        v.size();
    std::printf("dd_to_string_roundtrip (%s): %.0f ns per value (%zu characters)\n",
                old ? "old: MPFR + parse_dd" : "fixed-width", ns, len);
  }
}

}  // namespace
