// Internal to householder/two_stage_vectors.cpp: the kernels of Z := Q2 Z on one block of
// columns of Z held row-major in a scratch (docs/canonical-two-stage.md, "Z := Q2 Z").
//
//   scratch row r = Z(r, j0 .. j0+NC) (complex: the NC real parts, then the NC imaginary parts)
//
//   reflector (rows r0 .. r0+len-1, v, tau), per column j (one lane each):
//     dot   s_j = +0;  s_j = madd_conj(v_q, z(r0+q, j), s_j)     q = 0 .. len-1 ascending
//     u     u_j = -(tau * s_j)
//     axpy  z(r0+q, j) = madd(v_q, u_j, z(r0+q, j))             q = 0 .. len-1
//
// `fused` runs the axpy of one reflector P and the dot of the next one N over the rows they
// share, row by row: P's update of a row, then N's term of it (N needs P's result; each chain
// still takes its terms in ascending order). Every lane is one column's own chain, so the vector
// kernels (float, double, complex; AVX2, and AVX-512 where the CPU runs it) have the bits of the
// generic one (any T, dd included): a vector fma is the scalar fma lane by lane, and the complex
// madd and product are written out as complex.hpp's formulas (fma(-a, b, c) as fnmadd(a, b, c):
// the same exact value before the one rounding).
//
// householder/q2_kernels_isa.hpp holds the kernel and the schedule once per instruction set
// (namespaces generic, avx2, avx512), the AVX-512 copy compiled for the avx512f target.
#pragma once

#include <algorithm>
#include <cstdint>

#include "core/precision.hpp"
#include "symv/tile_kernels.hpp"  // EIGSOLVE_SYMV_AVX2 (and _AVX512, has_avx512f), <immintrin.h>
#if defined(EIGSOLVE_SYMV_AVX512)
#include "symv/simd_avx512.hpp"
#endif

namespace eigsolve {
namespace q2_detail {

/// One reflector of stage 2: rows r0 .. r0+len-1 of Z, v (len entries, v[0] = 1), tau.
template <class T>
struct Refl {
  index_t r0 = 0, len = 0;
  const T* v = nullptr;
  T tau = T(0);
};

/// x, through an empty asm the optimizer cannot see through. Used between a product and its
/// negation in u = -(tau * s): GCC (12) folds -fma(a, b, c) into fnmsub(a, b, c) = -(a b) - c,
/// which differs from the negated rounded result in the sign of an exact zero (a b = +0, c = -0:
/// -(+0) = -0 against -0 - -0 = +0), so without it the bits of a zero u (a column of Z that is
/// zero on a reflector's rows) would depend on the compiler's choices, not on the spec.
template <class X>
__attribute__((always_inline)) inline X opaque(X x) {
  asm("" : "+m"(x));
  return x;
}

/// Prefetches the cache lines of p[0 .. len) (a hint: no effect on any value).
template <class T>
__attribute__((always_inline)) inline void prefetch(const T* p, index_t len) {
  const char* b = reinterpret_cast<const char*>(p);
  const char* e = reinterpret_cast<const char*>(p + len);
  for (const char* q = b; q < e; q += 64)
    __builtin_prefetch(q, 0, 3);
  __builtin_prefetch(e - 1, 0, 3);
}

#if defined(EIGSOLVE_SYMV_AVX2)
// The operations simd::Avx2 / simd::Avx512 lack, by vector type. Each is exact or one IEEE
// rounding lane by lane.
#define EIGSOLVE_Q2_OP __attribute__((always_inline)) inline
EIGSOLVE_Q2_OP __m256d vmul(__m256d a, __m256d b) {
  return _mm256_mul_pd(a, b);
}
EIGSOLVE_Q2_OP __m256 vmul(__m256 a, __m256 b) {
  return _mm256_mul_ps(a, b);
}
/// -(a b) + c with one rounding: fma(-a, b, c) exactly.
EIGSOLVE_Q2_OP __m256d vfnma(__m256d a, __m256d b, __m256d c) {
  return _mm256_fnmadd_pd(a, b, c);
}
EIGSOLVE_Q2_OP __m256 vfnma(__m256 a, __m256 b, __m256 c) {
  return _mm256_fnmadd_ps(a, b, c);
}
/// -a: the sign bit flipped (exact, as the scalar negation).
EIGSOLVE_Q2_OP __m256d vneg(__m256d a) {
  return _mm256_xor_pd(a, _mm256_set1_pd(-0.0));
}
EIGSOLVE_Q2_OP __m256 vneg(__m256 a) {
  return _mm256_xor_ps(a, _mm256_set1_ps(-0.0f));
}
/// The register form of opaque (no memory round trip).
EIGSOLVE_Q2_OP __m256d opaque(__m256d a) {
  asm("" : "+x"(a));
  return a;
}
EIGSOLVE_Q2_OP __m256 opaque(__m256 a) {
  asm("" : "+x"(a));
  return a;
}
#undef EIGSOLVE_Q2_OP
#endif

#if defined(EIGSOLVE_SYMV_AVX512)
#define EIGSOLVE_Q2_OP __attribute__((target("avx512f"), always_inline)) inline
EIGSOLVE_Q2_OP __m512d vmul(__m512d a, __m512d b) {
  return _mm512_mul_pd(a, b);
}
EIGSOLVE_Q2_OP __m512 vmul(__m512 a, __m512 b) {
  return _mm512_mul_ps(a, b);
}
EIGSOLVE_Q2_OP __m512d vfnma(__m512d a, __m512d b, __m512d c) {
  return _mm512_fnmadd_pd(a, b, c);
}
EIGSOLVE_Q2_OP __m512 vfnma(__m512 a, __m512 b, __m512 c) {
  return _mm512_fnmadd_ps(a, b, c);
}
// (sign flip through the integer view: avx512f has no xor_pd, that is avx512dq)
EIGSOLVE_Q2_OP __m512d vneg(__m512d a) {
  return _mm512_castsi512_pd(
      _mm512_xor_si512(_mm512_castpd_si512(a), _mm512_set1_epi64(INT64_MIN)));
}
EIGSOLVE_Q2_OP __m512 vneg(__m512 a) {
  return _mm512_castsi512_ps(
      _mm512_xor_si512(_mm512_castps_si512(a), _mm512_set1_epi32(INT32_MIN)));
}
EIGSOLVE_Q2_OP __m512d opaque(__m512d a) {
  asm("" : "+v"(a));
  return a;
}
EIGSOLVE_Q2_OP __m512 opaque(__m512 a) {
  asm("" : "+v"(a));
  return a;
}
#undef EIGSOLVE_Q2_OP
#endif

// One copy of the kernel and the schedule per instruction set.
#define EIGSOLVE_Q2_NS generic
#define EIGSOLVE_Q2_TARGET
#include "householder/q2_kernels_isa.hpp"
#if defined(EIGSOLVE_SYMV_AVX2)
#define EIGSOLVE_Q2_NS avx2
#define EIGSOLVE_Q2_SIMD simd::Avx2
#define EIGSOLVE_Q2_TARGET
#include "householder/q2_kernels_isa.hpp"
#endif
#if defined(EIGSOLVE_SYMV_AVX512)
#define EIGSOLVE_Q2_NS avx512
#define EIGSOLVE_Q2_SIMD simd::Avx512
#define EIGSOLVE_Q2_TARGET __attribute__((target("avx512f")))
#include "householder/q2_kernels_isa.hpp"
#endif

}  // namespace q2_detail
}  // namespace eigsolve
