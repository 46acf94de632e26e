// Internal AVX2 kernels of symv/ (included by symv/tile_kernels_avx2.hpp): col_dots_group, the
// canonical dots of a few columns with one vector (t1 = W^H v, t2 = V^H v of the panel), the
// columns in vector lanes and the rows brought across them by in-register transposes; the same
// chains as contiguous_dot (tests/symv compares them bitwise).
#pragma once

#if defined(EIGSOLVE_SYMV_AVX2)
#include <immintrin.h>

#include <cstring>
#include <type_traits>

#include "core/canonical.hpp"
#include "core/complex.hpp"
#include "core/precision.hpp"
#include "symv/simd_avx2.hpp"

namespace eigsolve {
namespace symv_detail {

using simd::Avx2;

// ---- column dots: out[q] = canonical_dot(M(:, q), v) for a few columns at once -----------

/// Transposed chains of an 8-row block of L columns (float: one 8 x 8 block; double: two 4 x 4
/// blocks, rows 0-3 then 4-7): c = madd(M(r, q), v_r, c) for r ascending, lane q = column q.
/// b points at row 0 of column 0 (column q at b + ldm q); vb[r] = broadcast v_r.
inline __m256 block_col_chain(const float* b, index_t ldm, const __m256* vb, __m256 c) {
  __m256 r[kChunk];
  for (int q = 0; q < kChunk; ++q)
    r[q] = _mm256_loadu_ps(b + ldm * q);
  __m256 u[kChunk];
  simd::transpose8_ps(r, u);
  for (int q = 0; q < kChunk; ++q)
    c = _mm256_fmadd_ps(u[q], vb[q], c);
  return c;
}
inline __m256d block_col_chain(const double* b, index_t ldm, const __m256d* vb, __m256d c) {
  const double* c0 = b;
  const double* c1 = b + ldm;
  const double* c2 = b + 2 * ldm;
  const double* c3 = b + 3 * ldm;
  for (int h = 0; h < 2; ++h) {
    const __m256d r0 = _mm256_loadu_pd(c0 + 4 * h), r1 = _mm256_loadu_pd(c1 + 4 * h);
    const __m256d r2 = _mm256_loadu_pd(c2 + 4 * h), r3 = _mm256_loadu_pd(c3 + 4 * h);
    const __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
    const __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
    const __m256d* vi = vb + 4 * h;
    c = _mm256_fmadd_pd(_mm256_permute2f128_pd(t0, t2, 0x20), vi[0], c);
    c = _mm256_fmadd_pd(_mm256_permute2f128_pd(t1, t3, 0x20), vi[1], c);
    c = _mm256_fmadd_pd(_mm256_permute2f128_pd(t0, t2, 0x31), vi[2], c);
    c = _mm256_fmadd_pd(_mm256_permute2f128_pd(t1, t3, 0x31), vi[3], c);
  }
  return c;
}

/// out[q] = canonical_dot(m, M + ldm q, v) (real: no conjugation; tiles of 64 rows from row 0,
/// chunks of 8, fixed tree, tiles ascending) for q < L (L = lanes: 8 float, 4 double columns,
/// all readable for rows < m). Lane q of a vector is the chain of column q: the same chains,
/// trees and tile sums as the scalar dot. A last partial chunk is read through a copy padded
/// with +0, v with -0: a padded term is fma(+0, -0, s) = s + (-0) = s for every s, -0 included
/// (a chain from +0 holds -0 after a negative product that underflows; +0 * +0 padding made
/// that +0 before session 51).
template <class R>
inline void col_dots_group(index_t m, const R* M, index_t ldm, const R* v, R* out) {
  using S = Avx2<R>;
  using V = typename S::V;
  constexpr int L = S::kLanes;
  V acc = S::zero();
  for (index_t t0 = 0; t0 < m; t0 += kTile) {
    V c[kChunk];
    for (int k = 0; k < kChunk; ++k) {
      const index_t r0 = t0 + index_t(k) * kChunk;
      c[k] = S::zero();
      if (r0 >= m) continue;
      V vb[kChunk];
      if (r0 + kChunk <= m) {
        for (int r = 0; r < kChunk; ++r)
          vb[r] = S::bcast(v + r0 + r);
        c[k] = block_col_chain(M + r0, ldm, vb, c[k]);
      } else {
        alignas(32) R buf[kChunk * L];
        const int nr = static_cast<int>(m - r0);
        for (int q = 0; q < L; ++q)
          for (int r = 0; r < kChunk; ++r)
            buf[r + kChunk * q] = r < nr ? M[r0 + r + ldm * q] : R(0);
        static const R kNegZero = R(-0.0);
        for (int r = 0; r < kChunk; ++r)
          vb[r] = S::bcast(r < nr ? v + r0 + r : &kNegZero);
        c[k] = block_col_chain(buf, index_t(kChunk), vb, c[k]);
      }
    }
    const V p = simd::tree8<S>(c);
    acc = t0 == 0 ? p : S::add(acc, p);
  }
  S::store(out, acc);
}

/// Complex: out[q] = canonical_dot<conj>(m, M + ldm q, v) = sum_r conj(M(r, q)) v_r for q < C
/// (C = 4 Complex<float>, 2 Complex<double> columns: one (re, im) pair of lanes per column).
/// madd_conj(a, b, c) of core/complex.hpp with a = M(r, q) is
///   re = fma(a.re, b.re, c.re); re = fma(a.im, b.im, re);
///   im = fma(a.re, b.im, c.im); im = fma(-a.im, b.re, im),
/// two vector fmas: fma(dup(a.re), (v.re, v.im), c), then fma(dup(a.im), (v.im, -v.re), c)
/// ((-a.im) v.re and a.im (-v.re) are the same product exactly). Row r across the columns
/// (u_r) comes from in-register transposes of 64-bit (float pairs) / 128-bit units; rows of a
/// last partial chunk are gathered one at a time (absent rows are simply not chained).
template <class R>
struct ColChainsC {
  using S = Avx2<R>;
  using V = typename S::V;
  static constexpr int kCols = S::kLanes / 2;
  /// u[r] = row r of an 8-row block (element (r, q) at b[r + ldm q], Complex<R>), r < 8.
  static void rows8(const Complex<R>* b, index_t ldm, V* u) {
    if constexpr (std::is_same<R, float>::value) {
      for (int h = 0; h < 2; ++h) {
        const Complex<R>* c0 = b + 4 * h;
        const __m256d a0 = _mm256_loadu_pd(reinterpret_cast<const double*>(c0));
        const __m256d a1 = _mm256_loadu_pd(reinterpret_cast<const double*>(c0 + ldm));
        const __m256d a2 = _mm256_loadu_pd(reinterpret_cast<const double*>(c0 + 2 * ldm));
        const __m256d a3 = _mm256_loadu_pd(reinterpret_cast<const double*>(c0 + 3 * ldm));
        const __m256d t0 = _mm256_unpacklo_pd(a0, a1), t1 = _mm256_unpackhi_pd(a0, a1);
        const __m256d t2 = _mm256_unpacklo_pd(a2, a3), t3 = _mm256_unpackhi_pd(a2, a3);
        u[4 * h + 0] = _mm256_castpd_ps(_mm256_permute2f128_pd(t0, t2, 0x20));
        u[4 * h + 1] = _mm256_castpd_ps(_mm256_permute2f128_pd(t1, t3, 0x20));
        u[4 * h + 2] = _mm256_castpd_ps(_mm256_permute2f128_pd(t0, t2, 0x31));
        u[4 * h + 3] = _mm256_castpd_ps(_mm256_permute2f128_pd(t1, t3, 0x31));
      }
    } else {
      for (int h = 0; h < 4; ++h) {
        const Complex<R>* c0 = b + 2 * h;
        const __m256d a0 = _mm256_loadu_pd(reinterpret_cast<const double*>(c0));
        const __m256d a1 = _mm256_loadu_pd(reinterpret_cast<const double*>(c0 + ldm));
        u[2 * h + 0] = _mm256_permute2f128_pd(a0, a1, 0x20);
        u[2 * h + 1] = _mm256_permute2f128_pd(a0, a1, 0x31);
      }
    }
  }
  /// Row r alone (a last partial chunk).
  static V row1(const Complex<R>* b, index_t ldm) {
    if constexpr (std::is_same<R, float>::value) {
      double e[4];
      for (int q = 0; q < 4; ++q)
        std::memcpy(&e[q], b + ldm * q, sizeof(double));
      return _mm256_castpd_ps(_mm256_setr_pd(e[0], e[1], e[2], e[3]));
    } else {
      return _mm256_setr_pd(b[0].re, b[0].im, b[ldm].re, b[ldm].im);
    }
  }
  /// va = (v.re, v.im), vb = (v.im, -v.re) in every pair of lanes.
  static void vpair(const Complex<R>& v, V& va, V& vb) {
    const Complex<R> w(v.im, -v.re);
    va = S::bcast(&v);
    vb = S::bcast(&w);
  }
  static V step(V c, V u, V va, V vb) {
    c = S::fma(S::dup_re(u), va, c);
    return S::fma(S::dup_im(u), vb, c);
  }
};

template <class R>
inline void col_dots_group(index_t m, const Complex<R>* M, index_t ldm, const Complex<R>* v,
                           Complex<R>* out) {
  using Ch = ColChainsC<R>;
  using S = Avx2<R>;
  using V = typename S::V;
  V acc = S::zero();
  for (index_t t0 = 0; t0 < m; t0 += kTile) {
    V c[kChunk];
    for (int k = 0; k < kChunk; ++k) {
      const index_t r0 = t0 + index_t(k) * kChunk;
      c[k] = S::zero();
      if (r0 >= m) continue;
      if (r0 + kChunk <= m) {
        V u[kChunk];
        Ch::rows8(M + r0, ldm, u);
        for (int r = 0; r < kChunk; ++r) {
          V va, vb;
          Ch::vpair(v[r0 + r], va, vb);
          c[k] = Ch::step(c[k], u[r], va, vb);
        }
      } else {
        for (index_t r = r0; r < m; ++r) {
          V va, vb;
          Ch::vpair(v[r], va, vb);
          c[k] = Ch::step(c[k], Ch::row1(M + r, ldm), va, vb);
        }
      }
    }
    const V p = simd::tree8<S>(c);
    acc = t0 == 0 ? p : S::add(acc, p);
  }
  S::store(reinterpret_cast<R*>(out), acc);
}

}  // namespace symv_detail
}  // namespace eigsolve
#endif  // EIGSOLVE_SYMV_AVX2
