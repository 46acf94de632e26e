// Internal to householder/tridiagonalize.cpp: the per-element update chains of the panel's
// column update (chain_window) for complex scalars in AVX2 registers, (re, im) pairs in adjacent
// lanes; the complex madd(a, x, c) of core/complex.hpp as two vector fmas,
// fma(dup(a.re), (x.re, x.im), c) then fma(dup(a.im), (-x.im, x.re), c): the bits of the scalar
// chains (docs/canonical-tridiagonalization.md).
#pragma once

#include "core/complex.hpp"
#include "core/precision.hpp"
#include "symv/tile_kernels.hpp"  // EIGSOLVE_SYMV_AVX2, <immintrin.h>

namespace eigsolve {
namespace hh_detail {

#if defined(EIGSOLVE_SYMV_AVX2)
/// The chains of chain_window for Complex<double>, 16 rows (two per register; the complex
/// madd as two vector fmas, see symv_detail::tile_direct_z): rows [lo, hi) are updated.
inline void chain_window_z(int lo, int hi, index_t kb, const Complex<double>* V, index_t ldv,
                           const Complex<double>* W, index_t ldw, const Complex<double>* nw,
                           const Complex<double>* nv, Complex<double>* a) {
  alignas(32) double c[32];
  // Lanes outside [lo, hi) start from 0 (zeroed, then the rows in range copied: the form
  // that GCC 12 compiles correctly, see update_kernels_isa.hpp's partial tiles).
  for (int l = 0; l < 32; ++l)
    c[l] = 0.0;
  for (int l = lo; l < hi; ++l) {
    c[2 * l] = a[l].re;
    c[2 * l + 1] = a[l].im;
  }
  __m256d acc[8];
  for (int q = 0; q < 8; ++q)
    acc[q] = _mm256_load_pd(c + 4 * q);
  for (index_t k = 0; k < kb; ++k) {
    const double* vk = reinterpret_cast<const double*>(V + ldv * k);
    const double* wk = reinterpret_cast<const double*>(W + ldw * k);
    const double xr = nw[k].re, xi = nw[k].im, yr = nv[k].re, yi = nv[k].im;
    const __m256d xa = _mm256_setr_pd(xr, xi, xr, xi), xb = _mm256_setr_pd(-xi, xr, -xi, xr);
    const __m256d ya = _mm256_setr_pd(yr, yi, yr, yi), yb = _mm256_setr_pd(-yi, yr, -yi, yr);
    for (int q = 0; q < 8; ++q) {
      const __m256d v = _mm256_loadu_pd(vk + 4 * q), w = _mm256_loadu_pd(wk + 4 * q);
      acc[q] = _mm256_fmadd_pd(_mm256_movedup_pd(v), xa, acc[q]);
      acc[q] = _mm256_fmadd_pd(_mm256_permute_pd(v, 0xF), xb, acc[q]);
      acc[q] = _mm256_fmadd_pd(_mm256_movedup_pd(w), ya, acc[q]);
      acc[q] = _mm256_fmadd_pd(_mm256_permute_pd(w, 0xF), yb, acc[q]);
    }
  }
  for (int q = 0; q < 8; ++q)
    _mm256_store_pd(c + 4 * q, acc[q]);
  for (int l = lo; l < hi; ++l)
    a[l] = Complex<double>(c[2 * l], c[2 * l + 1]);
}

/// The same for Complex<float>, 8 rows (four per register, (re, im) pairs; the complex madd as
/// fma(dup(a.re), (x.re, x.im)) then fma(dup(a.im), (-x.im, x.re)), core/complex.hpp's order).
inline void chain_window_c(int lo, int hi, index_t kb, const Complex<float>* V, index_t ldv,
                           const Complex<float>* W, index_t ldw, const Complex<float>* nw,
                           const Complex<float>* nv, Complex<float>* a) {
  alignas(32) float c[16];
  for (int l = 0; l < 16; ++l)
    c[l] = 0.f;
  for (int l = lo; l < hi; ++l) {
    c[2 * l] = a[l].re;
    c[2 * l + 1] = a[l].im;
  }
  __m256 acc0 = _mm256_load_ps(c), acc1 = _mm256_load_ps(c + 8);
  for (index_t k = 0; k < kb; ++k) {
    const float* vk = reinterpret_cast<const float*>(V + ldv * k);
    const float* wk = reinterpret_cast<const float*>(W + ldw * k);
    const float xr = nw[k].re, xi = nw[k].im, yr = nv[k].re, yi = nv[k].im;
    const __m256 xa = _mm256_setr_ps(xr, xi, xr, xi, xr, xi, xr, xi);
    const __m256 xb = _mm256_setr_ps(-xi, xr, -xi, xr, -xi, xr, -xi, xr);
    const __m256 ya = _mm256_setr_ps(yr, yi, yr, yi, yr, yi, yr, yi);
    const __m256 yb = _mm256_setr_ps(-yi, yr, -yi, yr, -yi, yr, -yi, yr);
    const __m256 v0 = _mm256_loadu_ps(vk), v1 = _mm256_loadu_ps(vk + 8);
    const __m256 w0 = _mm256_loadu_ps(wk), w1 = _mm256_loadu_ps(wk + 8);
    acc0 = _mm256_fmadd_ps(_mm256_moveldup_ps(v0), xa, acc0);
    acc1 = _mm256_fmadd_ps(_mm256_moveldup_ps(v1), xa, acc1);
    acc0 = _mm256_fmadd_ps(_mm256_movehdup_ps(v0), xb, acc0);
    acc1 = _mm256_fmadd_ps(_mm256_movehdup_ps(v1), xb, acc1);
    acc0 = _mm256_fmadd_ps(_mm256_moveldup_ps(w0), ya, acc0);
    acc1 = _mm256_fmadd_ps(_mm256_moveldup_ps(w1), ya, acc1);
    acc0 = _mm256_fmadd_ps(_mm256_movehdup_ps(w0), yb, acc0);
    acc1 = _mm256_fmadd_ps(_mm256_movehdup_ps(w1), yb, acc1);
  }
  _mm256_store_ps(c, acc0);
  _mm256_store_ps(c + 8, acc1);
  for (int l = lo; l < hi; ++l)
    a[l] = Complex<float>(c[2 * l], c[2 * l + 1]);
}
#endif

}  // namespace hh_detail
}  // namespace eigsolve
