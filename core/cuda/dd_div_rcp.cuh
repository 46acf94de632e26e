// dd division on the device with one reciprocal shared by its three IEEE quotients: the same
// bits as operator/(dd_real, dd_real) (core/dd_real.hpp), by a theorem, not by a new order.
//
// operator/ divides three times by the same double b = b.hi (q1 = a.hi/b, q2 = r.hi/b,
// q3 = r'.hi/b). Each IEEE division on the GPU is a reciprocal refinement plus a quotient
// correction. Here the reciprocal y = RN(1/b) is computed once (__drcp_rn, correctly rounded)
// and every quotient x/b is
//
//     q = RN(x * y);   r = RN(x - b*q) (an fma: exact);   q' = RN(q + r*y) (an fma)
//
// Markstein's theorem (P. Markstein, IBM J. Res. Dev. 34(1), 1990; stated for a reciprocal
// known in advance in N. Brisebarre, J.-M. Muller, S. K. Raina, "Accelerating correctly rounded
// floating-point division when the divisor is known in advance", IEEE Trans. Computers 53(8),
// 2004: "the advanced computation of 1/y allows performing correctly rounded division in one
// multiplication plus two fused-macs") gives q' = RN(x/b) in binary arithmetic with an
// unbounded exponent. Checked here as well (bench/NOTES.md, session 53): 2e8 random double pairs
// and every pair of p-bit significands for p = 6 ... 14 agree with RN(x/b); tests/gpu/
// test_gpu_arith.cu compares this code with the device's IEEE division.
//
// The exponent range. Where x and b are normal with 2^-450 <= |x|, |b| < 2^451 (in_range), every
// step is the unbounded one: y, q and q' lie within [2^-902, 2^902] (normal, no overflow); q's
// exponent is at least e(x) - e(b) - 1, so r = x - b*q is a multiple of ulp(x) and of
// ulp(b) * ulp(q) >= 2^(e(x) - 105) >= 2^-555, of magnitude below |x|: the fma's result is the
// exact remainder the theorem needs (no subnormal rounding). Outside that range,
// and for zeros (whose quotient's sign the sequence would get wrong: -0/b), infinities and NaN,
// the quotient is the IEEE division itself. In the Sturm counts the divisor is a pivot, so b
// leaves the range only where the pivmin guard fired (|b| = pivmin, 2^-969 scaled).
#pragma once

#include <cuda_runtime.h>

#include "core/dd_real.hpp"

namespace eigsolve {
namespace ddrcp {

/// 2^-450 <= |x| < 2^451 (normal, finite, non-zero): the biased exponent in [573, 1473].
__device__ __forceinline__ bool in_range(double x) {
  const unsigned e = (static_cast<unsigned>(__double2hiint(x)) >> 20) & 0x7ffu;
  return e - 573u <= 900u;
}

/// RN(x / b), given y = RN(1/b) and in_range(b).
__device__ __forceinline__ double quotient(double x, double b, double y) {
  if (in_range(x)) {
    const double q = x * y;
    const double r = fma(-b, q, x);
    return fma(r, y, q);
  }
  return x / b;
}

}  // namespace ddrcp

/// a / b with operator/'s formulas and bits (core/dd_real.hpp), the three quotients by b.hi
/// sharing one reciprocal.
__device__ __forceinline__ dd_real div_shared_rcp(const dd_real& a, const dd_real& b) {
  if (!ddrcp::in_range(b.hi)) return a / b;
  const double y = __drcp_rn(b.hi);
  const double q1 = ddrcp::quotient(a.hi, b.hi, y);
  if (!is_finite(q1)) return dd_real(q1, 0.0);
  dd_real r = a - dd_real(q1) * b;
  const double q2 = ddrcp::quotient(r.hi, b.hi, y);
  r = r - dd_real(q2) * b;
  const double q3 = ddrcp::quotient(r.hi, b.hi, y);
  dd_real q;
  ddops::quick_two_sum(q1, q2, q.hi, q.lo);
  q = q + dd_real(q3);
  q.hi = ddops::is_zero(q.hi) ? q1 : q.hi;
  return q;
}

}  // namespace eigsolve
