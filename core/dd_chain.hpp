// dd helpers for the first term of a multiply-add chain (host and device).
#pragma once

#include <cstring>

#include "core/dd_real.hpp"

namespace eigsolve {

namespace ddops {
/// The bit pattern of x.
ES_HD_INLINE unsigned long long bits(double x) {
#if defined(__CUDA_ARCH__)
  return static_cast<unsigned long long>(__double_as_longlong(x));
#else
  unsigned long long u;
  std::memcpy(&u, &x, sizeof u);
  return u;
#endif
}
/// x is finite (not inf, not NaN), by its exponent bits (integer operations only).
ES_HD_INLINE bool finite(double x) {
  return ((bits(x) >> 52) & 0x7ffull) != 0x7ffull;
}
/// x is finite and not +-0, by its bits.
ES_HD_INLINE bool finite_nonzero(double x) {
  return finite(x) && (bits(x) << 1) != 0ull;
}
}  // namespace ddops

/// madd(a, b, dd_real(0)) bit for bit (the first term of a chain that starts at +0), without
/// the sum where it provably changes nothing (docs/dd.md; the argument below is the accurate
/// sum's, and it holds for the sloppy sum too: its 2Sum with +0 is exact with error +0, lo + 0
/// is lo with -0 made +0, and the Fast2Sum returns its operands): when the product p has a
/// finite, non-zero hi and fl(hi + lo) == hi (so lo is finite too), the sum p + (+0, +0) of
/// operator+ returns (hi, lo) with a lo of -0 made +0 (each 2Sum with a +0 operand is exact with
/// error term +0, both Fast2Sums return their operands, and the zero rule does not apply to a
/// non-zero hi). Every other product (a zero hi, non-finite parts, a pair that is not normalized)
/// takes the full sum. The test costs two integer bit tests, one addition and one comparison,
/// against the ~20 FP64 operations of the sum.
ES_HD_INLINE dd_real madd_zero(const dd_real& a, const dd_real& b) {
  const dd_real p = a * b;
  if (ddops::finite_nonzero(p.hi) && p.hi + p.lo == p.hi)
    return dd_real(p.hi, ddops::is_zero(p.lo) ? 0.0 : p.lo);
  if constexpr (kDdSloppyMadd)
    return sloppy_add(p, dd_real(0.0));
  else
    return p + dd_real(0.0);
}

}  // namespace eigsolve
