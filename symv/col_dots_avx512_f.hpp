// Internal AVX-512 variants of the float panel dots, compiled for the avx512f target and chosen
// at run time (has_avx512f(); EIGSOLVE_NO_AVX512=1 keeps the AVX2 ones): row_dots_f512 (the w
// update's V t1 and W t2, rows in lanes, below) and col_dots_f512, the col_dots_group of
// symv/col_dots_avx2.hpp (t1 = W^H v, t2 = V^H v). Up to 8 columns in lanes, the
// transposed chains of the float SYMV block (symv/tile_kernels_avx512_f.hpp) only:
//
//   one zmm = rows i0 .. i0+15 of column q (row chunks A = rows 0..7, B = rows 8..15)
//   two 8 x 8 transposes at once  ->  u[i] = (M(i, 0..3), M(i+8, 0..3), M(i, 4..7), M(i+8, 4..7))
//   t = fma(u[i], (v_i x4, v_i+8 x4, v_i x4, v_i+8 x4), t), i ascending: the chunk chains of
//   the 8 columns over chunk A and over chunk B, interleaved by 4 lanes; per 64-row tile the
//   fixed tree ((c0+c1)+(c2+c3))+((c4+c5)+(c6+c7)) (tree_cols64_f512), tiles summed ascending.
//
// The chains, trees and tile sums of contiguous_dot<true> per column: the same bits. Columns
// past nq are zero registers (never read) and their lanes are dropped; rows past m are read
// through a copy padded with +0 and v padded with -0 (fma(+0, -0, s) = s for every s: a chain
// from +0 does hold -0 after a negative product that underflows, session 51). Per 128 elements 8
// loads, 24 shuffles and 8 fmas, where the AVX2 group takes 16 loads, 48 shuffles and 16 fmas (and
// the columns past a multiple of 8 ran one scalar dot each).
#pragma once

#if defined(EIGSOLVE_SYMV_AVX512)
#include <immintrin.h>

#include <algorithm>

namespace eigsolve {
namespace symv_detail {

/// The transposed chains of a 16-row block of nq <= 8 columns (column q at b + ldm q, rows
/// 0..15 readable for q < nq); xp as pair_rows_x; the lanes as block16_fused_f512's tout.
__attribute__((target("avx512f"))) inline __m512 block16_cols_f512(const float* b, index_t ldm,
                                                                   int nq, const __m512* xp) {
  __m512 r[kChunk];
  for (int q = 0; q < kChunk; ++q) {
    r[q] = q < nq ? _mm512_loadu_ps(b + ldm * q) : _mm512_setzero_ps();
    in_register(r[q]);
  }
  __m512 u[kChunk];
  transpose16x8_f512(r, u);
  __m512 t = _mm512_setzero_ps();
  for (int i = 0; i < kChunk; ++i)
    t = _mm512_fmadd_ps(u[i], xp[i], t);
  return t;
}

/// out[q] = contiguous_dot<true>(m, M + ldm q, v) for q < nq <= 8 (float; tiles of 64 rows
/// from row 0, chunks of 8, fixed tree, tiles ascending).
__attribute__((target("avx512f"))) inline void col_dots_f512(index_t m, int nq, const float* M,
                                                             index_t ldm, const float* v,
                                                             float* out) {
  alignas(64) float pad[16 * kChunk];  // a last partial 16-row block, zero-padded
  alignas(64) float vpad[16];
  __m512 xp[kChunk];
  __m512 acc = _mm512_setzero_ps();
  for (index_t t0 = 0; t0 < m; t0 += kTile) {
    __m512 s[4];  // s[rp]: chunk pair rp of the tile, (c 2rp + c 2rp+1) in lanes 0-3 / 8-11
    for (int rp = 0; rp < 4; ++rp) {
      const index_t i0 = t0 + 16 * rp;
      __m512 t = _mm512_setzero_ps();
      if (i0 + 16 <= m) {
        pair_rows_x(16, v + i0, xp);
        t = block16_cols_f512(M + i0, ldm, nq, xp);
      } else if (i0 < m) {
        const int nr = static_cast<int>(m - i0);
        for (int q = 0; q < kChunk; ++q)
          for (int r = 0; r < 16; ++r)
            pad[r + 16 * q] = q < nq && r < nr ? M[i0 + r + ldm * q] : 0.0f;
        for (int r = 0; r < 16; ++r)
          vpad[r] = r < nr ? v[i0 + r] : -0.0f;  // fma(+0, -0, s) = s, -0 included
        pair_rows_x(16, vpad, xp);
        t = block16_cols_f512(pad, index_t(16), kChunk, xp);
      }
      s[rp] = _mm512_add_ps(t, shuf128x4<0xB1>(t, t));
    }
    // ((c0 + c1) + (c2 + c3)) + ((c4 + c5) + (c6 + c7)); columns 0..3 in 128-bit lane 0,
    // 4..7 in lane 2 -> lanes 0..7 (tree_cols64_f512 for one column chunk).
    const __m512 a = _mm512_add_ps(_mm512_add_ps(s[0], s[1]), _mm512_add_ps(s[2], s[3]));
    const __m512 pt = shuf128x4<0x08>(a, a);
    acc = t0 == 0 ? pt : _mm512_add_ps(acc, pt);
  }
  alignas(64) float res[16];
  _mm512_store_ps(res, acc);
  for (int q = 0; q < nq; ++q)
    out[q] = res[q];
}

/// row_dots<float> for kc <= 64 on AVX-512: out[r] = the canonical partial of the single tile
/// of k (chunks of 8 from k = 0, each chain over its columns ascending, fixed tree; chunks past
/// kc are +0) of M(r, 0..kc) and t, for r < rows; rows in lanes (tile_direct's chains, 16 rows
/// a register, four registers of a 64-row block in flight); a last partial block through masked
/// loads and stores (the rows past `rows` are neither read nor written).
__attribute__((target("avx512f"))) inline void row_dots_f512(index_t rows, index_t kc,
                                                             const float* M, index_t ldm,
                                                             const float* t, float* out) {
  for (index_t r0 = 0; r0 < rows; r0 += kTile) {
    const int nr = static_cast<int>(std::min<index_t>(kTile, rows - r0));
    __mmask16 mk[4];
    for (int q = 0; q < 4; ++q) {
      const int left = std::max(0, std::min(16, nr - 16 * q));
      mk[q] = __mmask16((1u << left) - 1u);
    }
    __m512 c[kChunk][4];
    for (int k = 0; k < kChunk; ++k) {
      const index_t jb = index_t(k) * kChunk, je = std::min<index_t>(kc, jb + kChunk);
      __m512 a[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(),
                     _mm512_setzero_ps()};
      for (index_t j = jb; j < je; ++j) {
        const float* col = M + r0 + ldm * j;
        const __m512 x = _mm512_set1_ps(t[j]);
        for (int q = 0; q < 4; ++q)
          a[q] = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mk[q], col + 16 * q), x, a[q]);
      }
      for (int q = 0; q < 4; ++q)
        c[k][q] = a[q];
    }
    for (int q = 0; q < 4; ++q) {
      const __m512 p = _mm512_add_ps(
          _mm512_add_ps(_mm512_add_ps(c[0][q], c[1][q]), _mm512_add_ps(c[2][q], c[3][q])),
          _mm512_add_ps(_mm512_add_ps(c[4][q], c[5][q]), _mm512_add_ps(c[6][q], c[7][q])));
      _mm512_mask_storeu_ps(out + r0 + 16 * q, mk[q], p);
    }
  }
}

}  // namespace symv_detail
}  // namespace eigsolve
#endif  // EIGSOLVE_SYMV_AVX512
