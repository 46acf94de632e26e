// Internal building block shared by symv/ and householder/: the canonical partial of one
// 64-column tile for a block of rows, vectorized over rows (the chunk chains run down j).
// The AVX2 kernels live in symv/tile_kernels_avx2.hpp.
#pragma once

#include <algorithm>
#include <type_traits>

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#define EIGSOLVE_SYMV_AVX2 1
#endif

#include "core/canonical.hpp"
#include "core/complex.hpp"
#include "core/precision.hpp"
#include "core/cpu_features.hpp"
#include "symv/tile_kernels_avx2.hpp"   // empty without EIGSOLVE_SYMV_AVX2
#include "symv/col_dots_dd512.hpp"      // empty without EIGSOLVE_DD_AVX512
#include "symv/tile_kernels_dd512.hpp"  // empty without EIGSOLVE_DD_AVX512

namespace eigsolve {
namespace symv_detail {

/// Rows handled together by the vector path (one 256-bit register for float/double).
template <class T>
constexpr int kLanes = std::is_arithmetic<T>::value ? int(32 / sizeof(T)) : 4;

/// p[i] = canonical partial of one tile for rows i < rows: the row elements are
/// B[i + ldb * j] for j < cols; chunk k holds j in [8k, 8k + 8).
template <class T>
void tile_partials(int rows, int cols, const T* B, index_t ldb, const T* x, T* p) {
#if defined(EIGSOLVE_SYMV_AVX2)
  if constexpr (kDirectAvx2<T>) {
    tile_direct(rows, cols, B, ldb, x, p);
    return;
  }
#endif
#if defined(EIGSOLVE_DD_AVX512)
  if constexpr (std::is_same<T, dd_real>::value) {
    if (has_avx512f()) {  // 8 rows in the lanes (symv/tile_kernels_dd512.hpp)
      tile_partials_dd512(rows, cols, B, ldb, x, p);
      return;
    }
  }
#endif
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

/// out[r] = canonical_dot over k in [0, kc) of M[r + ldm*k] * t[k] for r < rows
/// (tiles of k start at 0): a "gemv N" in the canonical shape, vectorized over rows.
template <class T>
void row_dots(index_t rows, index_t kc, const T* M, index_t ldm, const T* t, T* out) {
#if defined(EIGSOLVE_SYMV_AVX512)
  if constexpr (std::is_same<T, float>::value) {
    if (kc > 0 && kc <= kTile && has_avx512f()) {  // the panel's case (kc < nb)
      row_dots_f512(rows, kc, M, ldm, t, out);
      return;
    }
  }
#endif
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

using ::eigsolve::contiguous_dot;  // core/canonical.hpp

/// out[q] = contiguous_dot<true>(m, M + ldm q, v) for q < nq: the canonical dots of a few
/// columns with one vector (the t1 = W^H v, t2 = V^H v of the panel). float/double and complex
/// float/double: groups of vector-width columns in lanes (symv_detail::col_dots_group, the same
/// chains; complex: one (re, im) lane pair per column); dd and the columns left over: one dot at
/// a time. Float and dd on AVX-512: groups of up to 8 columns, none left over (col_dots_f512,
/// col_dots_dd512).
template <class T>
void col_dots(index_t m, index_t nq, const T* M, index_t ldm, const T* v, T* out) {
  index_t q = 0;
#if defined(EIGSOLVE_SYMV_AVX2)
#if defined(EIGSOLVE_SYMV_AVX512)
  if constexpr (std::is_same<T, float>::value) {
    // AVX-512: groups of 8 columns in 16-row blocks, a last group of fewer columns too.
    if (has_avx512f()) {
      for (; q < nq; q += 8)
        col_dots_f512(m, static_cast<int>(std::min<index_t>(8, nq - q)), M + ldm * q, ldm, v,
                      out + q);
      return;
    }
  }
#endif
  if constexpr (std::is_same<T, double>::value || std::is_same<T, float>::value) {
    constexpr index_t L = simd::Avx2<T>::kLanes;
    if (m > 0)
      for (; q + L <= nq; q += L)
        col_dots_group(m, M + ldm * q, ldm, v, out + q);
  } else if constexpr (std::is_same<T, Complex<double>>::value ||
                       std::is_same<T, Complex<float>>::value) {
    constexpr index_t L = ColChainsC<real_t<T>>::kCols;
    if (m > 0)
      for (; q + L <= nq; q += L)
        col_dots_group(m, M + ldm * q, ldm, v, out + q);
  }
#endif
#if defined(EIGSOLVE_DD_AVX512)
  if constexpr (std::is_same<T, dd_real>::value) {
    if (has_avx512f()) {  // groups of up to 8 columns in the lanes (symv/col_dots_dd512.hpp)
      for (; q < nq; q += 8)
        col_dots_dd512(m, static_cast<int>(std::min<index_t>(8, nq - q)), M + ldm * q, ldm, v,
                       out + q);
      return;
    }
  }
#endif
  for (; q < nq; ++q)
    out[q] = contiguous_dot<true>(m, M + ldm * q, v);
}

}  // namespace symv_detail
}  // namespace eigsolve
