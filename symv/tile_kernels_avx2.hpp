// Internal AVX2 kernels of symv/ (included by symv/tile_kernels.hpp, which defines
// EIGSOLVE_SYMV_AVX2 when the target has AVX2 + FMA): full 64 x 64 tiles read once for both
// partials (double, float), the diagonal tile (double), and the tile_partials paths for
// double / float / Complex<double>. A vector fma rounds exactly like the scalar madd and every
// chain keeps its element order, so these give the bits of the generic loops.
#pragma once

#if defined(EIGSOLVE_SYMV_AVX2)
#include <immintrin.h>

#include <algorithm>

#include "core/canonical.hpp"
#include "core/complex.hpp"
#include "core/precision.hpp"

namespace eigsolve {
namespace symv_detail {
// AVX2 kernels for full 64 x 64 double tiles. A vector fma rounds exactly like the scalar
// madd, and every chain keeps its element order, so these give the bits of tile_partials.

/// Fixed tree of the 8 chunk vectors.
inline __m256d tree4(const __m256d* c) {
  return _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(c[0], c[1]), _mm256_add_pd(c[2], c[3])),
                       _mm256_add_pd(_mm256_add_pd(c[4], c[5]), _mm256_add_pd(c[6], c[7])));
}

/// tile_partials(64, 64, B, ldb, x, p) for double: rows i of B contiguous. One chunk at a
/// time, 32 rows in 8 registers, so each column is read as a contiguous 256-byte run (a row
/// group walking all 64 columns 8 KB apart thrashes the L1 sets when lda is a power of two).
inline void tile_direct_d64(const double* B, index_t ldb, const double* x, double* p) {
  alignas(32) double c[kChunk][kTile];
  for (int k = 0; k < kChunk; ++k)
    for (int h = 0; h < kTile; h += 32) {
      __m256d a[8];
      for (int q = 0; q < 8; ++q)
        a[q] = _mm256_setzero_pd();
      for (int jj = 0; jj < kChunk; ++jj) {
        const int j = k * kChunk + jj;
        const __m256d xv = _mm256_broadcast_sd(x + j);
        const double* b = B + ldb * j + h;
        for (int q = 0; q < 8; ++q)
          a[q] = _mm256_fmadd_pd(_mm256_loadu_pd(b + 4 * q), xv, a[q]);
      }
      for (int q = 0; q < 8; ++q)
        _mm256_store_pd(&c[k][h + 4 * q], a[q]);
    }
  for (int i = 0; i < kTile; i += 4) {
    __m256d v[kChunk];
    for (int k = 0; k < kChunk; ++k)
      v[k] = _mm256_load_pd(&c[k][i]);
    _mm256_storeu_pd(p + i, tree4(v));
  }
}

/// tile_partials(rows, cols, B, ldb, x, p) for double, any rows <= 64, cols <= 64 (edge tiles,
/// the panel's row_dots over k < nb): chunk by chunk, rows in groups of 32 / 4 / 1, every
/// column of a chunk read as a contiguous run; chunks past cols are +0.
inline void tile_direct_d(int rows, int cols, const double* B, index_t ldb, const double* x,
                          double* p) {
  if (rows == kTile && cols == kTile) {
    tile_direct_d64(B, ldb, x, p);
    return;
  }
  alignas(32) double c[kChunk][kTile];
  const int rv = rows & ~3;
  for (int k = 0; k < kChunk; ++k) {
    const int jb = k * kChunk, je = std::min(cols, jb + kChunk);
    if (jb >= je) {
      for (int i = 0; i < rows; ++i)
        c[k][i] = 0.0;
      continue;
    }
    int h = 0;
    for (; h + 32 <= rv; h += 32) {
      __m256d a[8];
      for (int q = 0; q < 8; ++q)
        a[q] = _mm256_setzero_pd();
      for (int j = jb; j < je; ++j) {
        const __m256d xv = _mm256_broadcast_sd(x + j);
        const double* b = B + ldb * j + h;
        for (int q = 0; q < 8; ++q)
          a[q] = _mm256_fmadd_pd(_mm256_loadu_pd(b + 4 * q), xv, a[q]);
      }
      for (int q = 0; q < 8; ++q)
        _mm256_store_pd(&c[k][h + 4 * q], a[q]);
    }
    for (; h < rv; h += 4) {
      __m256d a = _mm256_setzero_pd();
      for (int j = jb; j < je; ++j)
        a = _mm256_fmadd_pd(_mm256_loadu_pd(B + ldb * j + h), _mm256_broadcast_sd(x + j), a);
      _mm256_store_pd(&c[k][h], a);
    }
    for (; h < rows; ++h) {
      double a = 0.0;
      for (int j = jb; j < je; ++j)
        a = madd(B[h + ldb * j], x[j], a);
      c[k][h] = a;
    }
  }
  int i = 0;
  for (; i < rv; i += 4) {
    __m256d v[kChunk];
    for (int k = 0; k < kChunk; ++k)
      v[k] = _mm256_load_pd(&c[k][i]);
    _mm256_storeu_pd(p + i, tree4(v));
  }
  for (; i < rows; ++i)
    p[i] =
        ((c[0][i] + c[1][i]) + (c[2][i] + c[3][i])) + ((c[4][i] + c[5][i]) + (c[6][i] + c[7][i]));
}

/// One stored 8 x 8 block s (element (i, j) at s[i + lds * j]) in both directions:
/// dout[i] = chain over j of s(i, j) * xc[j]  (the direct chunk sums of the block's 8 rows),
/// tout[j] = chain over i of s(i, j) * xr[i]  (the transposed chunk sums of its 8 columns).
/// 4 x 4 blocks (g: columns 4g .., h: rows 4h ..) in the order that keeps both chains
/// ascending: direct d[h] over g, transposed t over h; in-register 4 x 4 transposes.
/// xbr[i] / xbc[j] hold xr[i] / xc[j] already broadcast (built once per tile): every fma takes
/// its x operand straight from memory, which cuts the instructions per block by about a third.
inline void block8_fused(const double* s, index_t lds, const __m256d* xbr, const __m256d* xbc,
                         double* dout, double* tout) {
  __m256d d0 = _mm256_setzero_pd(), d1 = _mm256_setzero_pd();
  for (int g = 0; g < 2; ++g) {
    const double* c0 = s + (4 * g) * lds;
    const double* c1 = c0 + lds;
    const double* c2 = c0 + 2 * lds;
    const double* c3 = c0 + 3 * lds;
    const __m256d* xg = xbc + 4 * g;
    __m256d t = _mm256_setzero_pd();
    for (int h = 0; h < 2; ++h) {
      const __m256d r0 = _mm256_loadu_pd(c0 + 4 * h), r1 = _mm256_loadu_pd(c1 + 4 * h);
      const __m256d r2 = _mm256_loadu_pd(c2 + 4 * h), r3 = _mm256_loadu_pd(c3 + 4 * h);
      __m256d d = h == 0 ? d0 : d1;
      d = _mm256_fmadd_pd(r0, xg[0], d);
      d = _mm256_fmadd_pd(r1, xg[1], d);
      d = _mm256_fmadd_pd(r2, xg[2], d);
      d = _mm256_fmadd_pd(r3, xg[3], d);
      if (h == 0)
        d0 = d;
      else
        d1 = d;
      const __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
      const __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
      const __m256d* xi = xbr + 4 * h;
      t = _mm256_fmadd_pd(_mm256_permute2f128_pd(t0, t2, 0x20), xi[0], t);
      t = _mm256_fmadd_pd(_mm256_permute2f128_pd(t1, t3, 0x20), xi[1], t);
      t = _mm256_fmadd_pd(_mm256_permute2f128_pd(t0, t2, 0x31), xi[2], t);
      t = _mm256_fmadd_pd(_mm256_permute2f128_pd(t1, t3, 0x31), xi[3], t);
    }
    _mm256_store_pd(tout + 4 * g, t);
  }
  _mm256_store_pd(dout, d0);
  _mm256_store_pd(dout + 4, d1);
}

/// xb[i] = broadcast of x[i], i < 64.
inline void broadcast64(const double* x, __m256d* xb) {
  for (int i = 0; i < kTile; ++i)
    xb[i] = _mm256_broadcast_sd(x + i);
}

/// p[i] = fixed tree of c[0..7][i] for i < 64 (c 32-byte aligned, rows of 64).
inline void tree_rows64(const double (*c)[kTile], double* p) {
  for (int i = 0; i < kTile; i += 4) {
    __m256d v[kChunk];
    for (int k = 0; k < kChunk; ++k)
      v[k] = _mm256_load_pd(&c[k][i]);
    _mm256_storeu_pd(p + i, tree4(v));
  }
}

/// Both canonical partials of one stored 64 x 64 double tile S (below the diagonal, element
/// (i, j) at S[i + lds * j]), with the tile read once:
///   pd[i] = partial of row i (row panel of S) against xc (the x of the tile's columns),
///   pt[j] = partial of row j (row panel of the tile's columns) against xr, the row elements
///           being S(i, j) over i (real: no conjugation).
/// The chains of both are complete inside one 8 x 8 block (row chunk rc, column chunk cc):
/// direct chain (row i, chunk cc) runs over the block's 8 columns, transposed chain
/// (column j, chunk rc) over its 8 rows.
inline void tile_fused_d64(const double* S, index_t lds, const double* xr, const double* xc,
                           double* pd, double* pt) {
  alignas(32) double cd[kChunk][kTile];  // cd[cc][i]: direct chunk sums
  alignas(32) double ct[kChunk][kTile];  // ct[rc][j]: transposed chunk sums
  __m256d xbr[kTile], xbc[kTile];
  broadcast64(xr, xbr);
  broadcast64(xc, xbc);
  // Column chunk outer: each of the 8 columns of a chunk is walked as one contiguous run.
  for (int cc = 0; cc < kChunk; ++cc) {
    const int j0 = cc * kChunk;
    const double* c0 = S + lds * j0;
    for (int i0 = 0; i0 < kTile; i0 += kChunk) {
      // The caller walks tile columns downwards: fetch the same lines of the next tile.
      const double* b = c0 + i0;
      for (int q = 0; q < kChunk; ++q)
        _mm_prefetch(reinterpret_cast<const char*>(b + lds * q + kTile), _MM_HINT_T0);
      block8_fused(b, lds, xbr + i0, xbc + j0, &cd[cc][i0], &ct[i0 / kChunk][j0]);
    }
  }
  tree_rows64(cd, pd);
  tree_rows64(ct, pt);
}

/// Most tiles of one strip: tile_fused_d64 for k <= kStrip stored 64 x 64 tiles stacked in one tile
/// column (S = the top tile, rows xr.. of the strip, columns xc..), with the column chunk loop
/// outside the tile loop: each of the 8 columns of a chunk is walked as one contiguous run of
/// 512 k bytes, a few long streams for the hardware prefetcher instead of 64 short ones.
/// Tile t writes pd + t pd_stride (direct) and pt + 64 t (transposed); same bits as
/// tile_fused_d64 (the same blocks, the same chains).
/// 8 tiles: 80 KB of stack (chunk sums and broadcast x). 4 .. 16 all beat single tiles at
/// n = 1024 / 2048 on 2 threads; 8 was the steadiest (bench/NOTES.md).
constexpr int kStrip = 8;
inline void strip_fused_d64(int k, const double* S, index_t lds, const double* xr, const double* xc,
                            double* pd, index_t pd_stride, double* pt) {
  alignas(32) double cd[kStrip][kChunk][kTile];
  alignas(32) double ct[kStrip][kChunk][kTile];
  __m256d xbr[kStrip * kTile], xbc[kTile];
  broadcast64(xc, xbc);
  for (int t = 0; t < k; ++t)
    broadcast64(xr + kTile * t, xbr + kTile * t);
  const int rows = k * kTile;
  for (int cc = 0; cc < kChunk; ++cc) {
    const int j0 = cc * kChunk;
    const double* c0 = S + lds * j0;
    for (int i0 = 0; i0 < rows; i0 += kChunk) {
      const int t = i0 / kTile, il = i0 % kTile;
      const double* b = c0 + i0;
      for (int q = 0; q < kChunk; ++q)
        _mm_prefetch(reinterpret_cast<const char*>(b + lds * q + kTile), _MM_HINT_T0);
      block8_fused(b, lds, xbr + i0, xbc + j0, &cd[t][cc][il], &ct[t][il / kChunk][j0]);
    }
  }
  for (int t = 0; t < k; ++t) {
    tree_rows64(cd[t], pd + t * pd_stride);
    tree_rows64(ct[t], pt + t * kTile);
  }
}

/// tile_partials(64, 64, .) of a full diagonal tile D (lower triangle stored at D[i + ldd * j],
/// rows of the tile against x; real, diagonal taken as is) without expanding it: the stored
/// 8 x 8 blocks below the diagonal give the chunk sums of both their rows and their columns,
/// the 8 diagonal blocks are mirrored into a small buffer.
inline void tile_diag_d64(const double* D, index_t ldd, const double* x, double* p) {
  alignas(32) double c[kChunk][kTile];  // c[k][i]: chunk k of row i
  alignas(32) double b[kChunk * kChunk];
  __m256d xb[kTile];
  broadcast64(x, xb);
  for (int cc = 0; cc < kChunk; ++cc) {
    const int j0 = cc * kChunk;
    const double* c0 = D + ldd * j0;
    for (int i = 0; i < kChunk; ++i)
      for (int j = 0; j < kChunk; ++j)
        b[i + kChunk * j] = i >= j ? c0[j0 + i + ldd * j] : c0[j0 + j + ldd * i];
    for (int h = 0; h < kChunk; h += 4) {
      __m256d a = _mm256_setzero_pd();
      for (int j = 0; j < kChunk; ++j)
        a = _mm256_fmadd_pd(_mm256_load_pd(b + h + kChunk * j), _mm256_broadcast_sd(x + j0 + j), a);
      _mm256_store_pd(&c[cc][j0 + h], a);
    }
    for (int i0 = j0 + kChunk; i0 < kTile; i0 += kChunk)
      block8_fused(c0 + i0, ldd, xb + i0, xb + j0, &c[cc][i0], &c[i0 / kChunk][j0]);
  }
  tree_rows64(c, p);
}

/// Float: tile_fused_d64 with 8 x 8 blocks of one ymm per column: the direct chain of the
/// block's 8 rows is one vector over its 8 columns, the transposed chain of its 8 columns one
/// vector over its 8 rows (8 x 8 in-register transpose).
/// Float strips: 4 tiles (48 KB of stack); 8 and 16 were slower at n = 1024 (the chunk sums
/// no longer stay in L1).
constexpr int kStripF = 4;
/// k <= kStripF tiles stacked in one tile column (a strip, as strip_fused_d64: tile t writes
/// pd + t pd_stride and pt + 64 t); k = 1 is one tile.
inline void strip_fused_f64(int k, const float* S, index_t lds, const float* xr, const float* xc,
                            float* pd, index_t pd_stride, float* pt) {
  alignas(32) float cd[kStripF][kChunk][kTile];
  alignas(32) float ct[kStripF][kChunk][kTile];
  __m256 xbr[kStripF * kTile], xbc[kTile];  // broadcast x: the fmas take them from memory
  for (int i = 0; i < kTile; ++i)
    xbc[i] = _mm256_broadcast_ss(xc + i);
  const int rows = k * kTile;
  for (int i = 0; i < rows; ++i)
    xbr[i] = _mm256_broadcast_ss(xr + i);
  for (int cc = 0; cc < kChunk; ++cc) {
    const int j0 = cc * kChunk;
    const float* c0 = S + lds * j0;
    for (int i0 = 0; i0 < rows; i0 += kChunk) {
      const int tt = i0 / kTile, il = i0 % kTile;
      for (int q = 0; q < kChunk; q += 2)
        _mm_prefetch(reinterpret_cast<const char*>(c0 + i0 + kTile + lds * q), _MM_HINT_T0);
      __m256 r[kChunk];
      __m256 d = _mm256_setzero_ps();
      for (int q = 0; q < kChunk; ++q) {
        r[q] = _mm256_loadu_ps(c0 + i0 + lds * q);
        d = _mm256_fmadd_ps(r[q], xbc[j0 + q], d);
      }
      _mm256_store_ps(&cd[tt][cc][il], d);
      // r[q] = column q (rows 0..7) -> rows of the block: u[i] = (s(i, 0), ..., s(i, 7)).
      const __m256 a0 = _mm256_unpacklo_ps(r[0], r[1]), a1 = _mm256_unpackhi_ps(r[0], r[1]);
      const __m256 a2 = _mm256_unpacklo_ps(r[2], r[3]), a3 = _mm256_unpackhi_ps(r[2], r[3]);
      const __m256 a4 = _mm256_unpacklo_ps(r[4], r[5]), a5 = _mm256_unpackhi_ps(r[4], r[5]);
      const __m256 a6 = _mm256_unpacklo_ps(r[6], r[7]), a7 = _mm256_unpackhi_ps(r[6], r[7]);
      const __m256 b0 = _mm256_shuffle_ps(a0, a2, 0x44), b1 = _mm256_shuffle_ps(a0, a2, 0xEE);
      const __m256 b2 = _mm256_shuffle_ps(a1, a3, 0x44), b3 = _mm256_shuffle_ps(a1, a3, 0xEE);
      const __m256 b4 = _mm256_shuffle_ps(a4, a6, 0x44), b5 = _mm256_shuffle_ps(a4, a6, 0xEE);
      const __m256 b6 = _mm256_shuffle_ps(a5, a7, 0x44), b7 = _mm256_shuffle_ps(a5, a7, 0xEE);
      __m256 u[kChunk];
      u[0] = _mm256_permute2f128_ps(b0, b4, 0x20);
      u[1] = _mm256_permute2f128_ps(b1, b5, 0x20);
      u[2] = _mm256_permute2f128_ps(b2, b6, 0x20);
      u[3] = _mm256_permute2f128_ps(b3, b7, 0x20);
      u[4] = _mm256_permute2f128_ps(b0, b4, 0x31);
      u[5] = _mm256_permute2f128_ps(b1, b5, 0x31);
      u[6] = _mm256_permute2f128_ps(b2, b6, 0x31);
      u[7] = _mm256_permute2f128_ps(b3, b7, 0x31);
      __m256 t = _mm256_setzero_ps();
      for (int q = 0; q < kChunk; ++q)
        t = _mm256_fmadd_ps(u[q], xbr[i0 + q], t);
      _mm256_store_ps(&ct[tt][il / kChunk][j0], t);
    }
  }
  const auto tree = [](const __m256* c) {
    return _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(c[0], c[1]), _mm256_add_ps(c[2], c[3])),
                         _mm256_add_ps(_mm256_add_ps(c[4], c[5]), _mm256_add_ps(c[6], c[7])));
  };
  for (int tt = 0; tt < k; ++tt)
    for (int i = 0; i < kTile; i += 8) {
      __m256 v[kChunk], w[kChunk];
      for (int q = 0; q < kChunk; ++q) {
        v[q] = _mm256_load_ps(&cd[tt][q][i]);
        w[q] = _mm256_load_ps(&ct[tt][q][i]);
      }
      _mm256_storeu_ps(pd + tt * pd_stride + i, tree(v));
      _mm256_storeu_ps(pt + tt * kTile + i, tree(w));
    }
}

inline void tile_fused_f64(const float* S, index_t lds, const float* xr, const float* xc, float* pd,
                           float* pt) {
  strip_fused_f64(1, S, lds, xr, xc, pd, 0, pt);
}

/// tile_partials for float (any rows, cols <= 64): tile_direct_d with 8 rows per register
/// (groups of 64 / 8 / 1 rows).
inline void tile_direct_s(int rows, int cols, const float* B, index_t ldb, const float* x,
                          float* p) {
  alignas(32) float c[kChunk][kTile];
  const int rv = rows & ~7;
  for (int k = 0; k < kChunk; ++k) {
    const int jb = k * kChunk, je = std::min(cols, jb + kChunk);
    if (jb >= je) {
      for (int i = 0; i < rows; ++i)
        c[k][i] = 0.0f;
      continue;
    }
    int h = 0;
    for (; h + 64 <= rv; h += 64) {
      __m256 a[8];
      for (int q = 0; q < 8; ++q)
        a[q] = _mm256_setzero_ps();
      for (int j = jb; j < je; ++j) {
        const __m256 xv = _mm256_broadcast_ss(x + j);
        const float* b = B + ldb * j + h;
        for (int q = 0; q < 8; ++q)
          a[q] = _mm256_fmadd_ps(_mm256_loadu_ps(b + 8 * q), xv, a[q]);
      }
      for (int q = 0; q < 8; ++q)
        _mm256_store_ps(&c[k][h + 8 * q], a[q]);
    }
    for (; h < rv; h += 8) {
      __m256 a = _mm256_setzero_ps();
      for (int j = jb; j < je; ++j)
        a = _mm256_fmadd_ps(_mm256_loadu_ps(B + ldb * j + h), _mm256_broadcast_ss(x + j), a);
      _mm256_store_ps(&c[k][h], a);
    }
    for (; h < rows; ++h) {
      float a = 0.0f;
      for (int j = jb; j < je; ++j)
        a = madd(B[h + ldb * j], x[j], a);
      c[k][h] = a;
    }
  }
  int i = 0;
  for (; i < rv; i += 8) {
    __m256 v[kChunk];
    for (int k = 0; k < kChunk; ++k)
      v[k] = _mm256_load_ps(&c[k][i]);
    _mm256_storeu_ps(
        p + i, _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(v[0], v[1]), _mm256_add_ps(v[2], v[3])),
                             _mm256_add_ps(_mm256_add_ps(v[4], v[5]), _mm256_add_ps(v[6], v[7]))));
  }
  for (; i < rows; ++i)
    p[i] =
        ((c[0][i] + c[1][i]) + (c[2][i] + c[3][i])) + ((c[4][i] + c[5][i]) + (c[6][i] + c[7][i]));
}

/// tile_partials for Complex<double> (any rows, cols <= 64): two rows per register
/// (re, im, re, im). The fixed complex madd of core/complex.hpp,
///   re = fma(a.re, b.re, c.re); re = fma(-a.im, b.im, re);
///   im = fma(a.re, b.im, c.im); im = fma(a.im, b.re, im),
/// is two vector fmas: fma(dup(a.re), (b.re, b.im), c), then fma(dup(a.im), (-b.im, b.re), c)
/// ((-a.im) b.im and a.im (-b.im) are the same product exactly).
inline void tile_direct_z(int rows, int cols, const Complex<double>* B, index_t ldb,
                          const Complex<double>* x, Complex<double>* p) {
  static_assert(sizeof(Complex<double>) == 2 * sizeof(double), "Complex<double> layout");
  alignas(32) double c[kChunk][2 * kTile];
  const double* b = reinterpret_cast<const double*>(B);
  const int rv = rows & ~1;
  for (int k = 0; k < kChunk; ++k) {
    const int jb = k * kChunk, je = std::min(cols, jb + kChunk);
    if (jb >= je) {
      for (int i = 0; i < 2 * rows; ++i)
        c[k][i] = 0.0;
      continue;
    }
    __m256d xa[kChunk], xb[kChunk];
    for (int j = jb; j < je; ++j) {
      const double xr = x[j].re, xi = x[j].im;
      xa[j - jb] = _mm256_setr_pd(xr, xi, xr, xi);
      xb[j - jb] = _mm256_setr_pd(-xi, xr, -xi, xr);
    }
    int h = 0;
    for (; h + 8 <= rv; h += 8) {
      __m256d a[4];
      for (int q = 0; q < 4; ++q)
        a[q] = _mm256_setzero_pd();
      for (int j = jb; j < je; ++j) {
        const double* col = b + 2 * (h + ldb * j);
        for (int q = 0; q < 4; ++q) {
          const __m256d v = _mm256_loadu_pd(col + 4 * q);
          a[q] = _mm256_fmadd_pd(_mm256_movedup_pd(v), xa[j - jb], a[q]);
          a[q] = _mm256_fmadd_pd(_mm256_permute_pd(v, 0xF), xb[j - jb], a[q]);
        }
      }
      for (int q = 0; q < 4; ++q)
        _mm256_store_pd(&c[k][2 * h + 4 * q], a[q]);
    }
    for (; h < rv; h += 2) {
      __m256d a = _mm256_setzero_pd();
      for (int j = jb; j < je; ++j) {
        const __m256d v = _mm256_loadu_pd(b + 2 * (h + ldb * j));
        a = _mm256_fmadd_pd(_mm256_movedup_pd(v), xa[j - jb], a);
        a = _mm256_fmadd_pd(_mm256_permute_pd(v, 0xF), xb[j - jb], a);
      }
      _mm256_store_pd(&c[k][2 * h], a);
    }
    for (; h < rows; ++h) {
      Complex<double> a(0.0, 0.0);
      for (int j = jb; j < je; ++j)
        a = madd(B[h + ldb * j], x[j], a);
      c[k][2 * h] = a.re;
      c[k][2 * h + 1] = a.im;
    }
  }
  double* out = reinterpret_cast<double*>(p);
  int i = 0;
  for (; i + 4 <= 2 * rows; i += 4) {
    __m256d v[kChunk];
    for (int k = 0; k < kChunk; ++k)
      v[k] = _mm256_load_pd(&c[k][i]);
    _mm256_storeu_pd(out + i, tree4(v));
  }
  for (; i < 2 * rows; ++i)
    out[i] =
        ((c[0][i] + c[1][i]) + (c[2][i] + c[3][i])) + ((c[4][i] + c[5][i]) + (c[6][i] + c[7][i]));
}
}  // namespace symv_detail
}  // namespace eigsolve
#endif  // EIGSOLVE_SYMV_AVX2
