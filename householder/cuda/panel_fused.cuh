// The device panel's per-column steps as five kernels that each spread over the whole GPU
// (householder/cuda/tridiag_device.cu, the default; EIGSOLVE_GPU_FUSED=0 runs the step-by-step
// kernels instead). Every chain and sum is the one of docs/canonical-tridiagonalization.md;
// only where the work runs changes, so the bits are the same.
//
//   column g (panel column i, m = n-g-1, v = A(g+1:n, g), w = W(g+1:n, i)):
//
//   K1 colupd    rows g..n-1     [pending: w_{i-1} += al v_{i-1}, al from the tile partials of
//                                 the previous column's w^H v, summed by every block]
//                                 column update of A(g:n, g) (one fma chain per row, operands
//                                 preloaded 8 at a time); block maxima of |x| -> slots;
//                                 alpha = A(g+1, g) -> alpha_save[g]
//   K2 sumsq     tiles of x      scaled squares, tile partials (8 threads per tile) -> part
//   K3 finish    x               every block: max of slots, the ordered sum of part, beta, tau;
//                                 x := scale2(x, -ex) r; block 0 writes tau, e, A(g+1, g) = 1
//      SYMV      (symv_gpu)      w = A22 v
//   K4 dots      2i blocks       t = [W^H v; V^H v] (block_canonical_sum)
//   K5 w+alpha   rows of w       w_r = tau ((w_r - V(r,:) t1) - W(r,:) t2); tile partials of
//                                 w^H v -> apart (consumed by the next K1)
//
//   after the panel's last column: K1 in axpy-only mode, then the rank-2k update.
//
// W(g, i-1) (the first row of the pending w) is the one value K1 does not store in column mode:
// every block recomputes it for its own use, and nothing reads it afterwards.
#pragma once

#include "householder/cuda/panel_kernels.cuh"

namespace eigsolve {
namespace tridiag_cuda {
namespace panel_fused {

constexpr int kRows = 256;                ///< threads (rows) per block of K1, K3 and K5
constexpr int kTilesK2 = kRows / kChunk;  ///< tiles per block of K2
constexpr int kScalePerThread = 8;        ///< elements of x per thread in K3

/// p0 + p1 + ... + p_{count-1} (ascending; 0 for none) of partials in global memory, by one
/// whole block staged through shared memory; the result is returned to every thread.
template <class S>
__device__ S block_serial_sum(const S* part, index_t count, S* sh, S* s_out) {
  S acc = S(0);
  for (index_t b0 = 0; b0 < count; b0 += blockDim.x) {
    const index_t k = b0 + threadIdx.x;
    if (k < count) sh[threadIdx.x] = part[k];
    __syncthreads();
    if (threadIdx.x == 0) {
      const index_t cnt = count - b0 < index_t(blockDim.x) ? count - b0 : index_t(blockDim.x);
      for (index_t q = 0; q < cnt; ++q)
        acc = (b0 == 0 && q == 0) ? sh[q] : acc + sh[q];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) *s_out = acc;
  __syncthreads();
  const S r = *s_out;
  __syncthreads();
  return r;
}

/// Largest of slots[0..ns) and 0 (NaN never wins), in every thread; blockDim a power of two.
template <class R>
__device__ R slots_max(const R* slots, index_t ns, R* sh) {
  R mx = R(0);
  for (index_t q = threadIdx.x; q < ns; q += blockDim.x) {
    const R a = slots[q];
    if (a > mx) mx = a;
  }
  sh[threadIdx.x] = mx;
  __syncthreads();
  for (int h = blockDim.x / 2; h > 0; h /= 2) {
    if (int(threadIdx.x) < h && sh[threadIdx.x + h] > sh[threadIdx.x])
      sh[threadIdx.x] = sh[threadIdx.x + h];
    __syncthreads();
  }
  const R r = sh[0];
  __syncthreads();
  return r;
}

/// hh_detail::larfg's first decisions: skip (trivial order or zero x and real alpha: tau = 0)
/// or the scaling exponent ex of max(|x|max, |re alpha|, |im alpha|).
template <class T>
__device__ bool larfg_head(index_t m, const T& alpha, real_t<T> xmax, int& ex) {
  using R = real_t<T>;
  const bool trivial = is_complex_v<T> ? (m <= 0) : (m <= 1);
  if (trivial) return true;
  const R ar = real_part(alpha), ai = imag_part(alpha);
  if (xmax == R(0) && ai == R(0)) return true;
  R amax = xmax;
  if (abs(ar) > amax) amax = abs(ar);
  if (abs(ai) > amax) amax = abs(ai);
  ex = exponent_of_dev(amax);
  return false;
}

/// K1. col: the column update of A(g:n, g) after the pending axpy of W(:, i-1) (i > 0);
/// !col: only the pending axpy (after a panel's last column; g = j0 + nb, i = nb).
/// Dynamic shared memory: 2 i elements (the broadcast operands -conj(W(g, k)), -conj(V(g, k))).
template <class T>
__global__ void __launch_bounds__(kRows)
    colupd_kernel(index_t n, index_t g, index_t j0, index_t i, T* A, index_t lda, T* W, index_t ldw,
                  const T* tau, const T* apart, real_t<T>* slots, T* alpha_save, bool col) {
  using R = real_t<T>;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* nw = reinterpret_cast<T*>(smem_raw);
  T* nv = nw + i;
  __shared__ T sh[kRows];
  __shared__ T s_al;
  __shared__ R shr[kRows];
  pdl_begin();
  const int t = threadIdx.x;
  const bool pend = i > 0;
  const index_t p = i - 1;
  T al = T(0);
  if (pend) {
    const index_t mp = n - g, ntlp = (mp + kTile - 1) / kTile;
    al = (T(-0.5) * tau[g - 1]) * block_serial_sum(apart, ntlp, sh, &s_al);
  }
  if (col) {
    for (index_t k = t; k < i; k += blockDim.x) {
      T wgk = W[g + ldw * k];
      if (k == p) wgk = madd(al, A[g + lda * (g - 1)], wgk);
      nw[k] = -conj(wgk);
      nv[k] = -conj(A[g + lda * (j0 + k)]);
    }
    __syncthreads();
  }
  const index_t r = g + index_t(blockIdx.x) * kRows + t;
  R amax = R(0);
  if (r < n) {
    T wp = T(0);
    if (pend) {
      wp = madd(al, A[r + lda * (g - 1)], W[r + ldw * p]);
      if (!col || r != g) W[r + ldw * p] = wp;
    }
    if (col) {
      T c = A[r + lda * g];
      if (r == g) make_real_dev(c);
      for (index_t k0 = 0; k0 < i; k0 += kChunk) {
        T av[kChunk], wv[kChunk];
#pragma unroll
        for (int u = 0; u < kChunk; ++u) {
          const index_t k = k0 + u;
          if (k < i) {
            av[u] = A[r + lda * (j0 + k)];
            wv[u] = k == p ? wp : W[r + ldw * k];
          }
        }
#pragma unroll
        for (int u = 0; u < kChunk; ++u) {
          const index_t k = k0 + u;
          if (k < i) {
            c = madd(av[u], nw[k], c);
            c = madd(wv[u], nv[k], c);
          }
        }
      }
      if (r == g) make_real_dev(c);
      A[r + lda * g] = c;
      if (r == g + 1) alpha_save[g] = c;
      if (r >= g + 2) amax = abs1(c);
    }
  }
  if (!col) return;
  shr[t] = amax;
  __syncthreads();
  for (int h = kRows / 2; h > 0; h /= 2) {
    if (t < h && shr[t + h] > shr[t]) shr[t] = shr[t + h];
    __syncthreads();
  }
  if (t == 0) slots[blockIdx.x] = shr[0];
}

/// K2. Tile partials of sum(scale2(x, -ex)^2) over x = A(g+2:n, g), 8 threads per tile.
template <class T>
__global__ void __launch_bounds__(kRows)
    sumsq_kernel(index_t n, index_t g, const T* A, index_t lda, const real_t<T>* slots, index_t ns,
                 const T* alpha_save, real_t<T>* part) {
  using R = real_t<T>;
  __shared__ R sh[kRows];
  pdl_begin();
  const index_t m = n - g - 1, nx = m - 1;
  const R xmax = slots_max(slots, ns, sh);
  int ex = 0;
  if (larfg_head(m, alpha_save[g], xmax, ex)) return;
  const T* x = A + (g + 2) + lda * g;
  const int t = threadIdx.x, q = t & 7;
  const index_t ntl = (nx + kTile - 1) / kTile;
  const index_t tl = index_t(blockIdx.x) * kTilesK2 + (t >> 3);
  R s = R(0);
  if (tl < ntl) {
    const index_t cb = tl * kTile + index_t(q) * kChunk;
    T xv[kChunk];
#pragma unroll
    for (int u = 0; u < kChunk; ++u)
      if (cb + u < nx) xv[u] = x[cb + u];
#pragma unroll
    for (int u = 0; u < kChunk; ++u)
      if (cb + u < nx) {
        const T xs = scale2_any_dev(xv[u], -ex);
        s = madd(real_part(xs), real_part(xs), s);
        if constexpr (is_complex_v<T>) s = madd(xs.im, xs.im, s);
      }
  }
  sh[t] = s;
  __syncwarp();
  if (q == 0 && tl < ntl) {
    R c[kChunk];
#pragma unroll
    for (int k = 0; k < kChunk; ++k)
      c[k] = sh[t + k];
    part[tl] = tile_tree(c);
  }
}

/// K3. Every block: beta and tau from the ordered sum of part (hh_detail::larfg), then its
/// share of x := scale2(x, -ex) * r; block 0 stores tau[g], e[g] and A(g+1, g) = 1.
template <class T>
__global__ void __launch_bounds__(kRows)
    larfg_finish_kernel(index_t n, index_t g, T* A, index_t lda, real_t<T>* e, T* tau,
                        const real_t<T>* slots, index_t ns, const T* alpha_save,
                        const real_t<T>* part) {
  using R = real_t<T>;
  __shared__ R sh[kRows];
  __shared__ R s_sum;
  __shared__ T s_r;
  pdl_begin();
  const int t = threadIdx.x;
  const index_t m = n - g - 1, nx = m - 1;
  const R xmax = slots_max(slots, ns, sh);
  const T alpha = alpha_save[g];
  int ex = 0;
  if (larfg_head(m, alpha, xmax, ex)) {
    if (blockIdx.x == 0 && t == 0) {
      e[g] = real_part(alpha);
      tau[g] = T(0);
      A[(g + 1) + lda * g] = T(1);
    }
    return;
  }
  const index_t ntl = nx > 0 ? (nx + kTile - 1) / kTile : 0;
  const R ss = block_serial_sum(part, ntl, sh, &s_sum);
  if (t == 0) {
    T tg;
    R eg;
    larfg_beta(ntl > 0 ? ss : R(0), alpha, ex, tg, s_r, eg);
    if (blockIdx.x == 0) {
      tau[g] = tg;
      e[g] = eg;
      A[(g + 1) + lda * g] = T(1);
    }
  }
  __syncthreads();
  const T rr = s_r;
  T* x = A + (g + 2) + lda * g;
  const index_t base = index_t(blockIdx.x) * kRows * kScalePerThread;
#pragma unroll
  for (int u = 0; u < kScalePerThread; ++u) {
    const index_t q = base + index_t(u) * kRows + t;
    if (q < nx) x[q] = scale2_any_dev(x[q], -ex) * rr;
  }
}

/// Row r's canonical dot over k in [0, i): sum_k get(k) * tv[k] (tiles of 64 in k, chunks of
/// 8 with operands preloaded, tile_tree, tiles ascending): tile_dot<false> of the host.
template <class T, class Get>
__device__ __forceinline__ T row_dot(index_t i, Get get, const T* tv) {
  T d = T(0);
  for (index_t k0 = 0; k0 < i; k0 += kTile) {
    const index_t hi = k0 + kTile < i ? k0 + kTile : i;
    T c[kChunk];
#pragma unroll
    for (int q = 0; q < kChunk; ++q) {
      const index_t cb = k0 + index_t(q) * kChunk;
      T av[kChunk];
#pragma unroll
      for (int u = 0; u < kChunk; ++u)
        if (cb + u < hi) av[u] = get(cb + u);
      T s = T(0);
#pragma unroll
      for (int u = 0; u < kChunk; ++u)
        if (cb + u < hi) s = madd(av[u], tv[cb + u], s);
      c[q] = s;
    }
    const T p = tile_tree(c);
    d = k0 == 0 ? p : d + p;
  }
  return d;
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
  __shared__ T wsh[kRows];
  __shared__ T csh[32];
  pdl_begin();
  const int t = threadIdx.x;
  for (index_t k = t; k < 2 * i; k += blockDim.x)
    tv[k] = tvec[k];
  __syncthreads();
  const index_t r0 = index_t(blockIdx.x) * kRows, r = r0 + t;
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
}

}  // namespace panel_fused
}  // namespace tridiag_cuda
}  // namespace eigsolve
