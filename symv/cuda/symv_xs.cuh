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
// read); rows past n are zero: with x padded by pad_x a 0 * x term leaves a real chain's bits
// unchanged, and complex chunks cut by n are recomputed without them (fix_absent_rows).
#pragma once

#include "core/dd_chain.hpp"
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
  tile_at(g, tile, I, J);
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
  if constexpr (!Ticket) trigger_rowsums(g);
  xs_load<T, Wide>(g, base + grp, 0, w, lane, comp);
  for (; base < g.ntiles; base += stride) {
    const index_t tile = base + grp;
    const bool active = tile < g.ntiles;
    index_t I = 0, J = 0;
    if (active) tile_at(g, tile, I, J);
    const index_t r0 = I * kTile, c0 = J * kTile;
    if (active) {
      const index_t ic = c0 + t, ir = r0 + t;
      s.xc[t] = ic < g.n ? g.x[g.xoff + ic * g.incx] : pad_x<T>();
      s.xr[t] = ir < g.n ? g.x[g.xoff + ir * g.incx] : pad_x<T>();
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
      fix_absent_rows<false>(
          g, r0, c0, a, k, [&](int c, const T& v) { dT[(8 * k + c) * 9 + a] = v; },
          [&](int c) { return dT[(8 * k + c) * 9 + a]; }, [&](int r) { return s.xr[8 * a + r]; });
    } else if (active && a == k) {
      const index_t left = g.n - (r0 + 8 * a);
      const int m = left >= 8 ? 8 : (left <= 0 ? 0 : int(left));
      diag_block<T, 0>(g.A, g.lda, r0 + 8 * a, m, s.xc + 8 * a, s.sD + (8 * a) * 9 + a);
    }
    finish_tile<T, Ticket>(g, active, I, J, t, s.sD, s.sT, flag[grp]);
    __syncthreads();  // shared memory is reused by the next tiles
  }
}

// ---------------------------------------------------------------------------------------------
// x16: the xs kernel for the 16-byte scalars made of two doubles, complex double (symv_tiles_zxs,
// EIGSOLVE_GPU_SYMV_ZXS) and double-double (symv_tiles_ddxs, EIGSOLVE_GPU_SYMV_DDXS): the same
// chains, trees and partials as symv_tiles_xs / symv_tiles, so the same bits; one body
// (x16_tiles), the arithmetic (madd, madd_conj, tile_tree of T) the only difference.
// Complex<double> and dd_real are only 8-byte aligned, so symv_tiles_xs loads every element as
// two 8-byte halves: each warp load uses 16 of a sector's 32 bytes (the other half comes from L1
// on the second load); z's 8-byte shared accesses of 16-byte-strided elements were 6-7-way bank
// conflicts (dd's compile to 16-byte ones, but its chunk-sum stores sD[(8a+r)*9+k] are 8-way);
// with 164-174 registers and 59.4 KB of shared memory a block of 128 threads fits 3 times per
// SM (12 warps, each with one 4 KB step in flight). Here:
//
//   * every element moves as one double2: ld.global.cs.v2 (when A is 16-byte aligned: then
//     every element is, lda * 16 being a multiple of 16), ld/st.shared.v2 everywhere;
//   * shared memory is swizzled instead of padded (16-byte accesses run in quarter-warp
//     phases of 8 lanes; each phase below touches 8 distinct 16-byte bank groups):
//       buffer, x of panel I :  element i of a 64-element column at  8 (i/8) + ((i%8) ^ (i/8))
//                                (a store phase = 8 rows of one row block; a load phase = lanes
//                                 a = 0..7 reading row 8a + r: groups r ^ a)
//       chunk sums             :  (row, chunk) at  8 row + (chunk ^ (row%8) ^ (row/8))
//                                (direct stores: rows 8a+r, chunk k -> k^r^a; transposed: rows
//                                 8k+c, chunk a -> a^c^k; tree reads: lane t, chunk j -> j^t%8^t/8)
//     so a group needs 26 KB instead of 29.7 KB;
//   * __launch_bounds__(64 TPB, 8 / TPB): at most 128 registers (modes 1 and 2 below).
//   => 4 blocks of 128 threads per SM (16 warps, 64 KB of loads in flight instead of 48 KB).
// ---------------------------------------------------------------------------------------------

using Zd = Complex<double>;

/// 64-element column, swizzled within its row blocks of 8.
__device__ __forceinline__ int x16_sw(int i) {
  return (i & ~7) | ((i ^ (i >> 3)) & 7);
}
/// chunk sum (row, chunk) of a 64 x 8 array.
__device__ __forceinline__ int x16_cs(int row, int chunk) {
  return row * 8 + ((chunk ^ row ^ (row >> 3)) & 7);
}
/// The two doubles of a 16-byte scalar as they lie in memory: (re, im) or (hi, lo).
template <class T>
__device__ __forceinline__ T x16_get(const double2& v) {
  return T(v.x, v.y);
}
__device__ __forceinline__ double2 x16_put(const Zd& v) {
  return make_double2(v.re, v.im);
}
__device__ __forceinline__ double2 x16_put(const dd_real& v) {
  return make_double2(v.hi, v.lo);
}

struct X16Smem {
  double2 xc[kTile];          ///< x of the tile column's panel J
  double2 xr[kTile];          ///< x of the tile row's panel I, x16_sw
  double2 sD[kTile * 8];      ///< chunk sums of the rows of panel I, x16_cs
  double2 sT[kTile * 8];      ///< rows of panel J (transposed partials), x16_cs
  double2 buf[2][4 * kTile];  ///< one per warp: 4 columns of 64 rows, x16_sw
};
static_assert(sizeof(X16Smem) == 26624, "26 KB per group: 4 blocks of 2 groups in 228 KB");

/// The loads of step c of tile `tile` (warp w's columns 8(4w + q/2) + c, rows 32 (q%2) + lane)
/// into v[q], zeros where the element is not stored or past n, or the tile does not exist.
template <class T, bool Wide>
__device__ __forceinline__ void x16_load(const SymvArgs<T>& g, index_t tile, int c, int w, int lane,
                                         double2* v) {
  static_assert(sizeof(T) == 16, "two doubles");
  if (tile >= g.ntiles) {
#pragma unroll
    for (int q = 0; q < 8; ++q)
      v[q] = make_double2(0.0, 0.0);
    return;
  }
  index_t I, J;
  tile_at(g, tile, I, J);
  const index_t r0 = I * kTile, c0 = J * kTile;
  const bool diag = I == J;
#pragma unroll
  for (int q = 0; q < 8; ++q) {
    const int row = (q & 1) * 32 + lane, col = 8 * (4 * w + (q >> 1)) + c;
    const T* p = g.A + (r0 + row) + g.lda * (c0 + col);
    const bool ok = (r0 + row < g.n) && (!diag || row >= col);
    if constexpr (Wide) {
      v[q] = ok ? __ldcs(reinterpret_cast<const double2*>(p)) : make_double2(0.0, 0.0);
    } else {
      const double* h = reinterpret_cast<const double*>(p);
      v[q] = ok ? make_double2(__ldcs(h), __ldcs(h + 1)) : make_double2(0.0, 0.0);
    }
  }
}

/// Where a tile's step loads come from, worked out once per tile (session 63). Before, x16_load
/// and zr_issue ran tile_at (a square root and its integer fix-up) and the bounds tests of every
/// element at every step: Nsight's SASS counts of the dd kernel at n = 16384 (H100) put ~205 of a
/// step's ~890 instructions in the next step's loads. `whole`: the tile exists, lies off the
/// diagonal and has all its 64 rows below n, so each of its elements is stored and present, and
/// step c's loads are p + lda c + (8 lda (q / 2) + 32 (q % 2)) without a test; p is its element
/// (lane, 32 w), warp w's first column. Other tiles (diagonal, last row panel, none) keep the
/// general loads. The same elements either way: the same bits.
template <class T>
struct X16Src {
  const T* p;
  index_t tile;
  bool whole;
};
/// The source of tile `tile`, whose coordinates (I, J) the caller has (any values if it does not
/// exist).
template <class T>
__device__ __forceinline__ X16Src<T> x16_src(const SymvArgs<T>& g, index_t tile, index_t I,
                                             index_t J, int w, int lane) {
  X16Src<T> s;
  s.tile = tile;
  s.whole = g.hoist && tile < g.ntiles && I != J && (I + 1) * kTile <= g.n;
  s.p = s.whole ? g.A + (I * kTile + lane) + g.lda * (J * kTile + 32 * w) : g.A;
  return s;
}
template <class T>
__device__ __forceinline__ X16Src<T> x16_src(const SymvArgs<T>& g, index_t tile, int w, int lane) {
  index_t I = 0, J = 0;
  if (tile < g.ntiles) tile_at(g, tile, I, J);
  return x16_src(g, tile, I, J, w, lane);
}
/// x16_load of step c of the tile of `s`.
template <class T, bool Wide>
__device__ __forceinline__ void x16_load_at(const SymvArgs<T>& g, const X16Src<T>& s, int c, int w,
                                            int lane, double2* v) {
  if (s.whole) {
    const T* pc = s.p + g.lda * c;
    const index_t l8 = g.lda * 8;
#pragma unroll
    for (int q = 0; q < 8; ++q) {
      const T* p = pc + l8 * (q >> 1) + 32 * (q & 1);
      if constexpr (Wide) {
        v[q] = __ldcs(reinterpret_cast<const double2*>(p));
      } else {
        const double* h = reinterpret_cast<const double*>(p);
        v[q] = make_double2(__ldcs(h), __ldcs(h + 1));
      }
    }
  } else {
    x16_load<T, Wide>(g, s.tile, c, w, lane, v);
  }
}

/// One partial to the workspace: one 16-byte store where the workspace is 16-byte aligned.
template <class T>
__device__ __forceinline__ void x16_store_p(T* p, const T& v, bool p16) {
  if (p16)
    *reinterpret_cast<double2*>(p) = x16_put(v);
  else
    *p = v;
}

/// The body of symv_tiles_zxs and symv_tiles_ddxs. XrReg: x of panel I in registers (else read
/// from shared memory at every use). Cut = false: only for n % 8 == 0, where no 8-row block is
/// cut by n, so complex has nothing to recompute (fix_absent_rows, diag_block's skip): the same
/// bits without that code, which costs z's kernels their register allocation (session 57,
/// ptxas: zxs twopass 32 bytes of spills with it, none without).
/// Opt (dd's Var 8, 9 and 7, sessions 63-64; 0 elsewhere): bit 1: each step's column elements
/// read from the buffer one term ahead of their use (Nsight, H100: ptxas put each shared load a
/// dozen instructions before its first product, and the waits on it were a quarter of the
/// kernel's stalls); bit 2: the transposed chain's first term as madd_zero (core/dd_chain.hpp:
/// madd(a, b, +0) bit for bit, without the sum where it changes nothing); bit 4: the other madds
/// as madd_hiword (core/dd_real.hpp: the sum's signed-zero fix-up selects the high word only).
/// The same chains and bits.
template <class T, int TPB, bool Wide, bool Ticket, bool XrReg, bool Cut = true, int Opt = 0>
__device__ __forceinline__ void x16_tiles(const SymvArgs<T>& g) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  X16Smem* sm = reinterpret_cast<X16Smem*>(smem_raw);
  __shared__ int flag[TPB][2];
  const int grp = threadIdx.x >> 6, t = threadIdx.x & 63, a = t & 7, k = t >> 3;
  const int w = t >> 5, lane = t & 31, kk = lane >> 3;
  X16Smem& s = sm[grp];
  double2* buf = s.buf[w];
  const bool p16 = (reinterpret_cast<std::uintptr_t>(g.P) & 15) == 0;
  double2 v[8];
  const index_t stride = index_t(gridDim.x) * TPB;
  index_t base = index_t(blockIdx.x) * TPB;
  // The hoisted loads (x16_src) for dd only: with them ptxas gave complex double's cut-block zxs
  // kernel 52-68 bytes of spills, and z at n = 4096 (mode 1, the kernel below 6144) measured 3-5 %
  // slower on an H100 (session 63; possibly the order of the processes, which showed the same
  // 3 % with the old code); the zr kernel, z's from 6144 up, keeps them.
  constexpr bool kHoist = std::is_same_v<T, dd_real>;
  if constexpr (!Ticket) trigger_rowsums(g);
  if constexpr (kHoist)
    x16_load_at<T, Wide>(g, x16_src(g, base + grp, w, lane), 0, w, lane, v);
  else
    x16_load<T, Wide>(g, base + grp, 0, w, lane, v);
  for (; base < g.ntiles; base += stride) {
    const index_t tile = base + grp;
    const bool active = tile < g.ntiles;
    index_t I = 0, J = 0;
    if (active) tile_at(g, tile, I, J);
    const X16Src<T> src = x16_src(g, tile, I, J, w, lane);
    const index_t r0 = I * kTile, c0 = J * kTile;
    if (active) {
      const index_t ic = c0 + t, ir = r0 + t;
      s.xc[t] = x16_put(ic < g.n ? g.x[g.xoff + ic * g.incx] : T(0));
      s.xr[x16_sw(t)] = x16_put(ir < g.n ? g.x[g.xoff + ir * g.incx] : T(0));
    }
    __syncthreads();
    const bool diag = (I == J);
    const bool offd = active && (!diag || a > k);
    double2* dT = diag ? s.sD : s.sT;
    T xr[8], d[8];
#pragma unroll
    for (int r = 0; r < 8; ++r) {
      if constexpr (XrReg) xr[r] = x16_get<T>(s.xr[8 * a + (r ^ a)]);
      d[r] = T(0);
    }
#pragma unroll 1
    for (int c = 0; c < 8; ++c) {
      __syncwarp();
#pragma unroll
      for (int q = 0; q < 8; ++q)
        buf[(q >> 1) * kTile + x16_sw((q & 1) * 32 + lane)] = v[q];
      __syncwarp();
      // The next step's loads fly while this step is reduced.
      if constexpr (kHoist) {
        if (c < 7)
          x16_load_at<T, Wide>(g, src, c + 1, w, lane, v);
        else
          x16_load_at<T, Wide>(g, x16_src(g, tile + stride, w, lane), 0, w, lane, v);
      } else {
        if (c < 7)
          x16_load<T, Wide>(g, tile, c + 1, w, lane, v);
        else
          x16_load<T, Wide>(g, tile + stride, 0, w, lane, v);
      }
      if (offd) {
        const T xc = x16_get<T>(s.xc[8 * k + c]);
        const double2* col = buf + kk * kTile + 8 * a;
        const double2* xs = s.xr + 8 * a;
        T tc = T(0);
        T ahead = (Opt & 1) ? x16_get<T>(col[a]) : T(0);  // Opt 1: the element of row r (r ^ a)
#pragma unroll
        for (int r = 0; r < 8; ++r) {
          T e;
          if constexpr ((Opt & 1) != 0) {
            e = ahead;
            if (r < 7) ahead = x16_get<T>(col[(r + 1) ^ a]);
          } else {
            e = x16_get<T>(col[r ^ a]);
          }
          const T xv = XrReg ? xr[r] : x16_get<T>(xs[r ^ a]);
          if constexpr ((Opt & 4) != 0 && std::is_same_v<T, dd_real>) {
            d[r] = madd_hiword(e, xc, d[r]);
            if (r == 0)
              tc = madd_zero(e, xv);
            else
              tc = madd_hiword(e, xv, tc);
          } else {
            d[r] = madd(e, xc, d[r]);
            if constexpr ((Opt & 2) != 0 && std::is_same_v<T, dd_real>) {
              if (r == 0)
                tc = madd_zero(e, xv);
              else
                tc = madd_conj(e, xv, tc);
            } else {
              tc = madd_conj(e, xv, tc);
            }
          }
        }
        dT[x16_cs(8 * k + c, a)] = x16_put(tc);
      }
    }
    if (diag) __syncwarp();  // the buffer becomes diag_block's scratch (diag: uniform per group)
    if (offd) {
#pragma unroll
      for (int r = 0; r < 8; ++r)
        s.sD[x16_cs(8 * a + r, k)] = x16_put(d[r]);
      if constexpr (Cut)
        fix_absent_rows<true>(
            g, r0, c0, a, k, [&](int c, const T& v) { dT[x16_cs(8 * k + c, a)] = x16_put(v); },
            [&](int c) { return x16_get<T>(dT[x16_cs(8 * k + c, a)]); },
            [&](int r) { return x16_get<T>(s.xr[8 * a + (r ^ a)]); });
    } else if (active && a == k) {
      // diag_block writes its 8 row chains 9 apart: to this warp's buffer, then to sD.
      const index_t left = g.n - (r0 + 8 * a);
      const int m = left >= 8 ? 8 : (left <= 0 ? 0 : int(left));
      T* tmp = reinterpret_cast<T*>(buf) + (a & 3);
      diag_block<T, 0, Cut>(g.A, g.lda, r0 + 8 * a, m, reinterpret_cast<const T*>(s.xc) + 8 * a,
                            tmp);
#pragma unroll
      for (int r = 0; r < 8; ++r)
        s.sD[x16_cs(8 * a + r, a)] = x16_put(tmp[9 * r]);
    }
    __syncthreads();
    if (active) {
      T ch[8];
#pragma unroll
      for (int j = 0; j < 8; ++j)
        ch[j] = x16_get<T>(s.sD[x16_cs(t, j)]);
      x16_store_p(g.P + (I * g.nt + J) * kTile + t, tile_tree(ch), p16);
      if (I != J) {
#pragma unroll
        for (int j = 0; j < 8; ++j)
          ch[j] = x16_get<T>(s.sT[x16_cs(t, j)]);
        x16_store_p(g.P + (J * g.nt + I) * kTile + t, tile_tree(ch), p16);
      }
    }
    if constexpr (Ticket) draw_tickets(g, active, I, J, t, flag[grp]);
    __syncthreads();  // shared memory is reused by the next tiles
  }
}

/// Complex double. Mode (the value of EIGSOLVE_GPU_SYMV_ZXS): 1: x of panel I read from shared
/// memory at every use, at most 128 registers (no spills); 2: x of panel I in registers, at most
/// 128 registers (a few spilled); 3: x of panel I in registers, at most 170 registers (3 blocks
/// of 128 threads per SM, as symv_tiles_xs: isolates the gain of the 16-byte accesses).
/// Cut = false: launched only where n % 8 == 0 (x16_tiles).
template <int TPB, bool Wide, bool Ticket, int Mode, bool Cut = true>
__global__ void __launch_bounds__(64 * TPB, Mode == 3 ? (TPB == 4 ? 1 : 6 / TPB) : 8 / TPB)
    symv_tiles_zxs(SymvArgs<Zd> g) {
  x16_tiles<Zd, TPB, Wide, Ticket, Mode != 1, Cut>(g);
}

// ---------------------------------------------------------------------------------------------
// zr: x16_tiles with the tile's columns copied straight into a ring of shared buffers
// (cp.async, S steps per warp: S - 1 in flight while one is reduced, across tiles too) instead
// of through registers, and the transposed chunk sums reduced by warp shuffles instead of
// through shared memory. Complex double: EIGSOLVE_GPU_SYMV_ZXS=4 (S = 2, x of panel I from
// shared memory, <= 128 registers, 4 blocks of 2 groups per SM) and 5 (S = 3, x of panel I in
// registers, <= 170 registers, 3 blocks of 2 groups); double-double: EIGSOLVE_GPU_SYMV_DDXS=5
// and 6 (x in registers, S = 2 and 3). The default for z since session 60: ZXS=4 (n = 16384: H100
// -2 to -3 %, H200 -6 to -7 %); dd keeps DDXS=4 (5 is 1.4 % faster on an H100 but 3-7 % slower on
// the H200; bench/NOTES.md "Session 61"). The chains, the trees and the
// partials are x16_tiles':
//
//   step c, off-diagonal tile: the 8 lanes a = 0..7 of one k hold the 8 chunks of the transposed
//   row 8k + c; three butterflies (lane ^ 1, ^ 2, ^ 4; the lower a always the left operand) are
//   tile_tree's ((c0 + c1) + (c2 + c3)) + ((c4 + c5) + (c6 + c7)), and lane a == c keeps it:
//   thread t = a + 8k ends the tile with row t's transposed partial P(J, I)[t] in a register.
//   Diagonal tiles keep x16_tiles' chunk array (sD) for both kinds of chunk.
//
// Only where A is 16-byte aligned (16-byte copies) and the variant is two-pass; the launcher runs
// mode 1 elsewhere. A kernel without the cut-block code where n % 8 == 0 (Cut = false).
// Shared memory per group: x (2 KB), sD (8 KB), the ring (2 warps x S x 4 KB).
// ---------------------------------------------------------------------------------------------

template <int S>
struct ZrSmem {
  double2 xc[kTile];              ///< x of the tile column's panel J
  double2 xr[kTile];              ///< x of the tile row's panel I, x16_sw
  double2 sD[kTile * 8];          ///< chunk sums, x16_cs (direct; diagonal tiles: all)
  double2 ring[2][S][4 * kTile];  ///< per warp: S steps of 4 columns of 64 rows, x16_sw
};

/// The L2 policy of the ring's copies: evict first, as the other kernels' ld.global.cs (the
/// partials, written beside the stream of A, stay in L2 for the row sums).
__device__ __forceinline__ unsigned long long zr_policy() {
  unsigned long long p;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\n" : "=l"(p));
  return p;
}

/// Copies step c of tile `tile` (warp w's columns 8(4w + q/2) + c, rows 32 (q%2) + lane, as
/// x16_load) into dst, zero-filled where the element is not stored or past n; one cp.async group
/// (empty where the tile does not exist).
template <class T>
__device__ __forceinline__ void zr_issue(const SymvArgs<T>& g, index_t tile, int c, int w, int lane,
                                         double2* dst, unsigned long long pol) {
  if (tile < g.ntiles) {
    index_t I, J;
    tile_at(g, tile, I, J);
    const index_t r0 = I * kTile, c0 = J * kTile;
    const bool diag = I == J;
#pragma unroll
    for (int q = 0; q < 8; ++q) {
      const int row = (q & 1) * 32 + lane, col = 8 * (4 * w + (q >> 1)) + c;
      const bool ok = (r0 + row < g.n) && (!diag || row >= col);
      const T* p = ok ? g.A + (r0 + row) + g.lda * (c0 + col) : g.A;
      const unsigned d =
          static_cast<unsigned>(__cvta_generic_to_shared(dst + (q >> 1) * kTile + x16_sw(row)));
      asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2, %3;\n" ::"r"(d),
                   "l"(p), "r"(ok ? 16 : 0), "l"(pol));
    }
  }
  cp_async_commit();
}
/// zr_issue of step c of the tile of `s` (x16_src).
template <class T>
__device__ __forceinline__ void zr_issue_at(const SymvArgs<T>& g, const X16Src<T>& s, int c, int w,
                                            int lane, double2* dst, unsigned long long pol) {
  if (!s.whole) {
    zr_issue(g, s.tile, c, w, lane, dst, pol);
    return;
  }
  const T* pc = s.p + g.lda * c;
  const index_t l8 = g.lda * 8;
#pragma unroll
  for (int q = 0; q < 8; ++q) {
    const T* p = pc + l8 * (q >> 1) + 32 * (q & 1);
    const unsigned d = static_cast<unsigned>(
        __cvta_generic_to_shared(dst + (q >> 1) * kTile + x16_sw((q & 1) * 32 + lane)));
    asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, 16, %2;\n" ::"r"(d),
                 "l"(p), "l"(pol));
  }
  cp_async_commit();
}

template <int N>
__device__ __forceinline__ void cp_async_wait_n() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

/// One butterfly level of the transposed tree: the lane's value and its partner's (lane ^ m),
/// the one of the lower a on the left.
template <class T>
__device__ __forceinline__ T zr_bfly(const T& v, int a, int m) {
  const double2 u = x16_put(v);
  const T o = x16_get<T>(
      make_double2(__shfl_xor_sync(0xffffffffu, u.x, m), __shfl_xor_sync(0xffffffffu, u.y, m)));
  return (a & m) ? o + v : v + o;
}

/// Cut = false: only for n % 8 == 0. Cut = true: a thread whose 8-row block n cuts (m < 8 rows
/// present, the last row panel only) recomputes its transposed chunk over the present rows when
/// a component is zero, from the step's buffer, before the tree (fix_absent_rows' gated form,
/// one step at a time); the diagonal blocks skip their absent columns (diag_block).
/// T: complex double or double-double (the same body, as x16_tiles; Cut only for complex).
template <class T, int TPB, int S, bool XrReg, bool Cut>
__global__ void __launch_bounds__(64 * TPB, (S <= 2 ? 8 : 6) / TPB) symv_tiles_zr(SymvArgs<T> g) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  ZrSmem<S>* sm = reinterpret_cast<ZrSmem<S>*>(smem_raw);
  const int grp = threadIdx.x >> 6, t = threadIdx.x & 63, a = t & 7, k = t >> 3;
  const int w = t >> 5, lane = t & 31, kk = lane >> 3;
  ZrSmem<S>& s = sm[grp];
  double2(*ring)[4 * kTile] = s.ring[w];
  const bool p16 = (reinterpret_cast<std::uintptr_t>(g.P) & 15) == 0;
  const unsigned long long pol = zr_policy();
  const index_t stride = index_t(gridDim.x) * TPB;
  index_t base = index_t(blockIdx.x) * TPB;
  trigger_rowsums(g);
  {
    const X16Src<T> first = x16_src(g, base + grp, w, lane);
#pragma unroll
    for (int j = 0; j < S - 1; ++j)
      zr_issue_at(g, first, j, w, lane, ring[j], pol);
  }
  int gs = 0;  // this group's step count: step gs lives in ring[gs % S]
  for (; base < g.ntiles; base += stride) {
    const index_t tile = base + grp;
    const bool active = tile < g.ntiles;
    index_t I = 0, J = 0;
    if (active) tile_at(g, tile, I, J);
    // The steps S - 1 ahead: this tile's, then (cn >= 8) the next tile's.
    const X16Src<T> src = x16_src(g, tile, I, J, w, lane);
    const X16Src<T> nsrc = x16_src(g, tile + stride, w, lane);
    const index_t r0 = I * kTile, c0 = J * kTile;
    if (active) {
      const index_t ic = c0 + t, ir = r0 + t;
      s.xc[t] = x16_put(ic < g.n ? g.x[g.xoff + ic * g.incx] : T(0));
      s.xr[x16_sw(t)] = x16_put(ir < g.n ? g.x[g.xoff + ir * g.incx] : T(0));
    }
    __syncthreads();
    const bool diag = (I == J);
    const bool offd = active && (!diag || a > k);
    T xr[8], d[8], tsum = T(0);
#pragma unroll
    for (int r = 0; r < 8; ++r) {
      if constexpr (XrReg) xr[r] = x16_get<T>(s.xr[8 * a + (r ^ a)]);
      d[r] = T(0);
    }
#pragma unroll 1
    for (int c = 0; c < 8; ++c, ++gs) {
      cp_async_wait_n<S - 2>();  // step gs: this lane's copies landed
      __syncwarp();              // every lane's; every lane done with step gs - 1's buffer
      const int cn = c + S - 1;  // the step S - 1 ahead, into step gs - 1's buffer
      zr_issue_at(g, cn < 8 ? src : nsrc, cn & 7, w, lane, ring[(gs + S - 1) % S], pol);
      const double2* buf = ring[gs % S];
      if (offd) {
        const T xc = x16_get<T>(s.xc[8 * k + c]);
        const double2* col = buf + kk * kTile + 8 * a;
        const double2* xs = s.xr + 8 * a;
        T tc = T(0);
#pragma unroll
        for (int r = 0; r < 8; ++r) {
          const T e = x16_get<T>(col[r ^ a]);
          d[r] = madd(e, xc, d[r]);
          tc = madd_conj(e, XrReg ? xr[r] : x16_get<T>(xs[r ^ a]), tc);
        }
        if constexpr (Cut && is_complex_v<T>) {
          const index_t left = g.n - (r0 + 8 * a);
          if (left < 8 && (tc.re == 0 || tc.im == 0)) {
            const int m = left <= 0 ? 0 : int(left);
            tc = T(0);
#pragma unroll 1
            for (int r = 0; r < m; ++r)
              tc = madd_conj(x16_get<T>(col[r ^ a]), x16_get<T>(xs[r ^ a]), tc);
          }
        }
        if (diag) {
          s.sD[x16_cs(8 * k + c, a)] = x16_put(tc);
        } else {  // whole warps: every thread of an off-diagonal tile is offd
          tc = zr_bfly(tc, a, 1);
          tc = zr_bfly(tc, a, 2);
          tc = zr_bfly(tc, a, 4);
          if (a == c) tsum = tc;
        }
      }
    }
    if (diag) __syncwarp();  // the last step's buffer becomes diag_block's scratch
    if (offd) {
#pragma unroll
      for (int r = 0; r < 8; ++r)
        s.sD[x16_cs(8 * a + r, k)] = x16_put(d[r]);
    } else if (active && a == k) {
      // diag_block writes its 8 row chains 9 apart: to this warp's free buffer, then to sD.
      const index_t left = g.n - (r0 + 8 * a);
      const int m = left >= 8 ? 8 : (left <= 0 ? 0 : int(left));
      T* tmp = reinterpret_cast<T*>(ring[(gs - 1) % S]) + (a & 3);
      diag_block<T, 0, Cut>(g.A, g.lda, r0 + 8 * a, m, reinterpret_cast<const T*>(s.xc) + 8 * a,
                            tmp);
#pragma unroll
      for (int r = 0; r < 8; ++r)
        s.sD[x16_cs(8 * a + r, a)] = x16_put(tmp[9 * r]);
    }
    __syncthreads();
    if (active) {
      T ch[8];
#pragma unroll
      for (int j = 0; j < 8; ++j)
        ch[j] = x16_get<T>(s.sD[x16_cs(t, j)]);
      x16_store_p(g.P + (I * g.nt + J) * kTile + t, tile_tree(ch), p16);
      if (I != J) x16_store_p(g.P + (J * g.nt + I) * kTile + t, tsum, p16);
    }
    __syncthreads();  // sD and x are reused by the next tiles
  }
  asm volatile("cp.async.wait_all;\n" ::);
}

// ---------------------------------------------------------------------------------------------
// rr: symv_tiles' chains for float and double with the tile's columns copied straight into a
// ring of shared buffers (cp.async, 16-byte units, S steps per warp: S - 1 in flight while one is
// reduced, across tiles too) instead of loaded into registers a whole tile at a time, and the
// transposed chunk sums of off-diagonal tiles reduced by warp shuffles (zr's butterflies). Opt-in:
// EIGSOLVE_GPU_SYMV_RR=S (2, 3, 4 or 6) for the two-pass plain configurations (ldg, cg, cs) whose
// 16-byte loads apply (A and every column on 16-byte lines); the others keep their kernels.
// Measured slower than symv_tiles (session 61, n = 16384: H100 s +22-28 %, d -0.5 to +1 %; H200
// s +63 %, d +9 %; bench/NOTES.md "Session 61"), so off by default.
//
//   thread t = a + 8k of a group (warp w = k / 4, kk = k % 4): step c of a tile is column
//   8k + c, rows 8a .. 8a+7 (symv_tiles' 8x8 block (a, k), one column per step):
//     d[r] = fma(A(8a+r, 8k+c), x(8k+c), d[r])          direct chain of row 8a+r, chunk k
//     tc   = fma(A(8a+r, 8k+c), x(8a+r), tc), r = 0..7  transposed chain of row 8k+c, chunk a
//   warp w's step: 4 columns (kk = 0..3) x 64 rows = 1 KB (float) / 2 KB (double) in the ring,
//   a column's 8-row blocks as U = 2 (float) / 4 (double) 16-byte units each, unit h of block a
//   at U a + (h ^ (a / (8 / U))): the 8 lanes of a quarter warp read 8 distinct bank groups.
//
// The same chains, trees and partials as symv_tiles (A's absent elements are zero-filled copies,
// x padded with -0: fma(+0, -0, s) = s): the same bits by construction.
// ---------------------------------------------------------------------------------------------

template <class T>
constexpr int kRrUnits = 8 * int(sizeof(T)) / 16;  ///< 16-byte units of one 8-row block column

template <class T, int S>
struct RrSmem {
  alignas(16) T ring[2][S][4 * kTile];  ///< per warp: S steps of 4 columns of 64 rows (rr_pos)
  T xc[kTile];                          ///< x of the tile column's panel J
  T xr[kTile];                          ///< x of the tile row's panel I
  T sD[kTile * 9];                      ///< sD[row * 9 + chunk] (diagonal tiles: every chunk)
};

/// Where unit h of 8-row block a of a column lies in the ring (units of 16 bytes).
template <class T>
__device__ __forceinline__ int rr_pos(int a, int h) {
  constexpr int U = kRrUnits<T>;
  return U * a + (h ^ (a / (8 / U)));
}

/// Copies step c of tile `tile` (warp w's columns 8(4w + kk) + c, kk = 0..3, all 64 rows) into
/// dst, zero-filled where an element is not stored (a diagonal tile's blocks a <= k, which
/// diag_block reads itself) or lies past n; one cp.async group (empty where the tile does not
/// exist).
template <class T>
__device__ __forceinline__ void rr_issue(const SymvArgs<T>& g, index_t tile, int c, int w, int lane,
                                         T* dst, unsigned long long pol) {
  constexpr int U = kRrUnits<T>, E = 16 / int(sizeof(T));
  if (tile < g.ntiles) {
    index_t I, J;
    tile_at(g, tile, I, J);
    const index_t r0 = I * kTile, c0 = J * kTile;
    const bool diag = I == J;
#pragma unroll
    for (int q = 0; q < U; ++q) {
      const int id = q * 32 + lane, kk = id / (8 * U), v = id % (8 * U), a = v / U, h = v % U;
      const int row = 8 * a + E * h, k = 4 * w + kk, col = 8 * k + c;
      const index_t left = g.n - (r0 + row);
      const int nv = left >= E ? E : (left <= 0 ? 0 : int(left));
      const bool ok = (c0 + col < g.n) && (!diag || a > k) && nv > 0;
      const T* p = ok ? g.A + (r0 + row) + g.lda * (c0 + col) : g.A;
      const unsigned d =
          static_cast<unsigned>(__cvta_generic_to_shared(dst + kk * kTile + E * rr_pos<T>(a, h)));
      asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2, %3;\n" ::"r"(d),
                   "l"(p), "r"(ok ? nv * int(sizeof(T)) : 0), "l"(pol));
    }
  }
  cp_async_commit();
}

/// zr_bfly for float and double: one butterfly level of the transposed tree, the value of the
/// lower a on the left.
template <class T>
__device__ __forceinline__ T rr_bfly(T v, int a, int m) {
  const T o = __shfl_xor_sync(0xffffffffu, v, m);
  return (a & m) ? o + v : v + o;
}

template <class T, int TPB, int S>
__global__ void __launch_bounds__(64 * TPB) symv_tiles_rr(SymvArgs<T> g) {
  constexpr int U = kRrUnits<T>, E = 16 / int(sizeof(T));
  using V = typename Vec16<T>::type;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  RrSmem<T, S>* sm = reinterpret_cast<RrSmem<T, S>*>(smem_raw);
  const int grp = threadIdx.x >> 6, t = threadIdx.x & 63, a = t & 7, k = t >> 3;
  const int w = t >> 5, lane = t & 31, kk = lane >> 3;
  RrSmem<T, S>& s = sm[grp];
  T(*ring)[4 * kTile] = s.ring[w];
  const unsigned long long pol = zr_policy();
  const index_t stride = index_t(gridDim.x) * TPB;
  index_t base = index_t(blockIdx.x) * TPB;
  trigger_rowsums(g);
#pragma unroll
  for (int j = 0; j < S - 1; ++j)
    rr_issue(g, base + grp, j, w, lane, ring[j], pol);
  int gs = 0;  // this group's step count: step gs lives in ring[gs % S]
  for (; base < g.ntiles; base += stride) {
    const index_t tile = base + grp;
    const bool active = tile < g.ntiles;
    index_t I = 0, J = 0;
    if (active) tile_at(g, tile, I, J);
    const index_t r0 = I * kTile, c0 = J * kTile;
    if (active) {
      const index_t ic = c0 + t, ir = r0 + t;
      s.xc[t] = ic < g.n ? g.x[g.xoff + ic * g.incx] : pad_x<T>();
      s.xr[t] = ir < g.n ? g.x[g.xoff + ir * g.incx] : pad_x<T>();
    }
    __syncthreads();
    const bool diag = (I == J);
    const bool offd = active && (!diag || a > k);
    T xr[8], d[8], tsum = T(0);
#pragma unroll
    for (int r = 0; r < 8; ++r) {
      xr[r] = s.xr[8 * a + r];
      d[r] = T(0);
    }
#pragma unroll 1
    for (int c = 0; c < 8; ++c, ++gs) {
      cp_async_wait_n<S - 2>();  // step gs: this lane's copies landed
      __syncwarp();              // every lane's; every lane done with step gs - 1's buffer
      const int cn = c + S - 1;  // the step S - 1 ahead, into step gs - 1's buffer
      rr_issue(g, cn < 8 ? tile : tile + stride, cn & 7, w, lane, ring[(gs + S - 1) % S], pol);
      if (offd) {
        const T* col = ring[gs % S] + kk * kTile;
        T e[8];
#pragma unroll
        for (int h = 0; h < U; ++h) {
          const V u = *reinterpret_cast<const V*>(col + E * rr_pos<T>(a, h));
          if constexpr (E == 4) {
            e[4 * h] = u.x;
            e[4 * h + 1] = u.y;
            e[4 * h + 2] = u.z;
            e[4 * h + 3] = u.w;
          } else {
            e[2 * h] = u.x;
            e[2 * h + 1] = u.y;
          }
        }
        const T xc = s.xc[8 * k + c];
        T tc = T(0);
#pragma unroll
        for (int r = 0; r < 8; ++r) {
          d[r] = madd(e[r], xc, d[r]);
          tc = madd_conj(e[r], xr[r], tc);
        }
        if (diag) {
          s.sD[(8 * k + c) * 9 + a] = tc;
        } else {  // whole warps: every thread of an off-diagonal tile is offd
          tc = rr_bfly(tc, a, 1);
          tc = rr_bfly(tc, a, 2);
          tc = rr_bfly(tc, a, 4);
          if (a == c) tsum = tc;
        }
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
    __syncthreads();
    if (active) {
      g.P[(I * g.nt + J) * kTile + t] = tile_tree(s.sD + t * 9);
      if (I != J) g.P[(J * g.nt + I) * kTile + t] = tsum;
    }
    __syncthreads();  // sD and x are reused by the next tiles
  }
  asm volatile("cp.async.wait_all;\n" ::);
}

/// Double-double (the same 16 madds per thread and step as symv_tiles_xs<dd_real>, ~30 FP64
/// operations each). Var (symv_launch.cuh's ddxs_mode() maps EIGSOLVE_GPU_SYMV_DDXS to it):
/// 1: x of panel I read from shared memory at every use, at most 128 registers (4 blocks of 128
/// threads per SM; ptxas: twopass no spills, ticket ~80 B); 3: x of panel I in registers, at most
/// 168 registers (3 blocks per SM, as symv_tiles_xs: isolates the gain of the 16-byte moves);
/// 8, 9 (session 63): Var 3 with x16_tiles' Opt 1 (the column elements read one term ahead) and
/// Opt 3 (that and the transposed chain's first term as madd_zero; the default in session 64:
/// H200, n = 16384, 720-731 us against Var 3's 748-756); 7 (session 64; the default since
/// session 65, 0.6-2.5 % faster than 9 on an H100): Opt 7, Var 9's with every other madd as
/// madd_hiword (core/dd_real.hpp: the signed-zero fix-up selects the high word only). Session 63
/// measured and removed three others (H100, n = 16384): the column steps unrolled by 2 (equal),
/// room for 192 registers at 8 warps per SM (4 % slower), and session 62's Var 7, the code held
/// to 144 registers for 7 groups per SM (14-17 % slower).
template <int TPB, bool Wide, bool Ticket, int Var>
__global__ void __launch_bounds__(64 * TPB, Var == 1 ? 8 / TPB : (TPB == 4 ? 1 : 6 / TPB))
    symv_tiles_ddxs(SymvArgs<dd_real> g) {
  x16_tiles<dd_real, TPB, Wide, Ticket, Var != 1, true,
            Var == 8 ? 1 : (Var == 9 ? 3 : (Var == 7 ? 7 : 0))>(g);
}

}  // namespace symv_cuda
}  // namespace eigsolve
