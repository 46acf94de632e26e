// Our own complex type with fixed, documented formulas (reproducibility.md, "Complex").
//
// Every operation is a fixed sequence of real operations, written once for host and device.
// Generic canonical code uses madd(a, b, c) = a*b + c, which is
//   re = fma(a.re, b.re, c.re); re = fma(-a.im, b.im, re);
//   im = fma(a.re, b.im, c.im); im = fma(a.im, b.re, im);
// and plain products use the same formula with c = 0 replaced by a rounded product:
//   re = fma(a.re, b.re, -(a.im*b.im)); im = fma(a.re, b.im, a.im*b.re).
#pragma once

#include "core/arith.hpp"
#include "core/hd.hpp"

namespace eigsolve {

template <class R>
struct Complex {
  R re{};
  R im{};
  Complex() = default;
  ES_HD constexpr Complex(R r) : re(r), im(R(0)) {}  // NOLINT: implicit real -> complex
  ES_HD constexpr Complex(R r, R i) : re(r), im(i) {}
};

template <class R>
ES_HD_INLINE bool operator==(const Complex<R>& a, const Complex<R>& b) {
  return a.re == b.re && a.im == b.im;
}
template <class R>
ES_HD_INLINE bool operator!=(const Complex<R>& a, const Complex<R>& b) {
  return !(a == b);
}
template <class R>
ES_HD_INLINE Complex<R> operator+(const Complex<R>& a, const Complex<R>& b) {
  return {a.re + b.re, a.im + b.im};
}
template <class R>
ES_HD_INLINE Complex<R> operator-(const Complex<R>& a, const Complex<R>& b) {
  return {a.re - b.re, a.im - b.im};
}
template <class R>
ES_HD_INLINE Complex<R> operator-(const Complex<R>& a) {
  return {-a.re, -a.im};
}
template <class R>
ES_HD_INLINE Complex<R>& operator+=(Complex<R>& a, const Complex<R>& b) {
  a = a + b;
  return a;
}
template <class R>
ES_HD_INLINE Complex<R>& operator-=(Complex<R>& a, const Complex<R>& b) {
  a = a - b;
  return a;
}
/// Complex product: re = fma(ar, br, -(ai*bi)), im = fma(ar, bi, ai*br).
template <class R>
ES_HD_INLINE Complex<R> operator*(const Complex<R>& a, const Complex<R>& b) {
  return {madd(a.re, b.re, -(a.im * b.im)), madd(a.re, b.im, a.im * b.re)};
}
/// Complex times real: componentwise.
template <class R>
ES_HD_INLINE Complex<R> operator*(const Complex<R>& a, const R& s) {
  return {a.re * s, a.im * s};
}
template <class R>
ES_HD_INLINE Complex<R> operator*(const R& s, const Complex<R>& a) {
  return {s * a.re, s * a.im};
}
template <class R>
ES_HD_INLINE Complex<R>& operator*=(Complex<R>& a, const Complex<R>& b) {
  a = a * b;
  return a;
}
/// Division by a real: componentwise.
template <class R>
ES_HD_INLINE Complex<R> operator/(const Complex<R>& a, const R& s) {
  return {a.re / s, a.im / s};
}
/// Complex division, fixed formula (Smith's algorithm, no math-library calls):
/// if |br| >= |bi|: r = bi/br, den = br + bi*r, re = (ar + ai*r)/den, im = (ai - ar*r)/den;
/// else the mirror image.
template <class R>
ES_HD_INLINE Complex<R> operator/(const Complex<R>& a, const Complex<R>& b) {
  using eigsolve::abs;
  if (abs(b.re) >= abs(b.im)) {
    R r = b.im / b.re;
    R den = madd(b.im, r, b.re);
    return {madd(a.im, r, a.re) / den, madd(-a.re, r, a.im) / den};
  }
  R r = b.re / b.im;
  R den = madd(b.re, r, b.im);
  return {madd(a.re, r, a.im) / den, madd(a.im, r, -a.re) / den};
}

/// a*b + c with the fixed formula of the file header.
template <class R>
ES_HD_INLINE Complex<R> madd(const Complex<R>& a, const Complex<R>& b, const Complex<R>& c) {
  R re = madd(a.re, b.re, c.re);
  re = madd(-a.im, b.im, re);
  R im = madd(a.re, b.im, c.im);
  im = madd(a.im, b.re, im);
  return {re, im};
}
/// conj(a)*b + c, the same formula with a.im negated.
template <class R>
ES_HD_INLINE Complex<R> madd_conj(const Complex<R>& a, const Complex<R>& b, const Complex<R>& c) {
  return madd(Complex<R>{a.re, -a.im}, b, c);
}

template <class R>
ES_HD_INLINE Complex<R> conj(const Complex<R>& a) {
  return {a.re, -a.im};
}
template <class R>
ES_HD_INLINE R real_part(const Complex<R>& a) {
  return a.re;
}
template <class R>
ES_HD_INLINE R imag_part(const Complex<R>& a) {
  return a.im;
}
/// |a|^2 = fma(re, re, im*im).
template <class R>
ES_HD_INLINE R abs2(const Complex<R>& a) {
  return madd(a.re, a.re, a.im * a.im);
}
/// max(|re|, |im|): the cheap magnitude used for pivoting and sign normalization.
template <class R>
ES_HD_INLINE R abs1(const Complex<R>& a) {
  using eigsolve::abs;
  R x = abs(a.re), y = abs(a.im);
  return x >= y ? x : y;
}
template <class R>
ES_HD_INLINE bool is_finite(const Complex<R>& a) {
  return is_finite(a.re) && is_finite(a.im);
}

}  // namespace eigsolve
