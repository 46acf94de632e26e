// Internal AVX-512 variants of the complex-float HEMV tile kernels of symv/tile_kernels_avx2.hpp
// (block8_fused_c, tile_fused_c, tile_diag64_c), compiled for the avx512f target per function
// and chosen at run time (has_avx512f(); EIGSOLVE_NO_AVX512=1 keeps the AVX2 kernels).
//
//   one zmm = one column of an 8 x 8 block of Complex<float> (8 rows of (re, im) pairs):
//
//     r[q] = (s(0,q).re, s(0,q).im, ..., s(7,q).re, s(7,q).im)      column q, q = 0..7
//     direct     d = fma(dup_re(r[q]), (xc.re, xc.im), d); d = fma(dup_im(r[q]), (-xc.im, xc.re),
//     d)
//                q ascending: lane pair i is the chain of row i (RowChains' fmas)
//     transposed u[i] = row i (8 x 8 transpose of 64-bit units, as block8_fused_512)
//                t = fma(dup_re(u[i]), (xr.re, xr.im), t); t = fma(dup_im(u[i]), (xr.im, -xr.re),
//                t) i ascending: lane pair j is the conjugated chain of column j (ColChainsC's
//                fmas)
//
// The same chains, element order, trees and partials as the AVX2 kernels (a vector fma rounds
// like the scalar one lane by lane), with one load per block column instead of two and half the
// shuffles per element. Full tiles below the diagonal of one tile column go in strips of up to
// kStripC tiles (each column one contiguous run), as for double.
#pragma once

#if defined(EIGSOLVE_SYMV_AVX512)
#include <immintrin.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace eigsolve {
namespace symv_detail {

/// Whether the strips use the permute form of the conjugated chains' row extraction (16
/// two-source permutes instead of 8 shuffles + 16 duplications per block: fewer shuffle-port
/// uops, meant for Intel's single 512-bit shuffle port). Off by default: measured no better on
/// the Intel Xeon reference host (chemv 2048 equal, 4096 ~20 % slower) and ~2 % slower on AMD
/// Zen 5 (bench/NOTES.md, session 5). Both forms give the same bits; EIGSOLVE_HEMV_PERMUTE=1
/// selects the permute one (to measure).
inline bool hemv_c_permute() {
  static const bool yes = [] {
    const char* e = std::getenv("EIGSOLVE_HEMV_PERMUTE");
    return e && e[0] == '1';
  }();
  return yes;
}

/// Tiles per complex-float strip (a tile column of 64 rows is 512 bytes, twice a double one:
/// 4 tiles are the 2 KB runs of the double strip of 8).
constexpr int kStripC = 4;

__attribute__((target("avx512f"))) inline __m512 dup_re512(__m512 v) {
  return _mm512_mask_moveldup_ps(v, __mmask16(0xFFFF), v);
}
__attribute__((target("avx512f"))) inline __m512 dup_im512(__m512 v) {
  return _mm512_mask_movehdup_ps(v, __mmask16(0xFFFF), v);
}
/// (p->re, p->im) in every pair of lanes.
__attribute__((target("avx512f"))) inline __m512 bcast_c512(const Complex<float>* p) {
  double d;
  std::memcpy(&d, p, sizeof d);
  return _mm512_castpd_ps(_mm512_set1_pd(d));
}

/// The rotated x operands: rows (conjugated chains) (x.im, -x.re), columns (direct chains)
/// (-x.im, x.re); exact negations.
inline void rot_rows(int count, const Complex<float>* x, Complex<float>* out) {
  for (int i = 0; i < count; ++i)
    out[i] = Complex<float>(x[i].im, -x[i].re);
}
inline void rot_cols(int count, const Complex<float>* x, Complex<float>* out) {
  for (int i = 0; i < count; ++i)
    out[i] = Complex<float>(-x[i].im, x[i].re);
}

/// block8_fused_c<float> on one zmm per column: dout (16 floats) = direct chunk sums of the
/// block's 8 rows against xc / xcb, tout (16 floats) = conjugated transposed chunk sums of its
/// 8 columns against xr / xrb (see the sketch above).
template <bool Permute = true>
__attribute__((target("avx512f"))) inline void block8_fused_c512(
    const Complex<float>* s, index_t lds, const Complex<float>* xr, const Complex<float>* xrb,
    const Complex<float>* xc, const Complex<float>* xcb, float* dout, float* tout) {
  __m512d r[kChunk];
  __m512 d = _mm512_setzero_ps();
  for (int q = 0; q < kChunk; ++q) {
    const __m512 a = _mm512_loadu_ps(reinterpret_cast<const float*>(s + lds * q));
    r[q] = _mm512_castps_pd(a);
    d = _mm512_fmadd_ps(dup_re512(a), bcast_c512(xc + q), d);
    d = _mm512_fmadd_ps(dup_im512(a), bcast_c512(xcb + q), d);
  }
  _mm512_storeu_ps(dout, d);
  if constexpr (!Permute) {
    // The plain form: the full transpose, then dup_re / dup_im of each row (8 + 16 shuffles).
    __m512d u[kChunk];
    transpose8x8_512(r, u);
    __m512 t = _mm512_setzero_ps();
    for (int i = 0; i < kChunk; ++i) {
      const __m512 a = _mm512_castpd_ps(u[i]);
      t = _mm512_fmadd_ps(dup_re512(a), bcast_c512(xr + i), t);
      t = _mm512_fmadd_ps(dup_im512(a), bcast_c512(xrb + i), t);
    }
    _mm512_storeu_ps(tout, t);
    return;
  }
  // Rows i with their real / imaginary parts duplicated, straight from the first two transpose
  // stages: the last stage (shuffle_f64x2 0x88 / 0xDD of an (e, o) pair) and dup_re / dup_im
  // in one two-source permute each (16 instead of 8 + 16 shuffles). Row i = 2k + p comes from
  // (p ? o : e)[2 (k / 2)], [2 (k / 2) + 1] with 0x88 for even k, 0xDD for odd k.
  __m512d e[4], o[4];
  transpose8x8_512_eo(r, e, o);
  // 0x88 picks 128-bit lanes 0, 2 of each source (floats 0-3, 8-11 | 16-19, 24-27), 0xDD
  // lanes 1, 3 (4-7, 12-15 | 20-23, 28-31); then even (re) or odd (im) floats duplicated.
  const __m512i re88 = _mm512_setr_epi32(0, 0, 2, 2, 8, 8, 10, 10, 16, 16, 18, 18, 24, 24, 26, 26);
  const __m512i im88 = _mm512_setr_epi32(1, 1, 3, 3, 9, 9, 11, 11, 17, 17, 19, 19, 25, 25, 27, 27);
  const __m512i reDD =
      _mm512_setr_epi32(4, 4, 6, 6, 12, 12, 14, 14, 20, 20, 22, 22, 28, 28, 30, 30);
  const __m512i imDD =
      _mm512_setr_epi32(5, 5, 7, 7, 13, 13, 15, 15, 21, 21, 23, 23, 29, 29, 31, 31);
  __m512 t = _mm512_setzero_ps();
  for (int i = 0; i < kChunk; ++i) {
    const int k = i >> 1;
    const __m512d* src = (i & 1) ? o : e;
    const __m512 a = _mm512_castpd_ps(src[2 * (k >> 1)]);
    const __m512 b = _mm512_castpd_ps(src[2 * (k >> 1) + 1]);
    const bool lo = (k & 1) == 0;
    const __m512 ure = _mm512_permutex2var_ps(a, lo ? re88 : reDD, b);
    const __m512 uim = _mm512_permutex2var_ps(a, lo ? im88 : imDD, b);
    t = _mm512_fmadd_ps(ure, bcast_c512(xr + i), t);
    t = _mm512_fmadd_ps(uim, bcast_c512(xrb + i), t);
  }
  _mm512_storeu_ps(tout, t);
}

/// Both partials of k <= MaxK full 64 x 64 complex-float tiles stacked in one tile column below
/// the diagonal (S = top tile; rows xr.., columns xc..): tile t writes pd + t pd_stride (its
/// rows against xc) and pt + 64 t (the rows of the tile column's panel against xr, conjugated).
/// Column chunk outer: each column is one contiguous run of 64 k elements.
template <int MaxK, bool Permute>
__attribute__((target("avx512f"))) inline void strip_fused_c512(
    int k, const Complex<float>* S, index_t lds, const Complex<float>* xr, const Complex<float>* xc,
    Complex<float>* pd, index_t pd_stride, Complex<float>* pt) {
  alignas(64) float cd[MaxK][kChunk][2 * kTile];  // cd[t][cc][2 i ..]: direct chunk sums
  alignas(64) float ct[MaxK][kChunk][2 * kTile];  // ct[t][rc][2 j ..]: transposed chunk sums
  Complex<float> xrb[MaxK * kTile], xcb[kTile];
  const int rows = k * kTile;
  rot_rows(rows, xr, xrb);
  rot_cols(kTile, xc, xcb);
  for (int cc = 0; cc < kChunk; ++cc) {
    const int j0 = cc * kChunk;
    const Complex<float>* c0 = S + lds * j0;
    for (int i0 = 0; i0 < rows; i0 += kChunk) {
      const int t = i0 / kTile, il = i0 % kTile;
      const Complex<float>* b = c0 + i0;
      // One 64-byte line per block column: fetch the same lines of the next tile down.
      for (int q = 0; q < kChunk; ++q)
        _mm_prefetch(reinterpret_cast<const char*>(b + lds * q + kTile), _MM_HINT_T0);
      block8_fused_c512<Permute>(b, lds, xr + i0, xrb + i0, xc + j0, xcb + j0, &cd[t][cc][2 * il],
                                 &ct[t][il / kChunk][2 * j0]);
    }
  }
  for (int t = 0; t < k; ++t) {
    tree_rows64_c(cd[t], reinterpret_cast<float*>(pd + t * pd_stride));
    tree_rows64_c(ct[t], reinterpret_cast<float*>(pt + t * kTile));
  }
}

/// tile_fused_c<float> (rows <= 64 rows, 64 columns, xr zero from rows on) with
/// block8_fused_c512: a last partial 8-row block through a zero-padded copy, its transposed
/// chunk recomputed with the padded rows absent (absent_tail_ct), missing blocks +0.
__attribute__((target("avx512f"))) inline void tile_fused_c512(
    int rows, const Complex<float>* S, index_t lds, const Complex<float>* xr,
    const Complex<float>* xc, Complex<float>* pd, Complex<float>* pt) {
  alignas(64) float cd[kChunk][2 * kTile];
  alignas(64) float ct[kChunk][2 * kTile];
  alignas(64) Complex<float> pad[kChunk * kChunk];
  Complex<float> xrb[kTile], xcb[kTile];
  rot_rows(kTile, xr, xrb);
  rot_cols(kTile, xc, xcb);
  const int full = rows - rows % kChunk;
  for (int cc = 0; cc < kChunk; ++cc) {
    const int j0 = cc * kChunk;
    const Complex<float>* c0 = S + lds * j0;
    for (int i0 = 0; i0 < full; i0 += kChunk)
      block8_fused_c512(c0 + i0, lds, xr + i0, xrb + i0, xc + j0, xcb + j0, &cd[cc][2 * i0],
                        &ct[i0 / kChunk][2 * j0]);
    int i0 = full;
    if (full < rows) {
      for (int q = 0; q < kChunk; ++q)
        for (int r = 0; r < kChunk; ++r)
          pad[r + kChunk * q] = full + r < rows ? c0[full + r + lds * q] : Complex<float>(0.f);
      block8_fused_c512(pad, index_t(kChunk), xr + full, xrb + full, xc + j0, xcb + j0,
                        &cd[cc][2 * full], &ct[full / kChunk][2 * j0]);
      absent_tail_ct(rows, full, c0, lds, xr, &ct[full / kChunk][2 * j0]);
      i0 += kChunk;
    }
    for (; i0 < kTile; i0 += kChunk)
      for (int r = 0; r < 2 * kChunk; ++r) {
        cd[cc][2 * i0 + r] = 0.f;
        ct[i0 / kChunk][2 * j0 + r] = 0.f;
      }
  }
  tree_rows64_c(cd, reinterpret_cast<float*>(pd));
  tree_rows64_c(ct, reinterpret_cast<float*>(pt));
}

/// tile_diag64_c<float> with block8_fused_c512 for the stored blocks below the diagonal and one
/// zmm per column of the expanded 8 x 8 diagonal blocks.
__attribute__((target("avx512f"))) inline void tile_diag64_c512(const Complex<float>* D,
                                                                index_t ldd,
                                                                const Complex<float>* x,
                                                                Complex<float>* p) {
  alignas(64) float c[kChunk][2 * kTile];  // c[k][2 i ..]: chunk k of row i
  Complex<float> xrb[kTile], xcb[kTile];
  rot_rows(kTile, x, xrb);
  rot_cols(kTile, x, xcb);
  // conj: the sign bit of every imaginary lane flipped (exact, as the scalar negation).
  const __m512i im_sign = _mm512_set1_epi64(std::int64_t(0x8000000000000000ull));
  for (int cc = 0; cc < kChunk; ++cc) {
    const int j0 = cc * kChunk;
    const Complex<float>* c0 = D + ldd * j0;
    // The diagonal 8 x 8 block expanded in registers: column j takes rows i > j from the
    // stored column (r[j]), rows i < j conjugated from the stored row j (u[j], the transpose
    // of 64-bit units), and (re, +0) on the diagonal. Masked loads: the strict upper triangle
    // is not read (its lanes are 0 and never selected).
    __m512d r[kChunk], u[kChunk];
    for (int q = 0; q < kChunk; ++q)
      r[q] = _mm512_maskz_loadu_pd(__mmask8(0xFFu << q),
                                   reinterpret_cast<const double*>(c0 + j0 + ldd * q));
    transpose8x8_512(r, u);
    __m512 d = _mm512_setzero_ps();
    for (int j = 0; j < kChunk; ++j) {
      const __m512 up = _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castpd_si512(u[j]), im_sign));
      __m512 v = _mm512_mask_blend_ps(__mmask16((1u << (2 * j)) - 1), _mm512_castpd_ps(r[j]), up);
      v = _mm512_maskz_mov_ps(__mmask16(0xFFFFu & ~(1u << (2 * j + 1))), v);
      d = _mm512_fmadd_ps(dup_re512(v), bcast_c512(x + j0 + j), d);
      d = _mm512_fmadd_ps(dup_im512(v), bcast_c512(xcb + j0 + j), d);
    }
    _mm512_store_ps(&c[cc][2 * j0], d);
    for (int i0 = j0 + kChunk; i0 < kTile; i0 += kChunk)
      block8_fused_c512(c0 + i0, ldd, x + i0, xrb + i0, x + j0, xcb + j0, &c[cc][2 * i0],
                        &c[i0 / kChunk][2 * j0]);
  }
  tree_rows64_c(c, reinterpret_cast<float*>(p));
}

}  // namespace symv_detail
}  // namespace eigsolve
#endif  // EIGSOLVE_SYMV_AVX512
