// Internal to the CPU kernels (symv/, householder/): one 256-bit AVX2 register of float or
// double, the few operations the kernels use, as a traits type, so that each kernel is written
// once for both widths (and for complex pairs (re, im) in adjacent lanes). Only included where
// EIGSOLVE_SYMV_AVX2 is defined (symv/tile_kernels.hpp). Every operation is exact or a single
// IEEE rounding (fma, add): the traits change no bit of any kernel.
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
};

/// The fixed tree of the 8 chunk vectors: ((c0+c1)+(c2+c3))+((c4+c5)+(c6+c7)), lane by lane.
template <class S>
inline typename S::V tree8(const typename S::V* c) {
  return S::add(S::add(S::add(c[0], c[1]), S::add(c[2], c[3])),
                S::add(S::add(c[4], c[5]), S::add(c[6], c[7])));
}

}  // namespace simd
}  // namespace eigsolve
