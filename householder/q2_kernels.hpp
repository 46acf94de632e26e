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
#include "core/dd_avx512.hpp"  // EIGSOLVE_DD_AVX512

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

#if defined(EIGSOLVE_SYMV_AVX512) && defined(EIGSOLVE_DD_AVX512)
/// dd_real on AVX-512 (core/dd_avx512.hpp): 8 NV columns per scratch row, stored planar as
/// doubles (the NV registers of his, then the NV of los), one column per lane; each lane runs
/// the generic kernel's chains with dd_real's operators (madd = product, then sum; u = -(tau s)),
/// so the bits are the generic kernel's. NV independent dot chains per row hide the latency of
/// the dd sum. Runs through avx512::apply_blocks.
template <int NV>
struct KernelDd512 {
  using Elem = double;
  using V = dd512::V;
  static constexpr int kCols = 8 * NV;
  static constexpr index_t kRow = 2 * kCols;  ///< doubles per scratch row
  struct Acc {
    V a[NV];
  };
#define EIGSOLVE_Q2_FN __attribute__((target("avx512f"), always_inline)) static inline
  EIGSOLVE_Q2_FN V load(const double* z, int t) {
    return {_mm512_loadu_pd(z + 8 * t), _mm512_loadu_pd(z + kCols + 8 * t)};
  }
  EIGSOLVE_Q2_FN void store(double* z, int t, const V& x) {
    _mm512_storeu_pd(z + 8 * t, x.hi);
    _mm512_storeu_pd(z + kCols + 8 * t, x.lo);
  }
  EIGSOLVE_Q2_FN void zero(Acc& s) {
    for (int t = 0; t < NV; ++t)
      s.a[t] = V{_mm512_setzero_pd(), _mm512_setzero_pd()};
  }
  /// s = madd_conj(v_q, z, s) = v_q * z + s.
  EIGSOLVE_Q2_FN void dot(const double* z, index_t len, const dd_real* v, Acc& acc) {
    V s[NV];
    for (int t = 0; t < NV; ++t)
      s[t] = acc.a[t];
    for (index_t q = 0; q < len; ++q, z += kRow) {
      const V vq = dd512::bcast(v[q]);
      for (int t = 0; t < NV; ++t)
        s[t] = dd512::madd(vq, load(z, t), s[t]);
    }
    for (int t = 0; t < NV; ++t)
      acc.a[t] = s[t];
  }
  /// z = madd(v_q, u, z) = v_q * u + z.
  EIGSOLVE_Q2_FN void axpy(double* z, index_t len, const dd_real* v, const Acc& u) {
    for (index_t q = 0; q < len; ++q, z += kRow) {
      const V vq = dd512::bcast(v[q]);
      for (int t = 0; t < NV; ++t)
        store(z, t, dd512::madd(vq, u.a[t], load(z, t)));
    }
  }
  EIGSOLVE_Q2_FN void fused(double* z, index_t len, const dd_real* vp, const Acc& u,
                            const dd_real* vn, Acc& acc) {
    V s[NV];
    for (int t = 0; t < NV; ++t)
      s[t] = acc.a[t];
    for (index_t q = 0; q < len; ++q, z += kRow) {
      const V p = dd512::bcast(vp[q]), w = dd512::bcast(vn[q]);
      for (int t = 0; t < NV; ++t) {
        const V x = dd512::madd(p, u.a[t], load(z, t));
        store(z, t, x);
        s[t] = dd512::madd(w, x, s[t]);
      }
    }
    for (int t = 0; t < NV; ++t)
      acc.a[t] = s[t];
  }
  /// u = -(tau * s): the rounded dd product, both words negated.
  EIGSOLVE_Q2_FN void make_u(const dd_real& tau, const Acc& s, Acc& u) {
    const V tv = dd512::bcast(tau);
    for (int t = 0; t < NV; ++t)
      u.a[t] = dd512::neg(dd512::mul(tv, s.a[t]));
  }
  EIGSOLVE_Q2_FN void gather(const dd_real* Z, index_t ldz, int nc, index_t r0, index_t r1,
                             double* Zs) {
    for (index_t r = r0; r < r1; ++r) {
      double* zs = Zs + r * kRow;
      for (int j = 0; j < kCols; ++j) {
        const dd_real x = j < nc ? Z[r + j * ldz] : dd_real(0.0);
        zs[j] = x.hi;
        zs[kCols + j] = x.lo;
      }
    }
  }
  EIGSOLVE_Q2_FN void scatter(const double* Zs, int nc, index_t r0, index_t r1, dd_real* Z,
                              index_t ldz) {
    for (index_t r = r0; r < r1; ++r) {
      const double* zs = Zs + r * kRow;
      for (int j = 0; j < nc; ++j)
        Z[r + j * ldz] = dd_real(zs[j], zs[kCols + j]);
    }
  }
#undef EIGSOLVE_Q2_FN
};
#endif

}  // namespace q2_detail
}  // namespace eigsolve
