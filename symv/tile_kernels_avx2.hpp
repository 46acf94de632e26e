// Internal AVX2 kernels of symv/ (included by symv/tile_kernels.hpp, which defines
// EIGSOLVE_SYMV_AVX2 when the target has AVX2 + FMA), each written once over the SIMD traits
// of symv/simd_avx2.hpp:
//   tile_direct   tile_partials for float, double, Complex<float>, Complex<double> (rows
//                 vectorized);
//   strip_fused   full 64 x 64 tiles below the diagonal read once for both partials (float,
//                 double), a strip of tiles of one tile column at a time;
//   tile_diag64   the full diagonal tile without expanding it (float, double; complex:
//                 tile_diag64_c);
//   tile_fused_c  a complex tile below the diagonal read once for both partials
//                 (symv/tile_kernels_avx2_c.hpp, with tile_diag64_c);
//   col_dots_group  a few columns' canonical dots with one vector, columns in lanes
//                   (symv/col_dots_avx2.hpp).
// AVX-512 variants: symv/tile_kernels_avx512.hpp (double), _c.hpp (complex float), _f.hpp
// (float); symv/tile_dispatch.hpp picks one at run time.
// A vector fma rounds exactly like the scalar madd and every chain keeps its element order, so
// these give the bits of the generic loops (tests/symv compares them bitwise).
#pragma once

#if defined(EIGSOLVE_SYMV_AVX2)
#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "core/canonical.hpp"
#include "core/complex.hpp"
#include "core/precision.hpp"
#include "symv/simd_avx2.hpp"

namespace eigsolve {
namespace symv_detail {

using simd::Avx2;

// ---- tile_direct: tile_partials with the rows in vector lanes -------------------------------

/// How the elements of one row chunk enter the vector chains. Real: one lane per row,
/// acc = fma(b, x_j, acc). Complex: (re, im) of a row in two lanes; the fixed complex madd of
/// core/complex.hpp,
///   re = fma(a.re, b.re, c.re); re = fma(-a.im, b.im, re);
///   im = fma(a.re, b.im, c.im); im = fma(a.im, b.re, im),
/// is two vector fmas: fma(dup(a.re), (b.re, b.im), c), then fma(dup(a.im), (-b.im, b.re), c)
/// ((-a.im) b.im and a.im (-b.im) are the same product exactly).
template <class T>
struct RowChains {
  using S = Avx2<T>;
  using V = typename S::V;
  static constexpr int kRealsPerRow = 1;
  static constexpr int kGroup = 8;  // registers per row group (8 chains in flight)
  const T* x;
  RowChains(const T* xx, int, int) : x(xx) {}
  V step(V acc, const T* b, int j) const { return S::fma(S::load(b), S::bcast(x + j), acc); }
};

template <class R>
struct RowChains<Complex<R>> {
  using S = Avx2<R>;
  using V = typename S::V;
  static constexpr int kRealsPerRow = 2;
  static constexpr int kGroup = 4;  // two fmas per element: 4 registers keep 8 in flight
  V xa[kChunk], xb[kChunk];         // (x.re, x.im) and (-x.im, x.re) per column of the chunk
  int jb;
  RowChains(const Complex<R>* x, int b, int e) : jb(b) {
    for (int j = b; j < e; ++j) {
      const Complex<R> r(-x[j].im, x[j].re);
      xa[j - b] = S::bcast(x + j);
      xb[j - b] = S::bcast(&r);
    }
  }
  V step(V acc, const R* b, int j) const {
    const V v = S::load(b);
    acc = S::fma(S::dup_re(v), xa[j - jb], acc);
    return S::fma(S::dup_im(v), xb[j - jb], acc);
  }
};

/// tile_partials(rows, cols, B, ldb, x, p) for rows, cols <= 64: chunk by chunk, rows in groups
/// of kGroup registers, then one register, then one row; every column of a chunk is read as a
/// contiguous run (a row group walking all 64 columns 8 KB apart thrashes the L1 sets when ldb
/// is a power of two); chunks past cols are +0. Full: rows = cols = 64 as constants.
template <class T, bool Full>
inline void tile_direct_impl(int rows, int cols, const T* B, index_t ldb, const T* x, T* p) {
  if constexpr (Full) {
    rows = kTile;
    cols = kTile;
  }
  using Ch = RowChains<T>;
  using R = real_t<T>;
  using S = Avx2<R>;
  using V = typename S::V;
  constexpr int E = Ch::kRealsPerRow, G = Ch::kGroup, L = S::kLanes;
  constexpr int RowsPerReg = L / E, GroupRows = G * RowsPerReg;
  alignas(32) R c[kChunk][E * kTile];  // c[k][E i ..]: chunk k of row i
  const R* b = reinterpret_cast<const R*>(B);
  const int rv = rows - rows % RowsPerReg;
  for (int k = 0; k < kChunk; ++k) {
    const int jb = k * kChunk, je = std::min(cols, jb + kChunk);
    if (jb >= je) {
      for (int i = 0; i < E * rows; ++i)
        c[k][i] = R(0);
      continue;
    }
    const Ch ch(x, jb, je);
    int h = 0;
    for (; h + GroupRows <= rv; h += GroupRows) {
      V a[G];
      for (int q = 0; q < G; ++q)
        a[q] = S::zero();
      for (int j = jb; j < je; ++j) {
        const R* col = b + E * (h + ldb * j);
        for (int q = 0; q < G; ++q)
          a[q] = ch.step(a[q], col + L * q, j);
      }
      for (int q = 0; q < G; ++q)
        S::store_aligned(&c[k][E * h + L * q], a[q]);
    }
    for (; h < rv; h += RowsPerReg) {
      V a = S::zero();
      for (int j = jb; j < je; ++j)
        a = ch.step(a, b + E * (h + ldb * j), j);
      S::store_aligned(&c[k][E * h], a);
    }
    for (; h < rows; ++h) {
      T a = T(0);
      for (int j = jb; j < je; ++j)
        a = madd(B[h + ldb * j], x[j], a);
      std::memcpy(&c[k][E * h], &a, sizeof a);
    }
  }
  R* out = reinterpret_cast<R*>(p);
  int i = 0;
  for (; i + L <= E * rows; i += L) {
    V v[kChunk];
    for (int k = 0; k < kChunk; ++k)
      v[k] = S::load_aligned(&c[k][i]);
    S::store(out + i, simd::tree8<S>(v));
  }
  for (; i < E * rows; ++i)
    out[i] =
        ((c[0][i] + c[1][i]) + (c[2][i] + c[3][i])) + ((c[4][i] + c[5][i]) + (c[6][i] + c[7][i]));
}

/// The types tile_partials sends to tile_direct (every type with an AVX2 register: the complex
/// row chains are the same for float pairs, 4 rows per register).
template <class T>
constexpr bool kDirectAvx2 =
    std::is_same<T, double>::value || std::is_same<T, float>::value ||
    std::is_same<T, Complex<double>>::value || std::is_same<T, Complex<float>>::value;

template <class T>
inline void tile_direct(int rows, int cols, const T* B, index_t ldb, const T* x, T* p) {
  static_assert(sizeof(T) == sizeof(real_t<T>) * (is_complex_v<T> ? 2 : 1), "(re, im) layout");
  if (rows == kTile && cols == kTile)
    tile_direct_impl<T, true>(rows, cols, B, ldb, x, p);
  else
    tile_direct_impl<T, false>(rows, cols, B, ldb, x, p);
}

// ---- fused tiles: both partials of a stored tile, read once ---------------------------------

/// One stored 8 x 8 double block s (element (i, j) at s[i + lds * j]) in both directions:
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

/// The same for float, with one ymm per column: the direct chain of the block's 8 rows is one
/// vector over its 8 columns, the transposed chain of its 8 columns one vector over its 8 rows
/// (8 x 8 in-register transpose).
inline void block8_fused(const float* s, index_t lds, const __m256* xbr, const __m256* xbc,
                         float* dout, float* tout) {
  __m256 r[kChunk];
  __m256 d = _mm256_setzero_ps();
  for (int q = 0; q < kChunk; ++q) {
    r[q] = _mm256_loadu_ps(s + lds * q);
    d = _mm256_fmadd_ps(r[q], xbc[q], d);
  }
  _mm256_store_ps(dout, d);
  // r[q] = column q (rows 0..7) -> rows of the block: u[i] = (s(i, 0), ..., s(i, 7)).
  __m256 u[kChunk];
  simd::transpose8_ps(r, u);
  __m256 t = _mm256_setzero_ps();
  for (int q = 0; q < kChunk; ++q)
    t = _mm256_fmadd_ps(u[q], xbr[q], t);
  _mm256_store_ps(tout, t);
}

/// xb[i] = broadcast of x[i], i < count.
template <class R>
inline void broadcast_x(int count, const R* x, typename Avx2<R>::V* xb) {
  for (int i = 0; i < count; ++i)
    xb[i] = Avx2<R>::bcast(x + i);
}

/// p[i] = fixed tree of c[0..7][i] for i < 64 (c 32-byte aligned, rows of 64).
template <class R>
inline void tree_rows64(const R (*c)[kTile], R* p) {
  using S = Avx2<R>;
  for (int i = 0; i < kTile; i += S::kLanes) {
    typename S::V v[kChunk];
    for (int k = 0; k < kChunk; ++k)
      v[k] = S::load_aligned(&c[k][i]);
    S::store(p + i, simd::tree8<S>(v));
  }
}

/// Tiles per strip. Double: 8 (80 KB of stack: chunk sums and broadcast x); 4 .. 16 all beat
/// single tiles at n = 1024 / 2048 on 2 threads, 8 was the steadiest. Float: 4 (48 KB); 8 and
/// 16 were slower at n = 1024 (the chunk sums no longer stay in L1). bench/NOTES.md.
template <class R>
constexpr int kStripTiles = std::is_same<R, double>::value ? 8 : 4;
/// Columns between two prefetches of the next tile's lines (a hint: no value depends on it).
template <class R>
constexpr int kPrefetchStep = std::is_same<R, double>::value ? 1 : 2;

/// Both canonical partials of k <= MaxK stored 64 x 64 tiles stacked in one tile column below
/// the diagonal (S = the top tile, element (i, j) at S[i + lds * j]; rows xr.. of the strip,
/// columns xc..), each tile read once. Tile t writes
///   pd + t pd_stride: partial of its rows (row panel) against xc (the x of the columns),
///   pt + 64 t:        partial of the rows of the tile column's panel against xr, the row
///                     elements being S(i, j) over i (real: no conjugation).
/// The chains of both are complete inside one 8 x 8 block (row chunk rc, column chunk cc):
/// direct chain (row i, chunk cc) runs over the block's 8 columns, transposed chain (column j,
/// chunk rc) over its 8 rows. The column chunk loop is outside the tile loop: each of the 8
/// columns of a chunk is walked as one contiguous run of 64 k elements, a few long streams for
/// the hardware prefetcher instead of 64 short ones.
template <class R, int MaxK>
inline void strip_fused(int k, const R* S, index_t lds, const R* xr, const R* xc, R* pd,
                        index_t pd_stride, R* pt) {
  using V = typename Avx2<R>::V;
  alignas(32) R cd[MaxK][kChunk][kTile];  // cd[t][cc][i]: direct chunk sums
  alignas(32) R ct[MaxK][kChunk][kTile];  // ct[t][rc][j]: transposed chunk sums
  V xbr[MaxK * kTile], xbc[kTile];        // broadcast x: the fmas take them from memory
  const int rows = k * kTile;
  broadcast_x(kTile, xc, xbc);
  broadcast_x(rows, xr, xbr);
  for (int cc = 0; cc < kChunk; ++cc) {
    const int j0 = cc * kChunk;
    const R* c0 = S + lds * j0;
    for (int i0 = 0; i0 < rows; i0 += kChunk) {
      const int t = i0 / kTile, il = i0 % kTile;
      const R* b = c0 + i0;
      // The caller walks tile columns downwards: fetch the same lines of the next tile.
      for (int q = 0; q < kChunk; q += kPrefetchStep<R>)
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
template <class R>
inline void tile_diag64(const R* D, index_t ldd, const R* x, R* p) {
  using S = Avx2<R>;
  alignas(32) R c[kChunk][kTile];  // c[k][i]: chunk k of row i
  alignas(32) R b[kChunk * kChunk];
  typename S::V xb[kTile];
  broadcast_x(kTile, x, xb);
  for (int cc = 0; cc < kChunk; ++cc) {
    const int j0 = cc * kChunk;
    const R* c0 = D + ldd * j0;
    for (int i = 0; i < kChunk; ++i)
      for (int j = 0; j < kChunk; ++j)
        b[i + kChunk * j] = i >= j ? c0[j0 + i + ldd * j] : c0[j0 + j + ldd * i];
    for (int h = 0; h < kChunk; h += S::kLanes) {
      typename S::V a = S::zero();
      for (int j = 0; j < kChunk; ++j)
        a = S::fma(S::load_aligned(b + h + kChunk * j), S::bcast(x + j0 + j), a);
      S::store_aligned(&c[cc][j0 + h], a);
    }
    for (int i0 = j0 + kChunk; i0 < kTile; i0 += kChunk)
      block8_fused(c0 + i0, ldd, xb + i0, xb + j0, &c[cc][i0], &c[i0 / kChunk][j0]);
  }
  tree_rows64(c, p);
}

// The entry points symv/reference.cpp calls.
constexpr int kStrip = kStripTiles<double>;
constexpr int kStripF = kStripTiles<float>;
/// Both partials of a stored tile of rows < 64 rows and 64 columns below the diagonal (the
/// last, partial row panel): the 8-row blocks that exist are read in place, a last partial
/// block through an 8 x 8 copy padded with +0; xr has 64 entries, -0 from rows on (tile_pair
/// in symv/reference.cpp). Padded terms are fma(+0, -0, s) = s, -0 included, and the
/// transposed chunks past rows are +0, so pt and pd[0, rows) are the canonical partials.
template <class R>
inline void tile_fused_rows(int rows, const R* S, index_t lds, const R* xr, const R* xc, R* pd,
                            R* pt) {
  using V = typename Avx2<R>::V;
  alignas(32) R cd[kChunk][kTile];
  alignas(32) R ct[kChunk][kTile];
  alignas(32) R pad[kChunk * kChunk];
  V xbr[kTile], xbc[kTile];
  broadcast_x(kTile, xc, xbc);
  broadcast_x(kTile, xr, xbr);
  const int full = rows - rows % kChunk;
  for (int cc = 0; cc < kChunk; ++cc) {
    const int j0 = cc * kChunk;
    const R* c0 = S + lds * j0;
    for (int i0 = 0; i0 < full; i0 += kChunk)
      block8_fused(c0 + i0, lds, xbr + i0, xbc + j0, &cd[cc][i0], &ct[i0 / kChunk][j0]);
    int i0 = full;
    if (full < rows) {
      for (int q = 0; q < kChunk; ++q)
        for (int r = 0; r < kChunk; ++r)
          pad[r + kChunk * q] = full + r < rows ? c0[full + r + lds * q] : R(0);
      block8_fused(pad, index_t(kChunk), xbr + full, xbc + j0, &cd[cc][full],
                   &ct[full / kChunk][j0]);
      i0 += kChunk;
    }
    for (; i0 < kTile; i0 += kChunk)
      for (int r = 0; r < kChunk; ++r) {
        cd[cc][i0 + r] = R(0);
        ct[i0 / kChunk][j0 + r] = R(0);
      }
  }
  tree_rows64(cd, pd);
  tree_rows64(ct, pt);
}

/// tile_fused_lanes8 (symv/tile_kernels_avx512.hpp) on AVX2: the vectors of rows of 8 reals
/// (xr[i][8], xc[j][8], pd[i][8], pt[j][8]) in the lanes of one ymm, so 4 of them for double
/// (call it twice, the pointers offset by 4) and all 8 for float. Rows in pairs so that the live
/// values fit the 16 ymm registers: the direct chains of a pair's rows over the 8 columns, the
/// transposed chain of a column over rows 0-1, 2-3, ... in turn: per vector the fmas of
/// block8_fused in the same order.
template <class R>
inline void tile_fused_lanes_avx2(const R* S, index_t lds, const R* xr, const R* xc, R* pd, R* pt) {
  using A = Avx2<R>;
  using V = typename A::V;
  constexpr int L = A::kLanes;
  alignas(32) R cd[kChunk][kTile][L];  // cd[cc][i]: chunk cc of row i's direct chain
  alignas(32) R ct[kChunk][kTile][L];  // ct[rc][j]: chunk rc of column j's chain
  for (int cc = 0; cc < kChunk; ++cc) {
    const int j0 = cc * kChunk;
    for (int i0 = 0; i0 < kTile; i0 += kChunk) {
      const R* b = S + i0 + lds * j0;
      V t[kChunk];
      for (int c = 0; c < kChunk; ++c)
        t[c] = A::zero();
      for (int h = 0; h < kChunk; h += 2) {
        V d0 = A::zero(), d1 = A::zero();
        const V x0 = A::load(xr + 8 * (i0 + h)), x1 = A::load(xr + 8 * (i0 + h + 1));
        for (int c = 0; c < kChunk; ++c) {
          const V xcc = A::load(xc + 8 * (j0 + c));
          const V a0 = A::bcast(b + h + lds * c), a1 = A::bcast(b + h + 1 + lds * c);
          d0 = A::fma(a0, xcc, d0);
          d1 = A::fma(a1, xcc, d1);
          t[c] = A::fma(a0, x0, t[c]);
          t[c] = A::fma(a1, x1, t[c]);
        }
        A::store_aligned(cd[cc][i0 + h], d0);
        A::store_aligned(cd[cc][i0 + h + 1], d1);
      }
      for (int c = 0; c < kChunk; ++c)
        A::store_aligned(ct[i0 / kChunk][j0 + c], t[c]);
    }
  }
  for (int i = 0; i < kTile; ++i) {
    V v[kChunk], u[kChunk];
    for (int k = 0; k < kChunk; ++k) {
      v[k] = A::load_aligned(cd[k][i]);
      u[k] = A::load_aligned(ct[k][i]);
    }
    A::store(pd + 8 * i, simd::tree8<A>(v));
    A::store(pt + 8 * i, simd::tree8<A>(u));
  }
}

}  // namespace symv_detail
}  // namespace eigsolve
#include "symv/tile_kernels_avx2_c.hpp"
#include "symv/col_dots_avx2.hpp"
#include "symv/tile_kernels_avx512.hpp"
#include "symv/tile_kernels_avx512_c.hpp"
#include "symv/tile_kernels_avx512_f.hpp"
#include "symv/col_dots_avx512_f.hpp"
#include "symv/tile_dispatch.hpp"
#endif  // EIGSOLVE_SYMV_AVX2
