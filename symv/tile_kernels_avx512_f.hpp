// Internal AVX-512 variants of the float fused kernels of symv/tile_kernels_avx2.hpp (the strip
// of full tiles below the diagonal and the partial-row tile), compiled for the avx512f target
// per function and chosen at run time (has_avx512f(); EIGSOLVE_NO_AVX512=1 keeps the AVX2 ones).
//
//   one zmm = one column of a 16 x 8 block (rows i0 .. i0+15, the row chunks A = rows 0..7 and
//   B = rows 8..15 of the block, columns j0 .. j0+7 = one column chunk):
//
//     r[q] = (s(0,q), ..., s(15,q))                       column q, q = 0..7
//     direct     d = fma(r[q], xc[j0+q], d), q ascending:  lane i is the chain of row i
//     transposed two 8 x 8 transposes at once (unpack / shuffle in 128-bit lanes as the AVX2
//                block, then one vshuff32x4 per row pair) give
//                u[i] = (s(i,0..3), s(i+8,0..3), s(i,4..7), s(i+8,4..7)),  i = 0..7
//                t = fma(u[i], (xr[i] x4, xr[i+8] x4, xr[i] x4, xr[i+8] x4), t), i ascending:
//                the chains of the 8 columns over row chunk A and over row chunk B, interleaved
//                by 4 lanes; the tree of a tile's 8 row chunks pairs them back (A + B, A first).
//
// The chains, element order, trees and partials of strip_fused<float> / tile_fused_rows<float>
// (a vector fma or add rounds like the scalar one lane by lane): the same bits. Per 128
// elements: 8 loads, 16 fmas and 24 shuffles, where the AVX2 8 x 8 blocks take 16 loads,
// 32 fmas and 48 shuffles.
#pragma once

#if defined(EIGSOLVE_SYMV_AVX512)
#include <immintrin.h>

namespace eigsolve {
namespace symv_detail {

/// Tiles per float strip on AVX-512 (a tile column of 64 rows is 256 bytes). 8 tiles, or a
/// prefetch every second column or 2 tiles ahead, measured no better (bench/NOTES.md, session 5).
constexpr int kStripF512 = 4;

// Full-mask forms (GCC 12's unmasked intrinsics pass an "undefined" source, -Wuninitialized).
__attribute__((target("avx512f"))) inline __m512 unpacklo512(__m512 a, __m512 b) {
  return _mm512_mask_unpacklo_ps(a, __mmask16(0xFFFF), a, b);
}
__attribute__((target("avx512f"))) inline __m512 unpackhi512(__m512 a, __m512 b) {
  return _mm512_mask_unpackhi_ps(a, __mmask16(0xFFFF), a, b);
}
template <int Imm>
__attribute__((target("avx512f"))) inline __m512 shufps512(__m512 a, __m512 b) {
  return _mm512_mask_shuffle_ps(a, __mmask16(0xFFFF), a, b, Imm);
}
template <int Imm>
__attribute__((target("avx512f"))) inline __m512 shuf128x4(__m512 a, __m512 b) {
  return _mm512_mask_shuffle_f32x4(a, __mmask16(0xFFFF), a, b, Imm);
}

/// The transposed operands of a 16 x 8 float block: r[q] = column q (rows 0..15) -> u[i], whose
/// lanes hold rows i and i + 8 (128-bit lanes 0, 2) and rows i + 4, i + 12 (lanes 1, 3), columns
/// 0..3 / 4..7 in each lane's halves; the lanes of block16_fused_f512's tout.
__attribute__((target("avx512f"))) inline void transpose16x8_f512(const __m512* r, __m512* u) {
  // In every 128-bit lane L (rows 4L .. 4L+3): b[k] = row 4L + k, columns 0..3 (k < 4) and
  // row 4L + k - 4, columns 4..7 (k >= 4), as the AVX2 float block.
  const __m512 a0 = unpacklo512(r[0], r[1]), a1 = unpackhi512(r[0], r[1]);
  const __m512 a2 = unpacklo512(r[2], r[3]), a3 = unpackhi512(r[2], r[3]);
  const __m512 a4 = unpacklo512(r[4], r[5]), a5 = unpackhi512(r[4], r[5]);
  const __m512 a6 = unpacklo512(r[6], r[7]), a7 = unpackhi512(r[6], r[7]);
  const __m512 b0 = shufps512<0x44>(a0, a2), b1 = shufps512<0xEE>(a0, a2);
  const __m512 b2 = shufps512<0x44>(a1, a3), b3 = shufps512<0xEE>(a1, a3);
  const __m512 b4 = shufps512<0x44>(a4, a6), b5 = shufps512<0xEE>(a4, a6);
  const __m512 b6 = shufps512<0x44>(a5, a7), b7 = shufps512<0xEE>(a5, a7);
  // Lanes (0, 2) of (b[k], b[k+4]) hold rows k and k + 8, lanes (1, 3) rows k + 4 and k + 12.
  u[0] = shuf128x4<0x88>(b0, b4);
  u[1] = shuf128x4<0x88>(b1, b5);
  u[2] = shuf128x4<0x88>(b2, b6);
  u[3] = shuf128x4<0x88>(b3, b7);
  u[4] = shuf128x4<0xDD>(b0, b4);
  u[5] = shuf128x4<0xDD>(b1, b5);
  u[6] = shuf128x4<0xDD>(b2, b6);
  u[7] = shuf128x4<0xDD>(b3, b7);
}

/// xp[8 b + i] = (xr[16 b + i] x4, xr[16 b + 8 + i] x4, the same again): the row operands of
/// the transposed chains of 16-row block b, for rows / 16 blocks.
__attribute__((target("avx512f"))) inline void pair_rows_x(int rows, const float* xr, __m512* xp) {
  for (int b = 0; b < rows / 16; ++b)
    for (int i = 0; i < kChunk; ++i)
      xp[kChunk * b + i] = _mm512_mask_blend_ps(__mmask16(0xF0F0), _mm512_set1_ps(xr[16 * b + i]),
                                                _mm512_set1_ps(xr[16 * b + kChunk + i]));
}

/// One stored 16 x 8 float block s (element (i, j) at s[i + lds * j]) in both directions:
/// dout[i] (16) = chain over j of s(i, j) xc[j]; tout (16) = the transposed chains of the 8
/// columns over rows 0..7 and over rows 8..15, interleaved as in the sketch above.
/// dout, tout 64-byte aligned.
/// mk: the rows read (a partial block: the others are +0, never read).
__attribute__((target("avx512f"))) inline void block16_fused_f512(const float* s, index_t lds,
                                                                  const float* xc, const __m512* xp,
                                                                  float* dout, float* tout,
                                                                  __mmask16 mk = 0xFFFF) {
  __m512 r[kChunk];
  __m512 d = _mm512_setzero_ps();
  for (int q = 0; q < kChunk; ++q) {
    r[q] = mk == 0xFFFF ? _mm512_loadu_ps(s + lds * q) : _mm512_maskz_loadu_ps(mk, s + lds * q);
    in_register(r[q]);
    d = _mm512_fmadd_ps(r[q], _mm512_set1_ps(xc[q]), d);
  }
  _mm512_store_ps(dout, d);
  __m512 u[kChunk];
  transpose16x8_f512(r, u);
  __m512 t = _mm512_setzero_ps();
  for (int i = 0; i < kChunk; ++i)
    t = _mm512_fmadd_ps(u[i], xp[i], t);
  _mm512_store_ps(tout, t);
}

/// p[i] = ((c0+c1)+(c2+c3))+((c4+c5)+(c6+c7)) of c[k][i], i < 64 (c 64-byte aligned).
__attribute__((target("avx512f"))) inline void tree_rows64_f512(const float (*c)[kTile], float* p) {
  for (int i = 0; i < kTile; i += 16) {
    __m512 v[kChunk];
    for (int k = 0; k < kChunk; ++k)
      v[k] = _mm512_load_ps(&c[k][i]);
    const __m512 s =
        _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(v[0], v[1]), _mm512_add_ps(v[2], v[3])),
                      _mm512_add_ps(_mm512_add_ps(v[4], v[5]), _mm512_add_ps(v[6], v[7])));
    _mm512_storeu_ps(p + i, s);
  }
}

/// p[j] = the tree of the 8 row chunks of column j, j < 64, from the interleaved transposed
/// sums ct[rp][cc] of row chunks 2 rp (lanes 0-3, 8-11) and 2 rp + 1 (lanes 4-7, 12-15).
/// Chunk pairs first: lanes 0-3 / 8-11 of ct + swap(ct) are c[2 rp] + c[2 rp + 1], then the
/// rest of the fixed tree in those lanes.
__attribute__((target("avx512f"))) inline void tree_cols64_f512(const float (*ct)[kChunk][16],
                                                                float* p) {
  for (int cc = 0; cc < kChunk; ++cc) {
    __m512 s[4];
    for (int rp = 0; rp < 4; ++rp) {
      const __m512 v = _mm512_load_ps(ct[rp][cc]);
      s[rp] = _mm512_add_ps(v, shuf128x4<0xB1>(v, v));
    }
    const __m512 a = _mm512_add_ps(_mm512_add_ps(s[0], s[1]), _mm512_add_ps(s[2], s[3]));
    _mm512_mask_storeu_ps(p + kChunk * cc, __mmask16(0x00FF), shuf128x4<0x08>(a, a));
  }
}

/// strip_fused<float, MaxK> on 16 x 8 blocks (same chains, trees, partials; k full tiles).
template <int MaxK>
__attribute__((target("avx512f"))) inline void strip_fused_f512(int k, const float* S, index_t lds,
                                                                const float* xr, const float* xc,
                                                                float* pd, index_t pd_stride,
                                                                float* pt) {
  alignas(64) float cd[MaxK][kChunk][kTile];  // cd[t][cc][i]: direct chunk sums
  alignas(64) float ct[MaxK][4][kChunk][16];  // ct[t][rp][cc]: transposed, row chunk pairs
  alignas(64) __m512 xp[MaxK * kTile / 2];
  const int rows = k * kTile;
  pair_rows_x(rows, xr, xp);
  for (int cc = 0; cc < kChunk; ++cc) {
    const int j0 = cc * kChunk;
    const float* c0 = S + lds * j0;
    for (int i0 = 0; i0 < rows; i0 += 16) {
      const int t = i0 / kTile, il = i0 % kTile;
      const float* b = c0 + i0;
      // The caller walks tile columns downwards: fetch the same lines of the next tile.
      for (int q = 0; q < kChunk; ++q)
        _mm_prefetch(reinterpret_cast<const char*>(b + lds * q + kTile), _MM_HINT_T0);
      block16_fused_f512(b, lds, xc + j0, xp + i0 / 2, &cd[t][cc][il], ct[t][il / 16][cc]);
    }
  }
  for (int t = 0; t < k; ++t) {
    tree_rows64_f512(cd[t], pd + t * pd_stride);
    tree_cols64_f512(ct[t], pt + t * kTile);
  }
}

/// tile_fused_rows<float> (rows < 64 rows of a stored tile below the diagonal, xr -0 from
/// rows on) on 16 x 8 blocks: the 16-row blocks that exist in place, a last partial one through
/// masked loads (its missing rows +0, not read: padded terms are fma(+0, -0, s) = s, -0
/// included), the missing blocks +0. pd[0, rows) and pt are the canonical partials.
__attribute__((target("avx512f"))) inline void tile_fused_rows_f512(int rows, const float* S,
                                                                    index_t lds, const float* xr,
                                                                    const float* xc, float* pd,
                                                                    float* pt) {
  alignas(64) float cd[kChunk][kTile];
  alignas(64) float ct[4][kChunk][16];
  alignas(64) __m512 xp[kTile / 2];
  pair_rows_x(kTile, xr, xp);
  const int full = rows - rows % 16;
  for (int cc = 0; cc < kChunk; ++cc) {
    const int j0 = cc * kChunk;
    const float* c0 = S + lds * j0;
    for (int i0 = 0; i0 < full; i0 += 16)
      block16_fused_f512(c0 + i0, lds, xc + j0, xp + i0 / 2, &cd[cc][i0], ct[i0 / 16][cc]);
    int i0 = full;
    if (full < rows) {
      block16_fused_f512(c0 + full, lds, xc + j0, xp + full / 2, &cd[cc][full], ct[full / 16][cc],
                         __mmask16((1u << (rows - full)) - 1u));
      i0 += 16;
    }
    for (; i0 < kTile; i0 += 16) {
      _mm512_store_ps(&cd[cc][i0], _mm512_setzero_ps());
      _mm512_store_ps(ct[i0 / 16][cc], _mm512_setzero_ps());
    }
  }
  tree_rows64_f512(cd, pd);
  tree_cols64_f512(ct, pt);
}

/// tile_diag64<float> (a full diagonal tile, lower triangle stored) with the 8 diagonal 8 x 8
/// blocks mirrored in registers instead of through a scalar copy: column j of a diagonal block
/// is its stored rows i >= j (vmaskmovps: the strict upper triangle is not read) and, for
/// i < j, row j of the block (an 8 x 8 transpose of those columns). Then the same direct chains
/// over the block's 8 columns, and the AVX2 block8_fused below the diagonal: the same bits.
__attribute__((target("avx512f"))) inline void tile_diag64_f512(const float* D, index_t ldd,
                                                                const float* x, float* p) {
  alignas(64) float c[kChunk][kTile];  // c[k][i]: chunk k of row i
  __m256 xb[kTile];
  broadcast_x(kTile, x, xb);
  const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  __m256 upper[kChunk];   // lanes i < j
  __m256i lower[kChunk];  // lanes i >= j
  for (int j = 0; j < kChunk; ++j) {
    upper[j] = _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32(j), iota));
    lower[j] = _mm256_cmpgt_epi32(iota, _mm256_set1_epi32(j - 1));
  }
  for (int cc = 0; cc < kChunk; ++cc) {
    const int j0 = cc * kChunk;
    const float* c0 = D + ldd * j0;
    __m256 r[kChunk];
    for (int j = 0; j < kChunk; ++j)
      r[j] = _mm256_maskload_ps(c0 + j0 + ldd * j, lower[j]);
    __m256 u[kChunk];
    simd::transpose8_ps(r, u);
    __m256 a = _mm256_setzero_ps();
    for (int j = 0; j < kChunk; ++j)
      a = _mm256_fmadd_ps(_mm256_blendv_ps(r[j], u[j], upper[j]), xb[j0 + j], a);
    _mm256_store_ps(&c[cc][j0], a);
    for (int i0 = j0 + kChunk; i0 < kTile; i0 += kChunk)
      block8_fused(c0 + i0, ldd, xb + i0, xb + j0, &c[cc][i0], &c[i0 / kChunk][j0]);
  }
  tree_rows64(c, p);
}

}  // namespace symv_detail
}  // namespace eigsolve
#endif  // EIGSOLVE_SYMV_AVX512
