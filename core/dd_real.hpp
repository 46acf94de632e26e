// Double-double arithmetic: a value is the unevaluated sum hi + lo with |lo| <= ulp(hi)/2.
//
// Written once for host and device with fixed formulas (Dekker/Knuth error-free transforms,
// Hida-Li-Bailey accurate "ieee" addition), so CPU and GPU give the same bits. Host code is
// compiled with -ffp-contract=off and device code with -fmad=false: nothing here may be fused
// except the explicit madd/ES_FMA calls.
#pragma once

#include "core/arith.hpp"
#include "core/hd.hpp"

namespace eigsolve {

namespace ddops {
/// s + e = a + b exactly (Knuth).
ES_HD_INLINE void two_sum(double a, double b, double& s, double& e) {
  s = a + b;
  double bb = s - a;
  e = (a - (s - bb)) + (b - bb);
}
/// s + e = a + b exactly, requires |a| >= |b| or a == 0 (Dekker).
ES_HD_INLINE void quick_two_sum(double a, double b, double& s, double& e) {
  s = a + b;
  e = b - (s - a);
}
/// p + e = a * b exactly (fma).
ES_HD_INLINE void two_prod(double a, double b, double& p, double& e) {
  p = a * b;
  e = ES_FMA(a, b, -p);
}
}  // namespace ddops

struct dd_real {
  double hi = 0.0;
  double lo = 0.0;

  dd_real() = default;
  ES_HD constexpr dd_real(double h) : hi(h), lo(0.0) {}  // NOLINT: exact conversion
  ES_HD constexpr dd_real(double h, double l) : hi(h), lo(l) {}
  ES_HD constexpr dd_real(int i) : hi(static_cast<double>(i)), lo(0.0) {}  // NOLINT: exact

  /// Renormalize an arbitrary pair.
  ES_HD static dd_real from_sum(double a, double b) {
    dd_real r;
    ddops::two_sum(a, b, r.hi, r.lo);
    return r;
  }
};

ES_HD_INLINE dd_real operator-(const dd_real& a) { return {-a.hi, -a.lo}; }

/// Accurate addition (Hida-Li-Bailey "ieee_add"): relative error ~2 eps_dd even under
/// cancellation.
ES_HD_INLINE dd_real operator+(const dd_real& a, const dd_real& b) {
  double s1, s2, t1, t2;
  ddops::two_sum(a.hi, b.hi, s1, s2);
  ddops::two_sum(a.lo, b.lo, t1, t2);
  s2 += t1;
  ddops::quick_two_sum(s1, s2, s1, s2);
  s2 += t2;
  dd_real r;
  ddops::quick_two_sum(s1, s2, r.hi, r.lo);
  return r;
}
ES_HD_INLINE dd_real operator-(const dd_real& a, const dd_real& b) { return a + (-b); }

/// Product: p1 + p2 = a.hi*b.hi exactly; p2 += fma(a.lo, b.hi, a.hi*b.lo); renormalize.
ES_HD_INLINE dd_real operator*(const dd_real& a, const dd_real& b) {
  double p1, p2;
  ddops::two_prod(a.hi, b.hi, p1, p2);
  double t = a.hi * b.lo;
  t = ES_FMA(a.lo, b.hi, t);
  p2 += t;
  dd_real r;
  ddops::quick_two_sum(p1, p2, r.hi, r.lo);
  return r;
}

/// Accurate division: three quotient digits (q1 + q2 + q3), as in QD's accurate_div.
ES_HD_INLINE dd_real operator/(const dd_real& a, const dd_real& b) {
  double q1 = a.hi / b.hi;
  dd_real r = a - dd_real(q1) * b;
  double q2 = r.hi / b.hi;
  r = r - dd_real(q2) * b;
  double q3 = r.hi / b.hi;
  dd_real q;
  ddops::quick_two_sum(q1, q2, q.hi, q.lo);
  return q + dd_real(q3);
}

ES_HD_INLINE dd_real& operator+=(dd_real& a, const dd_real& b) { return a = a + b; }
ES_HD_INLINE dd_real& operator-=(dd_real& a, const dd_real& b) { return a = a - b; }
ES_HD_INLINE dd_real& operator*=(dd_real& a, const dd_real& b) { return a = a * b; }
ES_HD_INLINE dd_real& operator/=(dd_real& a, const dd_real& b) { return a = a / b; }

ES_HD_INLINE bool operator==(const dd_real& a, const dd_real& b) {
  return a.hi == b.hi && a.lo == b.lo;
}
ES_HD_INLINE bool operator!=(const dd_real& a, const dd_real& b) { return !(a == b); }
ES_HD_INLINE bool operator<(const dd_real& a, const dd_real& b) {
  return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo);
}
ES_HD_INLINE bool operator>(const dd_real& a, const dd_real& b) { return b < a; }
ES_HD_INLINE bool operator<=(const dd_real& a, const dd_real& b) { return !(b < a); }
ES_HD_INLINE bool operator>=(const dd_real& a, const dd_real& b) { return !(a < b); }

/// a*b + c: the dd product, then the accurate dd sum (two roundings, fixed).
ES_HD_INLINE dd_real madd(const dd_real& a, const dd_real& b, const dd_real& c) {
  return a * b + c;
}
ES_HD_INLINE dd_real madd_conj(const dd_real& a, const dd_real& b, const dd_real& c) {
  return a * b + c;
}
ES_HD_INLINE dd_real conj(const dd_real& a) { return a; }
ES_HD_INLINE dd_real real_part(const dd_real& a) { return a; }
ES_HD_INLINE dd_real imag_part(const dd_real&) { return dd_real(0.0); }
ES_HD_INLINE dd_real abs2(const dd_real& a) { return a * a; }
ES_HD_INLINE dd_real abs(const dd_real& a) { return a.hi < 0.0 ? -a : a; }
ES_HD_INLINE dd_real abs1(const dd_real& a) { return abs(a); }
ES_HD_INLINE bool is_finite(const dd_real& a) { return is_finite(a.hi) && is_finite(a.lo); }
ES_HD_INLINE double to_double(const dd_real& a) { return a.hi + a.lo; }
ES_HD_INLINE dd_real scale2(const dd_real& a, int k) {
  return {scale2(a.hi, k), scale2(a.lo, k)};
}

/// Square root: one Newton step on the double estimate, then a correction,
/// s = a.hi^(1/2); r = s + (a - s*s) / (2 s) evaluated in dd.
ES_HD_INLINE dd_real sqrt_(const dd_real& a) {
  if (a.hi <= 0.0) return dd_real(sqrt_(a.hi));  // 0 -> 0, negative -> NaN
  double s = sqrt_(a.hi);
  dd_real ss = dd_real(s) * dd_real(s);
  dd_real r = a - ss;
  dd_real corr = r / dd_real(2.0 * s);
  return dd_real(s) + corr;
}

}  // namespace eigsolve
