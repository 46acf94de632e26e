// eigsolve::dd_real against the QD library (::dd_real). QD's global dd_real clashes with ours:
// this TU never writes `using namespace eigsolve`.
//
// Bitwise equality is asserted where our formula is QD's: the accurate addition
// (::dd_real::ieee_add) and QD's accurate_div written with ieee_add for its subtractions (the
// installed QD is configured with the "sloppy" add, which its accurate_div then uses). For the
// product (QD: p2 += a.hi*b.lo + a.lo*b.hi, no fma), QD's default sloppy division and sqrt the
// formulas differ: the agreement rate is printed, not asserted.
#include <gtest/gtest.h>
#include <qd/dd_real.h>

#include <cstdio>
#include <cstring>

#include "core/dd_real.hpp"
#include "dd_test_util.hpp"

namespace {

::dd_real to_qd(const eigsolve::dd_real& x) {
  return ::dd_real(x.hi, x.lo);
}

bool same_bits(const eigsolve::dd_real& a, const ::dd_real& b) {
  return std::memcmp(&a.hi, &b.x[0], sizeof(double)) == 0 &&
         std::memcmp(&a.lo, &b.x[1], sizeof(double)) == 0;
}

/// QD's accurate_div (dd_inline.h) with QD_IEEE_ADD semantics for its subtractions.
::dd_real qd_accurate_div_ieee(const ::dd_real& a, const ::dd_real& b) {
  double q1 = a.x[0] / b.x[0];
  ::dd_real r = ::dd_real::ieee_add(a, -(q1 * b));
  double q2 = r.x[0] / b.x[0];
  r = ::dd_real::ieee_add(r, -(q2 * b));
  const double q3 = r.x[0] / b.x[0];
  q1 = qd::quick_two_sum(q1, q2, q2);
  return ::dd_real(q1, q2) + q3;
}

TEST(DdRealVsQd, AgreementRates) {
  ddtest::Gen g(2024);
  const int n = 100000;
  int add_ieee = 0, add_sloppy = 0, mul = 0, div_ieee = 0, div_qd_acc = 0, div_sloppy = 0,
      sqrt_eq = 0;
  for (int i = 0; i < n; ++i) {
    const eigsolve::dd_real a = g.dd(-300, 300), b = g.dd(-300, 300);
    const ::dd_real qa = to_qd(a), qb = to_qd(b);
    add_ieee += same_bits(a + b, ::dd_real::ieee_add(qa, qb));
    add_sloppy += same_bits(a + b, qa + qb);
    mul += same_bits(a * b, qa * qb);
    div_ieee += same_bits(a / b, qd_accurate_div_ieee(qa, qb));
    div_qd_acc += same_bits(a / b, ::dd_real::accurate_div(qa, qb));
    div_sloppy += same_bits(a / b, qa / qb);
    const eigsolve::dd_real p = eigsolve::abs(a);
    sqrt_eq += same_bits(eigsolve::sqrt_(p), ::sqrt(to_qd(p)));
  }
  std::printf(
      "bitwise agreement with QD over %d random pairs: ieee_add %d, QD operator+ (sloppy) %d, "
      "operator* %d, accurate_div(ieee sub) %d, accurate_div(as installed) %d, "
      "operator/ (sloppy) %d, sqrt %d\n",
      n, add_ieee, add_sloppy, mul, div_ieee, div_qd_acc, div_sloppy, sqrt_eq);
  EXPECT_EQ(add_ieee, n);  // same formula: must agree bit for bit
  EXPECT_EQ(div_ieee, n);  // same formula: must agree bit for bit
  EXPECT_GT(mul, n / 2);   // different formula, usually the same bits
}

}  // namespace
