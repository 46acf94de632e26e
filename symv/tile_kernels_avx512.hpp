// Internal AVX-512 variants of the double fused kernels of symv/tile_kernels_avx2.hpp (the strip,
// the partial-row tile, the diagonal tile),
// compiled for the avx512f target per function and chosen at run time (has_avx512f()) where
// the CPU has it. One zmm holds the 8 rows of an 8 x 8 block's column: the direct chain of a row
// is its lane over the block's 8 columns, the transposed chain of a column its lane over the 8
// rows after an 8 x 8 in-register transpose: the chains, trees and partials of strip_fused,
// with half the instructions. A vector fma rounds like the scalar one lane by lane: same bits.
#pragma once

#if defined(EIGSOLVE_SYMV_AVX2) && defined(__GNUC__) && !defined(__CUDACC__)
#define EIGSOLVE_SYMV_AVX512 1
#include <immintrin.h>

#include <cstdlib>

#include "core/cpu_features.hpp"

namespace eigsolve {
namespace symv_detail {

// has_avx512f(), has_avx512vl(): core/cpu_features.hpp.
using eigsolve::has_avx512f;
using eigsolve::has_avx512vl;

// Full-mask forms of the shuffles: GCC 12's unmasked intrinsics pass an "undefined" source
// that -Wuninitialized reports; with every lane selected the result is the same.
__attribute__((target("avx512f"))) inline __m512d unpacklo512(__m512d a, __m512d b) {
  return _mm512_mask_unpacklo_pd(a, __mmask8(0xFF), a, b);
}
__attribute__((target("avx512f"))) inline __m512d unpackhi512(__m512d a, __m512d b) {
  return _mm512_mask_unpackhi_pd(a, __mmask8(0xFF), a, b);
}
template <int Imm>
__attribute__((target("avx512f"))) inline __m512d shuffle512(__m512d a, __m512d b) {
  return _mm512_mask_shuffle_f64x2(a, __mmask8(0xFF), a, b, Imm);
}

/// An empty asm that takes v in a vector register: GCC would otherwise fold the block's column
/// loads into both the fmas and the shuffles as memory operands, loading every element twice
/// (measured: float strip 1 core -23..32 %, bench/NOTES.md session 5). No instruction, no bit.
template <class V>
__attribute__((always_inline)) inline void in_register(V& v) {
  asm("" : "+v"(v));
}

/// The first two stages of the 8 x 8 transpose of 64-bit units (2 x 8 shuffles): e[0..3] hold
/// the even rows, o[0..3] the odd rows, combined by transpose8x8_512's last stage (row 2k from
/// e[2(k/2) .. +1] by 0x88 / 0xDD, see there).
__attribute__((target("avx512f"))) inline void transpose8x8_512_eo(const __m512d* r, __m512d* e,
                                                                   __m512d* o) {
  const __m512d t0 = unpacklo512(r[0], r[1]), t1 = unpackhi512(r[0], r[1]);
  const __m512d t2 = unpacklo512(r[2], r[3]), t3 = unpackhi512(r[2], r[3]);
  const __m512d t4 = unpacklo512(r[4], r[5]), t5 = unpackhi512(r[4], r[5]);
  const __m512d t6 = unpacklo512(r[6], r[7]), t7 = unpackhi512(r[6], r[7]);
  e[0] = shuffle512<0x44>(t0, t2);
  e[1] = shuffle512<0x44>(t4, t6);
  e[2] = shuffle512<0xEE>(t0, t2);
  e[3] = shuffle512<0xEE>(t4, t6);
  o[0] = shuffle512<0x44>(t1, t3);
  o[1] = shuffle512<0x44>(t5, t7);
  o[2] = shuffle512<0xEE>(t1, t3);
  o[3] = shuffle512<0xEE>(t5, t7);
}

/// u[i] = lane i of r[0..7]: the 8 x 8 transpose of 64-bit units (3 x 8 shuffles).
__attribute__((target("avx512f"))) inline void transpose8x8_512(const __m512d* r, __m512d* u) {
  __m512d e[4], o[4];
  transpose8x8_512_eo(r, e, o);
  const __m512d e0 = e[0], e1 = e[1], e2 = e[2], e3 = e[3];
  const __m512d o0 = o[0], o1 = o[1], o2 = o[2], o3 = o[3];
  u[0] = shuffle512<0x88>(e0, e1);
  u[2] = shuffle512<0xDD>(e0, e1);
  u[4] = shuffle512<0x88>(e2, e3);
  u[6] = shuffle512<0xDD>(e2, e3);
  u[1] = shuffle512<0x88>(o0, o1);
  u[3] = shuffle512<0xDD>(o0, o1);
  u[5] = shuffle512<0x88>(o2, o3);
  u[7] = shuffle512<0xDD>(o2, o3);
}

/// block8_fused for double on one zmm per column: dout[i] = chain over j of s(i, j) xc[j],
/// tout[j] = chain over i of s(i, j) xr[i] (j, i ascending); dout, tout 64-byte aligned.
__attribute__((target("avx512f"))) inline void block8_fused_512(const double* s, index_t lds,
                                                                const double* xr, const double* xc,
                                                                double* dout, double* tout) {
  __m512d r[kChunk];
  __m512d d = _mm512_setzero_pd();
  for (int q = 0; q < kChunk; ++q) {
    r[q] = _mm512_loadu_pd(s + lds * q);
    in_register(r[q]);
    d = _mm512_fmadd_pd(r[q], _mm512_set1_pd(xc[q]), d);
  }
  _mm512_store_pd(dout, d);
  // Transpose: u[i] = (s(i, 0), ..., s(i, 7)).
  __m512d u[kChunk];
  transpose8x8_512(r, u);
  __m512d t = _mm512_setzero_pd();
  for (int i = 0; i < kChunk; ++i)
    t = _mm512_fmadd_pd(u[i], _mm512_set1_pd(xr[i]), t);
  _mm512_store_pd(tout, t);
}

/// strip_fused<double, MaxK> with block8_fused_512 (same blocks, order, partials, prefetch).
template <int MaxK>
__attribute__((target("avx512f"))) inline void strip_fused_512(int k, const double* S, index_t lds,
                                                               const double* xr, const double* xc,
                                                               double* pd, index_t pd_stride,
                                                               double* pt) {
  alignas(64) double cd[MaxK][kChunk][kTile];  // cd[t][cc][i]: direct chunk sums
  alignas(64) double ct[MaxK][kChunk][kTile];  // ct[t][rc][j]: transposed chunk sums
  const int rows = k * kTile;
  for (int cc = 0; cc < kChunk; ++cc) {
    const int j0 = cc * kChunk;
    const double* c0 = S + lds * j0;
    for (int i0 = 0; i0 < rows; i0 += kChunk) {
      const int t = i0 / kTile, il = i0 % kTile;
      const double* b = c0 + i0;
      for (int q = 0; q < kChunk; ++q)
        _mm_prefetch(reinterpret_cast<const char*>(b + lds * q + kTile), _MM_HINT_T0);
      block8_fused_512(b, lds, xr + i0, xc + j0, &cd[t][cc][il], &ct[t][il / kChunk][j0]);
    }
  }
  for (int t = 0; t < k; ++t) {
    tree_rows64(cd[t], pd + t * pd_stride);
    tree_rows64(ct[t], pt + t * kTile);
  }
}

/// tile_fused_rows<double> (rows < 64 rows of a stored tile below the diagonal, xr -0 from
/// rows on) with block8_fused_512: the 8-row blocks that exist in place, a last partial block
/// through a copy padded with +0 (padded terms are fma(+0, -0, s) = s, -0 included), missing
/// blocks +0.
__attribute__((target("avx512f"))) inline void tile_fused_rows_512(int rows, const double* S,
                                                                   index_t lds, const double* xr,
                                                                   const double* xc, double* pd,
                                                                   double* pt) {
  alignas(64) double cd[kChunk][kTile];
  alignas(64) double ct[kChunk][kTile];
  alignas(64) double pad[kChunk * kChunk];
  const int full = rows - rows % kChunk;
  for (int cc = 0; cc < kChunk; ++cc) {
    const int j0 = cc * kChunk;
    const double* c0 = S + lds * j0;
    for (int i0 = 0; i0 < full; i0 += kChunk)
      block8_fused_512(c0 + i0, lds, xr + i0, xc + j0, &cd[cc][i0], &ct[i0 / kChunk][j0]);
    int i0 = full;
    if (full < rows) {
      for (int q = 0; q < kChunk; ++q)
        for (int r = 0; r < kChunk; ++r)
          pad[r + kChunk * q] = full + r < rows ? c0[full + r + lds * q] : 0.0;
      block8_fused_512(pad, index_t(kChunk), xr + full, xc + j0, &cd[cc][full],
                       &ct[full / kChunk][j0]);
      i0 += kChunk;
    }
    for (; i0 < kTile; i0 += kChunk)
      for (int r = 0; r < kChunk; ++r) {
        cd[cc][i0 + r] = 0.0;
        ct[i0 / kChunk][j0 + r] = 0.0;
      }
  }
  tree_rows64(cd, pd);
  tree_rows64(ct, pt);
}

/// tile_diag64<double> with block8_fused_512 for the stored blocks below the diagonal and one
/// zmm per column of the mirrored 8 x 8 diagonal blocks (the same chains).
__attribute__((target("avx512f"))) inline void tile_diag64_512(const double* D, index_t ldd,
                                                               const double* x, double* p) {
  alignas(64) double c[kChunk][kTile];  // c[k][i]: chunk k of row i
  for (int cc = 0; cc < kChunk; ++cc) {
    const int j0 = cc * kChunk;
    const double* c0 = D + ldd * j0;
    // The diagonal 8 x 8 block, mirrored in registers: column j takes rows i >= j from the
    // stored column (r[j]) and rows i < j from the stored row j (u[j], the transpose). Masked
    // loads: the strict upper triangle is not read (its lanes are 0 and never selected).
    __m512d r[kChunk], u[kChunk];
    for (int q = 0; q < kChunk; ++q)
      r[q] = _mm512_maskz_loadu_pd(__mmask8(0xFFu << q), c0 + j0 + ldd * q);
    transpose8x8_512(r, u);
    __m512d a = _mm512_setzero_pd();
    for (int j = 0; j < kChunk; ++j)
      a = _mm512_fmadd_pd(_mm512_mask_blend_pd(__mmask8((1u << j) - 1), r[j], u[j]),
                          _mm512_set1_pd(x[j0 + j]), a);
    _mm512_store_pd(&c[cc][j0], a);
    for (int i0 = j0 + kChunk; i0 < kTile; i0 += kChunk)
      block8_fused_512(c0 + i0, ldd, x + i0, x + j0, &c[cc][i0], &c[i0 / kChunk][j0]);
  }
  tree_rows64(c, p);
}

/// A full stored tile below the diagonal against 8 vectors at once (symm_reference), lanes =
/// vectors: xr[i][q] = x_q(row i of the tile's row panel), xc[j][q] = x_q(row j of its column
/// panel), 64 x 8 each; pd[i][q] receives the direct partial of row i of vector q, pt[j][q] the
/// transposed partial of row j of the column panel. Per 8 x 8 block each element is broadcast
/// once and feeds the direct chain of its row (columns ascending) and the transposed chain of
/// its column (rows ascending) of all 8 vectors: the chains, chunk sums and trees of
/// block8_fused_512 / strip_fused_512 vector by vector, without the transposes.
__attribute__((target("avx512f"))) inline void tile_fused_lanes8(const double* S, index_t lds,
                                                                 const double* xr, const double* xc,
                                                                 double* pd, double* pt) {
  alignas(64) double cd[kChunk][kTile][8];  // cd[cc][i]: chunk cc of row i's direct chain
  alignas(64) double ct[kChunk][kTile][8];  // ct[rc][j]: chunk rc of column j's chain
  for (int cc = 0; cc < kChunk; ++cc) {
    const int j0 = cc * kChunk;
    __m512d x_c[kChunk];
    for (int c = 0; c < kChunk; ++c)
      x_c[c] = _mm512_loadu_pd(xc + 8 * (j0 + c));
    for (int i0 = 0; i0 < kTile; i0 += kChunk) {
      const double* b = S + i0 + lds * j0;
      // Two halves of 4 rows: the direct chains of a half's rows run over the 8 columns, the
      // transposed chain of a column over rows 0-3, then 4-7 (24 live zmm, x of the rows kept).
      __m512d t[kChunk];
      for (int c = 0; c < kChunk; ++c)
        t[c] = _mm512_setzero_pd();
      for (int h = 0; h < kChunk; h += 4) {
        __m512d d[4], x_r[4];
        for (int r = 0; r < 4; ++r) {
          d[r] = _mm512_setzero_pd();
          x_r[r] = _mm512_loadu_pd(xr + 8 * (i0 + h + r));
        }
        for (int c = 0; c < kChunk; ++c)
          for (int r = 0; r < 4; ++r) {
            const __m512d a = _mm512_set1_pd(b[h + r + lds * c]);
            d[r] = _mm512_fmadd_pd(a, x_c[c], d[r]);
            t[c] = _mm512_fmadd_pd(a, x_r[r], t[c]);
          }
        for (int r = 0; r < 4; ++r)
          _mm512_store_pd(cd[cc][i0 + h + r], d[r]);
      }
      for (int c = 0; c < kChunk; ++c)
        _mm512_store_pd(ct[i0 / kChunk][j0 + c], t[c]);
    }
  }
  for (int i = 0; i < kTile; ++i) {
    __m512d v[kChunk], u[kChunk];
    for (int k = 0; k < kChunk; ++k) {
      v[k] = _mm512_load_pd(cd[k][i]);
      u[k] = _mm512_load_pd(ct[k][i]);
    }
    _mm512_storeu_pd(
        pd + 8 * i,
        _mm512_add_pd(_mm512_add_pd(_mm512_add_pd(v[0], v[1]), _mm512_add_pd(v[2], v[3])),
                      _mm512_add_pd(_mm512_add_pd(v[4], v[5]), _mm512_add_pd(v[6], v[7]))));
    _mm512_storeu_pd(
        pt + 8 * i,
        _mm512_add_pd(_mm512_add_pd(_mm512_add_pd(u[0], u[1]), _mm512_add_pd(u[2], u[3])),
                      _mm512_add_pd(_mm512_add_pd(u[4], u[5]), _mm512_add_pd(u[6], u[7]))));
  }
}

/// tile_fused_lanes8 for Complex<double>: rows of 16 doubles, the real parts of the 8 vectors
/// then their imaginary parts (xr[i][0..7] = re, xr[i][8..15] = im; pd, pt alike). The direct
/// chain of row i is madd(s(i, j), x_j, .) and the transposed chain of column j
/// madd_conj(s(i, j), x_i, .), core/complex.hpp's four fmas in their order:
///   madd:      re = fma(a.re, x.re, re); re = fma(-a.im, x.im, re);
///              im = fma(a.re, x.im, im); im = fma(a.im, x.re, im)
///   madd_conj: the same with a.im negated
/// (fma(-a, b, c) as fnmadd(a, b, c): the same exact value, one rounding). Rows in pairs.
__attribute__((target("avx512f"))) inline void tile_fused_lanes8_z(const double* S, index_t lds,
                                                                   const double* xr,
                                                                   const double* xc, double* pd,
                                                                   double* pt) {
  alignas(64) double cd[kChunk][kTile][16];  // cd[cc][i]: chunk cc of row i (re 8, im 8)
  alignas(64) double ct[kChunk][kTile][16];  // ct[rc][j]: chunk rc of column j
  for (int cc = 0; cc < kChunk; ++cc) {
    const int j0 = cc * kChunk;
    for (int i0 = 0; i0 < kTile; i0 += kChunk) {
      const double* b = S + 2 * (i0 + lds * j0);  // (re, im) pairs
      __m512d tr[kChunk], ti[kChunk];
      for (int c = 0; c < kChunk; ++c)
        tr[c] = ti[c] = _mm512_setzero_pd();
      for (int h = 0; h < kChunk; h += 2) {
        __m512d dr[2], di[2], xrr[2], xri[2];
        for (int r = 0; r < 2; ++r) {
          dr[r] = di[r] = _mm512_setzero_pd();
          xrr[r] = _mm512_loadu_pd(xr + 16 * (i0 + h + r));
          xri[r] = _mm512_loadu_pd(xr + 16 * (i0 + h + r) + 8);
        }
        for (int c = 0; c < kChunk; ++c) {
          const __m512d xcr = _mm512_loadu_pd(xc + 16 * (j0 + c));
          const __m512d xci = _mm512_loadu_pd(xc + 16 * (j0 + c) + 8);
          for (int r = 0; r < 2; ++r) {
            const double* e = b + 2 * (h + r + lds * c);
            const __m512d ar = _mm512_set1_pd(e[0]), ai = _mm512_set1_pd(e[1]);
            dr[r] = _mm512_fmadd_pd(ar, xcr, dr[r]);
            dr[r] = _mm512_fnmadd_pd(ai, xci, dr[r]);
            di[r] = _mm512_fmadd_pd(ar, xci, di[r]);
            di[r] = _mm512_fmadd_pd(ai, xcr, di[r]);
            tr[c] = _mm512_fmadd_pd(ar, xrr[r], tr[c]);
            tr[c] = _mm512_fmadd_pd(ai, xri[r], tr[c]);
            ti[c] = _mm512_fmadd_pd(ar, xri[r], ti[c]);
            ti[c] = _mm512_fnmadd_pd(ai, xrr[r], ti[c]);
          }
        }
        for (int r = 0; r < 2; ++r) {
          _mm512_store_pd(cd[cc][i0 + h + r], dr[r]);
          _mm512_store_pd(cd[cc][i0 + h + r] + 8, di[r]);
        }
      }
      for (int c = 0; c < kChunk; ++c) {
        _mm512_store_pd(ct[i0 / kChunk][j0 + c], tr[c]);
        _mm512_store_pd(ct[i0 / kChunk][j0 + c] + 8, ti[c]);
      }
    }
  }
  for (int i = 0; i < kTile; ++i)
    for (int h = 0; h < 16; h += 8) {
      __m512d v[kChunk], u[kChunk];
      for (int k = 0; k < kChunk; ++k) {
        v[k] = _mm512_load_pd(cd[k][i] + h);
        u[k] = _mm512_load_pd(ct[k][i] + h);
      }
      _mm512_storeu_pd(
          pd + 16 * i + h,
          _mm512_add_pd(_mm512_add_pd(_mm512_add_pd(v[0], v[1]), _mm512_add_pd(v[2], v[3])),
                        _mm512_add_pd(_mm512_add_pd(v[4], v[5]), _mm512_add_pd(v[6], v[7]))));
      _mm512_storeu_pd(
          pt + 16 * i + h,
          _mm512_add_pd(_mm512_add_pd(_mm512_add_pd(u[0], u[1]), _mm512_add_pd(u[2], u[3])),
                        _mm512_add_pd(_mm512_add_pd(u[4], u[5]), _mm512_add_pd(u[6], u[7]))));
    }
}

/// tile_fused_lanes8_z for Complex<float>: the 8 vectors' real parts in one ymm and their
/// imaginary parts in another (rows of 16 floats), with AVX-512VL's 32 ymm registers so that the
/// z kernel's register plan fits; the same fmas in the same order.
__attribute__((target("avx512f,avx512vl"))) inline void tile_fused_lanes8_c(
    const float* S, index_t lds, const float* xr, const float* xc, float* pd, float* pt) {
  alignas(32) float cd[kChunk][kTile][16];  // cd[cc][i]: chunk cc of row i (re 8, im 8)
  alignas(32) float ct[kChunk][kTile][16];  // ct[rc][j]: chunk rc of column j
  for (int cc = 0; cc < kChunk; ++cc) {
    const int j0 = cc * kChunk;
    for (int i0 = 0; i0 < kTile; i0 += kChunk) {
      const float* b = S + 2 * (i0 + lds * j0);  // (re, im) pairs
      __m256 tr[kChunk], ti[kChunk];
      for (int c = 0; c < kChunk; ++c)
        tr[c] = ti[c] = _mm256_setzero_ps();
      for (int h = 0; h < kChunk; h += 2) {
        __m256 dr[2], di[2], xrr[2], xri[2];
        for (int r = 0; r < 2; ++r) {
          dr[r] = di[r] = _mm256_setzero_ps();
          xrr[r] = _mm256_loadu_ps(xr + 16 * (i0 + h + r));
          xri[r] = _mm256_loadu_ps(xr + 16 * (i0 + h + r) + 8);
        }
        for (int c = 0; c < kChunk; ++c) {
          const __m256 xcr = _mm256_loadu_ps(xc + 16 * (j0 + c));
          const __m256 xci = _mm256_loadu_ps(xc + 16 * (j0 + c) + 8);
          for (int r = 0; r < 2; ++r) {
            const float* e = b + 2 * (h + r + lds * c);
            const __m256 ar = _mm256_set1_ps(e[0]), ai = _mm256_set1_ps(e[1]);
            dr[r] = _mm256_fmadd_ps(ar, xcr, dr[r]);
            dr[r] = _mm256_fnmadd_ps(ai, xci, dr[r]);
            di[r] = _mm256_fmadd_ps(ar, xci, di[r]);
            di[r] = _mm256_fmadd_ps(ai, xcr, di[r]);
            tr[c] = _mm256_fmadd_ps(ar, xrr[r], tr[c]);
            tr[c] = _mm256_fmadd_ps(ai, xri[r], tr[c]);
            ti[c] = _mm256_fmadd_ps(ar, xri[r], ti[c]);
            ti[c] = _mm256_fnmadd_ps(ai, xrr[r], ti[c]);
          }
        }
        for (int r = 0; r < 2; ++r) {
          _mm256_store_ps(cd[cc][i0 + h + r], dr[r]);
          _mm256_store_ps(cd[cc][i0 + h + r] + 8, di[r]);
        }
      }
      for (int c = 0; c < kChunk; ++c) {
        _mm256_store_ps(ct[i0 / kChunk][j0 + c], tr[c]);
        _mm256_store_ps(ct[i0 / kChunk][j0 + c] + 8, ti[c]);
      }
    }
  }
  for (int i = 0; i < kTile; ++i)
    for (int h = 0; h < 16; h += 8) {
      __m256 v[kChunk], u[kChunk];
      for (int k = 0; k < kChunk; ++k) {
        v[k] = _mm256_load_ps(cd[k][i] + h);
        u[k] = _mm256_load_ps(ct[k][i] + h);
      }
      _mm256_storeu_ps(
          pd + 16 * i + h,
          _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(v[0], v[1]), _mm256_add_ps(v[2], v[3])),
                        _mm256_add_ps(_mm256_add_ps(v[4], v[5]), _mm256_add_ps(v[6], v[7]))));
      _mm256_storeu_ps(
          pt + 16 * i + h,
          _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(u[0], u[1]), _mm256_add_ps(u[2], u[3])),
                        _mm256_add_ps(_mm256_add_ps(u[4], u[5]), _mm256_add_ps(u[6], u[7]))));
    }
}

}  // namespace symv_detail
}  // namespace eigsolve
#endif
