// The small canonical-arithmetic vocabulary that generic (precision-templated) code uses.
//
// Generic code writes +, -, *, / on scalars and the functions below; every precision provides
// them with a fixed definition (float/double: IEEE ops and hardware fma; Complex<R>: the
// formulas of complex.hpp; dd_real: dd_real.hpp). No other math-library call is canonical.
#pragma once

#include <cmath>

#include "core/hd.hpp"

namespace eigsolve {

/// a*b + c with a single rounding (hardware fma).
ES_HD_INLINE float madd(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
  return ::fmaf(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}
ES_HD_INLINE double madd(double a, double b, double c) {
  return ES_FMA(a, b, c);
}

ES_HD_INLINE float conj(float a) {
  return a;
}
ES_HD_INLINE double conj(double a) {
  return a;
}
ES_HD_INLINE float real_part(float a) {
  return a;
}
ES_HD_INLINE double real_part(double a) {
  return a;
}
ES_HD_INLINE float imag_part(float) {
  return 0.0f;
}
ES_HD_INLINE double imag_part(double) {
  return 0.0;
}
ES_HD_INLINE float abs2(float a) {
  return a * a;
}
ES_HD_INLINE double abs2(double a) {
  return a * a;
}
/// conj(a)*b + c; for reals the same as madd.
ES_HD_INLINE float madd_conj(float a, float b, float c) {
  return madd(a, b, c);
}
ES_HD_INLINE double madd_conj(double a, double b, double c) {
  return madd(a, b, c);
}

ES_HD_INLINE float abs(float a) {
  return a < 0.0f ? -a : (a == 0.0f ? 0.0f : a);
}
ES_HD_INLINE double abs(double a) {
  return a < 0.0 ? -a : (a == 0.0 ? 0.0 : a);
}
ES_HD_INLINE float abs1(float a) {
  return abs(a);
}
ES_HD_INLINE double abs1(double a) {
  return abs(a);
}
ES_HD_INLINE float sqrt_(float a) {
#if defined(__CUDA_ARCH__)
  return ::sqrtf(a);
#else
  return std::sqrt(a);
#endif
}
ES_HD_INLINE double sqrt_(double a) {
#if defined(__CUDA_ARCH__)
  return ::sqrt(a);
#else
  return std::sqrt(a);
#endif
}
/// Exact scaling by 2^k.
ES_HD_INLINE float scale2(float a, int k) {
#if defined(__CUDA_ARCH__)
  return ::scalbnf(a, k);
#else
  return std::scalbn(a, k);
#endif
}
ES_HD_INLINE double scale2(double a, int k) {
#if defined(__CUDA_ARCH__)
  return ::scalbn(a, k);
#else
  return std::scalbn(a, k);
#endif
}
ES_HD_INLINE bool is_finite(float a) {
  return a - a == 0.0f;
}
ES_HD_INLINE bool is_finite(double a) {
  return a - a == 0.0;
}
/// The leading double of a real scalar (for reporting, digests of magnitude, tolerances).
ES_HD_INLINE double to_double(float a) {
  return a;
}
ES_HD_INLINE double to_double(double a) {
  return a;
}

}  // namespace eigsolve
