// Canonical Householder reflector generation (LAPACK ?larfg / zlarfg formulas, with the norm
// computed as a canonical sum of squares under an exact power-of-two scaling).
//
//   [alpha; x] (m elements) --> H^H [alpha; x] = [beta; 0],  H = I - tau [1; v] [1; v]^H
//
// Internal to householder/ (docs/canonical-tridiagonalization.md, "Reflector").
#pragma once

#include <cmath>

#include "core/canonical.hpp"
#include "core/precision.hpp"

namespace eigsolve {
namespace hh_detail {

inline int exponent_of(float a) {
  int e = 0;
  std::frexp(a, &e);
  return e;
}
inline int exponent_of(double a) {
  int e = 0;
  std::frexp(a, &e);
  return e;
}
inline int exponent_of(const dd_real& a) {
  return exponent_of(a.hi);
}

template <class T>
T scale2_any(const T& a, int k) {
  if constexpr (is_complex_v<T>)
    return T(scale2(a.re, k), scale2(a.im, k));
  else
    return scale2(a, k);
}

/// max over i of abs1(x[i]) (order-independent: comparisons only).
template <class T>
real_t<T> max_abs1(index_t n, const T* x) {
  real_t<T> m = real_t<T>(0);
  for (index_t i = 0; i < n; ++i) {
    const real_t<T> a = abs1(x[i]);
    if (a > m) m = a;
  }
  return m;
}

/// Canonical sum of squares of 2^k x[i] (tiles of 64 from index 0, chunks of 8; each element
/// adds re^2 then, for complex, im^2 to its chunk chain with madd).
template <class T>
real_t<T> scaled_ssq(index_t n, const T* x, int k) {
  using R = real_t<T>;
  R acc = R(0);
  for (index_t t0 = 0; t0 < n; t0 += kTile) {
    R c[kChunk];
    for (int q = 0; q < kChunk; ++q) {
      R s = R(0);
      const index_t cb = t0 + index_t(q) * kChunk;
      for (index_t i = cb; i < cb + kChunk && i < n; ++i) {
        const T xs = scale2_any(x[i], k);
        s = madd(real_part(xs), real_part(xs), s);
        if constexpr (is_complex_v<T>) s = madd(xs.im, xs.im, s);
      }
      c[q] = s;
    }
    const R p = tile_tree(c);
    acc = (t0 == 0) ? p : acc + p;
  }
  return acc;
}

/// Generates the elementary reflector of order m for [alpha; x[0..m-1)) in the canonical
/// order: on exit alpha = beta (real), x = v(2:m), and the return value is tau.
/// Real T: tau = 0 when m <= 1 or x == 0. Complex T: tau = 0 when m <= 0 or (x == 0 and
/// imag(alpha) == 0). Otherwise, with e the binary exponent of max(|alpha|, |x_i|) (abs1)
/// and s = 2^-e:
///   ssq = canonical sum of squares of s*x;  t = madd(s*ai, s*ai, ssq); t = madd(s*ar, s*ar, t)
///   bs = ar >= 0 ? -sqrt(t) : sqrt(t)          (scaled beta; -0 counts as >= 0)
///   tau = (bs - s*ar) / bs   [complex: ((bs - s*ar)/bs, -(s*ai)/bs)]
///   r = 1 / (s*alpha - bs)   [complex: our Complex division]; x_i := (s*x_i) * r
///   beta = 2^e * bs
template <class T>
T larfg(index_t m, T& alpha, T* x) {
  using R = real_t<T>;
  if constexpr (is_complex_v<T>) {
    if (m <= 0) return T(0);
  } else {
    if (m <= 1) return T(0);
  }
  const index_t nx = m - 1;
  const R xmax = max_abs1(nx, x);
  const R ar = real_part(alpha);
  const R ai = imag_part(alpha);
  if (xmax == R(0) && ai == R(0)) return T(0);
  R amax = xmax;
  if (abs(ar) > amax) amax = abs(ar);
  if (abs(ai) > amax) amax = abs(ai);
  const int e = exponent_of(amax);
  const R ars = scale2(ar, -e);
  const R ais = scale2(ai, -e);
  R t = scaled_ssq(nx, x, -e);
  if constexpr (is_complex_v<T>) t = madd(ais, ais, t);
  t = madd(ars, ars, t);
  const R bn = sqrt_(t);
  const R bs = (ars >= R(0)) ? -bn : bn;
  T tau;
  if constexpr (is_complex_v<T>)
    tau = T((bs - ars) / bs, -ais / bs);
  else
    tau = (bs - ars) / bs;
  const T r = T(1) / (make_scalar<T>(ars, ais) - T(bs));
  for (index_t i = 0; i < nx; ++i)
    x[i] = scale2_any(x[i], -e) * r;
  alpha = T(scale2(bs, e));
  return tau;
}

}  // namespace hh_detail
}  // namespace eigsolve
