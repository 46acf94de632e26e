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
#include "symv/cuda/tile_order.cuh"

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

/// ld.global.cs with an L2 prefetch-size hint of B bytes (128 or 256: the L2 fetches the whole
/// aligned block from DRAM on a miss). A hint only: the same value as __ldcs.
template <int B, class V>
__device__ __forceinline__ V ldcs_pf(const V* p) {
  static_assert(B == 128 || B == 256, "prefetch size");
  if constexpr (std::is_same<V, float4>::value) {
    V v;
    if constexpr (B == 256)
      asm("ld.global.cs.L2::256B.v4.f32 {%0,%1,%2,%3}, [%4];"
          : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
          : "l"(p));
    else
      asm("ld.global.cs.L2::128B.v4.f32 {%0,%1,%2,%3}, [%4];"
          : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
          : "l"(p));
    return v;
  } else if constexpr (std::is_same<V, double2>::value) {
    V v;
    if constexpr (B == 256)
      asm("ld.global.cs.L2::256B.v2.f64 {%0,%1}, [%2];" : "=d"(v.x), "=d"(v.y) : "l"(p));
    else
      asm("ld.global.cs.L2::128B.v2.f64 {%0,%1}, [%2];" : "=d"(v.x), "=d"(v.y) : "l"(p));
    return v;
  } else if constexpr (std::is_same<V, float>::value) {
    V v;
    if constexpr (B == 256)
      asm("ld.global.cs.L2::256B.f32 %0, [%1];" : "=f"(v) : "l"(p));
    else
      asm("ld.global.cs.L2::128B.f32 %0, [%1];" : "=f"(v) : "l"(p));
    return v;
  } else if constexpr (std::is_same<V, double>::value) {
    V v;
    if constexpr (B == 256)
      asm("ld.global.cs.L2::256B.f64 %0, [%1];" : "=d"(v) : "l"(p));
    else
      asm("ld.global.cs.L2::128B.f64 %0, [%1];" : "=d"(v) : "l"(p));
    return v;
  } else {
    return __ldcs(p);
  }
}

/// Component loads with the cache policy L (SymvLoad: 0 ldg, 1 cg, 2 cs); 5 and 6: cs with an
/// L2 prefetch-size hint of 256 and 128 bytes (opt-in EIGSOLVE_GPU_SYMV_PF, symv_launch.cuh).
template <int L, class V>
__device__ __forceinline__ V ld(const V* p) {
  if constexpr (L == 0)
    return __ldg(p);
  else if constexpr (L == 1)
    return __ldcg(p);
  else if constexpr (L == 5)
    return ldcs_pf<256>(p);
  else if constexpr (L == 6)
    return ldcs_pf<128>(p);
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

/// x's padding past n: -0 for the real types, so that a padded term (A's padding is +0) is
/// fma(+0, -0, s) = s for every s, -0 included (a chain from +0 holds -0 after a negative
/// product that underflows to zero; +0 * +0 would make it +0: docs/reproducibility.md, "absent"
/// against zero terms; the CPU's symv/reference.cpp pads the same way). Complex and dd: +0, as
/// on the CPU. For complex no choice of signs works for the four-fma madd, so the chunks that n
/// cuts are recomputed without the padded terms (fix_absent_rows, diag_block); for dd +0
/// padding is exact (a dd chain from +0 never holds a -0: docs/canonical-symv.md).
template <class T>
__device__ __forceinline__ T pad_x() {
  if constexpr (std::is_same<T, float>::value || std::is_same<T, double>::value)
    return T(-0.0);
  else
    return T(0);
}

/// Loads rows 0..7 of one column segment into components (8 * Parts<T>::n reals).
/// m < 8: rows >= m are zero (A's padding: against x's pad_x, a term that changes nothing).
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

/// load_col8's 16-byte loads for columns that start `sh` components (0 < sh < 16 / sizeof(R))
/// past a 16-byte boundary, every column alike (lda * sizeof(T) % 16 == 0): the lane loads the
/// aligned units from p - sh; the components past them (rows 8(a+1).. of the same column) are the
/// first ones of the next lane's units (__shfl_down), or the lane's own loads for the last row
/// block (last: a == 7). All 8 rows present. Called by all 32 lanes of the warp together.
///
///    p - sh       p                               p + 8 rows
///    |  .  .  x  x  x  x  x  x  x  x |  x  .      this lane's units | the next lane's first
///            <------ comp[0 .. nc) ------>
template <class T, int L>
__device__ __forceinline__ void load_col8_shift(const T* p, int sh, bool last,
                                                typename Parts<T>::R* comp) {
  using R = typename Parts<T>::R;
  using V = typename Vec16<R>::type;
  constexpr int per = 16 / sizeof(R), nc = 8 * Parts<T>::n;
  const R* q = reinterpret_cast<const R*>(p) - sh;
  const V* v = reinterpret_cast<const V*>(q);
  R raw[nc + per - 1];
#pragma unroll
  for (int s = 0; s < nc / per; ++s) {
    const V w = ld<L>(v + s);
    if constexpr (per == 4) {
      raw[4 * s] = w.x;
      raw[4 * s + 1] = w.y;
      raw[4 * s + 2] = w.z;
      raw[4 * s + 3] = w.w;
    } else {
      raw[2 * s] = w.x;
      raw[2 * s + 1] = w.y;
    }
  }
#pragma unroll
  for (int j = 0; j < per - 1; ++j) {
    const R nx = __shfl_down_sync(0xffffffffu, raw[j], 1);
    raw[nc + j] = last ? (j < sh ? ld<L>(q + nc + j) : R(0)) : nx;
  }
#pragma unroll
  for (int s = 0; s < nc; ++s) {
    if constexpr (per == 2)
      comp[s] = raw[s + 1];
    else
      comp[s] = sh == 1 ? raw[s + 1] : (sh == 2 ? raw[s + 2] : raw[s + 3]);
  }
}

template <class T>
__device__ __forceinline__ T real_diag(const T& a) {
  if constexpr (is_complex_v<T>)
    return T(a.re, real_t<T>(0));
  else
    return a;
}

/// SymvArgs::rows_mode's flags.
constexpr unsigned char kRowsWide = 1, kRowsPdl = 2;

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
  bool rev;        ///< tiles visited last to first (tile t is stored tile ntiles-1-t): same bits
  bool discard_p;  ///< the row sums drop P's lines from L2 (rowsums_discard); in rev's padding
  /// kRowsWide: the row sums stage P by 16-byte copies (rowsums_stage); kRowsPdl: the row sums
  /// are a programmatic dependent launch that the tile kernel triggers when it starts
  /// (trigger_rowsums). In the padding: the struct does not grow.
  unsigned char rows_mode;
  /// dd's x16_tiles and symv_tiles_zr take the loads of a whole off-diagonal tile from a source
  /// worked out once per tile (x16_src; EIGSOLVE_GPU_SYMV_HOIST=0: false, the general loads at
  /// every step). The same elements: the same bits.
  bool hoist;
  /// Host side only (launch_plain reads it, no kernel does): the configuration's early columns
  /// (SymvConfig::early; 0: early_mode's default rule). In the padding: the struct does not grow.
  unsigned char early;
  int shift;         ///< Shift kernels: components between A's column starts and 16-byte lines
  T* P;              ///< partials: P[(R * nt + C) * 64 + i]
  unsigned* ticket;  ///< nt tickets, zero on entry and on exit
};

/// The stored tile (I, J) that a kernel visits as its tile-th: the canonical column-major order
/// or, with g.rev, its reverse. Only the visiting order changes (which sweep reads what first);
/// every partial and every sum is the same, so are the bits.
template <class T>
__device__ __forceinline__ void tile_at(const SymvArgs<T>& g, index_t tile, index_t& I,
                                        index_t& J) {
  tile_coords(g.rev ? g.ntiles - 1 - tile : tile, g.nt, I, J);
}

/// The diagonal 8x8 block (a, a) of a diagonal tile: the 8 row chains of the expanded Hermitian
/// block (lower stored, real diagonal, conj-mirrored upper). Rare: kept out of line. The real
/// types keep the padded terms past n, fma(+0, -0, d) = d; complex skips the madd of a column
/// past n (predicated inside the unrolled loop), so a chain holds only the present terms.
/// Session 52 first took one loop over the present columns (c and z SYMV 4-18 % slower on the
/// H200: the runtime bound kept the 64 loads from unrolling), then a second out-of-line function
/// for cut blocks called from here (c and z 7-18 % slower at 2048-4096 on an H100, session 56:
/// the call changed the tile kernels' register allocation, e.g. c's 128 -> 124 registers).
/// Cut = false: a caller that knows n % 8 == 0 (m is 0 or 8, no column is ever skipped) drops
/// the skip, whose code alone gave z's zxs kernel 32-52 bytes of spills (session 57, ptxas).
template <class T, int L, bool Cut = true>
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
      if constexpr (is_complex_v<T> && Cut)
        if (c >= m) continue;  // absent past n (rows past n are not used)
      d = madd(e, xs[c], d);
    }
    dst[r * 9] = d;
  }
}

/// Complex only: the chunks that n cuts. A thread whose 8-row block holds only m (0 < m < 8) rows
/// computed its transposed chunks over 8 rows, rows m..7 with A and x padded by +0; the
/// definition (the CPU's symv_detail::absent_tail_ct) has those rows absent. The four-fma
/// complex madd has no padding value that leaves every chain alone (a chain from +0 reaches -0
/// when its products underflow with a negative sign; a 0 * 0 term turns it into +0), so such a
/// chunk is recomputed over its present rows: every present term, its order and its operands
/// the block kernels'; dst(c, v) stores chunk c, get(c) reads it, xget(r) is the block kernel's
/// x of present row r. Rare: the last row panel only.
///
/// Gated = false: all 8 chunks, A's m <= 7 loads per chunk unrolled and predicated so that they
/// are in flight together (session 56: a loop bounded by m with x from global memory issued ~100
/// loads one at a time per thread; z's SYMV schedule at 4096 142 -> 163 ms in session 52).
///
/// Gated = true: only the chunks with a zero component. The padded rows are the chain's last
/// terms and each adds a +0 product to both components, so the computed value equals the
/// present rows' value exactly except that a -0 component became +0: only a chunk with a zero
/// component can be wrong. Its loads go one at a time (not unrolled), the code that costs least
/// registers. Used by the 16-byte kernels (x16_tiles): session 57, ptxas, z's two-pass zxs
/// kernels 32 bytes of spills ungated, none gated (none before session 52 either); c's plain
/// kernels gain spills gated, so they keep the ungated form. Where zero chunks are common (A or
/// x with zero rows in the last panel) a thread pays up to 8 x 7 dependent loads.
template <bool Gated, class T, class Dst, class Get, class XGet>
__device__ __forceinline__ void fix_absent_rows(const SymvArgs<T>& g, index_t r0, index_t c0, int a,
                                                int k, Dst dst, Get get, XGet xget) {
  if constexpr (is_complex_v<T>) {
    const index_t row = r0 + 8 * a, left = g.n - row;
    const int m = left >= 8 ? 8 : (left <= 0 ? 0 : int(left));
    if (m > 0 && m < 8) {
#pragma unroll 1
      for (int c = 0; c < 8; ++c) {
        const T* p = g.A + row + g.lda * (c0 + 8 * k + c);
        T s = T(0);
        if constexpr (Gated) {
          const T cur = get(c);
          if (cur.re != 0 && cur.im != 0) continue;
#pragma unroll 1
          for (int r = 0; r < m; ++r)
            s = madd_conj(p[r], xget(r), s);
        } else {
          T v[7];
#pragma unroll
          for (int r = 0; r < 7; ++r)
            v[r] = r < m ? p[r] : T(0);
#pragma unroll
          for (int r = 0; r < 7; ++r)
            if (r < m) s = madd_conj(v[r], xget(r), s);
        }
        dst(c, s);
      }
    }
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
  // Loads in flight per thread: the sum is a chain of adds, the loads are not.
  constexpr int B = sizeof(T) <= 8 ? 32 : 16;
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

/// The ticket phase of one group after its tile's partials are stored: thread 0 publishes them
/// (bar.sync, then a gpu-scope fence: cumulative, so the whole group's stores are ordered before
/// the ticket) and draws one ticket per row panel; the group that draws a panel's last ticket
/// sums the panel (after an acquiring fence) and resets the ticket for the next call.
template <class T>
__device__ __forceinline__ void draw_tickets(const SymvArgs<T>& g, bool active, index_t I,
                                             index_t J, int t, int* flag) {
  __syncthreads();
  if (t == 0) {
    __threadfence();
    flag[0] = active && atomicAdd(g.ticket + I, 1u) == unsigned(g.nt - 1);
    flag[1] = active && I != J && atomicAdd(g.ticket + J, 1u) == unsigned(g.nt - 1);
    if (flag[0] || flag[1]) __threadfence();
  }
  __syncthreads();
  if (flag[0]) row_sum(g, I, t);
  if (flag[1]) row_sum(g, J, t);
  if (t == 0) {
    if (flag[0]) g.ticket[I] = 0u;
    if (flag[1]) g.ticket[J] = 0u;
  }
}

/// After the 8x8 blocks of a tile: the fixed tree of each row's 8 chunks, the two partials to
/// the workspace, and (ticket) the draw of the row panels' tickets.
template <class T, bool Ticket>
__device__ __forceinline__ void finish_tile(const SymvArgs<T>& g, bool active, index_t I, index_t J,
                                            int t, const T* sD, const T* sT, int* flag) {
  __syncthreads();
  if (active) {
    g.P[(I * g.nt + J) * kTile + t] = tile_tree(sD + t * 9);
    if (I != J) g.P[(J * g.nt + I) * kTile + t] = tile_tree(sT + t * 9);
  }
  if constexpr (Ticket) draw_tickets(g, active, I, J, t, flag);
}

/// (two-pass, g.rows_mode & kRowsPdl) Lets the row-sum kernel, a programmatic dependent launch,
/// start once every tile block has started: its blocks take the SMs that the tile kernel's last
/// wave frees and wait there (griddepcontrol.wait in symv_rowsums) for the whole tile kernel,
/// instead of being launched after it. Only when the row sums are launched; it changes when they
/// start, never what they read.
template <class T>
__device__ __forceinline__ void trigger_rowsums(const SymvArgs<T>& g) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if (g.rows_mode & kRowsPdl) asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}

/// symv_tiles: how many of an off-diagonal block's 8 columns are loaded early, at the end of the
/// group's previous tile (before its trees, partial stores and barriers) or, for the first tile,
/// before the x loads (session 64). The real types' 16-byte kernels only: one column is 8 or 16
/// more registers live across the barriers; ptxas gave the narrow and shifted kernels 16-232
/// bytes of spills at their old occupancy, and the complex tile kernels run at 128 registers
/// already. H200 (bench/NOTES.md, session 64): s 16384 -3 %, d 32768 -4 %; loaded only before the
/// x loads (the first form), nothing.
template <class T, bool Wide, bool Shift>
constexpr int kEarlyCols = ((std::is_same<T, float>::value || std::is_same<T, double>::value) &&
                            Wide && !Shift)
                               ? 1
                               : 0;

/// The launch bound's blocks per SM for symv_tiles with early columns: the occupancy that ptxas's
/// own choice gave each kernel without them (ptxas -v, load path cs: float TPB 1, 2, 4: 72, 72,
/// 64 registers; double 102, 96, 124, allocated as 104 and 128). Unbounded, ptxas took up to 162
/// registers for the early loads (float TPB 4: 64 -> 101, a third fewer warps per SM); bounded,
/// double TPB 1 and 2 spill 20 bytes.
template <class T, int TPB, bool Wide, bool Shift, int Early = -1>
constexpr int early_min_blocks() {
  if constexpr (Early > 1) {
    return 0;  // EIGSOLVE_GPU_SYMV_EARLY: ptxas's own choice (all columns in registers)
  } else if constexpr (kEarlyCols<T, Wide, Shift> == 0) {
    return 0;
  } else {
    constexpr bool f = std::is_same<T, float>::value;
    constexpr int regs = f ? (TPB == 4 ? 64 : 72) : (TPB == 1 ? 104 : TPB == 2 ? 96 : 128);
    constexpr int b = 65536 / (regs * 64 * TPB);
    return b < 1 ? 1 : b;
  }
}

/// Shared memory of one group: x of the two panels, chunk sums of the two row sets.
template <class T>
struct GroupSmem {
  T xc[kTile];      ///< x of the tile column's panel J
  T xr[kTile];      ///< x of the tile row's panel I
  T sD[kTile * 9];  ///< sD[row * 9 + chunk]: rows of panel I
  T sT[kTile * 9];  ///< rows of panel J (transposed partials)
};

/// MinB: the launch bound's blocks per SM (0: none, the default; 3 for complex float's opt-in
/// EIGSOLVE_GPU_SYMV_C3, symv_launch.cuh). Early: the number of early columns (-1: kEarlyCols;
/// 2, 4 or 8 under EIGSOLVE_GPU_SYMV_EARLY, float and double's two-pass plain 16-byte kernels,
/// session 65; 8 is double's default there: the whole 8 x 8 block's loads in flight at once,
/// where with one column loaded ahead a block's 8 column steps wait on up to 7 load latencies).
template <class T, int TPB, bool Wide, int L, bool Ticket, bool Shift = false, int MinB = 0,
          int Early = -1>
__global__ void __launch_bounds__(64 * TPB,
                                  MinB > 0 ? MinB : early_min_blocks<T, TPB, Wide, Shift, Early>())
    symv_tiles(SymvArgs<T> g) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  GroupSmem<T>* sm = reinterpret_cast<GroupSmem<T>*>(smem_raw);
  __shared__ int flag[TPB][2];
  const int grp = threadIdx.x >> 6, t = threadIdx.x & 63, a = t & 7, k = t >> 3;
  GroupSmem<T>& s = sm[grp];
  using R = typename Parts<T>::R;
  if constexpr (!Ticket) trigger_rowsums(g);
  // The first kEarlyCols columns of a tile's off-diagonal blocks are loaded while the previous
  // tile's trees, partials and barriers run and before the tile's own x loads and barrier, so
  // that their latency overlaps those (session 64; the same loads, so the same bits).
  constexpr int E = Early >= 0 ? Early : kEarlyCols<T, Wide, Shift>;
  R early[E > 0 ? E : 1][8 * Parts<T>::n];
  auto load_early = [&](bool act, index_t ti, index_t tj) {
    if constexpr (E > 0) {
      if (act && (ti != tj || a > k)) {
        const index_t tr0 = ti * kTile;
        const T* blk = g.A + (tr0 + 8 * a) + g.lda * (tj * kTile + 8 * k);
        const index_t left = g.n - (tr0 + 8 * a);
        const int m = left >= 8 ? 8 : (left <= 0 ? 0 : int(left));
#pragma unroll
        for (int c = 0; c < E; ++c)
          load_col8<T, Wide, L>(blk + g.lda * c, m, early[c]);
      }
    }
  };
  const index_t stride = index_t(gridDim.x) * TPB;
  index_t I = 0, J = 0;
  bool active = false;
  if constexpr (E > 0) {
    active = index_t(blockIdx.x) * TPB + grp < g.ntiles;
    if (active) tile_at(g, index_t(blockIdx.x) * TPB + grp, I, J);
    load_early(active, I, J);
  }
  for (index_t base = index_t(blockIdx.x) * TPB; base < g.ntiles; base += stride) {
    if constexpr (E == 0) {
      const index_t tile = base + grp;
      active = tile < g.ntiles;
      I = 0;
      J = 0;
      if (active) tile_at(g, tile, I, J);
    }
    const index_t r0 = I * kTile, c0 = J * kTile;
    if (active) {
      const index_t ic = c0 + t, ir = r0 + t;
      s.xc[t] = ic < g.n ? g.x[g.xoff + ic * g.incx] : pad_x<T>();
      s.xr[t] = ir < g.n ? g.x[g.xoff + ir * g.incx] : pad_x<T>();
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
          if (c < E) {
#pragma unroll
            for (int q = 0; q < 8 * Parts<T>::n; ++q)
              comp[q] = early[c < E ? c : 0][q];
          } else if constexpr (Shift) {
            // whole warps: off-diagonal tiles of full row panels (diag and r0 uniform per group)
            if (!diag && r0 + kTile <= g.n)
              load_col8_shift<T, L>(blk + g.lda * c, g.shift, a == 7, comp);
            else
              load_col8<T, false, L>(blk + g.lda * c, m, comp);
          } else {
            load_col8<T, Wide, L>(blk + g.lda * c, m, comp);
          }
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
        fix_absent_rows<false>(
            g, r0, c0, a, k, [&](int c, const T& v) { dT[(8 * k + c) * 9 + a] = v; },
            [&](int c) { return dT[(8 * k + c) * 9 + a]; }, [&](int r) { return s.xr[8 * a + r]; });
      } else if (a == k) {
        diag_block<T, L>(g.A, g.lda, r0 + 8 * a, m, s.xc + 8 * a, s.sD + (8 * a) * 9 + a);
      }
    }
    index_t nI = 0, nJ = 0;
    bool nactive = false;
    if constexpr (E > 0) {
      nactive = base + stride + grp < g.ntiles;
      if (nactive) tile_at(g, base + stride + grp, nI, nJ);
      load_early(nactive, nI, nJ);
    }
    finish_tile<T, Ticket>(g, active, I, J, t, s.sD, s.sT, flag[grp]);
    __syncthreads();  // shared memory is reused by the next tiles
    if constexpr (E > 0) {
      I = nI;
      J = nJ;
      active = nactive;
    }
  }
}

/// cp.async of one B-byte piece global -> shared; !valid fills zeros (reads nothing).
template <int B>
__device__ __forceinline__ void cp_async(void* smem, const void* gmem, bool valid) {
  const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  const int sz = valid ? B : 0;
  if constexpr (B == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d), "l"(gmem), "r"(sz));
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(d), "l"(gmem), "n"(B),
                 "r"(sz));
}
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::);
}
__device__ __forceinline__ void cp_async_wait_one() {
  asm volatile("cp.async.wait_group 1;\n" ::);
}

/// Staged tiles: element (row, col) of a tile at col * kLds + row + row / 8 (one pad element per
/// 8-row block and an odd column stride: the row blocks of the 64 threads fall in distinct banks).
constexpr int kLds = 73;

template <class T>
struct StagedSmem {
  T tile[2][kTile * kLds];
  T xc[2][kTile];
  T xr[2][kTile];
  T sD[kTile * 9];
  T sT[kTile * 9];
};

/// Issues the cp.async copies of tile `tile` (and its two x panels) into buffer b; the lower
/// triangle only (the strict upper part of a diagonal tile is zero-filled, never read).
template <class T, bool Wide>
__device__ __forceinline__ void stage_tile(const SymvArgs<T>& g, index_t tile, StagedSmem<T>& s,
                                           int b, int t) {
  if (tile >= g.ntiles) return;
  index_t I, J;
  tile_at(g, tile, I, J);
  const index_t r0 = I * kTile, c0 = J * kTile, row = r0 + t;
  const bool row_ok = row < g.n;
  T* dst = s.tile[b] + t + t / 8;
  const T* src = g.A + row + g.lda * c0;
  using R = typename Parts<T>::R;
#pragma unroll 8
  for (int col = 0; col < kTile; ++col) {
    const bool ok = row_ok && (c0 + col < g.n) && (I != J || t >= col);
    const T* sp = ok ? src + g.lda * col : g.A;
    if constexpr (Wide) {
      cp_async<int(sizeof(T))>(dst + col * kLds, sp, ok);
    } else {
#pragma unroll
      for (int q = 0; q < Parts<T>::n; ++q)
        cp_async<int(sizeof(R))>(reinterpret_cast<R*>(dst + col * kLds) + q,
                                 reinterpret_cast<const R*>(sp) + q, ok);
    }
  }
  const index_t ic = c0 + t;
  const bool xc_ok = ic < g.n, xr_ok = row_ok;
  const T* xcs = xc_ok ? g.x + (g.xoff + ic * g.incx) : g.x;
  const T* xrs = xr_ok ? g.x + (g.xoff + row * g.incx) : g.x;
  if constexpr (std::is_same<T, float>::value || std::is_same<T, double>::value) {
    // The real types' padding is pad_x's -0, stored directly (a zero-fill cp.async to the same
    // word could land after it); the tile's consumers read x after the stage's barrier.
    if (xc_ok)
      cp_async<int(sizeof(T))>(s.xc[b] + t, xcs, true);
    else
      s.xc[b][t] = pad_x<T>();
    if (xr_ok)
      cp_async<int(sizeof(T))>(s.xr[b] + t, xrs, true);
    else
      s.xr[b][t] = pad_x<T>();
  } else {
#pragma unroll
    for (int q = 0; q < Parts<T>::n; ++q) {
      cp_async<int(sizeof(R))>(reinterpret_cast<R*>(s.xc[b] + t) + q,
                               reinterpret_cast<const R*>(xcs) + q, xc_ok);
      cp_async<int(sizeof(R))>(reinterpret_cast<R*>(s.xr[b] + t) + q,
                               reinterpret_cast<const R*>(xrs) + q, xr_ok);
    }
  }
}

/// The staged variant of symv_tiles: each group keeps two tiles in shared memory, the next
/// one arriving by cp.async while the current one is reduced (same chains, same bits).
template <class T, int TPB, bool Wide, bool Ticket>
__global__ void __launch_bounds__(64 * TPB) symv_tiles_staged(SymvArgs<T> g) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  StagedSmem<T>* sm = reinterpret_cast<StagedSmem<T>*>(smem_raw);
  __shared__ int flag[TPB][2];
  const int grp = threadIdx.x >> 6, t = threadIdx.x & 63, a = t & 7, k = t >> 3;
  StagedSmem<T>& s = sm[grp];
  const index_t stride = index_t(gridDim.x) * TPB;
  index_t base = index_t(blockIdx.x) * TPB;
  if constexpr (!Ticket) trigger_rowsums(g);
  stage_tile<T, Wide>(g, base + grp, s, 0, t);
  cp_async_commit();
  for (int it = 0; base < g.ntiles; ++it, base += stride) {
    const int b = it & 1;
    stage_tile<T, Wide>(g, base + stride + grp, s, b ^ 1, t);
    cp_async_commit();
    cp_async_wait_one();
    __syncthreads();
    const index_t tile = base + grp;
    const bool active = tile < g.ntiles;
    index_t I = 0, J = 0;
    if (active) tile_at(g, tile, I, J);
    const index_t r0 = I * kTile;
    if (active) {
      const bool diag = (I == J);
      if (!diag || a > k) {
        const T* blk = s.tile[b] + (8 * k) * kLds + 9 * a;
        T* dT = diag ? s.sD : s.sT;
        T xr[8];
#pragma unroll
        for (int r = 0; r < 8; ++r)
          xr[r] = s.xr[b][8 * a + r];
        T d[8];
#pragma unroll
        for (int r = 0; r < 8; ++r)
          d[r] = T(0);
#pragma unroll
        for (int c = 0; c < 8; ++c) {
          const T xc = s.xc[b][8 * k + c];
          T tc = T(0);
#pragma unroll
          for (int r = 0; r < 8; ++r) {
            const T e = blk[c * kLds + r];
            d[r] = madd(e, xc, d[r]);
            tc = madd_conj(e, xr[r], tc);
          }
          dT[(8 * k + c) * 9 + a] = tc;
        }
#pragma unroll
        for (int r = 0; r < 8; ++r)
          s.sD[(8 * a + r) * 9 + k] = d[r];
        fix_absent_rows<false>(
            g, r0, J * kTile, a, k, [&](int c, const T& v) { dT[(8 * k + c) * 9 + a] = v; },
            [&](int c) { return dT[(8 * k + c) * 9 + a]; },
            [&](int r) { return s.xr[b][8 * a + r]; });
      } else if (a == k) {
        const index_t left = g.n - (r0 + 8 * a);
        const int m = left >= 8 ? 8 : (left <= 0 ? 0 : int(left));
        diag_block<T, 0>(g.A, g.lda, r0 + 8 * a, m, s.xc[b] + 8 * a, s.sD + (8 * a) * 9 + a);
      }
    }
    finish_tile<T, Ticket>(g, active, I, J, t, s.sD, s.sT, flag[grp]);
    __syncthreads();  // buffer b and sD/sT are reused
  }
  asm volatile("cp.async.wait_all;\n" ::);
}

/// twopass, second kernel: the same chain per row as row_sum (acc = P(R,0); acc = acc + P(R,1);
/// ... ascending C). A block of 256 threads sums 32 rows of one panel. Their partials come in
/// chunks of kSumChunk tile columns, copied by all 8 warps (cp.async) into two shared buffers;
/// warp 0's lane r runs row r's chain over chunk k while chunk k + 1 is in flight:
///
///   buffer 0: P(R, 0..CC-1)[rows]      buffer 1: P(R, CC..2CC-1)      buffer 0: ...
///   warp 0, lane r:  acc = P(R,0)[r]; acc = acc + P(R,1)[r]; ... (chunk 0), (chunk 1), ...
///
/// (One thread per row with every load on the chain's path took 21.5 us of the 290 us d call at
/// n = 16384 on the H200; this kernel 12.3 us.) The adds and their order are unchanged, so are
/// the bits.
constexpr int kSumRows = 32, kSumThreads = 256;
template <class T>
constexpr int kSumChunk = int(16384 / (kSumRows * sizeof(T)));  ///< 16 KB per buffer

template <class T>
constexpr int kSumBufBytes = int(2 * kSumChunk<T> * kSumRows * sizeof(T));

/// Where rowsums_chain's block (rows blockIdx.x * kSumRows ..) finds P(R, C)[r] =
/// p[C * kTile + r] and how many rows it has.
template <class T>
__device__ __forceinline__ const T* rowsums_base(const SymvArgs<T>& g, int& rows) {
  const index_t i0 = index_t(blockIdx.x) * kSumRows;  // 32 rows of one 64-row panel
  rows = int(g.n - i0 < kSumRows ? g.n - i0 : kSumRows);
  return g.P + (i0 / kTile) * g.nt * kTile + i0 % kTile;
}

/// rowsums_chain's copy of the chunk of columns c0 .. into b (one cp.async group): element
/// (C, r) -> b[C * kSumRows + r]; only the min(CC, nt - c0) columns that the chain reads (a
/// small n has fewer than CC tile columns). A block of 32 whole rows with P 16-byte aligned
/// copies 16 bytes at a time (s 4 rows, d and c 2, z and dd 1 per copy; a column's 32 rows are
/// contiguous in P and in b); the last block of a panel cut short by n copies element by
/// element and zero-fills past n. Only the copy's width changes, not what lands in b.
template <class T>
__device__ __forceinline__ void rowsums_stage(const SymvArgs<T>& g, index_t c0, T* b) {
  constexpr int CC = kSumChunk<T>;
  int rows;
  const T* p = rowsums_base(g, rows);
  const index_t nt = g.nt;
  const int cols = int(nt - c0 < CC ? nt - c0 : CC);
  constexpr int V = sizeof(T) < 16 ? int(16 / sizeof(T)) : 1, per_col = kSumRows / V;
  static_assert(16 % sizeof(T) == 0 || sizeof(T) % 16 == 0, "whole 16-byte copies");
  if ((g.rows_mode & kRowsWide) && rows == kSumRows &&
      reinterpret_cast<std::uintptr_t>(g.P) % 16 == 0) {
    const T* src = p + c0 * kTile;
    for (int q = threadIdx.x; q < cols * per_col; q += kSumThreads) {
      const int C = q / per_col, r = (q % per_col) * V;
      cp_async<16>(b + C * kSumRows + r, src + C * kTile + r, true);
    }
    cp_async_commit();
    return;
  }
  const int used = cols * kSumRows;
  for (int e = threadIdx.x; e < used; e += kSumThreads) {
    const int C = e / kSumRows, r = e % kSumRows;
    const bool ok = r < rows;
    cp_async<int(sizeof(T))>(b + e, ok ? p + (c0 + C) * kTile + r : g.P, ok);
  }
  cp_async_commit();
}

/// (g.discard_p) After the chunk of columns c0 .. is in shared memory: drop its lines of P from
/// L2 without writing them back (discard.global.L2). P is scratch, written by the tile kernel and
/// read once here; the tile kernel's evict-first loads of A leave much of it in L2, dirty, and
/// its write-back would otherwise take DRAM bandwidth from the next call (H200, session 20, n =
/// 16384: d 3626 -> 3714 GB/s, c 3549 -> 3647). A block's 32 rows of a column are 32 sizeof(T)
/// bytes on their own 128-byte lines when P is 128-byte aligned (else nothing is discarded); no
/// other block reads them, and the next call writes every element of P before anyone reads it.
/// The flag lives in SymvArgs' padding: growing the struct re-allocated the tile kernels'
/// registers (session 20: d 80 -> 94, 3 -> 2 blocks per SM, -9 %).
template <class T>
__device__ __forceinline__ void rowsums_discard(const SymvArgs<T>& g, index_t c0) {
  constexpr int CC = kSumChunk<T>, lines = int(kSumRows * sizeof(T) / 128);
  static_assert(kSumRows * sizeof(T) % 128 == 0, "whole lines");
  if (reinterpret_cast<std::uintptr_t>(g.P) % 128 != 0) return;
  int rows;
  const T* p = rowsums_base(g, rows);
  const int cn = int(g.nt - c0 < CC ? g.nt - c0 : CC);
  for (int e = threadIdx.x; e < cn * lines; e += kSumThreads) {
    const char* a = reinterpret_cast<const char*>(p + (c0 + e / lines) * kTile) + (e % lines) * 128;
    asm volatile("discard.global.L2 [%0], 128;\n" ::"l"(a) : "memory");
  }
}

/// The row chains of symv_rowsums' block (rows blockIdx.x * kSumRows ..): the sum for row
/// threadIdx.x in the threads below kSumRows (those past g.n: unused). buf: kSumBufBytes of
/// shared memory, 16-byte aligned; every thread of the block must call it. Staged0: the caller
/// already issued rowsums_stage(g, 0, buf) (and no cp.async group since), so that the first
/// chunk flies while the block does other work.
template <class T, bool Staged0 = false>
__device__ __forceinline__ T rowsums_chain(const SymvArgs<T>& g, T* buf) {
  constexpr int CC = kSumChunk<T>, per = CC * kSumRows;
  const index_t nt = g.nt;
  const int chunks = int((nt + CC - 1) / CC);
  if constexpr (!Staged0) rowsums_stage(g, 0, buf);
  T acc = T(0);
  for (int k = 0; k < chunks; ++k) {
    const T* cur = buf + (k & 1) * per;
    if (k + 1 < chunks) {
      rowsums_stage(g, index_t(k + 1) * CC, buf + ((k + 1) & 1) * per);
      cp_async_wait_one();
    } else {
      asm volatile("cp.async.wait_all;\n" ::);
    }
    __syncthreads();  // chunk k is in shared memory
    if (g.discard_p) rowsums_discard(g, index_t(k) * CC);
    if (threadIdx.x < kSumRows) {
      const int r = threadIdx.x;
      const index_t c0 = index_t(k) * CC;
      const int cn = int(nt - c0 < CC ? nt - c0 : CC);
      int C = 0;
      if (k == 0) {
        acc = cur[r];
        C = 1;
      }
#pragma unroll 8
      for (; C < cn; ++C)
        acc = acc + cur[C * kSumRows + r];
    }
    __syncthreads();  // buffer k & 1 is free for chunk k + 2
  }
  return acc;
}

template <class T>
__global__ void __launch_bounds__(kSumThreads) symv_rowsums(SymvArgs<T> g) {
  __shared__ __align__(16) unsigned char raw[kSumBufBytes<T>];
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  // a programmatic dependent launch: the tile kernel complete and its partials visible
  if (g.rows_mode & kRowsPdl) asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
  const T acc = rowsums_chain(g, reinterpret_cast<T*>(raw));
  const index_t i0 = index_t(blockIdx.x) * kSumRows;
  const int rows = int(g.n - i0 < kSumRows ? g.n - i0 : kSumRows);
  if (threadIdx.x < rows) {
    T* yi = g.y + (g.yoff + (i0 + threadIdx.x) * g.incy);
    *yi = g.beta_zero ? g.alpha * acc : madd(g.alpha, acc, g.beta * *yi);
  }
}

}  // namespace symv_cuda
}  // namespace eigsolve
