// Internal to the CPU kernels (symv/, householder/): one 256-bit AVX2 register of float or
// double, the few operations the kernels use, as a traits type, so that each kernel is written
// once for both widths (and for complex pairs (re, im) in adjacent lanes). Only included where
// EIGSOLVE_SYMV_AVX2 (symv/tile_kernels.hpp) or __AVX2__ (householder/larfg.hpp) is defined.
// Every operation is exact or a single IEEE rounding (fma, add): the traits change no bit of
// any kernel.
#pragma once

#include <immintrin.h>

#include <cstring>

#include "core/complex.hpp"

namespace eigsolve {
namespace simd {

template <class R>
struct Avx2;

template <>
struct Avx2<double> {
  using V = __m256d;
  static constexpr int kLanes = 4;
  static V zero() { return _mm256_setzero_pd(); }
  static V load(const double* p) { return _mm256_loadu_pd(p); }
  static V load_aligned(const double* p) { return _mm256_load_pd(p); }
  static void store(double* p, V v) { _mm256_storeu_pd(p, v); }
  static void store_aligned(double* p, V v) { _mm256_store_pd(p, v); }
  static V add(V a, V b) { return _mm256_add_pd(a, b); }
  static V fma(V a, V b, V c) { return _mm256_fmadd_pd(a, b, c); }
  /// *p in every lane.
  static V bcast(const double* p) { return _mm256_broadcast_sd(p); }
  /// (p->re, p->im) in every pair of lanes.
  static V bcast(const Complex<double>* p) {
    return _mm256_broadcast_pd(reinterpret_cast<const __m128d*>(p));
  }
  /// Pairs (re, im) -> (re, re) / (im, im).
  static V dup_re(V v) { return _mm256_movedup_pd(v); }
  static V dup_im(V v) { return _mm256_permute_pd(v, 0xF); }
  /// |v| (the sign bit cleared); max(a, b): b unless a > b (so a NaN in a never wins).
  static V abs(V v) { return _mm256_andnot_pd(_mm256_set1_pd(-0.0), v); }
  static V max(V a, V b) { return _mm256_max_pd(a, b); }
};

template <>
struct Avx2<float> {
  using V = __m256;
  static constexpr int kLanes = 8;
  static V zero() { return _mm256_setzero_ps(); }
  static V load(const float* p) { return _mm256_loadu_ps(p); }
  static V load_aligned(const float* p) { return _mm256_load_ps(p); }
  static void store(float* p, V v) { _mm256_storeu_ps(p, v); }
  static void store_aligned(float* p, V v) { _mm256_store_ps(p, v); }
  static V add(V a, V b) { return _mm256_add_ps(a, b); }
  static V fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static V bcast(const float* p) { return _mm256_broadcast_ss(p); }
  static V bcast(const Complex<float>* p) {
    double d;
    std::memcpy(&d, p, sizeof d);
    return _mm256_castpd_ps(_mm256_set1_pd(d));
  }
  static V dup_re(V v) { return _mm256_moveldup_ps(v); }
  static V dup_im(V v) { return _mm256_movehdup_ps(v); }
  static V abs(V v) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), v); }
  static V max(V a, V b) { return _mm256_max_ps(a, b); }
};

/// The 8 x 8 float transpose: r[q] = column q (rows 0..7) -> u[i] = row i (columns 0..7).
inline void transpose8_ps(const __m256* r, __m256* u) {
  const __m256 a0 = _mm256_unpacklo_ps(r[0], r[1]), a1 = _mm256_unpackhi_ps(r[0], r[1]);
  const __m256 a2 = _mm256_unpacklo_ps(r[2], r[3]), a3 = _mm256_unpackhi_ps(r[2], r[3]);
  const __m256 a4 = _mm256_unpacklo_ps(r[4], r[5]), a5 = _mm256_unpackhi_ps(r[4], r[5]);
  const __m256 a6 = _mm256_unpacklo_ps(r[6], r[7]), a7 = _mm256_unpackhi_ps(r[6], r[7]);
  const __m256 b0 = _mm256_shuffle_ps(a0, a2, 0x44), b1 = _mm256_shuffle_ps(a0, a2, 0xEE);
  const __m256 b2 = _mm256_shuffle_ps(a1, a3, 0x44), b3 = _mm256_shuffle_ps(a1, a3, 0xEE);
  const __m256 b4 = _mm256_shuffle_ps(a4, a6, 0x44), b5 = _mm256_shuffle_ps(a4, a6, 0xEE);
  const __m256 b6 = _mm256_shuffle_ps(a5, a7, 0x44), b7 = _mm256_shuffle_ps(a5, a7, 0xEE);
  u[0] = _mm256_permute2f128_ps(b0, b4, 0x20);
  u[1] = _mm256_permute2f128_ps(b1, b5, 0x20);
  u[2] = _mm256_permute2f128_ps(b2, b6, 0x20);
  u[3] = _mm256_permute2f128_ps(b3, b7, 0x20);
  u[4] = _mm256_permute2f128_ps(b0, b4, 0x31);
  u[5] = _mm256_permute2f128_ps(b1, b5, 0x31);
  u[6] = _mm256_permute2f128_ps(b2, b6, 0x31);
  u[7] = _mm256_permute2f128_ps(b3, b7, 0x31);
}

/// The fixed tree of the 8 chunk vectors: ((c0+c1)+(c2+c3))+((c4+c5)+(c6+c7)), lane by lane.
template <class S>
inline typename S::V tree8(const typename S::V* c) {
  return S::add(S::add(S::add(c[0], c[1]), S::add(c[2], c[3])),
                S::add(S::add(c[4], c[5]), S::add(c[6], c[7])));
}

}  // namespace simd
}  // namespace eigsolve
