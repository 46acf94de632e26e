// SYMV / HEMV kernels in the canonical order of docs/canonical-symv.md (after Imamura et al.,
// "CUDA-xSYMV", 2014: one triangle read, 2-D thread blocks, ticket-ordered accumulation).
//
//   the lower triangle in 64x64 tiles, taken column by column (a persistent grid strides over
//   them, tiles_per_block tiles at a time, one 64-thread group per tile):
//
//        J=0   J=1   J=2          tile (I,J), I > J, read ONCE from memory
//      +-----+                      -> direct partial     P(I,J): rows of panel I . x(panel J)
//   I=0| Dg  |                      -> transposed partial P(J,I): rows of panel J . x(panel I)
//      +-----+-----+                diagonal tile (J,J) -> P(J,J) (expanded Hermitian)
//   I=1| S   | Dg  |
//      +-----+-----+-----+        thread (a,k) of a group owns the 8x8 block rows 8a..8a+7,
//   I=2| S   | S   | Dg  |        columns 8k..8k+7: its 8 row chains (direct, chunk k) and
//      +-----+-----+-----+        8 column chains (transposed, chunk a) are exactly the
//                                 canonical 8-element chunk chains; the 8 chunks of a row meet
//   sD[row][chunk], sT[row][chunk] in shared memory and are combined by the fixed tree.
//
//   P(R, C) for every row panel R and tile column C goes to the workspace. ticket: each tile
//   draws one ticket of its row panel(s); the draw of the nt-th ticket of panel R means all of
//   P(R, 0..nt-1) are written, and that group sums them (acc = P(R,0) + P(R,1) + ... in
//   ascending C) and writes y; nobody waits. twopass: a second kernel does the same sums.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "core/canonical.hpp"
#include "core/precision.hpp"

namespace eigsolve {
namespace symv_cuda {

/// The real component type and the number of components of a scalar.
template <class T>
struct Parts {
  using R = T;
  static constexpr int n = 1;
};
template <class Rr>
struct Parts<Complex<Rr>> {
  using R = Rr;
  static constexpr int n = 2;
};
template <>
struct Parts<dd_real> {
  using R = double;
  static constexpr int n = 2;
};

template <class T>
__device__ __forceinline__ T from_parts(const typename Parts<T>::R* c) {
  if constexpr (Parts<T>::n == 1)
    return c[0];
  else
    return T(c[0], c[1]);
}

/// Component loads with the cache policy L (SymvLoad).
template <int L, class V>
__device__ __forceinline__ V ld(const V* p) {
  if constexpr (L == 0)
    return __ldg(p);
  else if constexpr (L == 1)
    return __ldcg(p);
  else
    return __ldcs(p);
}

/// The 16-byte vector of a real component type.
template <class R>
struct Vec16;
template <>
struct Vec16<float> {
  using type = float4;
};
template <>
struct Vec16<double> {
  using type = double2;
};

/// Loads rows 0..7 of one column segment into components (8 * Parts<T>::n reals).
/// m < 8: rows >= m are zero (padding: the canonical chains are unchanged by 0 * 0 terms).
template <class T, bool Wide, int L>
__device__ __forceinline__ void load_col8(const T* p, int m, typename Parts<T>::R* comp) {
  using R = typename Parts<T>::R;
  constexpr int nc = 8 * Parts<T>::n;
  const R* q = reinterpret_cast<const R*>(p);
  if (m >= 8) {
    if constexpr (Wide) {
      using V = typename Vec16<R>::type;
      constexpr int per = 16 / sizeof(R);
      const V* v = reinterpret_cast<const V*>(q);
#pragma unroll
      for (int s = 0; s < nc / per; ++s) {
        const V w = ld<L>(v + s);
        if constexpr (per == 4) {
          comp[4 * s] = w.x;
          comp[4 * s + 1] = w.y;
          comp[4 * s + 2] = w.z;
          comp[4 * s + 3] = w.w;
        } else {
          comp[2 * s] = w.x;
          comp[2 * s + 1] = w.y;
        }
      }
    } else {
#pragma unroll
      for (int s = 0; s < nc; ++s)
        comp[s] = ld<L>(q + s);
    }
  } else {
#pragma unroll
    for (int s = 0; s < nc; ++s)
      comp[s] = (s / Parts<T>::n < m) ? ld<L>(q + s) : R(0);
  }
}

template <class T>
__device__ __forceinline__ T real_diag(const T& a) {
  if constexpr (is_complex_v<T>)
    return T(a.re, real_t<T>(0));
  else
    return a;
}

template <class T>
struct SymvArgs {
  index_t n, lda, nt, ntiles;
  const T* A;
  const T* x;
  index_t incx, xoff;  ///< x(i) = x[xoff + i * incx]
  T* y;
  index_t incy, yoff;
  T alpha, beta;
  bool beta_zero;
  T* P;              ///< partials: P[(R * nt + C) * 64 + i]
  unsigned* ticket;  ///< nt tickets, zero on entry and on exit
};

/// Tile index (column-major over the stored tiles) -> (I, J).
__device__ __forceinline__ void tile_coords(index_t t, index_t nt, index_t& I, index_t& J) {
  // start(J) = J * nt - J * (J - 1) / 2; J = largest with start(J) <= t (float guess, exact fix).
  const double b = 2.0 * double(nt) + 1.0;
  index_t j = index_t((b - sqrt(b * b - 8.0 * double(t))) * 0.5);
  if (j < 0) j = 0;
  if (j > nt - 1) j = nt - 1;
  auto start = [nt](index_t c) { return c * nt - c * (c - 1) / 2; };
  while (j > 0 && start(j) > t)
    --j;
  while (j + 1 < nt && start(j + 1) <= t)
    ++j;
  J = j;
  I = j + (t - start(j));
}

/// The diagonal 8x8 block (a, a) of a diagonal tile: the 8 row chains of the expanded Hermitian
/// block (lower stored, real diagonal, conj-mirrored upper). Rare: kept out of line.
template <class T, int L>
__device__ __noinline__ void diag_block(const T* A, index_t lda, index_t o, int m, const T* xs,
                                        T* dst) {
  using R = typename Parts<T>::R;
  for (int r = 0; r < 8; ++r) {
    T d = T(0);
    for (int c = 0; c < 8; ++c) {
      T e = T(0);
      if (r < m && c < m) {
        const int ii = c < r ? r : c, jj = c < r ? c : r;  // the stored element (ii >= jj)
        const R* q = reinterpret_cast<const R*>(A + (o + ii) + lda * (o + jj));
        R comp[Parts<T>::n];
#pragma unroll
        for (int s = 0; s < Parts<T>::n; ++s)
          comp[s] = ld<L>(q + s);
        const T v = from_parts<T>(comp);
        e = c < r ? v : (c == r ? real_diag(v) : conj(v));
      }
      d = madd(e, xs[c], d);
    }
    dst[r * 9] = d;
  }
}

/// Sums the nt partials of row t of panel R in ascending tile order and writes y.
template <class T>
__device__ __forceinline__ void row_sum(const SymvArgs<T>& g, index_t R, int t) {
  const index_t i = R * kTile + t;
  if (i >= g.n) return;
  const T* p = g.P + R * g.nt * kTile + t;
  using Rr = typename Parts<T>::R;
  auto get = [](const T* q) {
    const Rr* c = reinterpret_cast<const Rr*>(q);
    Rr comp[Parts<T>::n];
#pragma unroll
    for (int s = 0; s < Parts<T>::n; ++s)
      comp[s] = __ldcg(c + s);
    return from_parts<T>(comp);
  };
  T acc = get(p);
  index_t C = 1;
  constexpr int B = 8;
  for (; C + B <= g.nt; C += B) {
    T v[B];
#pragma unroll
    for (int b = 0; b < B; ++b)
      v[b] = get(p + (C + b) * kTile);
#pragma unroll
    for (int b = 0; b < B; ++b)
      acc = acc + v[b];
  }
  for (; C < g.nt; ++C)
    acc = acc + get(p + C * kTile);
  T* yi = g.y + (g.yoff + i * g.incy);
  *yi = g.beta_zero ? g.alpha * acc : madd(g.alpha, acc, g.beta * *yi);
}

/// Shared memory of one group: x of the two panels, chunk sums of the two row sets.
template <class T>
struct GroupSmem {
  T xc[kTile];      ///< x of the tile column's panel J
  T xr[kTile];      ///< x of the tile row's panel I
  T sD[kTile * 9];  ///< sD[row * 9 + chunk]: rows of panel I
  T sT[kTile * 9];  ///< rows of panel J (transposed partials)
};

template <class T, int TPB, bool Wide, int L, bool Ticket>
__global__ void __launch_bounds__(64 * TPB) symv_tiles(SymvArgs<T> g) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  GroupSmem<T>* sm = reinterpret_cast<GroupSmem<T>*>(smem_raw);
  __shared__ int flag[TPB][2];
  const int grp = threadIdx.x >> 6, t = threadIdx.x & 63, a = t & 7, k = t >> 3;
  GroupSmem<T>& s = sm[grp];
  using R = typename Parts<T>::R;
  for (index_t base = index_t(blockIdx.x) * TPB; base < g.ntiles;
       base += index_t(gridDim.x) * TPB) {
    const index_t tile = base + grp;
    const bool active = tile < g.ntiles;
    index_t I = 0, J = 0;
    if (active) tile_coords(tile, g.nt, I, J);
    const index_t r0 = I * kTile, c0 = J * kTile;
    if (active) {
      const index_t ic = c0 + t, ir = r0 + t;
      s.xc[t] = ic < g.n ? g.x[g.xoff + ic * g.incx] : T(0);
      s.xr[t] = ir < g.n ? g.x[g.xoff + ir * g.incx] : T(0);
    }
    __syncthreads();
    if (active) {
      const bool diag = (I == J);
      const index_t left = g.n - (r0 + 8 * a);
      const int m = left >= 8 ? 8 : (left <= 0 ? 0 : int(left));
      if (!diag || a > k) {
        // Off-diagonal 8x8 block: rows r0+8a.., columns c0+8k..
        const T* blk = g.A + (r0 + 8 * a) + g.lda * (c0 + 8 * k);
        T* dT = diag ? s.sD : s.sT;
        T xr[8];
#pragma unroll
        for (int r = 0; r < 8; ++r)
          xr[r] = s.xr[8 * a + r];
        T d[8];
#pragma unroll
        for (int r = 0; r < 8; ++r)
          d[r] = T(0);
#pragma unroll
        for (int c = 0; c < 8; ++c) {
          R comp[8 * Parts<T>::n];
          load_col8<T, Wide, L>(blk + g.lda * c, m, comp);
          const T xc = s.xc[8 * k + c];
          T tc = T(0);
#pragma unroll
          for (int r = 0; r < 8; ++r) {
            const T e = from_parts<T>(comp + r * Parts<T>::n);
            d[r] = madd(e, xc, d[r]);
            tc = madd_conj(e, xr[r], tc);
          }
          dT[(8 * k + c) * 9 + a] = tc;
        }
#pragma unroll
        for (int r = 0; r < 8; ++r)
          s.sD[(8 * a + r) * 9 + k] = d[r];
      } else if (a == k) {
        diag_block<T, L>(g.A, g.lda, r0 + 8 * a, m, s.xc + 8 * a, s.sD + (8 * a) * 9 + a);
      }
    }
    __syncthreads();
    if (active) {
      g.P[(I * g.nt + J) * kTile + t] = tile_tree(s.sD + t * 9);
      if (I != J) g.P[(J * g.nt + I) * kTile + t] = tile_tree(s.sT + t * 9);
    }
    if constexpr (Ticket) {
      __threadfence();
      __syncthreads();
      if (t == 0) {
        flag[grp][0] = active && atomicAdd(g.ticket + I, 1u) == unsigned(g.nt - 1);
        flag[grp][1] = active && I != J && atomicAdd(g.ticket + J, 1u) == unsigned(g.nt - 1);
      }
      __syncthreads();
      if (flag[grp][0] || flag[grp][1]) {
        __threadfence();
        if (flag[grp][0]) row_sum(g, I, t);
        if (flag[grp][1]) row_sum(g, J, t);
        if (t == 0) {
          if (flag[grp][0]) g.ticket[I] = 0u;  // the last draw resets the panel's ticket
          if (flag[grp][1]) g.ticket[J] = 0u;
        }
      }
    }
    __syncthreads();  // shared memory is reused by the next tiles
  }
}

/// twopass, second kernel: two row panels per block of 128 threads.
template <class T>
__global__ void __launch_bounds__(128) symv_rowsums(SymvArgs<T> g) {
  const index_t R = index_t(blockIdx.x) * 2 + (threadIdx.x >> 6);
  if (R < g.nt) row_sum(g, R, threadIdx.x & 63);
}

}  // namespace symv_cuda
}  // namespace eigsolve
