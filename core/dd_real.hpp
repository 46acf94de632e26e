// Double-double arithmetic: a value is the unevaluated sum hi + lo with hi = fl(hi + lo), so
// |lo| <= ulp(hi)/2 (a "normalized" pair; about 106 significant bits).
//
// Written once for host and device with FIXED formulas (docs/dd.md is the specification, in the
// exact order of operations), so the CPU and a GPU kernel give the same bits. Host code is
// compiled with -ffp-contract=off and device code with -fmad=false: nothing here may be fused
// except the explicit ES_FMA calls, and no math-library function is used except sqrt_/scale2.
// Branches only test values (special-value and signed-zero handling).
//
// Error bounds (u = 2^-53, all operands and exact results in the range of docs/dd.md,
// magnitudes in [2^-960, 2^1022]): + and - <= 3u^2 (Joldes-Muller-Popescu 2017, Alg. 6);
// * <= 4u^2 (Alg. 12 "DWTimesDW3", bound of Muller-Rideau 2022); / (three quotient terms)
// <= 10u^2 asserted, 2.2u^2 measured; sqrt_ <= 4.2u^2 (docs/dd.md). Non-finite inputs give
// non-finite results; overflow gives a non-finite result (inf or NaN).
#pragma once

#include "core/arith.hpp"
#include "core/hd.hpp"

namespace eigsolve {

namespace ddops {
/// s + e = a + b exactly, s = fl(a + b) (Knuth's 2Sum, 6 flops, no condition on a, b).
ES_HD_INLINE void two_sum(double a, double b, double& s, double& e) {
  s = a + b;
  double bb = s - a;
  e = (a - (s - bb)) + (b - bb);
}
/// s + e = a + b exactly, s = fl(a + b); requires |a| >= |b| or a == 0 (Dekker's Fast2Sum).
ES_HD_INLINE void quick_two_sum(double a, double b, double& s, double& e) {
  s = a + b;
  e = b - (s - a);
}
/// p + e = a * b exactly, p = fl(a * b) (2Prod with fma; exact unless p under/overflows).
ES_HD_INLINE void two_prod(double a, double b, double& p, double& e) {
  p = a * b;
  e = ES_FMA(a, b, -p);
}
/// x == 0.0 (true for +0 and -0, false for NaN). On the device as an integer test of the bit
/// pattern, so that it runs on the integer pipe instead of the FP64 pipe that the dd formulas
/// saturate (a dd madd has 3 of these among ~33 FP64 instructions); same truth value.
ES_HD_INLINE bool is_zero(double x) {
#if defined(__CUDA_ARCH__)
  return (static_cast<unsigned long long>(__double_as_longlong(x)) << 1) == 0ull;
#else
  return x == 0.0;
#endif
}
/// is_zero(x) && is_zero(y), the same predicate without the short-circuit branch on the device:
/// one 64-bit OR, shift and compare (the signed-zero fix-up of every dd sum sits in the inner
/// loops of the dd kernels, where `&&` compiled to two conditional branches per sum).
ES_HD_INLINE bool both_zero(double x, double y) {
#if defined(__CUDA_ARCH__)
  return ((static_cast<unsigned long long>(__double_as_longlong(x)) |
           static_cast<unsigned long long>(__double_as_longlong(y)))
          << 1) == 0ull;
#else
  return x == 0.0 && y == 0.0;
#endif
}
/// both_zero(r, s) ? s : r, on the device with the select on the high 32-bit word only: where r
/// and s are both zeros their low words are both 0 and only the sign bits in the high words can
/// differ, so taking s's high word is taking s (one 32-bit select instead of two; session 64).
/// The same value on host and device.
ES_HD_INLINE double zero_fix_hiword(double r, double s) {
#if defined(__CUDA_ARCH__)
  const int rh = __double2hiint(r), rl = __double2loint(r);
  const int sh = __double2hiint(s), sl = __double2loint(s);
  const bool both = (((rh | sh) & 0x7fffffff) | rl | sl) == 0;
  return __hiloint2double(both ? sh : rh, rl);
#else
  return both_zero(r, s) ? s : r;
#endif
}
}  // namespace ddops

struct dd_real {
  double hi = 0.0;
  double lo = 0.0;

  dd_real() = default;
  ES_HD constexpr dd_real(double h) : hi(h), lo(0.0) {}  // NOLINT: exact conversion
  /// The pair (h, l) as given, NOT normalized: the caller guarantees h == fl(h + l).
  /// Use from_sum() for an arbitrary pair.
  ES_HD constexpr dd_real(double h, double l) : hi(h), lo(l) {}
  ES_HD constexpr dd_real(int i) : hi(static_cast<double>(i)), lo(0.0) {}  // NOLINT: exact
  /// Exact conversion of a 64-bit integer (index_t): the two 32-bit halves are exact doubles,
  /// joined by 2Sum.
  ES_HD dd_real(long i) { set_int64(static_cast<long long>(i)); }  // NOLINT: exact
  ES_HD dd_real(long long i) { set_int64(i); }                     // NOLINT: exact

  /// Normalizes an arbitrary pair of doubles: the exact sum a + b as (fl(a+b), error) (2Sum).
  ES_HD static dd_real from_sum(double a, double b) {
    dd_real r;
    ddops::two_sum(a, b, r.hi, r.lo);
    return r;
  }

 private:
  ES_HD void set_int64(long long i) {
    // i = h * 2^32 + l with h = floor(i / 2^32) (arithmetic shift), 0 <= l < 2^32.
    double h = static_cast<double>(i >> 32) * 4294967296.0;
    double l = static_cast<double>(static_cast<unsigned long long>(i) & 0xffffffffULL);
    ddops::two_sum(h, l, hi, lo);
  }
};

/// The exact sum a + b as a normalized dd (2Sum); same as dd_real::from_sum.
ES_HD_INLINE dd_real dd_from_double_sum(double a, double b) {
  return dd_real::from_sum(a, b);
}

ES_HD_INLINE dd_real operator-(const dd_real& a) {
  return {-a.hi, -a.lo};
}

/// Accurate addition (Hida-Li-Bailey "ieee_add" = JMP 2017 Alg. 6 "AccurateDWPlusDW"),
/// relative error <= 3u^2 even under cancellation:
///   (s1,s2) = 2Sum(a.hi,b.hi); (t1,t2) = 2Sum(a.lo,b.lo); s2 = s2+t1;
///   (s1,s2) = Fast2Sum(s1,s2); s2 = s2+t2; (r.hi,r.lo) = Fast2Sum(s1,s2).
/// A zero result takes the IEEE sign of fl(a.hi + b.hi) when that is zero (so -0 + -0 = -0).
/// BranchFree: the signed-zero fix-up as one predicate (ddops::both_zero), else as
/// `is_zero(r.hi) && is_zero(s0)` (two conditional branches on the device, fewer registers in
/// the dd rank-2k: madd_branchy). The same predicate, so the same bits either way.
/// (Both forms are written out here and in sloppy_add: moving them into one helper changes the
/// PTX nvcc gives the dd kernels, the rank-2k's included; session 46.)
template <bool BranchFree = true>
ES_HD_INLINE dd_real accurate_add(const dd_real& a, const dd_real& b) {
  double s1, s2, t1, t2;
  ddops::two_sum(a.hi, b.hi, s1, s2);
  ddops::two_sum(a.lo, b.lo, t1, t2);
  const double s0 = s1;
  s2 = s2 + t1;
  ddops::quick_two_sum(s1, s2, s1, s2);
  s2 = s2 + t2;
  dd_real r;
  ddops::quick_two_sum(s1, s2, r.hi, r.lo);
  if constexpr (BranchFree)
    r.hi = ddops::both_zero(r.hi, s0) ? s0 : r.hi;
  else
    r.hi = (ddops::is_zero(r.hi) && ddops::is_zero(s0)) ? s0 : r.hi;
  return r;
}
ES_HD_INLINE dd_real operator+(const dd_real& a, const dd_real& b) {
  return accurate_add<true>(a, b);
}
/// a - b = a + (-b) (negation is exact).
ES_HD_INLINE dd_real operator-(const dd_real& a, const dd_real& b) {
  return a + (-b);
}

/// Product (JMP 2017 Alg. 12 "DWTimesDW3", relative error <= 4u^2):
///   (p,e) = 2Prod(a.hi,b.hi); t = a.lo*b.lo; t = fma(a.hi,b.lo,t); t = fma(a.lo,b.hi,t);
///   e = e + t; (r.hi,r.lo) = Fast2Sum(p,e).
/// A zero result takes the sign of p = fl(a.hi*b.hi).
ES_HD_INLINE dd_real operator*(const dd_real& a, const dd_real& b) {
  double p, e;
  ddops::two_prod(a.hi, b.hi, p, e);
  double t = a.lo * b.lo;
  t = ES_FMA(a.hi, b.lo, t);
  t = ES_FMA(a.lo, b.hi, t);
  e = e + t;
  dd_real r;
  ddops::quick_two_sum(p, e, r.hi, r.lo);
  r.hi = ddops::is_zero(r.hi) ? p : r.hi;
  return r;
}

/// Accurate division with three quotient terms (QD's accurate_div with accurate add/sub):
///   q1 = a.hi/b.hi; if q1 is not finite return (q1, 0);
///   r = a - dd(q1)*b; q2 = r.hi/b.hi; r = r - dd(q2)*b; q3 = r.hi/b.hi;
///   (q.hi,q.lo) = Fast2Sum(q1,q2); q = q + dd(q3); a zero q.hi takes the sign of q1.
/// Division by zero gives (+-inf or NaN, 0).
ES_HD_INLINE dd_real operator/(const dd_real& a, const dd_real& b) {
  const double q1 = a.hi / b.hi;
  if (!is_finite(q1)) return dd_real(q1, 0.0);
  dd_real r = a - dd_real(q1) * b;
  const double q2 = r.hi / b.hi;
  r = r - dd_real(q2) * b;
  const double q3 = r.hi / b.hi;
  dd_real q;
  ddops::quick_two_sum(q1, q2, q.hi, q.lo);
  q = q + dd_real(q3);
  q.hi = ddops::is_zero(q.hi) ? q1 : q.hi;
  return q;
}

ES_HD_INLINE dd_real& operator+=(dd_real& a, const dd_real& b) {
  return a = a + b;
}
ES_HD_INLINE dd_real& operator-=(dd_real& a, const dd_real& b) {
  return a = a - b;
}
ES_HD_INLINE dd_real& operator*=(dd_real& a, const dd_real& b) {
  return a = a * b;
}
ES_HD_INLINE dd_real& operator/=(dd_real& a, const dd_real& b) {
  return a = a / b;
}

/// Comparisons are lexicographic on (hi, lo): exact for normalized pairs; false with NaN.
ES_HD_INLINE bool operator==(const dd_real& a, const dd_real& b) {
  return a.hi == b.hi && a.lo == b.lo;
}
ES_HD_INLINE bool operator!=(const dd_real& a, const dd_real& b) {
  return !(a == b);
}
ES_HD_INLINE bool operator<(const dd_real& a, const dd_real& b) {
  return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo);
}
ES_HD_INLINE bool operator>(const dd_real& a, const dd_real& b) {
  return b < a;
}
ES_HD_INLINE bool operator<=(const dd_real& a, const dd_real& b) {
  return a.hi < b.hi || (a.hi == b.hi && a.lo <= b.lo);
}
ES_HD_INLINE bool operator>=(const dd_real& a, const dd_real& b) {
  return b <= a;
}

/// The sloppy sum (Hida-Li-Bailey "sloppy_add" = JMP 2017 Alg. 5 "SloppyDWPlusDW"), the sum of
/// madd in a build with EIGSOLVE_DD_SLOPPY_MADD (CMake's default since session 48; docs/dd.md): 11
/// FP64 operations against the
/// accurate sum's 20, error <= 3u^2 (|a| + |b|) (normwise: relative only without cancellation):
///   (s1,s2) = 2Sum(a.hi,b.hi); t = a.lo + b.lo; s2 = s2 + t; (r.hi,r.lo) = Fast2Sum(s1,s2).
/// A zero result takes the IEEE sign of fl(a.hi + b.hi) when that is zero, as operator+.
/// BranchFree as accurate_add's; HiWord (with BranchFree): the fix-up's select on the high word
/// only (ddops::zero_fix_hiword; the dd SYMV kernel's madd_hiword). The same bits in every form.
template <bool BranchFree = true, bool HiWord = false>
ES_HD_INLINE dd_real sloppy_add(const dd_real& a, const dd_real& b) {
  double s1, s2;
  ddops::two_sum(a.hi, b.hi, s1, s2);
  const double t = a.lo + b.lo;
  s2 = s2 + t;
  dd_real r;
  ddops::quick_two_sum(s1, s2, r.hi, r.lo);
  if constexpr (BranchFree && HiWord)
    r.hi = ddops::zero_fix_hiword(r.hi, s1);
  else if constexpr (BranchFree)
    r.hi = ddops::both_zero(r.hi, s1) ? s1 : r.hi;
  else
    r.hi = (ddops::is_zero(r.hi) && ddops::is_zero(s1)) ? s1 : r.hi;
  return r;
}

/// Whether this build's dd madd uses the sloppy sum (CMake option EIGSOLVE_DD_SLOPPY_MADD, ON by
/// default since session 48; the macro is CMake's, so code compiled without it gets the accurate
/// sum).
#if defined(EIGSOLVE_DD_SLOPPY_MADD) && EIGSOLVE_DD_SLOPPY_MADD
inline constexpr bool kDdSloppyMadd = true;
#else
inline constexpr bool kDdSloppyMadd = false;
#endif
/// The build's madd sum by name, as --version, the report and the bench JSON give it.
constexpr const char* dd_madd_name() {
  return kDdSloppyMadd ? "sloppy" : "accurate";
}

/// a*b + c: the dd product, then the dd sum (two roundings, fixed): the sloppy sum in a build with
/// EIGSOLVE_DD_SLOPPY_MADD (the default), else the accurate sum (docs/dd.md).
ES_HD_INLINE dd_real madd(const dd_real& a, const dd_real& b, const dd_real& c) {
  if constexpr (kDdSloppyMadd)
    return sloppy_add(a * b, c);
  else
    return a * b + c;
}
/// madd with the sum's signed-zero fix-up in its branchy form (accurate_add<false>): the same
/// bits; for the dd rank-2k, whose registers the branch-free form raises from 128 to 190
/// (session 45).
ES_HD_INLINE dd_real madd_branchy(const dd_real& a, const dd_real& b, const dd_real& c) {
  if constexpr (kDdSloppyMadd)
    return sloppy_add<false>(a * b, c);
  else
    return accurate_add<false>(a * b, c);
}
/// madd with the sloppy sum's signed-zero fix-up selecting the high word only (sloppy_add's
/// HiWord): the same bits; the dd SYMV kernel's default form (EIGSOLVE_GPU_SYMV_DDXS=7, session
/// 65: 0.6-2.5 % faster than madd there). The accurate build's madd unchanged.
ES_HD_INLINE dd_real madd_hiword(const dd_real& a, const dd_real& b, const dd_real& c) {
  if constexpr (kDdSloppyMadd)
    return sloppy_add<true, true>(a * b, c);
  else
    return madd(a, b, c);
}
ES_HD_INLINE dd_real madd_conj(const dd_real& a, const dd_real& b, const dd_real& c) {
  return madd(a, b, c);
}
ES_HD_INLINE dd_real conj(const dd_real& a) {
  return a;
}
ES_HD_INLINE dd_real real_part(const dd_real& a) {
  return a;
}
ES_HD_INLINE dd_real imag_part(const dd_real&) {
  return dd_real(0.0);
}
/// a*a with the general product (same bits as a * a).
ES_HD_INLINE dd_real abs2(const dd_real& a) {
  return a * a;
}
/// |a|, exact; +0 for both zeros (like abs(double) of arith.hpp).
ES_HD_INLINE dd_real abs(const dd_real& a) {
  return a.hi < 0.0 ? -a : (a.hi == 0.0 ? dd_real(0.0, 0.0) : a);
}
ES_HD_INLINE dd_real abs1(const dd_real& a) {
  return abs(a);
}
ES_HD_INLINE bool is_finite(const dd_real& a) {
  return is_finite(a.hi) && is_finite(a.lo);
}
/// Nearest double (= hi for a normalized pair).
ES_HD_INLINE double to_double(const dd_real& a) {
  return a.hi + a.lo;
}
/// a * 2^k, exact unless lo or hi leaves the normal range.
ES_HD_INLINE dd_real scale2(const dd_real& a, int k) {
  return {scale2(a.hi, k), scale2(a.lo, k)};
}

/// Square root (Lefevre-Louvet-Muller-Picot-Rideau 2023 "SQRTDWtoDW", one correction):
///   s = sqrt(a.hi); r1 = fma(-s, s, a.hi) (exact); r2 = a.lo + r1; c = r2 / (2s);
///   (r.hi, r.lo) = Fast2Sum(s, c).   Relative error <= 4.2u^2 (docs/dd.md).
/// Special values: a.hi <= 0 or not finite gives (sqrt(a.hi), 0): +-0 -> +-0, negative -> NaN,
/// +inf -> +inf, NaN -> NaN.
ES_HD_INLINE dd_real sqrt_(const dd_real& a) {
  const double s = sqrt_(a.hi);
  if (!(a.hi > 0.0) || !is_finite(a.hi)) return dd_real(s, 0.0);
  const double r1 = ES_FMA(-s, s, a.hi);
  const double r2 = a.lo + r1;
  const double c = r2 / (2.0 * s);
  dd_real r;
  ddops::quick_two_sum(s, c, r.hi, r.lo);
  return r;
}

}  // namespace eigsolve
