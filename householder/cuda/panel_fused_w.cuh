// K5 of the fused device panel (householder/cuda/panel_fused.cuh has K1-K3 and the overview):
// w_r = tau ((w_r - V(r,:) t1) - W(r,:) t2), then the chunk partials of w^H v; and K45, the
// SYMV's row sums and K5 in one kernel.
#pragma once

#include "householder/cuda/panel_fused.cuh"
#include "symv/cuda/symv_kernels.cuh"

namespace eigsolve {
namespace tridiag_cuda {
namespace panel_fused {

/// Row r's canonical dot over k in [0, i): sum_k get(k) * tv[k] (tiles of 64 in k, chunks of
/// 8 with operands preloaded, tile_tree, tiles ascending): tile_dot<false> of the host.
///
/// double-double: the chunks in a rolled loop (only the ceil(i / 8) that hold terms run; the
/// others stay 0, as in the unrolled form). Eight unrolled dd chunk chains are ~20 KB of code
/// that every block fetches cold at each launch, mostly predicated off (i < nb = 32); the same
/// operations in the same order either way.
template <class T, class Get>
__device__ __forceinline__ T row_dot(index_t i, Get get, const T* tv) {
  T d = T(0);
  for (index_t k0 = 0; k0 < i; k0 += kTile) {
    const index_t hi = k0 + kTile < i ? k0 + kTile : i;
    const auto chunk = [&](int q) {
      const index_t cb = k0 + index_t(q) * kChunk;
      T av[kChunk];
#pragma unroll
      for (int u = 0; u < kChunk; ++u)
        if (cb + u < hi) av[u] = get(cb + u);
      T s = T(0);
#pragma unroll
      for (int u = 0; u < kChunk; ++u)
        if (cb + u < hi) s = madd(av[u], tv[cb + u], s);
      return s;
    };
    T c[kChunk];
    if constexpr (std::is_same_v<T, dd_real>) {
#pragma unroll
      for (int q = 0; q < kChunk; ++q)
        c[q] = T(0);
      const int nq = int((hi - k0 + kChunk - 1) / kChunk);
#pragma unroll 1
      for (int q = 0; q < nq; ++q)
        c[q] = chunk(q);
    } else {
#pragma unroll
      for (int q = 0; q < kChunk; ++q)
        c[q] = chunk(q);
    }
    const T p = tile_tree(c);
    d = k0 == 0 ? p : d + p;
  }
  return d;
}

/// K5's rows vb*kRows .. (+kRows) of w (column i, tv = [t1; t2] in shared memory), then the chunk
/// partials of w^H v of those rows' 4 tiles -> apart[8 tl + q] (the next K1 trees each tile's 8).
template <class T>
__device__ void panel_w_rows(index_t vb, index_t m, index_t g, index_t j0, index_t i, const T* A,
                             index_t lda, T* W, index_t ldw, const T* tv, const T* tau, T* apart) {
  __shared__ T wsh[kRows];
  const int t = threadIdx.x;
  const index_t r0 = vb * kRows, r = r0 + t;
  T* w = W + (g + 1) + ldw * i;
  const T* v = A + (g + 1) + lda * g;
  T wr = T(0);
  if (r < m) {
    const T tg = tau[g];
    if (i == 0) {
      wr = tg * w[r];
    } else {
      const T* vrow = A + (g + 1 + r) + lda * j0;
      const T* wrow = W + (g + 1 + r);
      const T d1 = row_dot(
          i, [&](index_t k) { return vrow[lda * k]; }, tv);
      const T d2 = row_dot(
          i, [&](index_t k) { return wrow[ldw * k]; }, tv + i);
      wr = tg * ((w[r] - d1) - d2);
    }
    w[r] = wr;
  }
  wsh[t] = wr;
  __syncthreads();
  if (t < 32) {  // warp 0: tiles r0/64 + (t >> 3), chunk t & 7
    const int q = t & 7, lt = t >> 3;
    const index_t tl = r0 / kTile + lt, ntl = (m + kTile - 1) / kTile;
    T s = T(0);
#pragma unroll
    for (int u = 0; u < kChunk; ++u) {
      const int lr = lt * kTile + q * kChunk + u;
      if (r0 + lr < m) s = madd_conj(wsh[lr], v[r0 + lr], s);
    }
    if (tl < ntl) apart[tl * kChunk + q] = s;
  }
  __syncthreads();
}

/// K5's operands t = [W^H v; V^H v] (2 i elements) into shared memory.
template <class T>
__device__ void panel_w_stage(index_t i, const T* tvec, T* tv) {
  for (index_t k = threadIdx.x; k < 2 * i; k += blockDim.x)
    tv[k] = tvec[k];
  __syncthreads();
}

/// K5. w_r = tau ((w_r - V(r,:) . t1) - W(r,:) . t2) (i > 0; tau w_r for i = 0), then the tile
/// partials of w^H v for the block's 4 tiles (8 threads per tile) -> apart.
/// Dynamic shared memory: 2 i elements (t).
template <class T>
__global__ void __launch_bounds__(kRows)
    panel_w_alpha_kernel(index_t m, index_t g, index_t j0, index_t i, const T* A, index_t lda, T* W,
                         index_t ldw, const T* tvec, const T* tau, T* apart) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* tv = reinterpret_cast<T*>(smem_raw);
  pdl_begin();
  panel_w_stage(i, tvec, tv);
  panel_w_rows(index_t(blockIdx.x), m, g, j0, i, A, lda, W, ldw, tv, tau, apart);
}

/// K45's operands (K5's, for column i of the panel at j0; g = j0 + i, m = n - g - 1).
template <class T>
struct RowsWArgs {
  index_t m, g, j0, i;
  const T* A;
  index_t lda;
  T* W;
  index_t ldw;
  const T* tvec;  ///< t = [W^H v; V^H v], 2 i elements (K4, finished before this kernel)
  const T* tau;
  T* apart;
};

/// K45: the SYMV's row sums (symv_cuda::rowsums_chain: the same chains, so the same y) and K5
/// for the block's 32 rows, in one kernel; i <= kTile. While warp 0 waits on the chains'
/// partials, all 256 threads run the chunk chains of the row dots V(r,:) . t1 and W(r,:) . t2
/// (row_dot's chunks: 8 terms each, operands in one batch) into shared memory; then warp 0
/// trees them (tile_tree, one tile since i <= 64), w_r = tau ((y_r - d1) - d2) as K5, and
/// lanes 0..3 the chunk partials of w^H v of the block's 4 chunks -> apart. The block that holds
/// the last row of a half-filled tile zeroes that tile's other 4 chunk partials (K5 writes 0
/// there: no terms). Dynamic shared memory: 2 i elements (t).
template <class T>
__global__ void __launch_bounds__(symv_cuda::kSumThreads)
    rowsums_w_kernel(symv_cuda::SymvArgs<T> sg, RowsWArgs<T> a) {
  using symv_cuda::kSumRows;
  using symv_cuda::kSumThreads;
  __shared__ __align__(16) unsigned char raw[symv_cuda::kSumBufBytes<T>];
  __shared__ T cs[2][kChunk][kSumRows];  // [dot][chunk][row]
  __shared__ T wsh[kSumRows];
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* tv = reinterpret_cast<T*>(smem_raw);
  pdl_begin();
  // the row sums' first chunk of partials flies while the block stages t and runs the dots
  symv_cuda::rowsums_stage(sg, 0, reinterpret_cast<T*>(raw));
  const int t = threadIdx.x;
  const index_t i = a.i, m = a.m, i0 = index_t(blockIdx.x) * kSumRows;
  const int rows = int(m - i0 < kSumRows ? m - i0 : kSumRows);
  for (index_t k = t; k < 2 * i; k += kSumThreads)
    tv[k] = a.tvec[k];
  __syncthreads();
  // the dots' chunk chains: (dot, chunk q, row r) -> one chain, rows fastest (coalesced)
  const int nq = int((i + kChunk - 1) / kChunk);
  for (int c = t; c < 2 * nq * kSumRows; c += kSumThreads) {
    const int r = c % kSumRows, dq = c / kSumRows, dot = dq & 1, q = dq >> 1;
    const index_t row = a.g + 1 + i0 + r;
    const T* src = dot == 0 ? a.A + row + a.lda * a.j0 : a.W + row;
    const index_t ld = dot == 0 ? a.lda : a.ldw;
    const T* tq = tv + index_t(dot) * i;
    const index_t cb = index_t(q) * kChunk;
    T s = T(0);
    if (r < rows) {
      T av[kChunk];
#pragma unroll
      for (int u = 0; u < kChunk; ++u)
        if (cb + u < i) av[u] = src[ld * (cb + u)];
#pragma unroll
      for (int u = 0; u < kChunk; ++u)
        if (cb + u < i) s = madd(av[u], tq[cb + u], s);
    }
    cs[dot][q][r] = s;
  }
  const T acc = symv_cuda::rowsums_chain<T, true>(sg, reinterpret_cast<T*>(raw));  // syncs
  T* w = a.W + (a.g + 1) + a.ldw * i;
  const T* v = a.A + (a.g + 1) + a.lda * a.g;
  if (t < kSumRows) {
    T wr = T(0);
    if (t < rows) {
      const T y = sg.beta_zero ? sg.alpha * acc : madd(sg.alpha, acc, sg.beta * w[i0 + t]);
      const T tg = a.tau[a.g];
      if (i == 0) {
        wr = tg * y;
      } else {
        T d[2];
#pragma unroll
        for (int dot = 0; dot < 2; ++dot) {
          T c[kChunk];
#pragma unroll
          for (int q = 0; q < kChunk; ++q)
            c[q] = q < nq ? cs[dot][q][t] : T(0);
          d[dot] = tile_tree(c);
        }
        wr = tg * ((y - d[0]) - d[1]);
      }
      w[i0 + t] = wr;
    }
    wsh[t] = wr;
    __syncwarp();
    const index_t tl = i0 / kTile;
    const int qb = int((i0 % kTile) / kChunk);
    if (t < kSumRows / kChunk) {
      T s = T(0);
#pragma unroll
      for (int u = 0; u < kChunk; ++u) {
        const int lr = t * kChunk + u;
        if (lr < rows) s = madd_conj(wsh[lr], v[i0 + lr], s);
      }
      a.apart[tl * kChunk + qb + t] = s;
      if (qb == 0 && i0 + kSumRows >= m) a.apart[tl * kChunk + kSumRows / kChunk + t] = T(0);
    }
  }
}

}  // namespace panel_fused
}  // namespace tridiag_cuda
}  // namespace eigsolve
