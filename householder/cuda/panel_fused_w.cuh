// K5 of the fused device panel (householder/cuda/panel_fused.cuh has K1-K3 and the overview):
// w_r = tau ((w_r - V(r,:) t1) - W(r,:) t2), then the tile partials of w^H v.
#pragma once

#include "householder/cuda/panel_fused.cuh"

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

/// K5's rows vb*kRows .. (+kRows) of w (column i, tv = [t1; t2] in shared memory), then the tile
/// partials of w^H v of those rows' 4 tiles -> apart.
template <class T>
__device__ void panel_w_rows(index_t vb, index_t m, index_t g, index_t j0, index_t i, const T* A,
                             index_t lda, T* W, index_t ldw, const T* tv, const T* tau, T* apart) {
  __shared__ T wsh[kRows];
  __shared__ T csh[32];
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
    csh[t] = s;
    __syncwarp();
    if (q == 0 && tl < ntl) {
      T c[kChunk];
#pragma unroll
      for (int k = 0; k < kChunk; ++k)
        c[k] = csh[t + k];
      apart[tl] = tile_tree(c);
    }
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

}  // namespace panel_fused
}  // namespace tridiag_cuda
}  // namespace eigsolve
