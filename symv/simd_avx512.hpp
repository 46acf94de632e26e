// Internal to the CPU kernels (householder/ update kernels): one 512-bit register of float or
// double with the operations of simd::Avx2 (symv/simd_avx2.hpp), every member compiled for the
// avx512f target only (the callers carry the same target attribute and are chosen at run time
// by symv_detail::has_avx512f()). Every operation is exact or a single IEEE rounding (fma,
// add), lane by lane as the scalar one: the traits change no bit of any kernel.
#pragma once

#include <immintrin.h>

#include <cstring>

#include "core/complex.hpp"

namespace eigsolve {
namespace simd {

#define EIGSOLVE_AVX512_FN __attribute__((target("avx512f"), always_inline)) static inline

template <class R>
struct Avx512;

template <>
struct Avx512<double> {
  using V = __m512d;
  static constexpr int kLanes = 8;
  EIGSOLVE_AVX512_FN V zero() { return _mm512_setzero_pd(); }
  EIGSOLVE_AVX512_FN V load(const double* p) { return _mm512_loadu_pd(p); }
  EIGSOLVE_AVX512_FN void store(double* p, V v) { _mm512_storeu_pd(p, v); }
  EIGSOLVE_AVX512_FN V add(V a, V b) { return _mm512_add_pd(a, b); }
  EIGSOLVE_AVX512_FN V fma(V a, V b, V c) { return _mm512_fmadd_pd(a, b, c); }
  EIGSOLVE_AVX512_FN V bcast(const double* p) { return _mm512_set1_pd(*p); }
  /// (p->re, p->im) in every pair of lanes.
  EIGSOLVE_AVX512_FN V bcast(const Complex<double>* p) {
    const __m128 pair = _mm_castpd_ps(_mm_loadu_pd(&p->re));
    // (full-mask form: GCC 12's unmasked one reads an "undefined" source, -Wmaybe-uninitialized)
    return _mm512_castps_pd(_mm512_maskz_broadcast_f32x4(__mmask16(0xFFFF), pair));
  }
};

template <>
struct Avx512<float> {
  using V = __m512;
  static constexpr int kLanes = 16;
  EIGSOLVE_AVX512_FN V zero() { return _mm512_setzero_ps(); }
  EIGSOLVE_AVX512_FN V load(const float* p) { return _mm512_loadu_ps(p); }
  EIGSOLVE_AVX512_FN void store(float* p, V v) { _mm512_storeu_ps(p, v); }
  EIGSOLVE_AVX512_FN V add(V a, V b) { return _mm512_add_ps(a, b); }
  EIGSOLVE_AVX512_FN V fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  EIGSOLVE_AVX512_FN V bcast(const float* p) { return _mm512_set1_ps(*p); }
  EIGSOLVE_AVX512_FN V bcast(const Complex<float>* p) {
    double d;
    std::memcpy(&d, p, sizeof d);
    return _mm512_castpd_ps(_mm512_set1_pd(d));
  }
};

#undef EIGSOLVE_AVX512_FN

}  // namespace simd
}  // namespace eigsolve
