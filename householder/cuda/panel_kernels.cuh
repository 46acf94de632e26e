// The device tridiagonalization's kernels (householder/cuda/tridiag_device.cu), one stream:
//
//   rank2k_kernel        A22 -= V W^H + W V^H, one 256-thread block per stored 64x64 tile (I, J),
//                        I >= J: thread (tx, ty) = (t % 16, t / 16) owns rows 64I + tx + 16q and
//                        columns 64J + ty + 16p (q, p = 0..3); per element, k ascending in chunks
//                        staged in shared memory:
//                          a = madd(V[i,k], -conj(W[j,k]), a);  a = madd(W[i,k], -conj(V[j,k]), a)
//                        exactly the chain of householder/tridiagonalize.cpp (rank2k_update);
//                        complex diagonal made real afterwards; nothing above the diagonal touched.
//   rank2k_wide_kernel   the same chains with 8x4 elements per thread of 128 and 16-byte shared
//                        loads (s, d, c; the default there, EIGSOLVE_GPU_RANK2K=0: rank2k_kernel);
//                        s and d stage full tiles by cp.async (EIGSOLVE_GPU_RANK2K_ASYNC=0: not);
//                        full tiles below the diagonal load and store A by 16-byte vectors
//                        (EIGSOLVE_GPU_RANK2K_VEC=0: by element)
//   step-by-step panel   col_update, larfg (one block), panel_dots, panel_w, panel_alpha (one
//                        block), panel_finish: the host panel kernel by kernel
//                        (EIGSOLVE_GPU_FUSED=0; the default is householder/cuda/panel_fused.cuh)
//   lower_absmax, scale_lower: eigensolve_device's exact pre-scaling on the device
//
// Included by tridiag_device.cu only.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "core/canonical.hpp"
#include "core/precision.hpp"
#include "symv/cuda/tile_order.cuh"

namespace eigsolve {
namespace tridiag_cuda {
/// k chunk staged in shared memory (4 x kKc x 64 elements: 32 KB for 16-byte scalars).
template <class T>
constexpr int kKc = sizeof(T) > 8 ? 8 : 16;

/// Programmatic dependent launch (sm_90): every kernel of the panel loop first waits for the
/// kernel before it in the stream to complete (griddepcontrol.wait: its writes are visible),
/// then lets the next one be launched while it runs. The next launch overlaps only the launch
/// latency, never the data: bits are unchanged. Without the launch attribute both are no-ops.
__device__ __forceinline__ void pdl_begin() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

template <class T>
__device__ __forceinline__ void make_real_dev(T& a) {
  if constexpr (is_complex_v<T>) a.im = real_t<T>(0);
}

/// The k chunk [k0, k0 + kc) of both rank-2k kernels in shared memory, by Threads threads: rows
/// r0.. of V and W, and -conj of columns c0.. of W and V (zeros past m and past kc).
template <class T, int KC, int Threads>
__device__ __forceinline__ void rank2k_stage(index_t m, const T* V, index_t ldv, const T* W,
                                             index_t ldw, index_t r0, index_t c0, index_t k0,
                                             int kc, int t, T (*vr)[64], T (*wr)[64], T (*nwc)[64],
                                             T (*nvc)[64]) {
  for (int e = t; e < KC * 64; e += Threads) {
    const int k = e >> 6, r = e & 63;
    const bool ok_k = k < kc;
    const index_t ir = r0 + r, jc = c0 + r;
    vr[k][r] = (ok_k && ir < m) ? V[ir + ldv * (k0 + k)] : T(0);
    wr[k][r] = (ok_k && ir < m) ? W[ir + ldw * (k0 + k)] : T(0);
    nwc[k][r] = (ok_k && jc < m) ? -conj(W[jc + ldw * (k0 + k)]) : T(0);
    nvc[k][r] = (ok_k && jc < m) ? -conj(V[jc + ldv * (k0 + k)]) : T(0);
  }
}

/// Whether rank2k_kernel is launched with MinB = 2 (at most 128 registers, two blocks of 8
/// warps per SM): complex double (168 registers unbounded) and dd in a build with the sloppy
/// madd (176 unbounded: one block per SM, the rank-2k 13 % slower on the H100, session 44; the
/// accurate dd build gets 128 unbounded with r2k_madd's branchy sum, 190 with the branch-free
/// one: session 45). The bound changes registers, never the order.
template <class T>
inline constexpr bool kRank2kBound2 = std::is_same_v<T, Complex<double>> ||
                                      (std::is_same_v<T, dd_real> && kDdSloppyMadd);

/// The rank-2k's madd: dd's with the branchy signed-zero fix-up (madd_branchy, same bits), the
/// others' madd.
template <class T>
__device__ __forceinline__ T r2k_madd(const T& a, const T& b, const T& c) {
  if constexpr (std::is_same_v<T, dd_real>)
    return madd_branchy(a, b, c);
  else
    return madd(a, b, c);
}

/// MinB: the launch bound's blocks per SM (0: none; 2 where kRank2kBound2: tridiag_device.cu's
/// and two_stage_device.cu's rank2k()).
template <class T, int MinB = 0>
__global__ void __launch_bounds__(256, MinB)
    rank2k_kernel(index_t m, index_t kb, const T* V, index_t ldv, const T* W, index_t ldw, T* A,
                  index_t lda, index_t nt, bool rev = false) {
  constexpr int KC = kKc<T>;
  __shared__ T vr[KC][64], wr[KC][64], nwc[KC][64], nvc[KC][64];
  pdl_begin();
  index_t I, J;
  // rev: blocks take the tiles last to first (the sweep order of tridiag_device.cu; same bits)
  symv_cuda::tile_coords(rev ? index_t(gridDim.x) - 1 - index_t(blockIdx.x) : index_t(blockIdx.x),
                         nt, I, J);
  const int t = threadIdx.x, tx = t & 15, ty = t >> 4;
  const index_t r0 = I * 64, c0 = J * 64;
  T c[4][4];
#pragma unroll
  for (int q = 0; q < 4; ++q)
#pragma unroll
    for (int p = 0; p < 4; ++p) {
      const index_t i = r0 + tx + 16 * q, j = c0 + ty + 16 * p;
      c[q][p] = (i < m && j <= i) ? A[i + lda * j] : T(0);
    }
  for (index_t k0 = 0; k0 < kb; k0 += KC) {
    const int kc = int(kb - k0 < KC ? kb - k0 : KC);
    rank2k_stage<T, KC, 256>(m, V, ldv, W, ldw, r0, c0, k0, kc, t, vr, wr, nwc, nvc);
    __syncthreads();
    for (int k = 0; k < kc; ++k) {
      T v[4], w[4], nw[4], nv[4];
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        v[q] = vr[k][tx + 16 * q];
        w[q] = wr[k][tx + 16 * q];
      }
#pragma unroll
      for (int p = 0; p < 4; ++p) {
        nw[p] = nwc[k][ty + 16 * p];
        nv[p] = nvc[k][ty + 16 * p];
      }
#pragma unroll
      for (int q = 0; q < 4; ++q)
#pragma unroll
        for (int p = 0; p < 4; ++p) {
          c[q][p] = r2k_madd(v[q], nw[p], c[q][p]);
          c[q][p] = r2k_madd(w[q], nv[p], c[q][p]);
        }
    }
    __syncthreads();
  }
#pragma unroll
  for (int q = 0; q < 4; ++q)
#pragma unroll
    for (int p = 0; p < 4; ++p) {
      const index_t i = r0 + tx + 16 * q, j = c0 + ty + 16 * p;
      if (i < m && j <= i) {
        T a = c[q][p];
        if (i == j) make_real_dev(a);
        A[i + lda * j] = a;
      }
    }
}

/// rank2k_kernel with 8x4 elements per thread (128 threads per tile) and 16-byte shared-memory
/// loads, for s, d and c (EIGSOLVE_GPU_RANK2K=0: rank2k_kernel for every precision). The 4x4
/// form reads as many shared-memory bytes as it does multiply-adds in d and c (one wavefront per
/// 2 DFMA cycles of a warp; s twice that): this one reads 3/8 of it (d, c; s the same with 4-wide
/// vectors). Each element keeps its own chain, k ascending, the two madds per k in the same
/// order: the same bits as rank2k_kernel.
///
///   VW = 16 / sizeof(T) (2 or 4) rows and VC = min(VW, 4) columns per vector;
///   thread t = (tx, ty) = (t % 8, t / 8): rows VW tx + 8 VW q + e (q < 8 / VW, e < VW),
///                                      columns VC ty + 16 VC p + f (p < 4 / VC, f < VC)
template <class T>
constexpr int kR2Vw = int(16 / sizeof(T));

template <class T, int N>
struct alignas(N * sizeof(T)) R2Vec {
  T v[N];
};

/// 16-byte cp.async to a shared-memory byte address.
__device__ __forceinline__ void r2k_cp16(unsigned s, const void* g) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(g));
}

/// rank2k_wide_kernel's k chunk [k0, k0 + KC) of a full tile by cp.async (real T; the tile inside
/// the matrix, KC columns left, V and W 16-byte aligned with 16-byte column strides): rows r0 ..
/// r0+63 of V and W into vr, wr, and rows c0 .. c0+63 of W and V into nwc, nvc *not negated*
/// (the caller negates them as it reads: -x is exact, so madd(v, -x, c) is the madd of the
/// staged -x). Thread t copies 16-byte unit u = t % UPR of the rows t / UPR + j NR: no register
/// round trip, no per-element bounds, every copy of the chunk in flight at once.
template <class T, int KC, int NT>
__device__ __forceinline__ void rank2k_stage_async(const T* V, index_t ldv, const T* W, index_t ldw,
                                                   index_t r0, index_t c0, index_t k0, int t,
                                                   T (*vr)[64], T (*wr)[64], T (*nwc)[64],
                                                   T (*nvc)[64]) {
  constexpr int U = 16 / int(sizeof(T)), UPR = 64 / U, NR = NT / UPR;
  static_assert(NT % UPR == 0 && KC % NR == 0, "whole rows per pass");
  const int u = t % UPR, rr = t / UPR;
  const unsigned row_b = unsigned(rr * 64 + u * U) * unsigned(sizeof(T));
  constexpr unsigned step_b = unsigned(NR * 64 * sizeof(T));
  const unsigned dv = static_cast<unsigned>(__cvta_generic_to_shared(&vr[0][0])) + row_b;
  const unsigned dw = static_cast<unsigned>(__cvta_generic_to_shared(&wr[0][0])) + row_b;
  const unsigned dnw = static_cast<unsigned>(__cvta_generic_to_shared(&nwc[0][0])) + row_b;
  const unsigned dnv = static_cast<unsigned>(__cvta_generic_to_shared(&nvc[0][0])) + row_b;
  const T* sv = V + r0 + u * U + ldv * (k0 + rr);
  const T* sw = W + r0 + u * U + ldw * (k0 + rr);
  const T* snw = W + c0 + u * U + ldw * (k0 + rr);
  const T* snv = V + c0 + u * U + ldv * (k0 + rr);
#pragma unroll
  for (int j = 0; j < KC / NR; ++j) {
    r2k_cp16(dv + j * step_b, sv + j * NR * ldv);
    r2k_cp16(dw + j * step_b, sw + j * NR * ldw);
    r2k_cp16(dnw + j * step_b, snw + j * NR * ldw);
    r2k_cp16(dnv + j * step_b, snv + j * NR * ldv);
  }
  asm volatile("cp.async.commit_group;\n" ::);
}

template <class T>
__global__ void __launch_bounds__(128)
    rank2k_wide_kernel(index_t m, index_t kb, const T* V, index_t ldv, const T* W, index_t ldw,
                       T* A, index_t lda, index_t nt, bool rev = false, bool async_ok = true,
                       bool vec_ok = true) {
  constexpr int KC = kKc<T>, VW = kR2Vw<T>, VC = VW < 4 ? VW : 4, RQ = 8, CP = 4;
  static_assert(VW == 2 || VW == 4, "rank2k_wide_kernel: s, d and c only");
  __shared__ __align__(16) T vr[KC][64], wr[KC][64], nwc[KC][64], nvc[KC][64];
  pdl_begin();
  index_t I, J;
  symv_cuda::tile_coords(rev ? index_t(gridDim.x) - 1 - index_t(blockIdx.x) : index_t(blockIdx.x),
                         nt, I, J);
  const int t = threadIdx.x, tx = t & 7, ty = t >> 3;
  const index_t r0 = I * 64, c0 = J * 64;
  // The asynchronous staging (real T): a full tile, whole chunks of KC, 16-byte aligned V and
  // W, each chunk issued after the last one's compute (the first with the tile's own loads).
  // async_ok = false (EIGSOLVE_GPU_RANK2K_ASYNC=0) keeps rank2k_stage everywhere (the same bits).
  bool async = false;
  if constexpr (!is_complex_v<T>) {
    async =
        async_ok && r0 + 64 <= m && kb % KC == 0 &&
        ((reinterpret_cast<std::uintptr_t>(V) | reinterpret_cast<std::uintptr_t>(W)) & 15) == 0 &&
        ((ldv | ldw) * index_t(sizeof(T))) % 16 == 0;
    if (async) rank2k_stage_async<T, KC, 128>(V, ldv, W, ldw, r0, c0, 0, t, vr, wr, nwc, nvc);
  }
  // element (a, b) of the thread: row VW tx + 8 VW (a / VW) + a % VW, column likewise
  auto row = [tx](int a) { return VW * tx + 8 * VW * (a / VW) + a % VW; };
  auto col = [ty](int b) { return VC * ty + 16 * VC * (b / VC) + b % VC; };
  // A full tile below the diagonal moves by 16-byte vectors (the VW rows of a vector are
  // consecutive in one column) from one pointer with immediate offsets per column: half the
  // loads and stores of the per-element form (VW = 2) and none of its 64-bit index math. The
  // same elements: the bits cannot change. vec_ok = false (EIGSOLVE_GPU_RANK2K_VEC=0) keeps the
  // element form everywhere.
  const bool vec_a =
      vec_ok && I > J && r0 + 64 <= m &&
      ((reinterpret_cast<std::uintptr_t>(A) | std::uintptr_t(lda * index_t(sizeof(T)))) & 15) == 0;
  T* const at = A + r0 + VW * tx + lda * (c0 + VC * ty);  // the thread's first vector
  T c[RQ][CP];
  if (vec_a) {
#pragma unroll
    for (int b = 0; b < CP; ++b) {
      const T* pc = at + lda * (16 * VC * (b / VC) + b % VC);
#pragma unroll
      for (int q = 0; q < RQ / VW; ++q) {
        const auto x = *reinterpret_cast<const R2Vec<T, VW>*>(pc + 8 * VW * q);
#pragma unroll
        for (int e = 0; e < VW; ++e)
          c[q * VW + e][b] = x.v[e];
      }
    }
  } else {
#pragma unroll
    for (int b = 0; b < CP; ++b)
#pragma unroll
      for (int a = 0; a < RQ; ++a) {
        const index_t i = r0 + row(a), j = c0 + col(b);
        c[a][b] = (i < m && j <= i) ? A[i + lda * j] : T(0);
      }
  }
  // The kc k steps of the staged chunk; Neg: nwc / nvc hold W and V as loaded (negated here).
  auto chunk = [&](auto neg, int kc) {
    constexpr bool Neg = decltype(neg)::value;
    for (int k = 0; k < kc; ++k) {
      T v[RQ], w[RQ], nw[CP], nv[CP];
#pragma unroll
      for (int q = 0; q < RQ / VW; ++q) {
        const auto a = *reinterpret_cast<const R2Vec<T, VW>*>(&vr[k][VW * tx + 8 * VW * q]);
        const auto b = *reinterpret_cast<const R2Vec<T, VW>*>(&wr[k][VW * tx + 8 * VW * q]);
#pragma unroll
        for (int e = 0; e < VW; ++e) {
          v[q * VW + e] = a.v[e];
          w[q * VW + e] = b.v[e];
        }
      }
#pragma unroll
      for (int p = 0; p < CP / VC; ++p) {
        const auto a = *reinterpret_cast<const R2Vec<T, VC>*>(&nwc[k][VC * ty + 16 * VC * p]);
        const auto b = *reinterpret_cast<const R2Vec<T, VC>*>(&nvc[k][VC * ty + 16 * VC * p]);
#pragma unroll
        for (int f = 0; f < VC; ++f) {
          if constexpr (Neg) {
            nw[p * VC + f] = -a.v[f];
            nv[p * VC + f] = -b.v[f];
          } else {
            nw[p * VC + f] = a.v[f];
            nv[p * VC + f] = b.v[f];
          }
        }
      }
#pragma unroll
      for (int a = 0; a < RQ; ++a)
#pragma unroll
        for (int b = 0; b < CP; ++b) {
          c[a][b] = madd(v[a], nw[b], c[a][b]);
          c[a][b] = madd(w[a], nv[b], c[a][b]);
        }
    }
  };
  for (index_t k0 = 0; k0 < kb; k0 += KC) {
    const int kc = int(kb - k0 < KC ? kb - k0 : KC);
    if constexpr (!is_complex_v<T>) {
      if (async) {
        if (k0 > 0) rank2k_stage_async<T, KC, 128>(V, ldv, W, ldw, r0, c0, k0, t, vr, wr, nwc, nvc);
        asm volatile("cp.async.wait_all;\n" ::: "memory");
        __syncthreads();
        chunk(std::true_type{}, KC);
        __syncthreads();
        continue;
      }
    }
    rank2k_stage<T, KC, 128>(m, V, ldv, W, ldw, r0, c0, k0, kc, t, vr, wr, nwc, nvc);
    __syncthreads();
    chunk(std::false_type{}, kc);
    __syncthreads();
  }
  if (vec_a) {
#pragma unroll
    for (int b = 0; b < CP; ++b) {
      T* pc = at + lda * (16 * VC * (b / VC) + b % VC);
#pragma unroll
      for (int q = 0; q < RQ / VW; ++q) {
        R2Vec<T, VW> x;
#pragma unroll
        for (int e = 0; e < VW; ++e)
          x.v[e] = c[q * VW + e][b];
        *reinterpret_cast<R2Vec<T, VW>*>(pc + 8 * VW * q) = x;
      }
    }
    return;
  }
#pragma unroll
  for (int b = 0; b < CP; ++b)
#pragma unroll
    for (int a = 0; a < RQ; ++a) {
      const index_t i = r0 + row(a), j = c0 + col(b);
      if (i < m && j <= i) {
        T x = c[a][b];
        if (i == j) make_real_dev(x);
        A[i + lda * j] = x;
      }
    }
}

// ---- the panel on the device (device_panel): the host panel of tridiagonalize.cpp, kernel by
// kernel, every chain and reduction in the same order (docs/canonical-tridiagonalization.md).

__device__ __forceinline__ int exponent_of_dev(float a) {
  int e = 0;
  frexpf(a, &e);
  return e;
}
__device__ __forceinline__ int exponent_of_dev(double a) {
  int e = 0;
  frexp(a, &e);
  return e;
}
__device__ __forceinline__ int exponent_of_dev(const dd_real& a) {
  return exponent_of_dev(a.hi);
}
template <class T>
__device__ __forceinline__ T scale2_any_dev(const T& a, int k) {
  if constexpr (is_complex_v<T>)
    return T(scale2(a.re, k), scale2(a.im, k));
  else
    return scale2(a, k);
}

/// sq + |2^-ex a|^2 as the canonical sum of squares chains it: fma(re, re, sq), then (complex)
/// fma(im, im, .), with a scaled exactly by 2^-ex first.
template <class T>
__device__ __forceinline__ real_t<T> madd_scaled_square(const T& a, int ex, real_t<T> sq) {
  const T xs = scale2_any_dev(a, -ex);
  sq = madd(real_part(xs), real_part(xs), sq);
  if constexpr (is_complex_v<T>) sq = madd(xs.im, xs.im, sq);
  return sq;
}

/// acc := acc + p[0] + p[stride] + ... + p[(cnt-1) stride], one add after the other in
/// ascending order (first: acc := p[0] to begin, so a lone -0 stays -0); by one thread. The
/// loads go 8 ahead of the adds, so only the adds' own latency is serial.
template <class S>
__device__ __forceinline__ S serial_add(const S* p, index_t stride, index_t cnt, S acc,
                                        bool first) {
  index_t k = 0;
  if (first && cnt > 0) {
    acc = p[0];
    k = 1;
  }
  for (; k + 8 <= cnt; k += 8) {
    S v[8];
#pragma unroll
    for (int u = 0; u < 8; ++u)
      v[u] = p[(k + u) * stride];
#pragma unroll
    for (int u = 0; u < 8; ++u)
      acc = acc + v[u];
  }
  for (; k < cnt; ++k)
    acc = acc + p[k * stride];
  return acc;
}

/// Canonical sum over [0, len) by one whole block (blockDim.x a multiple of 64, at most 1024):
/// 8 threads per tile of 64, thread q of a tile runs chunk q's chain s = elem(i, s) over
/// i = 64 tl + 8q .. +7 (out-of-range terms skipped, as tile_dot does), the 8 chunk sums
/// combined by tile_tree, and the tile partials added in ascending order by thread 0
/// (p0 + p1 + ...: sum_tiles' and canonical_dot's order). Tiles go in batches of blockDim/8
/// staged in shared memory (sh: blockDim.x elements). The result is valid in thread 0; every
/// thread must call it.
template <class S, class Elem>
__device__ S block_canonical_sum(index_t len, Elem elem, S* sh) {
  const int t = threadIdx.x, q = t & 7, groups = int(blockDim.x >> 3);
  const index_t ntl = (len + kTile - 1) / kTile;
  S acc = S(0);
  for (index_t b0 = 0; b0 < ntl; b0 += groups) {
    const index_t tl = b0 + (t >> 3);
    S s = S(0);
    if (tl < ntl) {
      const index_t cb = tl * kTile + index_t(q) * kChunk;
#pragma unroll
      for (int u = 0; u < kChunk; ++u)
        if (cb + u < len) s = elem(cb + u, s);
    }
    sh[t] = s;
    __syncwarp();
    S p = S(0);
    if (q == 0 && tl < ntl) {
      S c[kChunk];
#pragma unroll
      for (int k = 0; k < kChunk; ++k)
        c[k] = sh[t + k];
      p = tile_tree(c);
    }
    __syncwarp();
    if (q == 0) sh[t] = p;
    __syncthreads();
    if (t == 0) {
      const index_t cnt = ntl - b0 < groups ? ntl - b0 : groups;
      acc = serial_add(static_cast<const S*>(sh), kChunk, cnt, acc, b0 == 0);
    }
    __syncthreads();
  }
  return acc;
}

/// 1. Column update: a(r, g) for r = g .. n-1, chain over k < i (V = A(:, j0..), W).
template <class T>
__global__ void col_update_kernel(index_t n, index_t g, index_t j0, index_t i, T* A, index_t lda,
                                  const T* W, index_t ldw) {
  pdl_begin();
  const index_t r = g + index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= n) return;
  T c = A[r + lda * g];
  if (r == g) make_real_dev(c);
  for (index_t k = 0; k < i; ++k) {
    const T nw = -conj(W[g + ldw * k]);
    const T nv = -conj(A[g + lda * (j0 + k)]);
    c = madd(A[r + lda * (j0 + k)], nw, c);
    c = madd(W[r + ldw * k], nv, c);
  }
  if (r == g) make_real_dev(c);
  A[r + lda * g] = c;
}

/// hh_detail::larfg's last step from tt0 = the ordered sum of the scaled squares of x (0 for
/// none) and alpha, scaled by 2^-ex: tau, r = 1 / (alpha - beta) (scaled) and e = beta.
template <class T>
__device__ __forceinline__ void larfg_beta(real_t<T> tt0, const T& alpha, int ex, T& tg, T& r,
                                           real_t<T>& e) {
  using R = real_t<T>;
  const R ar = real_part(alpha), ai = imag_part(alpha);
  R tt = tt0;
  const R ars = scale2(ar, -ex), ais = scale2(ai, -ex);
  if constexpr (is_complex_v<T>) tt = madd(ais, ais, tt);
  tt = madd(ars, ars, tt);
  const R bn = sqrt_(tt);
  const R bs = (ars >= R(0)) ? -bn : bn;
  T as;
  if constexpr (is_complex_v<T>) {
    tg = T((bs - ars) / bs, -ais / bs);
    as = T(ars, ais);
  } else {
    tg = (bs - ars) / bs;
    as = T(ars);
  }
  r = T(1) / (as - T(bs));
  e = real_part(T(scale2(bs, ex)));
}

/// 2. Reflector of order m = n-g-1 from alpha = A(g+1, g), x = A(g+2:n, g) (hh_detail::larfg),
/// then e[g] = real(beta), A(g+1, g) = 1, tau[g]. One block of 1024 threads.
template <class T>
__global__ void __launch_bounds__(1024)
    larfg_kernel(index_t n, index_t g, T* A, index_t lda, real_t<T>* e, T* tau) {
  using R = real_t<T>;
  __shared__ R red[1024];
  __shared__ int s_e, s_zero;
  __shared__ T s_r;
  pdl_begin();
  const int t = threadIdx.x;
  const index_t m = n - g - 1;
  T* col = A + lda * g;
  T* alpha_p = col + (g + 1);
  T* x = col + (g + 2 < n - 1 ? g + 2 : n - 1);
  const index_t nx = m - 1;
  const bool trivial = is_complex_v<T> ? (m <= 0) : (m <= 1);
  if (trivial) {
    if (t == 0) {
      e[g] = real_part(*alpha_p);
      tau[g] = T(0);
      *alpha_p = T(1);
    }
    return;
  }
  R mx = R(0);
  for (index_t q = t; q < nx; q += blockDim.x) {
    const R a = abs1(x[q]);
    if (a > mx) mx = a;
  }
  red[t] = mx;
  __syncthreads();
  for (int h = blockDim.x / 2; h > 0; h /= 2) {
    if (t < h && red[t + h] > red[t]) red[t] = red[t + h];
    __syncthreads();
  }
  const T alpha = *alpha_p;
  const R ar = real_part(alpha), ai = imag_part(alpha);
  if (t == 0) {
    const R xmax = red[0];
    s_zero = (xmax == R(0) && ai == R(0));
    R amax = xmax;
    if (abs(ar) > amax) amax = abs(ar);
    if (abs(ai) > amax) amax = abs(ai);
    s_e = exponent_of_dev(amax);
  }
  __syncthreads();
  if (s_zero) {
    if (t == 0) {
      e[g] = real_part(alpha);
      tau[g] = T(0);
      *alpha_p = T(1);
    }
    return;
  }
  const int ex = s_e;
  const R ss = block_canonical_sum<R>(
      nx, [&](index_t i, R sq) { return madd_scaled_square(x[i], ex, sq); }, red);
  if (t == 0) {
    T tg;
    real_t<T> eg;
    larfg_beta(nx > 0 ? ss : R(0), alpha, ex, tg, s_r, eg);
    tau[g] = tg;
    e[g] = eg;
  }
  __syncthreads();
  const T r = s_r;
  for (index_t q = t; q < nx; q += blockDim.x)
    x[q] = scale2_any_dev(x[q], -ex) * r;
  if (t == 0) *alpha_p = T(1);
}

constexpr int kDotThreads = 512;

/// 4. t[b], b < 2i: b < i: conj(W(g+1:n, b)) . v, else conj(V(g+1:n, b-i)) . v (canonical
/// dots, tiles from g+1). One block per dot.
template <class T>
__global__ void __launch_bounds__(kDotThreads)
    panel_dots_kernel(index_t m, index_t g, index_t j0, index_t i, const T* A, index_t lda,
                      const T* W, index_t ldw, T* tvec) {
  __shared__ T sh[kDotThreads];
  pdl_begin();
  const index_t b = blockIdx.x;
  const T* vec = b < i ? W + (g + 1) + ldw * b : A + (g + 1) + lda * (j0 + (b - i));
  const T* v = A + (g + 1) + lda * g;
  const T s = block_canonical_sum<T>(
      m, [&](index_t q, T acc) { return madd_conj(vec[q], v[q], acc); }, sh);
  if (threadIdx.x == 0) tvec[b] = s;
}

/// 5. w_r = tau ((w_r - V(r,:) . t1) - W(r,:) . t2) for i > 0, else tau w_r.
template <class T>
__global__ void panel_w_kernel(index_t m, index_t g, index_t j0, index_t i, const T* A, index_t lda,
                               T* W, index_t ldw, const T* tvec, const T* tau) {
  pdl_begin();
  const index_t r = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= m) return;
  T* w = W + (g + 1) + ldw * i;
  const T tg = tau[g];
  if (i == 0) {
    w[r] = tg * w[r];
    return;
  }
  const T* vr = A + (g + 1 + r) + lda * j0;
  const T* wr = W + (g + 1 + r);
  T d1 = T(0), d2 = T(0);
  for (index_t k0 = 0; k0 < i; k0 += kTile) {
    const index_t hi = k0 + kTile < i ? k0 + kTile : i;
    const T p1 = tile_dot<false, T>(
        k0, k0, hi, [&](index_t k) { return vr[lda * k]; }, [&](index_t k) { return tvec[k]; });
    const T p2 = tile_dot<false, T>(
        k0, k0, hi, [&](index_t k) { return wr[ldw * k]; }, [&](index_t k) { return tvec[i + k]; });
    d1 = k0 == 0 ? p1 : d1 + p1;
    d2 = k0 == 0 ? p2 : d2 + p2;
  }
  w[r] = tg * ((w[r] - d1) - d2);
}

/// 6. w += alpha v, alpha = (-1/2 tau) (w^H v). One block.
template <class T>
__global__ void __launch_bounds__(1024)
    panel_alpha_kernel(index_t m, index_t g, index_t i, const T* A, index_t lda, T* W, index_t ldw,
                       const T* tau) {
  __shared__ T sh[1024];
  __shared__ T s_al;
  pdl_begin();
  T* w = W + (g + 1) + ldw * i;
  const T* v = A + (g + 1) + lda * g;
  const T s = block_canonical_sum<T>(
      m, [&](index_t q, T acc) { return madd_conj(w[q], v[q], acc); }, sh);
  if (threadIdx.x == 0) s_al = (T(-0.5) * tau[g]) * s;
  __syncthreads();
  const T al = s_al;
  for (index_t r = threadIdx.x; r < m; r += blockDim.x)
    w[r] = madd(al, v[r], w[r]);
}

/// After the panel's trailing update: A(j+1, j) = e[j], d[j] = real(A(j, j)), j in [j0, j0+nb).
template <class T>
__global__ void panel_finish_kernel(index_t j0, index_t nb, T* A, index_t lda, const real_t<T>* e,
                                    real_t<T>* d) {
  pdl_begin();
  if (index_t(threadIdx.x) >= nb) return;
  const index_t j = j0 + threadIdx.x;
  A[(j + 1) + lda * j] = T(e[j]);
  d[j] = real_part(A[j + lda * j]);
}

/// Largest to_double(abs1(a)) over the lower triangle (NaN never wins, as std::max(amax, x) on
/// the host): non-negative doubles order as their bit patterns, so atomicMax on the bits is
/// exact and independent of the order.
template <class T>
__global__ void lower_absmax_kernel(index_t n, const T* A, index_t lda, unsigned long long* out) {
  unsigned long long best = 0;
  const index_t total = n * n, stride = index_t(gridDim.x) * blockDim.x;
  for (index_t k = index_t(blockIdx.x) * blockDim.x + threadIdx.x; k < total; k += stride) {
    const index_t j = k / n, i = k - j * n;
    if (i < j) continue;
    const double a = to_double(abs1(A[i + lda * j]));
    if (a == a) {
      const unsigned long long bits = static_cast<unsigned long long>(__double_as_longlong(a));
      if (bits > best) best = bits;
    }
  }
  for (int o = 16; o > 0; o >>= 1) {
    const unsigned long long other = __shfl_down_sync(0xffffffffu, best, o);
    if (other > best) best = other;
  }
  if ((threadIdx.x & 31) == 0 && best) atomicMax(out, best);
}

/// a := scale2(a, k) (each part) over the lower triangle: exact, as the host's scale_lower.
template <class T>
__global__ void scale_lower_kernel(index_t n, T* A, index_t lda, int k) {
  const index_t total = n * n, stride = index_t(gridDim.x) * blockDim.x;
  for (index_t q = index_t(blockIdx.x) * blockDim.x + threadIdx.x; q < total; q += stride) {
    const index_t j = q / n, i = q - j * n;
    if (i >= j) A[i + lda * j] = scale2_any_dev(A[i + lda * j], k);
  }
}

}  // namespace tridiag_cuda
}  // namespace eigsolve
