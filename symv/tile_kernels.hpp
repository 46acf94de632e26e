// Internal building block shared by symv/ and householder/: the canonical partial of one
// 64-column tile for a block of rows, vectorized over rows (the chunk chains run down j).
#pragma once

#include <algorithm>
#include <type_traits>

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#define EIGSOLVE_SYMV_AVX2 1
#endif

#include "core/canonical.hpp"
#include "core/precision.hpp"

namespace eigsolve {
namespace symv_detail {

/// Rows handled together by the vector path (one 256-bit register for float/double).
template <class T>
constexpr int kLanes = std::is_arithmetic<T>::value ? int(32 / sizeof(T)) : 4;

/// p[i] = canonical partial of one tile for rows i < rows: the row elements are
/// B[i + ldb * j] for j < cols; chunk k holds j in [8k, 8k + 8).
template <class T>
void tile_partials(int rows, int cols, const T* B, index_t ldb, const T* x, T* p) {
  constexpr int R = kLanes<T>;
  int i0 = 0;
  if (cols == kTile) {
    for (; i0 + R <= rows; i0 += R) {
      T c[kChunk][R];
      for (int k = 0; k < kChunk; ++k)
        for (int l = 0; l < R; ++l)
          c[k][l] = T(0);
      // Chunks are independent chains: interleave them so that 8 chains are in flight.
      for (int jj = 0; jj < kChunk; ++jj) {
        for (int k = 0; k < kChunk; ++k) {
          const int j = k * kChunk + jj;
          const T xj = x[j];
          const T* b = B + i0 + ldb * j;
          for (int l = 0; l < R; ++l)
            c[k][l] = madd(b[l], xj, c[k][l]);
        }
      }
      for (int l = 0; l < R; ++l)
        p[i0 + l] = ((c[0][l] + c[1][l]) + (c[2][l] + c[3][l])) +
                    ((c[4][l] + c[5][l]) + (c[6][l] + c[7][l]));
    }
  }
  for (; i0 < rows; ++i0) {
    T c[kChunk];
    for (int k = 0; k < kChunk; ++k) {
      T s = T(0);
      for (int j = k * kChunk; j < std::min(cols, (k + 1) * kChunk); ++j)
        s = madd(B[i0 + ldb * j], x[j], s);
      c[k] = s;
    }
    p[i0] = tile_tree(c);
  }
}

#if defined(EIGSOLVE_SYMV_AVX2)
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

/// tile_partials for the 64 x 64 tile whose row elements are B(i, j) = S[j + lds * i]
/// (S = the stored tile below the diagonal, read transposed; real, so no conjugation).
/// 4 x 4 blocks are transposed in registers.
inline void tile_transposed_d64(const double* S, index_t lds, const double* x, double* p) {
  for (int i0 = 0; i0 < kTile; i0 += 4) {
    __m256d c[kChunk];
    const double* s0 = S + lds * i0;
    const double* s1 = s0 + lds;
    const double* s2 = s1 + lds;
    const double* s3 = s2 + lds;
    for (int k = 0; k < kChunk; ++k) {
      __m256d acc = _mm256_setzero_pd();
      for (int h = 0; h < 2; ++h) {
        const int j = k * kChunk + 4 * h;
        const __m256d r0 = _mm256_loadu_pd(s0 + j), r1 = _mm256_loadu_pd(s1 + j);
        const __m256d r2 = _mm256_loadu_pd(s2 + j), r3 = _mm256_loadu_pd(s3 + j);
        const __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
        const __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
        acc =
            _mm256_fmadd_pd(_mm256_permute2f128_pd(t0, t2, 0x20), _mm256_broadcast_sd(x + j), acc);
        acc = _mm256_fmadd_pd(_mm256_permute2f128_pd(t1, t3, 0x20), _mm256_broadcast_sd(x + j + 1),
                              acc);
        acc = _mm256_fmadd_pd(_mm256_permute2f128_pd(t0, t2, 0x31), _mm256_broadcast_sd(x + j + 2),
                              acc);
        acc = _mm256_fmadd_pd(_mm256_permute2f128_pd(t1, t3, 0x31), _mm256_broadcast_sd(x + j + 3),
                              acc);
      }
      c[k] = acc;
    }
    _mm256_storeu_pd(p + i0, tree4(c));
  }
}
#endif

/// out[r] = canonical_dot over k in [0, kc) of M[r + ldm*k] * t[k] for r < rows
/// (tiles of k start at 0): a "gemv N" in the canonical shape, vectorized over rows.
template <class T>
void row_dots(index_t rows, index_t kc, const T* M, index_t ldm, const T* t, T* out) {
  T p[kTile];
  for (index_t r0 = 0; r0 < rows; r0 += kTile) {
    const int nr = static_cast<int>(std::min<index_t>(kTile, rows - r0));
    for (index_t k0 = 0; k0 < kc; k0 += kTile) {
      const int nc = static_cast<int>(std::min<index_t>(kTile, kc - k0));
      tile_partials(nr, nc, M + r0 + ldm * k0, ldm, t + k0, p);
      if (k0 == 0)
        for (int i = 0; i < nr; ++i)
          out[r0 + i] = p[i];
      else
        for (int i = 0; i < nr; ++i)
          out[r0 + i] = out[r0 + i] + p[i];
    }
    if (kc == 0)
      for (int i = 0; i < nr; ++i)
        out[r0 + i] = T(0);
  }
}

/// canonical_dot<ConjX>(n, x, 1, y, 1) (core/canonical.hpp), the same bits, with the eight
/// chunk chains of a full tile interleaved for instruction-level parallelism.
template <bool ConjX, class T>
T contiguous_dot(index_t n, const T* x, const T* y) {
  T acc = T(0);
  for (index_t t0 = 0; t0 < n; t0 += kTile) {
    T c[kChunk];
    if (t0 + kTile <= n) {
      for (int k = 0; k < kChunk; ++k)
        c[k] = T(0);
      for (int jj = 0; jj < kChunk; ++jj)
        for (int k = 0; k < kChunk; ++k) {
          const index_t i = t0 + k * kChunk + jj;
          if constexpr (ConjX)
            c[k] = madd_conj(x[i], y[i], c[k]);
          else
            c[k] = madd(x[i], y[i], c[k]);
        }
    } else {
      for (int k = 0; k < kChunk; ++k) {
        T s = T(0);
        for (index_t i = t0 + k * kChunk; i < std::min(n, t0 + (k + 1) * kChunk); ++i) {
          if constexpr (ConjX)
            s = madd_conj(x[i], y[i], s);
          else
            s = madd(x[i], y[i], s);
        }
        c[k] = s;
      }
    }
    const T p = tile_tree(c);
    acc = (t0 == 0) ? p : acc + p;
  }
  return acc;
}

}  // namespace symv_detail
}  // namespace eigsolve
