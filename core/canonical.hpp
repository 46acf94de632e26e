// The canonical reduction shape (docs/reproducibility.md, "Reductions").
//
//   vector of length n, split into tiles of kTile = 64 elements, each tile into 8 chunks of 8:
//
//     tile t:  | c0: x[64t+0..7] | c1: ..8..15 | ... | c7: ..56..63 |
//     chunk:   s = +0; for i ascending: s = madd(a_i, b_i, s)          (sequential chain)
//     tile:    p_t = ((c0 + c1) + (c2 + c3)) + ((c4 + c5) + (c6 + c7))  (fixed tree)
//     vector:  acc = p_0; acc = acc + p_1; ...; acc = acc + p_{T-1}    (ascending tiles)
//
// Elements past n are absent (a chunk with no element is +0). Tile boundaries are at absolute
// multiples of 64 *of the index space the caller names* (see `first` below), so a GPU kernel
// that owns whole tiles reproduces the bits exactly.
#pragma once

#include "core/hd.hpp"
#include "core/precision.hpp"

namespace eigsolve {

inline constexpr int kTile = 64;
inline constexpr int kChunk = 8;

/// Combines the 8 chunk sums of one tile with the fixed tree.
template <class T>
ES_HD_INLINE T tile_tree(const T* c) {
  return ((c[0] + c[1]) + (c[2] + c[3])) + ((c[4] + c[5]) + (c[6] + c[7]));
}

/// Canonical partial of one tile: sum over i in [lo, hi) of op(a[i]) * b[i], where tile
/// chunks are [t0 + 8k, t0 + 8k + 8) for the tile start t0 (lo and hi lie inside the tile).
/// ConjA selects conj(a[i]).
template <bool ConjA, class T, class GetA, class GetB>
ES_HD_INLINE T tile_dot(index_t t0, index_t lo, index_t hi, GetA&& a, GetB&& b) {
  T c[kChunk];
  for (int k = 0; k < kChunk; ++k) {
    T s = T(0);
    const index_t cb = t0 + index_t(k) * kChunk;
    for (index_t i = cb; i < cb + kChunk; ++i) {
      if (i < lo || i >= hi) continue;
      if constexpr (ConjA)
        s = madd_conj(a(i), b(i), s);
      else
        s = madd(a(i), b(i), s);
    }
    c[k] = s;
  }
  return tile_tree(c);
}

/// Canonical dot product sum_{i<n} op(x[i*incx]) * y[i*incy] over the index space [0, n)
/// (tiles start at 0). Equivalent to tiles of canonical_dot_range(0, n).
template <bool ConjX = false, class T>
T canonical_dot(index_t n, const T* x, index_t incx, const T* y, index_t incy) {
  T acc = T(0);
  for (index_t t0 = 0; t0 < n; t0 += kTile) {
    const index_t hi = t0 + kTile < n ? t0 + kTile : n;
    T p = tile_dot<ConjX, T>(
        t0, t0, hi, [&](index_t i) { return x[i * incx]; }, [&](index_t i) { return y[i * incy]; });
    acc = (t0 == 0) ? p : acc + p;
  }
  return acc;
}

/// canonical_dot<ConjX>(n, x, 1, y, 1) above, the same bits, with the eight
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
        const index_t hi = t0 + (k + 1) * kChunk < n ? t0 + (k + 1) * kChunk : n;
        for (index_t i = t0 + k * kChunk; i < hi; ++i) {
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

}  // namespace eigsolve
