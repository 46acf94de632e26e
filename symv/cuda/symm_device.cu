// The canonical SYMM / HEMM on the device: X(:, q) = symv_reference(1, A, V(:, q), 0), q < k,
// bit for bit (docs/canonical-symv.md; stage 1, step 3 of docs/canonical-two-stage.md).
//
//   block (y, x): rows rb0 .. rb0+RB-1 (inside row panel P = rb0 / 64), vectors qb0 .. qb0+QB-1
//   it walks the tile columns J = 0, 1, ..., nt-1 in ascending order (the canonical tile order),
//   KC columns per shared-memory stage (cp.async, two stages in flight):
//
//          J < P                 J == P                     J > P
//      stored tile (P, J)    diagonal tile, expanded     stored tile (J, P), read transposed
//      sA[j][i] = A(i, j)    sA[j][i] = a_ij             sA[i][j] = A(j, i)  (conj on read)
//      (direct layout)       (direct layout)             (j-major layout, 16-byte units
//                                                          swizzled: unit ^ ((i / R) & 7))
//      sV[q][j] = V(j, q)    (j-major, swizzled with (q / Q) & 7), zeros past m and past k
//
//   thread (lane = rg + RG vg, warp w): rows w*RG*R + rg*R + r (r < R), vectors vg*Q + t (t < Q)
//   per 16-byte unit of U columns: Q broadcast loads of V, R (or U*R/U) loads of A, U*R*Q madd
//   per output: the chunk chain s (8 columns, from +0), then the fixed tree held as a binary
//   counter (L0, L1, L2), then acc = p (J == 0) or acc + p; at the end X = T(1) * acc.
//
//        chunk c:  0: L0 = s      1: L1 = L0 + s          2: L0 = s   3: L2 = L1 + (L0 + s)
//                  4: L0 = s      5: L1 = L0 + s          6: L0 = s
//                  7: p = L2 + (L1 + (L0 + s))  =  ((c0+c1)+(c2+c3)) + ((c4+c5)+(c6+c7))
//
// No workspace, no atomics: the order is the loop order. Rows and columns past m of A are +0
// (cp.async zero fill) and V's rows past m are -0 for s and d (a padded term is fma(+0, -0, s)
// = s for every s, -0 included); for c and z no padding value does that for the four-fma madd,
// so the last tile column's stages run compute_stage's Edge form, which leaves the columns past
// m absent (dd: +0, as on the CPU). Vectors past k are zeros; neither is written. The strict upper
// triangle is never read (the diagonal tile gathers a_ij for j > i from A(j, i)).
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "core/canonical.hpp"
#include "core/dd_chain.hpp"
#include "core/errors.hpp"
#include "core/precision.hpp"
#include "symv/cuda/symv_kernels.cuh"
#include "symv/symm_gpu.hpp"

namespace eigsolve {
namespace symv_cuda {
int sm_count();
}  // namespace symv_cuda

namespace symm_cuda {

using symv_cuda::cp_async;
using symv_cuda::cp_async_commit;
using symv_cuda::cp_async_wait_one;
using symv_cuda::from_parts;
using symv_cuda::Parts;
using symv_cuda::Vec16;

template <class T>
struct SymmArgs {
  index_t m, k, lda, ldv, ldx;
  const T* A;
  const T* V;
  T* X;
  bool wide_a, wide_v;  ///< 16-byte cp.async allowed for the full tiles of A / V
};

/// The compile-time shape of one configuration.
///   G = 1: every thread walks all 8 chunks of a tile (the tree in its registers).
///   G = 2 (chunk split, names end in -cs2): two warp groups of WR warps own the same outputs;
///     group 0 runs chunks 0-3 into L2 = (c0+c1)+(c2+c3), group 1 runs chunks 4-7 into
///     H = (c4+c5)+(c6+c7) and stores it in shared memory (double-buffered by tile parity);
///     after the next barrier group 0 forms the tree's top addition p = L2 + H and acc = p /
///     acc + p, the same operations on the same operands as G = 1. Needs KC = 64 (one stage
///     per tile).
///   MINB: __launch_bounds__ minimum blocks per SM (caps the registers per thread).
///   LEAN: the chunk loop is not unrolled (-lean; fewer registers, no spills under -b caps).
template <class T, int R_, int Q_, int RG_, int WR_, int KC_, int G_ = 1, int MINB_ = 1,
          bool LEAN_ = false>
struct Shape {
  static constexpr int R = R_, Q = Q_, RG = RG_, WR = WR_, KC = KC_, G = G_, MINB = MINB_;
  static constexpr bool LEAN = LEAN_;
  static constexpr int VG = 32 / RG;
  static constexpr int RB = R * RG * WR;                ///< rows per block
  static constexpr int QB = Q * VG;                     ///< vectors per block
  static constexpr int NTG = 32 * WR;                   ///< threads per warp group
  static constexpr int NT = NTG * G;                    ///< threads per block
  static constexpr int U = 16 / int(sizeof(T));         ///< elements per 16-byte unit
  static constexpr int UPR = KC * int(sizeof(T)) / 16;  ///< units per j-major row
  static constexpr int SA = RB * KC, SV = QB * KC, STAGE = SA + SV;
  static constexpr int SH = G == 2 ? 2 * RB * QB : 0;  ///< group 1's halves H, two buffers
  static constexpr std::size_t SMEM = (2 * std::size_t(STAGE) + SH) * sizeof(T);
  static_assert(RG * VG == 32 && RG <= 8 && VG <= 8, "warp shape");
  static_assert(kTile % RB == 0 && kTile % KC == 0 && KC % kChunk == 0, "tile shape");
  static_assert(UPR >= 8 && kChunk % U == 0, "swizzle needs 8 units per row");
  static_assert(G == 1 || (G == 2 && KC == kTile), "the chunk split needs one stage per tile");
};

/// Loads N consecutive elements from shared memory with the widest aligned accesses
/// (p is aligned to N * sizeof(T), up to 16 bytes).
template <class T, int N>
__device__ __forceinline__ void lds(const T* p, T* out) {
  using R = typename Parts<T>::R;
  constexpr int np = Parts<T>::n, nc = N * np;
  constexpr int B = nc * int(sizeof(R));
  const R* q = reinterpret_cast<const R*>(p);
  R c[nc];
  if constexpr (B % 16 == 0) {
    using V = typename Vec16<R>::type;
    constexpr int per = 16 / int(sizeof(R));
#pragma unroll
    for (int s = 0; s < nc / per; ++s) {
      const V w = reinterpret_cast<const V*>(q)[s];
      if constexpr (per == 4) {
        c[4 * s] = w.x;
        c[4 * s + 1] = w.y;
        c[4 * s + 2] = w.z;
        c[4 * s + 3] = w.w;
      } else {
        c[2 * s] = w.x;
        c[2 * s + 1] = w.y;
      }
    }
  } else if constexpr (sizeof(R) == 4 && B % 8 == 0) {
#pragma unroll
    for (int s = 0; s < nc / 2; ++s) {
      const float2 w = reinterpret_cast<const float2*>(q)[s];
      c[2 * s] = w.x;
      c[2 * s + 1] = w.y;
    }
  } else {
#pragma unroll
    for (int s = 0; s < nc; ++s)
      c[s] = q[s];
  }
#pragma unroll
  for (int e = 0; e < N; ++e)
    out[e] = from_parts<T>(c + e * np);
}

/// The first madd of a chunk chain, madd(a, b, +0), bit for bit: dd skips the accurate sum
/// with zero where it changes nothing (core/dd_chain.hpp's madd_zero); the others as written.
template <class T>
__device__ __forceinline__ T chain_first(const T& a, const T& b) {
  return madd(a, b, T(0));
}
__device__ __forceinline__ dd_real chain_first(const dd_real& a, const dd_real& b) {
  return madd_zero(a, b);
}

/// One 16-byte unit (16 / sizeof(T) elements) from the shared-memory byte address a. The asm is
/// volatile so that it stays between the barriers around it (ptxas still schedules the LDS
/// among the madds); typed per real part (f32 / f64 destination registers).
__device__ __forceinline__ void lds16_at(unsigned a, float (&c)[4]) {
  asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(c[0]), "=f"(c[1]), "=f"(c[2]), "=f"(c[3])
               : "r"(a));
}
__device__ __forceinline__ void lds16_at(unsigned a, double (&c)[2]) {
  asm volatile("ld.shared.v2.f64 {%0, %1}, [%2];" : "=d"(c[0]), "=d"(c[1]) : "r"(a));
}
template <class T>
__device__ __forceinline__ void lds_unit(unsigned a, T* out) {
  using R = typename Parts<T>::R;
  constexpr int np = Parts<T>::n, U = 16 / int(sizeof(T));
  R c[16 / sizeof(R)];
  lds16_at(a, c);
#pragma unroll
  for (int e = 0; e < U; ++e)
    out[e] = from_parts<T>(c + e * np);
}

/// Offset of element jl of j-major row `row` (KC elements, 16-byte units swizzled by sw).
template <class S>
__device__ __forceinline__ int jmajor(int row, int jl, int sw) {
  return row * S::KC + ((jl / S::U) ^ sw) * S::U + jl % S::U;
}

/// 16-byte cp.async to a shared-memory byte address (always the full 16 bytes).
__device__ __forceinline__ void cp16(unsigned s, const void* g) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(g));
}

/// The full-tile 16-byte copies of stage(), addressed once per thread: a tile of ROWS rows of UPR
/// 16-byte units each (row pitch UPR x 16 bytes in shared memory; row r starts at base + r ld in
/// global memory); unit e = r UPR + u goes to unit u ^ sw(r) of row r, sw(r) = (r / SWR) & 7
/// (SWR = 0: no swizzle). Thread tid copies the units e = tid + k NT, k = 0, 1, ...: it keeps its
/// unit u = tid % UPR and walks rows NR = NT / UPR apart, so a copy is one pointer step and an
/// offset known at compile time (stage()'s former loops over e spent ~25 integer instructions per
/// copy on divisions, swizzles and 64-bit products: a quarter of the d kernel's instructions at
/// m = 16384, Nsight in session 27). Every Shape has NT a multiple of UPR.
template <class T, int ROWS, int UPR, int NT, int SWR>
__device__ __forceinline__ void copy_units(unsigned sbuf, const T* base, index_t ld, int tid) {
  constexpr int total = ROWS * UPR, NR = NT / UPR, U = 16 / int(sizeof(T));
  static_assert(NT % UPR == 0, "a thread keeps its unit");
  static_assert(SWR == 0 || (UPR >= 8 && (UPR & (UPR - 1)) == 0),
                "the swizzle flips the low 3 bits of a power-of-2 unit index");
  const int u = tid % UPR, r0 = tid / UPR;
  const unsigned off = unsigned(r0 * UPR + u) * 16u;
  const T* src = base + u * U + ld * r0;
  const index_t step = ld * NR;
#pragma unroll
  for (int k = 0; k < (total + NT - 1) / NT; ++k) {
    if (total % NT == 0 || r0 + k * NR < ROWS) {
      unsigned o = off + unsigned(k * NR * UPR) * 16u;
      if constexpr (SWR > 0) {
        // (r0 + k NR) / SWR: a constant when NR divides SWR (r0 < NR)
        const int sw = (SWR % NR == 0 ? (k * NR) / SWR : (r0 + k * NR) / SWR) & 7;
        o ^= unsigned(sw) << 4;
      }
      cp16(sbuf + o, src);
    }
    src += step;
  }
}

/// Shared-memory byte address of p.
__device__ __forceinline__ unsigned smem_u32(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

/// Issues the cp.async copies of stage s (tile column J = s / (64 / KC), columns jc0 ..) into
/// buffer b; one commit group is the caller's.
template <class T, class S>
__device__ __forceinline__ void stage(const SymmArgs<T>& g, index_t s, index_t rb0, index_t qb0,
                                      index_t P, T* b) {
  using R = typename Parts<T>::R;
  constexpr int np = Parts<T>::n;
  constexpr int spt = kTile / S::KC;
  const int tid = threadIdx.x;
  const index_t J = s / spt;
  const index_t jc0 = J * kTile + (s % spt) * S::KC;
  const index_t m = g.m;
  T* sa = b;
  T* sv = b + S::SA;
  if (J < P) {
    // Direct: sa[jl * RB + i] = A(rb0 + i, jc0 + jl); the columns exist (J < P).
    const bool full = rb0 + S::RB <= m;
    if (full && g.wide_a) {
      copy_units<T, S::KC, S::RB / S::U, S::NT, 0>(smem_u32(sa), g.A + rb0 + g.lda * jc0, g.lda,
                                                   tid);
    } else {
      constexpr int total = S::KC * S::RB * np;
#pragma unroll 4
      for (int e = tid; e < total; e += S::NT) {
        const int el = e / np, c = e % np, jl = el / S::RB, i = el % S::RB;
        const bool ok = rb0 + i < m;
        const T* src = ok ? g.A + rb0 + i + g.lda * (jc0 + jl) : g.A;
        cp_async<int(sizeof(R))>(reinterpret_cast<R*>(sa + jl * S::RB + i) + c,
                                 reinterpret_cast<const R*>(src) + (ok ? c : 0), ok);
      }
    }
  } else if (J > P) {
    // Transposed: sa[jmajor(i, jl)] = A(jc0 + jl, rb0 + i) (conj on read); the rows exist.
    const bool full = jc0 + S::KC <= m;
    if (full && g.wide_a) {
      copy_units<T, S::RB, S::UPR, S::NT, S::R>(smem_u32(sa), g.A + jc0 + g.lda * rb0, g.lda, tid);
    } else {
      constexpr int total = S::KC * S::RB * np;
#pragma unroll 4
      for (int e = tid; e < total; e += S::NT) {
        const int el = e / np, c = e % np, i = el / S::KC, jl = el % S::KC;
        const bool ok = jc0 + jl < m;
        const T* src = ok ? g.A + jc0 + jl + g.lda * (rb0 + i) : g.A;
        cp_async<int(sizeof(R))>(reinterpret_cast<R*>(sa + jmajor<S>(i, jl, (i / S::R) & 7)) + c,
                                 reinterpret_cast<const R*>(src) + (ok ? c : 0), ok);
      }
    }
  } else {
    // Diagonal tile, direct layout: A(i, j) for j <= i, A(j, i) for j > i (made real / conj
    // by diag_fixup for complex T once it has landed). The strict upper triangle is not read.
    constexpr int total = S::KC * S::RB * np;
#pragma unroll 4
    for (int e = tid; e < total; e += S::NT) {
      const int el = e / np, c = e % np, jl = el / S::RB, i = el % S::RB;
      const index_t ia = rb0 + i, ja = jc0 + jl;
      const bool ok = ia < m && ja < m;
      const T* src = !ok ? g.A : (ja <= ia ? g.A + ia + g.lda * ja : g.A + ja + g.lda * ia);
      cp_async<int(sizeof(R))>(reinterpret_cast<R*>(sa + jl * S::RB + i) + c,
                               reinterpret_cast<const R*>(src) + (ok ? c : 0), ok);
    }
  }
  // V: sv[jmajor(q, jl)] = V(jc0 + jl, qb0 + q); zeros past m and past k.
  const bool vfull = jc0 + S::KC <= m && qb0 + S::QB <= g.k;
  if (vfull && g.wide_v) {
    copy_units<T, S::QB, S::UPR, S::NT, S::Q>(smem_u32(sv), g.V + jc0 + g.ldv * qb0, g.ldv, tid);
  } else {
    constexpr int total = S::KC * S::QB * np;
#pragma unroll 4
    for (int e = tid; e < total; e += S::NT) {
      const int el = e / np, c = e % np, q = el / S::KC, jl = el % S::KC;
      const bool ok = jc0 + jl < m && qb0 + q < g.k;
      const T* src = ok ? g.V + jc0 + jl + g.ldv * (qb0 + q) : g.V;
      R* dst = reinterpret_cast<R*>(sv + jmajor<S>(q, jl, (q / S::Q) & 7)) + c;
      if constexpr (std::is_same<T, float>::value || std::is_same<T, double>::value) {
        // rows past m: -0, so that a padded term fma(+0, -0, s) (A's padding is +0) is s for
        // every s, -0 included (symv_cuda::pad_x; a plain store, not a racing zero fill)
        if (!ok && jc0 + jl >= m) {
          *dst = R(-0.0);
          continue;
        }
      }
      cp_async<int(sizeof(R))>(dst, reinterpret_cast<const R*>(src) + (ok ? c : 0), ok);
    }
  }
}

/// Complex diagonal tile, once landed: a_ii = (re, 0), a_ij = conj(A(j, i)) for j > i.
template <class T, class S>
__device__ __forceinline__ void diag_fixup(index_t m, index_t rb0, index_t jc0, T* sa) {
  if constexpr (is_complex_v<T>) {
    for (int e = threadIdx.x; e < S::KC * S::RB; e += S::NT) {
      const int jl = e / S::RB, i = e % S::RB;
      const index_t ia = rb0 + i, ja = jc0 + jl;
      if (ia >= m || ja >= m || ja < ia) continue;
      T& a = sa[jl * S::RB + i];
      a = ja == ia ? T(a.re, real_t<T>(0)) : conj(a);
    }
  }
}

/// The chunks H*KC/8 + LC0 .. + LC0+NLC-1 of one stage (LC0, NLC: stage-local chunks; the
/// default: all of the stage) for the thread's R x Q outputs, then the tree steps. Half (group 1
/// of the chunk split): chunk 7 ends with L2 = L1 + (L0 + s) = (c4+c5)+(c6+c7) instead of p.
/// Edge (complex only): the stage's columns from jlim on are past m and absent, as the
/// definition has them (the four-fma complex madd has no padding value that leaves a -0 chain
/// alone; a chunk with no column left is the chain_first of zeros, +0, as defined).
template <class T, class S, int H, bool Trans, int LC0 = 0, int NLC = S::KC / kChunk,
          bool Half = false, bool Edge = false>
__device__ __forceinline__ void compute_stage(const T* sa, const T* sv, int row0, int qv0, int swa,
                                              int swv, bool first, T (&L0)[S::R][S::Q],
                                              T (&L1)[S::R][S::Q], T (&L2)[S::R][S::Q],
                                              T (&acc)[S::R][S::Q], int jlim = S::KC) {
  constexpr int R = S::R, Q = S::Q, U = S::U;
  static_assert(LC0 >= 0 && NLC >= 1 && LC0 + NLC <= S::KC / kChunk, "chunk range");
  // The j-major rows' units by shared byte address, the swizzle XORed in: a row starts on a
  // 128-byte boundary (symm_kernel checks the buffer; the pitch and the stage offsets are
  // multiples of 128), so (row start + 16 sw) ^ 16 (u & 7) = row start + 16 ((u & 7) ^ sw), and
  // unit u of the thread's row t is ((b ^ 16 (u & 7)) + 16 (u & ~7)) + t pitch: one LOP3 per unit
  // for all of its rows, the rest immediate offsets (the former ((jl / U) ^ sw) * U element
  // index cost ~4 integer instructions per unit and row: Nsight, session 27).
  constexpr int pitch = S::KC * int(sizeof(T));
  static_assert(
      pitch % 128 == 0 && (S::SA * sizeof(T)) % 128 == 0 && (S::STAGE * sizeof(T)) % 128 == 0,
      "j-major rows on 128-byte boundaries");
  const unsigned bv = smem_u32(sv + qv0 * S::KC) + unsigned(swv) * 16u;
  const unsigned ba = smem_u32(sa + row0 * S::KC) + unsigned(swa) * 16u;
  // LEAN: the chunk loop stays a loop (one chunk's loads and madds in flight: fewer registers,
  // the same operations; cc is then a uniform runtime value and the tree step a uniform branch).
#pragma unroll(S::LEAN ? 1 : S::KC / kChunk)
  for (int lc = LC0; lc < LC0 + NLC; ++lc) {
    const int cc = H * (S::KC / kChunk) + lc;  // chunk index in the tile
    T ch[R][Q];
#pragma unroll
    for (int r = 0; r < R; ++r)
#pragma unroll
      for (int t = 0; t < Q; ++t)
        ch[r][t] = T(0);
#pragma unroll
    for (int gu = 0; gu < kChunk / U; ++gu) {
      const int jl = lc * kChunk + gu * U;  // first column of the unit
      // unit jl / U of a j-major row: (base ^ lo) + hi (see bv, ba above)
      const unsigned lo = unsigned((jl / U) & 7) * 16u, hi = unsigned((jl / U) & ~7) * 16u;
      T v[Q][U];
      const unsigned av = bv ^ lo;
#pragma unroll
      for (int t = 0; t < Q; ++t)
        lds_unit<T>(av + hi + unsigned(t * pitch), v[t]);
      T a[R][U];
      if constexpr (Trans) {
        const unsigned aa = ba ^ lo;
#pragma unroll
        for (int r = 0; r < R; ++r) {
          lds_unit<T>(aa + hi + unsigned(r * pitch), a[r]);
#pragma unroll
          for (int u = 0; u < U; ++u)
            a[r][u] = conj(a[r][u]);
        }
      } else {
#pragma unroll
        for (int u = 0; u < U; ++u) {
          T col[R];
          lds<T, R>(sa + (jl + u) * S::RB + row0, col);
#pragma unroll
          for (int r = 0; r < R; ++r)
            a[r][u] = col[r];
        }
      }
#pragma unroll
      for (int u = 0; u < U; ++u)
#pragma unroll
        for (int r = 0; r < R; ++r)
#pragma unroll
          for (int t = 0; t < Q; ++t)
            ch[r][t] = gu == 0 && u == 0          ? chain_first(a[r][u], v[t][u])
                       : (Edge && jl + u >= jlim) ? ch[r][t]
                                                  : madd(a[r][u], v[t][u], ch[r][t]);
    }
#pragma unroll
    for (int r = 0; r < R; ++r)
#pragma unroll
      for (int t = 0; t < Q; ++t) {
        const T s = ch[r][t];
        if (cc == 0 || cc == 2 || cc == 4 || cc == 6) {
          L0[r][t] = s;
        } else if (cc == 1 || cc == 5) {
          L1[r][t] = L0[r][t] + s;
        } else if (cc == 3 || Half) {  // Half: cc == 7, the tree's right half H
          L2[r][t] = L1[r][t] + (L0[r][t] + s);
        } else {
          const T p = L2[r][t] + (L1[r][t] + (L0[r][t] + s));
          acc[r][t] = first ? p : acc[r][t] + p;
        }
      }
  }
}

/// Group 0 of the chunk split: the tree's top addition for the tile of stage s, p = L2 + H with
/// H from group 1 (sh: that tile's buffer), then acc = p (tile column 0) or acc + p.
template <class T, class S>
__device__ __forceinline__ void join_halves(const T* sh, int tig, bool first,
                                            const T (&L2)[S::R][S::Q], T (&acc)[S::R][S::Q]) {
#pragma unroll
  for (int r = 0; r < S::R; ++r)
#pragma unroll
    for (int t = 0; t < S::Q; ++t) {
      const T p = L2[r][t] + sh[(r * S::Q + t) * S::NTG + tig];
      acc[r][t] = first ? p : acc[r][t] + p;
    }
}

template <class T, class S>
__global__ void __launch_bounds__(S::NT, S::MINB) symm_kernel(const SymmArgs<T> g) {
  extern __shared__ __align__(128) unsigned char symm_smem[];
  T* sm = reinterpret_cast<T*>(symm_smem);
  // compute_stage's XOR addressing needs the buffer on a 128-byte boundary (the declaration asks
  // for it; a buffer that were not would read the wrong units, so stop instead)
  if (smem_u32(symm_smem) % 128u != 0) __trap();
  constexpr int R = S::R, Q = S::Q, spt = kTile / S::KC;
  const int lane = threadIdx.x & 31;
  const int tig = threadIdx.x % S::NTG;  // thread index in its warp group
  const int grp = threadIdx.x / S::NTG;  // warp group (chunk split: 0 = chunks 0-3, 1 = 4-7)
  const int w = tig >> 5;                // warp in the group
  const int rg = lane % S::RG, vg = lane / S::RG;
  const int row0 = (w * S::RG + rg) * R;  // the thread's first row in the block
  const int qv0 = vg * Q;                 // the thread's first vector in the block
  const int swa = (w * S::RG + rg) & 7, swv = vg & 7;
  const index_t rb0 = index_t(blockIdx.y) * S::RB, qb0 = index_t(blockIdx.x) * S::QB;
  const index_t P = rb0 / kTile;
  const index_t nt = (g.m + kTile - 1) / kTile, nst = nt * spt;
  T* const shbase = sm + 2 * S::STAGE;  // chunk split: H of tile s in shbase + (s & 1) RB QB

  T L0[R][Q], L1[R][Q], L2[R][Q], acc[R][Q];
#pragma unroll
  for (int r = 0; r < R; ++r)
#pragma unroll
    for (int t = 0; t < Q; ++t)
      L0[r][t] = L1[r][t] = L2[r][t] = acc[r][t] = T(0);

  stage<T, S>(g, 0, rb0, qb0, P, sm);
  cp_async_commit();
  for (index_t s = 0; s < nst; ++s) {
    if (s + 1 < nst) stage<T, S>(g, s + 1, rb0, qb0, P, sm + ((s + 1) & 1) * S::STAGE);
    cp_async_commit();
    cp_async_wait_one();
    __syncthreads();
    const index_t J = s / spt;
    const int h = int(s % spt);
    T* sa = sm + (s & 1) * S::STAGE;
    const T* sv = sa + S::SA;
    if constexpr (S::G == 2) {
      // Tile s - 1: group 1 stored its H before the last barrier; group 1 writes that buffer
      // again only in tile s + 1, after the next barrier.
      if (grp == 0 && s > 0)
        join_halves<T, S>(shbase + ((s - 1) & 1) * (S::RB * S::QB), tig, s - 1 == 0, L2, acc);
    }
    if constexpr (is_complex_v<T>) {
      if (J == P) {
        diag_fixup<T, S>(g.m, rb0, J * kTile + h * S::KC, sa);
        __syncthreads();
      }
    }
    const bool first = J == 0;
    // The stage's present columns; fewer than KC only in the last tile column (uniform per
    // block). Complex takes the Edge form of the stage there (compute_stage).
    const index_t jleft = g.m - (J * kTile + index_t(h) * S::KC);
    const int jlim = jleft >= S::KC ? S::KC : int(jleft);
    const auto stage_for = [&](auto edge) {
      constexpr bool E = decltype(edge)::value;
      if constexpr (S::G == 2) {
        if (grp == 0) {
          if (J > P)
            compute_stage<T, S, 0, true, 0, 4, false, E>(sa, sv, row0, qv0, swa, swv, first, L0, L1,
                                                         L2, acc, jlim);
          else
            compute_stage<T, S, 0, false, 0, 4, false, E>(sa, sv, row0, qv0, swa, swv, first, L0,
                                                          L1, L2, acc, jlim);
        } else {
          if (J > P)
            compute_stage<T, S, 0, true, 4, 4, true, E>(sa, sv, row0, qv0, swa, swv, first, L0, L1,
                                                        L2, acc, jlim);
          else
            compute_stage<T, S, 0, false, 4, 4, true, E>(sa, sv, row0, qv0, swa, swv, first, L0, L1,
                                                         L2, acc, jlim);
          T* sh = shbase + (s & 1) * (S::RB * S::QB);
#pragma unroll
          for (int r = 0; r < R; ++r)
#pragma unroll
            for (int t = 0; t < Q; ++t)
              sh[(r * Q + t) * S::NTG + tig] = L2[r][t];
        }
      } else {
        constexpr int N8 = S::KC / kChunk, H1 = spt > 1 ? 1 : 0;
        if (J > P) {
          if (spt == 1 || h == 0)
            compute_stage<T, S, 0, true, 0, N8, false, E>(sa, sv, row0, qv0, swa, swv, first, L0,
                                                          L1, L2, acc, jlim);
          else
            compute_stage<T, S, H1, true, 0, N8, false, E>(sa, sv, row0, qv0, swa, swv, first, L0,
                                                           L1, L2, acc, jlim);
        } else {
          if (spt == 1 || h == 0)
            compute_stage<T, S, 0, false, 0, N8, false, E>(sa, sv, row0, qv0, swa, swv, first, L0,
                                                           L1, L2, acc, jlim);
          else
            compute_stage<T, S, H1, false, 0, N8, false, E>(sa, sv, row0, qv0, swa, swv, first, L0,
                                                            L1, L2, acc, jlim);
        }
      }
    };
    if constexpr (is_complex_v<T>) {
      if (jlim < S::KC)
        stage_for(std::true_type{});
      else
        stage_for(std::false_type{});
    } else {
      stage_for(std::false_type{});
    }
    __syncthreads();  // buffer s & 1 is refilled by the next iteration's stage(s + 2)
  }
  asm volatile("cp.async.wait_all;\n" ::);
  if constexpr (S::G == 2) {
    if (grp != 0) return;  // group 0 owns acc
    join_halves<T, S>(shbase + ((nst - 1) & 1) * (S::RB * S::QB), tig, nst - 1 == 0, L2, acc);
  }
  // beta == 0: X = alpha * acc with alpha = T(1), the reference's own expression.
  const T one = T(1);
#pragma unroll
  for (int r = 0; r < R; ++r)
#pragma unroll
    for (int t = 0; t < Q; ++t) {
      const index_t i = rb0 + row0 + r, q = qb0 + qv0 + t;
      if (i < g.m && q < g.k) g.X[i + g.ldx * q] = one * acc[r][t];
    }
}

template <class T>
struct Entry {
  const char* name;
  int rb, qb;
  void (*launch)(const SymmArgs<T>&, cudaStream_t);
};

template <class T, class S>
void launch(const SymmArgs<T>& g, cudaStream_t st) {
  const auto kern = symm_kernel<T, S>;
  cudaError_t e = cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(S::SMEM));
  // Several blocks per SM need the largest shared-memory carveout (a hint; no effect on bits).
  if (e == cudaSuccess && S::MINB > 1)
    e = cudaFuncSetAttribute(kern, cudaFuncAttributePreferredSharedMemoryCarveout,
                             cudaSharedmemCarveoutMaxShared);
  if (e != cudaSuccess)
    throw DeviceError(std::string("symm_canonical_gpu: shared memory attribute: ") +
                      cudaGetErrorString(e));
  const dim3 grid(static_cast<unsigned>((g.k + S::QB - 1) / S::QB),
                  static_cast<unsigned>((g.m + S::RB - 1) / S::RB));
  kern<<<grid, S::NT, S::SMEM, st>>>(g);
  e = cudaGetLastError();
  if (e != cudaSuccess)
    throw DeviceError(std::string("symm_canonical_gpu: launch: ") + cudaGetErrorString(e));
}

/// The configurations of T, from the most outputs per thread (fewest blocks) to the fewest.
template <class T>
struct Table;

// 4- and 8-byte scalars: 16 outputs per thread (5 live values each), 64-column stages.
// Configurations 0-3 are symm_select's; the later ones are the session 16 candidates, for the
// H200 measurement (bench_symm --all-configs) before any of them is picked:
//   -cs2   chunk split: two warp groups (chunks 0-3 / 4-7) per output, joined in shared memory
//   -lean  chunk loop not unrolled (fewer registers)
//   -bN    __launch_bounds__ minimum N blocks per SM (register cap 65536 / (N threads))
//   -wN    N warps per block (N = 8: two rows per thread)
// clang-format off
#define ES_SYMM_TABLE_48_BASE(T)                                              \
  {"r4q4-rb64-qb32-kc64", 64, 32, &launch<T, Shape<T, 4, 4, 4, 4, 64>>},      \
  {"r4q2-rb64-qb16-kc64", 64, 16, &launch<T, Shape<T, 4, 2, 4, 4, 64>>},      \
  {"r4q1-rb64-qb8-kc64", 64, 8, &launch<T, Shape<T, 4, 1, 4, 4, 64>>},        \
  {"r2q1-rb16-qb8-kc64", 16, 8, &launch<T, Shape<T, 2, 1, 4, 2, 64>>}
// clang-format on
template <>
struct Table<float> {
  using T = float;
  static constexpr Entry<T> e[] = {
      ES_SYMM_TABLE_48_BASE(T),
      {"r4q4-rb64-qb32-kc64-cs2", 64, 32, &launch<T, Shape<T, 4, 4, 4, 4, 64, 2, 1>>},
      {"r4q2-rb64-qb16-kc64-cs2-b2", 64, 16, &launch<T, Shape<T, 4, 2, 4, 4, 64, 2, 2>>},
      {"r2q4-rb64-qb32-kc64-w8-b2", 64, 32, &launch<T, Shape<T, 2, 4, 4, 8, 64, 1, 2>>},
      {"r4q4-rb64-qb32-kc64-lean-b3", 64, 32, &launch<T, Shape<T, 4, 4, 4, 4, 64, 1, 3, true>>},
      {"r4q4-rb64-qb32-kc32-lean-b4", 64, 32, &launch<T, Shape<T, 4, 4, 4, 4, 32, 1, 4, true>>},
  };
};
template <>
struct Table<double> {
  using T = double;
  static constexpr Entry<T> e[] = {
      ES_SYMM_TABLE_48_BASE(T),
      {"r4q4-rb64-qb32-kc64-cs2", 64, 32, &launch<T, Shape<T, 4, 4, 4, 4, 64, 2, 1>>},
      {"r4q4-rb32-qb32-kc64-cs2", 32, 32, &launch<T, Shape<T, 4, 4, 4, 2, 64, 2, 1>>},
      {"r4q4-rb64-qb32-kc64-lean", 64, 32, &launch<T, Shape<T, 4, 4, 4, 4, 64, 1, 1, true>>},
      {"r4q2-rb64-qb16-kc32-lean-b4", 64, 16, &launch<T, Shape<T, 4, 2, 4, 4, 32, 1, 4, true>>},
      {"r2q4-rb64-qb32-kc64-w8-lean-b2", 64, 32, &launch<T, Shape<T, 2, 4, 4, 8, 64, 1, 2, true>>},
  };
};
template <>
struct Table<Complex<float>> {
  using T = Complex<float>;
  static constexpr Entry<T> e[] = {
      ES_SYMM_TABLE_48_BASE(T),
      {"r4q4-rb64-qb32-kc64-cs2", 64, 32, &launch<T, Shape<T, 4, 4, 4, 4, 64, 2, 1>>},
      {"r4q4-rb32-qb32-kc64-cs2", 32, 32, &launch<T, Shape<T, 4, 4, 4, 2, 64, 2, 1>>},
      {"r4q4-rb64-qb32-kc64-lean", 64, 32, &launch<T, Shape<T, 4, 4, 4, 4, 64, 1, 1, true>>},
      {"r2q4-rb64-qb32-kc64-w8-lean-b2", 64, 32, &launch<T, Shape<T, 2, 4, 4, 8, 64, 1, 2, true>>},
  };
};
#undef ES_SYMM_TABLE_48_BASE

/// symm_select's choice: the first pick whose configuration gives at least min_blocks blocks
/// for (m, k), else the last pick. Measured on the H200 (k = 32 and 64, m = 2048 .. 16384,
/// bench_symm --all-configs): fewer outputs per thread only where the grid would be too small.
struct Pick {
  int config;
  long long min_blocks;
};
template <class T>
struct Picks {  // float, double
  static constexpr Pick p[] = {{0, 128}, {1, 128}, {3, 0}};
};
template <>
struct Picks<Complex<float>> {  // r4q4 needs 255 registers and spills for complex float
  static constexpr Pick p[] = {{1, 256}, {2, 256}, {3, 0}};
};

// 16-byte scalars: 32-column stages (two per tile), fewer outputs per thread.
template <>
struct Table<Complex<double>> {
  using T = Complex<double>;
  static constexpr Entry<T> e[] = {
      {"r4q2-rb64-qb16-kc32", 64, 16, &launch<T, Shape<T, 4, 2, 4, 4, 32>>},
      {"r4q1-rb64-qb8-kc32", 64, 8, &launch<T, Shape<T, 4, 1, 4, 4, 32>>},
      {"r2q1-rb16-qb8-kc32", 16, 8, &launch<T, Shape<T, 2, 1, 4, 2, 32>>},
      // session 16 candidates (not picked yet; see symm_select and the 4/8-byte table's key)
      {"r4q2-rb64-qb16-kc64-cs2", 64, 16, &launch<T, Shape<T, 4, 2, 4, 4, 64, 2, 1>>},
      {"r4q2-rb64-qb16-kc32-lean", 64, 16, &launch<T, Shape<T, 4, 2, 4, 4, 32, 1, 1, true>>},
      {"r2q2-rb64-qb16-kc32-w8-lean-b2", 64, 16, &launch<T, Shape<T, 2, 2, 4, 8, 32, 1, 2, true>>},
  };
};
template <>
struct Table<dd_real> {
  using T = dd_real;
  static constexpr Entry<T> e[] = {
      {"r2q2-rb64-qb16-kc32", 64, 16, &launch<T, Shape<T, 2, 2, 4, 8, 32>>},
      {"r2q1-rb64-qb8-kc32", 64, 8, &launch<T, Shape<T, 2, 1, 4, 8, 32>>},
      {"r1q1-rb16-qb8-kc32", 16, 8, &launch<T, Shape<T, 1, 1, 4, 4, 32>>},
      // session 18 candidates: configuration 1 takes 198 registers for its 2 outputs per thread
      // (8 warps per SM, the FP64 pipe 56 % busy at m = 8192: r1 ncu-ddsymm); these keep more
      // warps (lean, register caps) or more chains per warp
      {"r2q1-rb64-qb8-kc32-lean-b2", 64, 8, &launch<T, Shape<T, 2, 1, 4, 8, 32, 1, 2, true>>},
      {"r2q2-rb64-qb16-kc32-lean-b2", 64, 16, &launch<T, Shape<T, 2, 2, 4, 8, 32, 1, 2, true>>},
      {"r2q1-rb32-qb8-kc32-w4-lean-b3", 32, 8, &launch<T, Shape<T, 2, 1, 4, 4, 32, 1, 3, true>>},
      {"r1q1-rb32-qb8-kc32-lean-b3", 32, 8, &launch<T, Shape<T, 1, 1, 4, 8, 32, 1, 3, true>>},
      {"r2q2-rb32-qb16-kc32-w4-lean-b3", 32, 16, &launch<T, Shape<T, 2, 2, 4, 4, 32, 1, 3, true>>},
      {"r2q1-rb64-qb8-kc32-b2", 64, 8, &launch<T, Shape<T, 2, 1, 4, 8, 32, 1, 2>>},
  };
};

template <>
struct Picks<Complex<double>> {
  static constexpr Pick p[] = {{0, 128}, {2, 0}};
};
// dd: configuration 5 (4-warp blocks, lean, 3 blocks per SM) at every m. Session 18 (r2): forced
// for every call of the dd two-stage reduction at n = 16384 the SYMM took 4.256 s against 4.888 s
// for the old picks (1, then 2), 4.435 s for configuration 3 and 5.416 s for 7; alone (bench_symm,
// k = 32) configurations 3-6 are within 5 % of each other from m = 4096 to 16384.
template <>
struct Picks<dd_real> {
  static constexpr Pick p[] = {{5, 0}};
};

template <class T>
constexpr int count() {
  return int(sizeof(Table<T>::e) / sizeof(Table<T>::e[0]));
}

inline bool aligned16(const void* p, index_t ld, std::size_t size) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && (std::size_t(ld) * size) % 16 == 0;
}

}  // namespace symm_cuda

template <class T>
int symm_config_count() {
  return symm_cuda::count<T>();
}

template <class T>
std::string symm_config_name(int config) {
  if (config < 0 || config >= symm_cuda::count<T>())
    throw DimensionError("symm_config_name: no configuration " + std::to_string(config));
  return symm_cuda::Table<T>::e[config].name;
}

template <class T>
int symm_select(index_t m, index_t k) {
  using symm_cuda::Table;
  constexpr int n = symm_cuda::count<T>();
  // EIGSOLVE_SYMM_CONFIG=<index>: force one configuration (same bits); anything but an index
  // below n is a usage error, never a silent return to the table's pick.
  if (const char* env = std::getenv("EIGSOLVE_SYMM_CONFIG"); env && *env) {
    char* end = nullptr;
    const long c = std::strtol(env, &end, 10);
    if (*end != '\0' || c < 0 || c >= n)
      throw UsageError(std::string("EIGSOLVE_SYMM_CONFIG='") + env + "': expected 0 .. " +
                       std::to_string(n - 1) + " (a SYMM configuration index of this precision)");
    return int(c);
  }
  // The first pick with enough blocks, skipping picks that would pad more than half of their
  // vectors when a later pick pads less.
  using symm_cuda::Picks;
  constexpr int np = int(sizeof(Picks<T>::p) / sizeof(Picks<T>::p[0]));
  const int sms = symv_cuda::sm_count();
  for (int i = 0; i < np; ++i) {
    const auto& e = Table<T>::e[Picks<T>::p[i].config];
    if (i + 1 < np && 2 * k <= e.qb && Table<T>::e[Picks<T>::p[i + 1].config].qb < e.qb) continue;
    const index_t blocks = ((m + e.rb - 1) / e.rb) * ((k + e.qb - 1) / e.qb);
    // min_blocks was measured with 132 SMs: scale it with the device
    if (blocks * 132 >= Picks<T>::p[i].min_blocks * sms) return Picks<T>::p[i].config;
  }
  return Picks<T>::p[np - 1].config;
}

template <class T>
void symm_canonical_gpu(index_t m, index_t k, const T* A, index_t lda, const T* V, index_t ldv,
                        T* X, index_t ldx, void* stream, int config) {
  const std::string f = "symm_canonical_gpu: ";
  if (m < 0 || k < 0 || k > kSymmMaxK)
    throw DimensionError(f + "m = " + std::to_string(m) + ", k = " + std::to_string(k));
  const index_t mn = m > 1 ? m : 1;
  if (lda < mn || ldv < mn || ldx < mn)
    throw DimensionError(f + "leading dimension below max(1, m)");
  if (config < -1 || config >= symm_cuda::count<T>())
    throw DimensionError(f + "no configuration " + std::to_string(config));
  if (m == 0 || k == 0) return;
  const int c = config >= 0 ? config : symm_select<T>(m, k);
  symm_cuda::SymmArgs<T> g{m,
                           k,
                           lda,
                           ldv,
                           ldx,
                           A,
                           V,
                           X,
                           symm_cuda::aligned16(A, lda, sizeof(T)),
                           symm_cuda::aligned16(V, ldv, sizeof(T))};
  symm_cuda::Table<T>::e[c].launch(g, static_cast<cudaStream_t>(stream));
}

#define EIGSOLVE_INSTANTIATE_SYMM(T)                                                              \
  template int symm_config_count<T>();                                                            \
  template std::string symm_config_name<T>(int);                                                  \
  template int symm_select<T>(index_t, index_t);                                                  \
  template void symm_canonical_gpu<T>(index_t, index_t, const T*, index_t, const T*, index_t, T*, \
                                      index_t, void*, int);
EIGSOLVE_FOR_EACH_SCALAR(EIGSOLVE_INSTANTIATE_SYMM)
#undef EIGSOLVE_INSTANTIATE_SYMM

}  // namespace eigsolve
