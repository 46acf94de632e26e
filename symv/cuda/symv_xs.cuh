// The exchange variant of symv_tiles (load path `xs`): the same 8x8 blocks, chains and
// partials, but the tile's columns arrive by coalesced loads and reach their threads through a
// small per-warp buffer in shared memory.
//
// Why: in symv_tiles thread (a, k) loads rows 8a..8a+7 of its columns itself, so one warp load
// touches 16 (8-byte scalars) or 32 (16-byte scalars: z, dd) different 128-byte lines; the L1
// handles about one line per clock, which caps z and dd near 16 B/clk/SM (~2.7 TB/s measured).
// Here every warp load is 512 contiguous bytes of one or two columns (4 lines):
//
//   step c (0..7) of warp w (k = 4w .. 4w+3):  the 4 columns 8k+c, rows 0..63 of the tile
//
//     global  --coalesced, lane L: 16-byte unit q*32+L--> registers (prefetched one step ahead,
//                                                       across tiles too)
//     registers --> buf[kk][row + row/8]   (72 elements per column: the row blocks of 8 lanes
//                                           fall in distinct banks for 4-, 8- and 16-byte T)
//     __syncwarp; lane (a, kk) reads buf[kk][9a + r], r = 0..7  ->  the chains of symv_tiles
//
// Diagonal tiles load only the stored lower part (the strict upper part is zero-filled, never
// read); rows past n are zero (0*0 terms leave a chain's bits unchanged).
#pragma once

#include "symv/cuda/symv_kernels.cuh"

namespace eigsolve {
namespace symv_cuda {

constexpr int kXsCol = 72;  ///< buffer elements per column (64 rows + one pad per 8 rows)

template <class T, bool Wide>
struct XsShape {
  /// elements per 16-byte unit (wide) or 1
  static constexpr int E = (Wide && sizeof(T) < 16) ? int(16 / sizeof(T)) : 1;
  static constexpr int kUnits = 4 * kTile / E / 32;  ///< loads per lane per step
  static constexpr int kPerCol = kTile / E;          ///< units per column
  static constexpr int kComp = kUnits * E * Parts<T>::n;
};

template <class T>
struct XsSmem {
  GroupSmem<T> g;
  T buf[2][4 * kXsCol];  ///< one per warp of the group
};

/// Issues the loads of step c of tile `tile` (warp w's 4 columns) into comp (zeros where the
/// element is not stored or past n, or the tile does not exist).
template <class T, bool Wide>
__device__ __forceinline__ void xs_load(const SymvArgs<T>& g, index_t tile, int c, int w, int lane,
                                        typename Parts<T>::R* comp) {
  using R = typename Parts<T>::R;
  using S = XsShape<T, Wide>;
  constexpr int pn = Parts<T>::n;
  if (tile >= g.ntiles) {
#pragma unroll
    for (int s = 0; s < S::kComp; ++s)
      comp[s] = R(0);
    return;
  }
  index_t I, J;
  tile_coords(tile, g.nt, I, J);
  const index_t r0 = I * kTile, c0 = J * kTile;
  const bool diag = I == J;
#pragma unroll
  for (int q = 0; q < S::kUnits; ++q) {
    const int u = q * 32 + lane, kk = u / S::kPerCol, row = (u % S::kPerCol) * S::E;
    const int col = 8 * (4 * w + kk) + c;
    const R* p = reinterpret_cast<const R*>(g.A + (r0 + row) + g.lda * (c0 + col));
    R* dst = comp + q * S::E * pn;
    const bool all = (r0 + row + S::E <= g.n) && (!diag || row >= col);
    if constexpr (S::E > 1) {
      if (all) {
        using V = typename Vec16<R>::type;
        const V v = __ldcs(reinterpret_cast<const V*>(p));
        if constexpr (sizeof(R) == 4) {
          dst[0] = v.x;
          dst[1] = v.y;
          dst[2] = v.z;
          dst[3] = v.w;
        } else {
          dst[0] = v.x;
          dst[1] = v.y;
        }
        continue;
      }
    }
#pragma unroll
    for (int e = 0; e < S::E; ++e) {
      const bool ok = all || ((r0 + row + e < g.n) && (!diag || row + e >= col));
#pragma unroll
      for (int s = 0; s < pn; ++s)
        dst[e * pn + s] = ok ? __ldcs(p + e * pn + s) : R(0);
    }
  }
}

template <class T, bool Wide>
__device__ __forceinline__ void xs_store(const typename Parts<T>::R* comp, int lane, T* buf) {
  using S = XsShape<T, Wide>;
  constexpr int pn = Parts<T>::n;
#pragma unroll
  for (int q = 0; q < S::kUnits; ++q) {
    const int u = q * 32 + lane, kk = u / S::kPerCol, row = (u % S::kPerCol) * S::E;
#pragma unroll
    for (int e = 0; e < S::E; ++e)
      buf[kk * kXsCol + (row + e) + (row + e) / 8] = from_parts<T>(comp + (q * S::E + e) * pn);
  }
}

template <class T, int TPB, bool Wide, bool Ticket>
__global__ void __launch_bounds__(64 * TPB) symv_tiles_xs(SymvArgs<T> g) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  XsSmem<T>* sm = reinterpret_cast<XsSmem<T>*>(smem_raw);
  __shared__ int flag[TPB][2];
  const int grp = threadIdx.x >> 6, t = threadIdx.x & 63, a = t & 7, k = t >> 3;
  const int w = t >> 5, lane = t & 31, kk = lane >> 3;
  GroupSmem<T>& s = sm[grp].g;
  T* buf = sm[grp].buf[w];
  using R = typename Parts<T>::R;
  R comp[XsShape<T, Wide>::kComp];
  const index_t stride = index_t(gridDim.x) * TPB;
  index_t base = index_t(blockIdx.x) * TPB;
  xs_load<T, Wide>(g, base + grp, 0, w, lane, comp);
  for (; base < g.ntiles; base += stride) {
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
    const bool diag = (I == J);
    const bool offd = active && (!diag || a > k);
    T* dT = diag ? s.sD : s.sT;
    T xr[8], d[8];
#pragma unroll
    for (int r = 0; r < 8; ++r) {
      xr[r] = s.xr[8 * a + r];
      d[r] = T(0);
    }
#pragma unroll 1
    for (int c = 0; c < 8; ++c) {
      __syncwarp();
      xs_store<T, Wide>(comp, lane, buf);
      __syncwarp();
      // The next step's loads fly while this step is reduced.
      if (c < 7)
        xs_load<T, Wide>(g, tile, c + 1, w, lane, comp);
      else
        xs_load<T, Wide>(g, tile + stride, 0, w, lane, comp);
      if (offd) {
        const T xc = s.xc[8 * k + c];
        const T* col = buf + kk * kXsCol + 9 * a;
        T tc = T(0);
#pragma unroll
        for (int r = 0; r < 8; ++r) {
          const T e = col[r];
          d[r] = madd(e, xc, d[r]);
          tc = madd_conj(e, xr[r], tc);
        }
        dT[(8 * k + c) * 9 + a] = tc;
      }
    }
    if (offd) {
#pragma unroll
      for (int r = 0; r < 8; ++r)
        s.sD[(8 * a + r) * 9 + k] = d[r];
    } else if (active && a == k) {
      const index_t left = g.n - (r0 + 8 * a);
      const int m = left >= 8 ? 8 : (left <= 0 ? 0 : int(left));
      diag_block<T, 0>(g.A, g.lda, r0 + 8 * a, m, s.xc + 8 * a, s.sD + (8 * a) * 9 + a);
    }
    finish_tile<T, Ticket>(g, active, I, J, t, s.sD, s.sT, flag[grp]);
    __syncthreads();  // shared memory is reused by the next tiles
  }
}

}  // namespace symv_cuda
}  // namespace eigsolve
