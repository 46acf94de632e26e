// Canonical Householder reflector generation (LAPACK ?larfg / zlarfg formulas, with the norm
// computed as a canonical sum of squares under an exact power-of-two scaling).
//
//   [alpha; x] (m elements) --> H^H [alpha; x] = [beta; 0],  H = I - tau [1; v] [1; v]^H
//
// Internal to householder/ (docs/canonical-tridiagonalization.md, "Reflector").
#pragma once

#include <cmath>
#include <limits>
#include <type_traits>

#include "core/canonical.hpp"
#include "core/precision.hpp"

#if defined(__AVX2__)
#include "symv/simd_avx2.hpp"
#endif

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

/// Scaling by 2^k, element by element (complex: both parts). For float/double with 2^k
/// representable (possibly subnormal) it multiplies by 2^k: x * 2^k and scale2(x, k) are both
/// the exact x 2^k rounded once, so the bits are the same, without a libm call per element.
template <class T>
struct Scale2 {
  using R = real_t<T>;
  int k;
  R f = R(0);  // 2^k when exact, else 0 (scale2 is called)
  explicit Scale2(int kk) : k(kk) {
    if constexpr (std::is_floating_point<R>::value) {
      using L = std::numeric_limits<R>;
      if (k >= L::min_exponent - L::digits && k < L::max_exponent) f = scale2(R(1), k);
    }
  }
  R one(const R& a) const {
    if constexpr (std::is_floating_point<R>::value)
      if (f != R(0)) return a * f;
    return scale2(a, k);
  }
  T operator()(const T& a) const {
    if constexpr (is_complex_v<T>)
      return T(one(a.re), one(a.im));
    else
      return one(a);
  }
};

#if defined(__AVX2__)
/// The running maxima of |x| over the first i = n - n % 32 (float) / n - n % 16 (double)
/// elements in AVX2 lanes, m = max(|x|, m): vmaxps/pd return the second operand unless the
/// first is greater, so a NaN never wins, as in max_abs1's comparisons. Returns their maximum.
template <class R>
inline R max_abs_avx2(index_t n, const R* x, index_t& i) {
  using S = simd::Avx2<R>;
  constexpr int L = S::kLanes, B = 4 * L;
  typename S::V a[4] = {S::zero(), S::zero(), S::zero(), S::zero()};
  for (; i + B <= n; i += B)
    for (int q = 0; q < 4; ++q)
      a[q] = S::max(S::abs(S::load(x + i + L * q)), a[q]);
  alignas(32) R l[B];
  for (int q = 0; q < 4; ++q)
    S::store_aligned(l + L * q, a[q]);
  R r = R(0);
  for (R v : l)
    if (v > r) r = v;
  return r;
}
#endif

/// max over i of abs1(x[i]) (order-independent: comparisons only; abs1 is never -0 and a NaN
/// never wins a comparison, so 8 independent running maxima give the same value). float /
/// double: most of it in AVX2 lanes first (max_abs_avx2; it was a scalar loop of branches).
template <class T>
real_t<T> max_abs1(index_t n, const T* x) {
  using R = real_t<T>;
  constexpr int K = 8;
  R m[K];
  for (int k = 0; k < K; ++k)
    m[k] = R(0);
  index_t i = 0;
#if defined(__AVX2__)
  if constexpr (std::is_same<T, float>::value || std::is_same<T, double>::value)
    m[0] = max_abs_avx2(n, x, i);
#endif
  for (; i + K <= n; i += K)
    for (int k = 0; k < K; ++k) {
      const R a = abs1(x[i + k]);
      if (a > m[k]) m[k] = a;
    }
  for (; i < n; ++i) {
    const R a = abs1(x[i]);
    if (a > m[0]) m[0] = a;
  }
  R r = m[0];
  for (int k = 1; k < K; ++k)
    if (m[k] > r) r = m[k];
  return r;
}

/// Canonical sum of squares of 2^k x[i] (tiles of 64 from index 0, chunks of 8; each element
/// adds re^2 then, for complex, im^2 to its chunk chain with madd).
template <class T>
real_t<T> scaled_ssq(index_t n, const T* x, int k) {
  using R = real_t<T>;
  R acc = R(0);
  const Scale2<T> sc(k);
  for (index_t t0 = 0; t0 < n; t0 += kTile) {
    R c[kChunk];
    if (t0 + kTile <= n) {
      // A full tile: the 8 chunk chains interleaved (each keeps its element order).
      for (int q = 0; q < kChunk; ++q)
        c[q] = R(0);
      for (int jj = 0; jj < kChunk; ++jj)
        for (int q = 0; q < kChunk; ++q) {
          const T xs = sc(x[t0 + index_t(q) * kChunk + jj]);
          c[q] = madd(real_part(xs), real_part(xs), c[q]);
          if constexpr (is_complex_v<T>) c[q] = madd(xs.im, xs.im, c[q]);
        }
      const R p = tile_tree(c);
      acc = (t0 == 0) ? p : acc + p;
      continue;
    }
    for (int q = 0; q < kChunk; ++q) {
      R s = R(0);
      const index_t cb = t0 + index_t(q) * kChunk;
      for (index_t i = cb; i < cb + kChunk && i < n; ++i) {
        const T xs = sc(x[i]);
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
  const Scale2<T> sc(-e);
  for (index_t i = 0; i < nx; ++i)
    x[i] = sc(x[i]) * r;
  alpha = T(scale2(bs, e));
  return tau;
}

}  // namespace hh_detail
}  // namespace eigsolve
