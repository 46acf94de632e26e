// Stage 1's panel QR with each block's column resident in registers (EIGSOLVE_GPU_QR1=2, the
// default since session 23: householder/cuda/two_stage_device.cu's launch_panel_qr() says for
// which m and precisions). The same operations in the same order as panel_qr_kernel
// (docs/canonical-two-stage.md, step 1), so the same bits; only where values live, which thread
// adds them, and the barriers differ.
//
// Why: panel_qr_kernel passes over its column in global memory several times per reflector
// (dot, axpy, max, sum of squares, scale), each pass a chain of dependent L2 round trips that
// grows with m. Here the column is read once, kept in registers, and written once; each
// reflector v_i is read once, coalesced, into shared memory.
//
// Thread-to-row map. 512 threads; thread t holds a[B][u] = element e = 4096 B + 8 t + u of its
// column (B < NB, u < 8) relative to the current origin o, i.e. row o + e:
//
//            batch 0 (e = 0 .. 4095)                     batch 1 (e = 4096 .. 8191)
//   rows  o+0 .. o+7 | o+8 .. o+15 | ... | o+4088 ..    o+4096 .. o+4103 | ...
//         thread 0   | thread 1    | ... | thread 511   thread 0          | ...
//         \______ tile 0 = threads 0..7 (lanes 8g..8g+7), chunk q = t % 8 ______/
//
// This is block_canonical_sum's ownership (tile 64 B + t / 8, chunk t % 8) for a sum whose tiles
// start at row o: each chunk chain runs in the thread holding its 8 elements, the tile tree is
// three shfl_down steps in tile_tree's operand order, and every thread runs the ascending chain
// of tile partials itself (the same bits in all threads: no broadcast).
//
// The per-reflector shift. Reflector i's dot has tiles from row i; larfg's sum of squares from
// row c + 1. So the origin follows: shift1 moves it from o to o + 1 after each reflector.
//
//   before: thread t  [e0 e1 e2 e3 e4 e5 e6 e7]   thread t+1 [f0 f1 ...]
//   after:  thread t  [e1 e2 e3 e4 e5 e6 e7 f0]   (f0 by shfl_down; lane 31 takes lane 0 of the
//           next warp through shared memory; thread 511 takes thread 0's next batch)
//   row o (the old e0 of thread 0) is final: written out before the shift.
//
// Block c (by ticket, as panel_qr_kernel) uses origins 0 .. c-1 for reflectors 0 .. c-1, origin
// c for alpha and the max, origin c + 1 for the sum of squares, the scaling and the write-back.
// Per reflector i < min(c, k):
//   thread 0: poll flag[i] (ld.relaxed.gpu) then fence.acq_rel.gpu; barrier (A)
//   v_i (rows i .. m-1) -> shared memory by cp.async at padded index e + e/8; tau_i; barrier (B)
//   chunk chains madd_conj(v, a, s) -> tile tree (shfl_down) -> partials; barrier (C)
//   every thread: chain of partials = w; u = -(conj(tau_i) w); a = madd(v, u, a); row i out;
//   shift1 (one barrier)
// Then larfg: max of abs1 (comparisons only: any order), alpha from thread 0, barrier (D), ex
// and the zero test by every thread, shift1, the scaled sum of squares as above, barrier (E),
// larfg_beta in every thread, scale, x staged through shared memory and stored coalesced;
// barrier, thread 0: fence.acq_rel.gpu + st.relaxed of flag[c] (a release after the barrier,
// cumulative over the block's stores; the pattern of the chase and the Q2 kernels).
//
// Budget: NB <= 4 (m <= 16384) for 4- and 8-byte scalars, NB <= 2 (m <= 8192) for 16-byte ones;
// 512 threads x up to 128 registers and smem_bytes<T, NB>() of dynamic shared memory (up to
// ~150 KB: at NB = 3, 4 one block fills an SM). Included by two_stage_device.cu only.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <type_traits>

#include "core/canonical.hpp"
#include "core/cuda/cp_async.cuh"
#include "core/cuda/l2_access.cuh"
#include "core/cuda/sync_flags.cuh"
#include "core/precision.hpp"
#include "householder/cuda/panel_kernels.cuh"

namespace eigsolve {
namespace two_stage_cuda {
namespace panel_rf {

constexpr int kThreads = 512;
constexpr int kBatch = kThreads * kChunk;       ///< 4096 elements per batch
constexpr int kBatchPad = kBatch + kBatch / 8;  ///< 4608: a batch in shared memory, padded

/// The largest NB compiled for T (the register budget: 8 elements x NB per thread).
template <class T>
constexpr int kMaxNb = sizeof(T) <= 8 ? 4 : 2;

/// Padded shared-memory index of element e (one pad slot per 8 elements): thread t's chunk of
/// batch B starts at 4608 B + 9 t, so a warp's reads of one u fall in distinct banks (4-byte)
/// or bank pairs (8-, 16-byte): conflict-free.
__device__ __forceinline__ int pidx(int e) {
  return e + (e >> 3);
}

/// A warp shuffle of any trivially copyable scalar (float, double, Complex, dd), word by word:
/// shfl(word) is __shfl_down_sync or __shfl_xor_sync with its lane argument bound.
template <class T, class Shfl>
__device__ __forceinline__ T shfl_words(const T& v, Shfl shfl) {
  static_assert(sizeof(T) % 4 == 0, "4-byte words");
  T r;
  const unsigned* s = reinterpret_cast<const unsigned*>(&v);
  unsigned* o = reinterpret_cast<unsigned*>(&r);
#pragma unroll
  for (int w = 0; w < int(sizeof(T) / 4); ++w)
    o[w] = shfl(s[w]);
  return r;
}
template <class T>
__device__ __forceinline__ T shfl_down_any(const T& v, int d) {
  return shfl_words(v, [d](unsigned x) { return __shfl_down_sync(0xffffffffu, x, d); });
}
template <class T>
__device__ __forceinline__ T shfl_xor_any(const T& v, int d) {
  return shfl_words(v, [d](unsigned x) { return __shfl_xor_sync(0xffffffffu, x, d); });
}

/// tile_tree of the chunk sums c_q held by lanes 8g + q, with tile_tree's operand order (the
/// lower chunk on the left): ((c0 + c1) + (c2 + c3)) + ((c4 + c5) + (c6 + c7)). Valid in lane 8g
/// only; every lane of the warp must call it.
template <class S>
__device__ __forceinline__ S tree8_down(S v) {
  v = v + shfl_down_any(v, 1);
  v = v + shfl_down_any(v, 2);
  return v + shfl_down_any(v, 4);
}

/// acc = p[0]; acc = acc + p[1]; ...; acc + p[nt-1] (nt >= 1): the ascending chain of tile
/// partials (block_canonical_sum's serial_add with first = true), by every thread (broadcast
/// shared loads), loads one group of 4 ahead. Reads p[0 .. max(4, nt + 3)]; the extra values
/// are never added.
template <class S>
__device__ __forceinline__ S chain_all(const S* p, int nt) {
  S acc = p[0];
  S b[4];
#pragma unroll
  for (int u = 0; u < 4; ++u)
    b[u] = p[1 + u];
  int j = 1;
  for (; j + 4 <= nt; j += 4) {
    S nb[4];
#pragma unroll
    for (int u = 0; u < 4; ++u)
      nb[u] = p[j + 4 + u];
#pragma unroll
    for (int u = 0; u < 4; ++u)
      acc = acc + b[u];
#pragma unroll
    for (int u = 0; u < 4; ++u)
      b[u] = nb[u];
  }
#pragma unroll
  for (int u = 0; u < 3; ++u)
    if (j + u < nt) acc = acc + b[u];
  return acc;
}

// cp_async_elem (core/cuda/cp_async.cuh) is issued after the acquire and the barrier (A), so the
// weak reads see the published reflector; and no L1 line of a reflector's column predates its
// publication (the columns are loaded through L2 only), so .ca cannot hit a stale line.

/// The origin o -> o + 1: new element e = old element e + 1 (diagram above). xs: NB x 16 slots
/// for lane 0's first element of every warp. Contains a barrier; every thread must call it.
template <class T, int NB>
__device__ __forceinline__ void shift1(T (&a)[NB][kChunk], T* xs, int lane, int w) {
  T nx[NB];
#pragma unroll
  for (int b = 0; b < NB; ++b)
    nx[b] = shfl_down_any(a[b][0], 1);
  if (lane == 0) {
#pragma unroll
    for (int b = 0; b < NB; ++b)
      xs[b * 16 + w] = a[b][0];
  }
  __syncthreads();
  if (lane == 31) {
#pragma unroll
    for (int b = 0; b < NB; ++b)
      nx[b] = w < 15 ? xs[b * 16 + w + 1] : (b + 1 < NB ? xs[(b + 1) * 16] : T(0));
  }
#pragma unroll
  for (int b = 0; b < NB; ++b) {
#pragma unroll
    for (int u = 0; u < kChunk - 1; ++u)
      a[b][u] = a[b][u + 1];
    a[b][kChunk - 1] = nx[b];
  }
}

/// Dynamic shared memory of panel_qr_rf_kernel<T, NB>: vs (NB x 4608 T: the reflector, then the
/// write-back staging), two partial buffers (NB x 64 + 8 T each), xs (NB x 16 T), alpha (2 T),
/// the warps' maxima (16 R).
template <class T, int NB>
constexpr std::size_t smem_bytes() {
  return sizeof(T) * (std::size_t(NB) * kBatchPad + 2 * (NB * 64 + 8) + NB * 16 + 2) +
         sizeof(real_t<T>) * 16;
}

/// panel_qr_kernel with the column in registers. Launch: b blocks of kThreads threads,
/// smem_bytes<T, NB>() bytes of dynamic shared memory (the attribute set beforehand), the
/// arguments of panel_qr_kernel; requires 1 <= m <= NB x 4096 (and k = min(b, m)).
template <class T, int NB>
__global__ void __launch_bounds__(kThreads, 1)
    panel_qr_rf_kernel(index_t m, index_t k, T* P, index_t lda, T* tau, real_t<T>* beta,
                       real_t<T>* alpha_im, unsigned* flag, unsigned long long* ticket,
                       unsigned long long base, unsigned epoch) {
  using R = real_t<T>;
  constexpr int kPart = NB * 64 + 8;
  tridiag_cuda::pdl_begin();
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* vs = reinterpret_cast<T*>(smem_raw);
  T* part = vs + NB * kBatchPad;
  T* xs = part + 2 * kPart;
  T* s_alpha = xs + NB * 16;
  R* red = reinterpret_cast<R*>(s_alpha + 2);
  __shared__ long long s_c;
  const int t = threadIdx.x, lane = t & 31, w = t >> 5;
  if (t == 0) s_c = static_cast<long long>(atomicAdd(ticket, 1ull) - base);
  __syncthreads();
  const index_t c = index_t(s_c);
  T* col = P + lda * c;
  // The column at origin 0, every load in flight at once (no store in between). Through L2 only:
  // the block's L1 then holds lines of P only from cp.async of published reflectors (final).
  T a[NB][kChunk];
#pragma unroll
  for (int b = 0; b < NB; ++b)
#pragma unroll
    for (int u = 0; u < kChunk; ++u) {
      const index_t e = index_t(b) * kBatch + 8 * t + u;
      a[b][u] = e < m ? ldcg(col + e) : T(0);
    }
  const index_t napply = c < k ? c : k;
  for (index_t i = 0; i < napply; ++i) {
    if (t == 0) {
      while (ld_relaxed(flag + i) != epoch) {
      }
      fence_acq_rel();
    }
    __syncthreads();  // (A) reflector i published; the previous step's reads of vs are done
    const int L = int(m - i);
    const T* v = P + i + lda * i;
    for (int e = t; e < L; e += kThreads)
      cp_async_elem<int(sizeof(T))>(vs + pidx(e), v + e);
    const T ti = ldcg(tau + i);
    cp_async_wait_all();
    __syncthreads();  // (B) v_i in shared memory
    T* buf = part + (i & 1) * kPart;
    const int ntl = (L + kTile - 1) / kTile;
#pragma unroll
    for (int b = 0; b < NB; ++b) {
      T s = T(0);
      const int e0 = b * kBatch + 8 * t;
      const T* vb = vs + b * kBatchPad + 9 * t;
#pragma unroll
      for (int u = 0; u < kChunk; ++u)
        if (e0 + u < L) s = madd_conj(vb[u], a[b][u], s);
      const T p = tree8_down(s);
      if ((lane & 7) == 0 && b * 64 + (t >> 3) < ntl) buf[b * 64 + (t >> 3)] = p;
    }
    __syncthreads();  // (C) the tile partials
    const T wsum = chain_all(buf, ntl);
    const T uu = -(conj(ti) * wsum);
#pragma unroll
    for (int b = 0; b < NB; ++b) {
      const int e0 = b * kBatch + 8 * t;
      const T* vb = vs + b * kBatchPad + 9 * t;
#pragma unroll
      for (int u = 0; u < kChunk; ++u)
        if (e0 + u < L) a[b][u] = madd(vb[u], uu, a[b][u]);
    }
    if (t == 0) col[i] = a[0][0];  // row i: final (later reflectors start below it)
    shift1(a, xs, lane, w);        // origin i + 1
  }
  const index_t o = napply;  // the origin now
  const int L = int(m - o);
  const bool publish = c < k;
  int nout = L;  // elements [0, nout) of the final origin are written back
  if (publish) {
    // Reflector c of order L = m - c: alpha = element 0, x = elements 1 .. L-1 (larfg_kernel).
    const bool trivial = is_complex_v<T> ? (L <= 0) : (L <= 1);
    R mx = R(0);
#pragma unroll
    for (int b = 0; b < NB; ++b)
#pragma unroll
      for (int u = 0; u < kChunk; ++u) {
        const int e = b * kBatch + 8 * t + u;
        if (e >= 1 && e < L) {
          const R av = abs1(a[b][u]);
          if (av > mx) mx = av;
        }
      }
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) {
      const R o2 = shfl_xor_any(mx, d);
      if (o2 > mx) mx = o2;
    }
    if (lane == 0) red[w] = mx;
    if (t == 0) s_alpha[0] = a[0][0];
    __syncthreads();  // (D) the warps' maxima and alpha
    R xmax = red[0];
#pragma unroll
    for (int j = 1; j < 16; ++j)
      if (red[j] > xmax) xmax = red[j];
    const T alpha = s_alpha[0];
    const R ar = real_part(alpha), ai = imag_part(alpha);
    if (t == 0) alpha_im[c] = ai;  // form_v_kernel's P(c, c) when tau = 0
    bool done = trivial;
    int ex = 0;
    if (!trivial) {
      done = (xmax == R(0) && ai == R(0));
      R amax = xmax;
      if (abs(ar) > amax) amax = abs(ar);
      if (abs(ai) > amax) amax = abs(ai);
      ex = tridiag_cuda::exponent_of_dev(amax);
    }
    shift1(a, xs, lane, w);  // origin c + 1: element e = x[e]
    const int nx = L - 1;
    nout = nx;
    if (done) {
      if (t == 0) {
        beta[c] = real_part(alpha);
        tau[c] = T(0);
      }
    } else {
      R* rbuf = reinterpret_cast<R*>(part);  // buffer 0: its last readers passed (D)
      const int ntl = (nx + kTile - 1) / kTile;
#pragma unroll
      for (int b = 0; b < NB; ++b) {
        R s = R(0);
        const int e0 = b * kBatch + 8 * t;
#pragma unroll
        for (int u = 0; u < kChunk; ++u)
          if (e0 + u < nx) s = tridiag_cuda::madd_scaled_square(a[b][u], ex, s);
        const R p = tree8_down(s);
        if ((lane & 7) == 0 && b * 64 + (t >> 3) < ntl) rbuf[b * 64 + (t >> 3)] = p;
      }
      __syncthreads();  // (E) the tile partials of the squares
      const R ss = nx > 0 ? chain_all(rbuf, ntl) : R(0);
      T tg, r;
      R eg;
      tridiag_cuda::larfg_beta(ss, alpha, ex, tg, r, eg);  // every thread: the same bits
      if (t == 0) {
        tau[c] = tg;
        beta[c] = eg;
      }
#pragma unroll
      for (int b = 0; b < NB; ++b)
#pragma unroll
        for (int u = 0; u < kChunk; ++u)
          if (b * kBatch + 8 * t + u < nx) a[b][u] = tridiag_cuda::scale2_any_dev(a[b][u], -ex) * r;
    }
    if (t == 0) col[c] = T(1);
  }
  // Write back elements [0, nout) of the current origin (rows row0 + e), also when tau = 0 (the
  // column lives only in registers): staged through vs (its last readers, the axpy, passed a
  // barrier since), then coalesced stores.
  const index_t row0 = publish ? c + 1 : o;
#pragma unroll
  for (int b = 0; b < NB; ++b)
#pragma unroll
    for (int u = 0; u < kChunk; ++u) {
      const int e = b * kBatch + 8 * t + u;
      if (e < nout) vs[b * kBatchPad + 9 * t + u] = a[b][u];
    }
  __syncthreads();
  for (int e = t; e < nout; e += kThreads)
    col[row0 + e] = vs[pidx(e)];
  if (!publish) return;
  __syncthreads();  // every thread's stores, then thread 0's release (cumulative)
  if (t == 0) {
    fence_acq_rel();
    st_relaxed(flag + c, epoch);
  }
}

}  // namespace panel_rf
}  // namespace two_stage_cuda
}  // namespace eigsolve
