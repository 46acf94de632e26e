// Internal AVX2 kernels of symv/ for complex tiles (included by symv/tile_kernels_avx2.hpp):
//   block8_fused_c  one stored 8 x 8 complex block in both directions, read once;
//   tile_fused_c    a complex tile below the diagonal read once for both partials;
//   tile_diag64_c   a full complex diagonal tile without expanding it.
// The same chains as the generic loops (tests/symv compares them bitwise).
#pragma once

#if defined(EIGSOLVE_SYMV_AVX2)
#include <immintrin.h>

#include <type_traits>

#include "core/canonical.hpp"
#include "core/complex.hpp"
#include "core/precision.hpp"
#include "symv/simd_avx2.hpp"

namespace eigsolve {
namespace symv_detail {

using simd::Avx2;

// ---- complex fused tiles: both partials of a stored tile below the diagonal, read once -----

/// One stored 8 x 8 complex block s (element (i, j) at s[i + lds j]) in both directions, from
/// one load of each column (P = rows per register: 4 Complex<float>, 2 Complex<double>):
///   dout: direct chunk sums of the block's 8 rows, chain over j of madd(s(i, j), xc_j, .)
///         (rows in lanes; RowChains' two fmas with xca_j = (x.re, x.im), xcb_j = (-x.im, x.re));
///   tout: transposed chunk sums of its 8 columns, chain over i of madd_conj(s(i, j), xr_i, .)
///         (columns in lanes after P x P transposes of (re, im) units; ColChainsC's two fmas
///         with xra_i = (x.re, x.im), xrb_i = (x.im, -x.re)).
/// Both chains keep their element order: the bits of the generic loops.
template <class R>
inline void block8_fused_c(const Complex<R>* s, index_t lds, const typename Avx2<R>::V* xra,
                           const typename Avx2<R>::V* xrb, const typename Avx2<R>::V* xca,
                           const typename Avx2<R>::V* xcb, R* dout, R* tout) {
  using S = Avx2<R>;
  using V = typename S::V;
  constexpr int P = S::kLanes / 2, H = kChunk / P;
  // P x P sub-blocks, column group g outer and row group h inner: the direct chain of a row
  // (over g, then q) and the transposed chain of a column (over h, then r) both ascend, and
  // only one sub-block is live at a time (no spills of the 16-register file).
  V d[H];
  for (int h = 0; h < H; ++h)
    d[h] = S::zero();
  for (int g = 0; g < H; ++g) {  // columns P g .. P g + P - 1
    V t = S::zero();
    for (int h = 0; h < H; ++h) {  // rows P h .. P h + P - 1
      V a[P];
      for (int q = 0; q < P; ++q)
        a[q] = S::load(reinterpret_cast<const R*>(s + lds * (P * g + q) + P * h));
      for (int q = 0; q < P; ++q) {
        d[h] = S::fma(S::dup_re(a[q]), xca[P * g + q], d[h]);
        d[h] = S::fma(S::dup_im(a[q]), xcb[P * g + q], d[h]);
      }
      V u[P];
      if constexpr (std::is_same<R, float>::value) {
        const __m256d a0 = _mm256_castps_pd(a[0]), a1 = _mm256_castps_pd(a[1]);
        const __m256d a2 = _mm256_castps_pd(a[2]), a3 = _mm256_castps_pd(a[3]);
        const __m256d t0 = _mm256_unpacklo_pd(a0, a1), t1 = _mm256_unpackhi_pd(a0, a1);
        const __m256d t2 = _mm256_unpacklo_pd(a2, a3), t3 = _mm256_unpackhi_pd(a2, a3);
        u[0] = _mm256_castpd_ps(_mm256_permute2f128_pd(t0, t2, 0x20));
        u[1] = _mm256_castpd_ps(_mm256_permute2f128_pd(t1, t3, 0x20));
        u[2] = _mm256_castpd_ps(_mm256_permute2f128_pd(t0, t2, 0x31));
        u[3] = _mm256_castpd_ps(_mm256_permute2f128_pd(t1, t3, 0x31));
      } else {
        u[0] = _mm256_permute2f128_pd(a[0], a[1], 0x20);
        u[1] = _mm256_permute2f128_pd(a[0], a[1], 0x31);
      }
      for (int r = 0; r < P; ++r) {
        t = S::fma(S::dup_re(u[r]), xra[P * h + r], t);
        t = S::fma(S::dup_im(u[r]), xrb[P * h + r], t);
      }
    }
    S::store_aligned(tout + 2 * P * g, t);
  }
  for (int h = 0; h < H; ++h)
    S::store_aligned(dout + 2 * P * h, d[h]);
}

/// p[i] = fixed tree of the chunk sums c[0..7][2 i, 2 i + 1] for the 64 complex rows.
template <class R>
inline void tree_rows64_c(const R (*c)[2 * kTile], R* p) {
  using S = Avx2<R>;
  for (int i = 0; i < 2 * kTile; i += S::kLanes) {
    typename S::V v[kChunk];
    for (int k = 0; k < kChunk; ++k)
      v[k] = S::load_aligned(&c[k][i]);
    S::store(p + i, simd::tree8<S>(v));
  }
}

/// tile_partials(64, 64, .) of a full complex diagonal tile D (lower triangle stored at
/// D[i + ldd j]; row elements a_ij = D(i, j) below, real(D(i, i)) on, conj(D(j, i)) above the
/// diagonal) without expanding it: each stored 8 x 8 block below the diagonal gives, read once,
/// the direct chunk sums of its rows and (conjugated) those of its columns (block8_fused_c with
/// xr = xc = x); the 8 diagonal blocks are expanded into a small Hermitian buffer and run the
/// direct chains (RowChains' fmas). The same chains as tile_partials on the expanded tile.
template <class R>
inline void tile_diag64_c(const Complex<R>* D, index_t ldd, const Complex<R>* x, Complex<R>* p) {
  using S = Avx2<R>;
  using V = typename S::V;
  constexpr int P = S::kLanes / 2, H = kChunk / P;
  alignas(32) R c[kChunk][2 * kTile];  // c[k][2 i ..]: chunk k of row i
  alignas(32) Complex<R> b[kChunk * kChunk];
  V xa[kTile], xrb[kTile], xcb[kTile];
  for (int i = 0; i < kTile; ++i) {
    const Complex<R> rb(x[i].im, -x[i].re), cb(-x[i].im, x[i].re);
    xa[i] = S::bcast(x + i);
    xrb[i] = S::bcast(&rb);
    xcb[i] = S::bcast(&cb);
  }
  for (int cc = 0; cc < kChunk; ++cc) {
    const int j0 = cc * kChunk;
    const Complex<R>* c0 = D + ldd * j0;
    for (int i = 0; i < kChunk; ++i)
      for (int j = 0; j < kChunk; ++j)
        b[i + kChunk * j] = i > j    ? c0[j0 + i + ldd * j]
                            : i == j ? Complex<R>(c0[j0 + i + ldd * j].re, R(0))
                                     : conj(c0[j0 + j + ldd * i]);
    for (int h = 0; h < H; ++h) {
      V d = S::zero();
      for (int j = 0; j < kChunk; ++j) {
        const V v = S::load(reinterpret_cast<const R*>(b + kChunk * j + P * h));
        d = S::fma(S::dup_re(v), xa[j0 + j], d);
        d = S::fma(S::dup_im(v), xcb[j0 + j], d);
      }
      S::store_aligned(&c[cc][2 * (j0 + P * h)], d);
    }
    for (int i0 = j0 + kChunk; i0 < kTile; i0 += kChunk)
      block8_fused_c(c0 + i0, ldd, xa + i0, xrb + i0, xa + j0, xcb + j0, &c[cc][2 * i0],
                     &c[i0 / kChunk][2 * j0]);
  }
  tree_rows64_c(c, reinterpret_cast<R*>(p));
}

/// The transposed chunk of a last partial 8-row block (rows full .. rows-1 of the tile, full a
/// multiple of 8) for the 8 columns at c0, with the rows past `rows` absent: s = +0; s =
/// madd(conj(a_rj), xr_r, s) over the present rows, into ct_row[2 j], ct_row[2 j + 1]. The
/// padded copy's 0 * 0 terms would turn a -0 part into +0 (a chain from +0 holds -0 after a
/// negative product that underflows), and no choice of padding signs avoids that for the
/// four-fma complex madd (session 51); the present rows' terms and their order are the block
/// kernel's, so every other value is unchanged.
template <class R>
inline void absent_tail_ct(int rows, int full, const Complex<R>* c0, index_t lds,
                           const Complex<R>* xr, R* ct_row) {
  for (int j = 0; j < kChunk; ++j) {
    Complex<R> s(R(0));
    for (int r = full; r < rows; ++r)
      s = madd(conj(c0[r + lds * j]), xr[r], s);
    ct_row[2 * j] = s.re;
    ct_row[2 * j + 1] = s.im;
  }
}

/// Both partials of a stored complex tile below the diagonal (rows <= 64 rows, 64 columns,
/// element (i, j) at S[i + lds j]), read once: pd = direct partials of its rows against xc,
/// pt = partials of the rows of the tile column's panel (row j: conj(S(i, j)) over i) against
/// xr. xr has 64 entries, zero from rows on; a last partial 8-row block is read through a
/// zero-padded copy for the direct chains (its padded rows' results are not used) and its
/// transposed chunk is recomputed with the padded rows absent (absent_tail_ct), transposed
/// chunks past rows are +0, so pt and pd[0, rows) are the canonical partials. Column chunk outer:
/// each column of the tile is walked as one contiguous run, with a prefetch of the same lines
/// of the next tile down (a hint: no value depends on it).
template <class R>
inline void tile_fused_c(int rows, const Complex<R>* S, index_t lds, const Complex<R>* xr,
                         const Complex<R>* xc, Complex<R>* pd, Complex<R>* pt) {
  using V = typename Avx2<R>::V;
  alignas(32) R cd[kChunk][2 * kTile];  // cd[cc][2 i ..]: direct chunk cc of row i
  alignas(32) R ct[kChunk][2 * kTile];  // ct[rc][2 j ..]: transposed chunk rc of column j
  alignas(32) Complex<R> pad[kChunk * kChunk];
  V xra[kTile], xrb[kTile], xca[kTile], xcb[kTile];
  for (int i = 0; i < kTile; ++i) {
    const Complex<R> rb(xr[i].im, -xr[i].re), cb(-xc[i].im, xc[i].re);
    xra[i] = Avx2<R>::bcast(xr + i);
    xrb[i] = Avx2<R>::bcast(&rb);
    xca[i] = Avx2<R>::bcast(xc + i);
    xcb[i] = Avx2<R>::bcast(&cb);
  }
  constexpr int kLinesPerBlock = int(sizeof(Complex<R>)) * kChunk / 64;
  const int full = rows - rows % kChunk;
  for (int cc = 0; cc < kChunk; ++cc) {
    const int j0 = cc * kChunk;
    const Complex<R>* c0 = S + lds * j0;
    for (int i0 = 0; i0 < full; i0 += kChunk) {
      for (int q = 0; q < kChunk; ++q)
        for (int l = 0; l < kLinesPerBlock; ++l)
          _mm_prefetch(reinterpret_cast<const char*>(c0 + i0 + lds * q + kTile) + 64 * l,
                       _MM_HINT_T0);
      block8_fused_c(c0 + i0, lds, xra + i0, xrb + i0, xca + j0, xcb + j0, &cd[cc][2 * i0],
                     &ct[i0 / kChunk][2 * j0]);
    }
    int i0 = full;
    if (full < rows) {
      for (int q = 0; q < kChunk; ++q)
        for (int r = 0; r < kChunk; ++r)
          pad[r + kChunk * q] = full + r < rows ? c0[full + r + lds * q] : Complex<R>(R(0));
      block8_fused_c(pad, index_t(kChunk), xra + full, xrb + full, xca + j0, xcb + j0,
                     &cd[cc][2 * full], &ct[full / kChunk][2 * j0]);
      absent_tail_ct(rows, full, c0, lds, xr, &ct[full / kChunk][2 * j0]);
      i0 += kChunk;
    }
    for (; i0 < kTile; i0 += kChunk)
      for (int r = 0; r < 2 * kChunk; ++r) {
        cd[cc][2 * i0 + r] = R(0);
        ct[i0 / kChunk][2 * j0 + r] = R(0);
      }
  }
  tree_rows64_c(cd, reinterpret_cast<R*>(pd));
  tree_rows64_c(ct, reinterpret_cast<R*>(pt));
}

}  // namespace symv_detail
}  // namespace eigsolve
#endif  // EIGSOLVE_SYMV_AVX2
