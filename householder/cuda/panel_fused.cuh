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
//   K5 w+alpha   rows of w       w_r = tau ((w_r - V(r,:) t1) - W(r,:) t2); chunk partials of
//                                 w^H v -> apart (8 per tile; the next K1 trees and sums them)
//  (K45          rows of w       the SYMV's row sums and K5 in one kernel, rowsums_w_kernel:
//                                 the default where the SYMV is two-pass and i <= 64;
//                                 EIGSOLVE_GPU_ROWS_W=0 runs the SYMV's row sums, then K5)
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
      acc = serial_add(static_cast<const S*>(sh), 1, cnt, acc, b0 == 0);
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) *s_out = acc;
  __syncthreads();
  const S r = *s_out;
  __syncthreads();
  return r;
}

/// The ordered sum p0 + p1 + ... + p_{count-1} (0 for none) of tile partials p_k =
/// tile_tree(chunks[8k .. 8k+7]), by one whole block: each thread trees one tile's chunk
/// partials into shared memory, thread 0 adds them in ascending order. The result is returned
/// to every thread.
template <class S>
__device__ S block_tree_sum(const S* chunks, index_t count, S* sh, S* s_out) {
  S acc = S(0);
  for (index_t b0 = 0; b0 < count; b0 += blockDim.x) {
    const index_t k = b0 + threadIdx.x;
    if (k < count) {
      S c[kChunk];
#pragma unroll
      for (int u = 0; u < kChunk; ++u)
        c[u] = chunks[k * kChunk + u];
      sh[threadIdx.x] = tile_tree(c);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      const index_t cnt = count - b0 < index_t(blockDim.x) ? count - b0 : index_t(blockDim.x);
      acc = serial_add(static_cast<const S*>(sh), 1, cnt, acc, b0 == 0);
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

/// K1's pending alpha: (-1/2 tau[g-1]) times the ordered sum of the previous column's tile
/// partials of w^H v (0 for the first column of a panel), each the tile_tree of its 8 chunk
/// partials in apart (written by K5 or rowsums_w_kernel). Every block computes it itself.
template <int NT = kRows, class T>
__device__ T pending_alpha(index_t n, index_t g, index_t i, const T* tau, const T* apart) {
  __shared__ T sh[NT];  // NT >= blockDim.x
  __shared__ T s_al;
  if (i == 0) return T(0);
  const index_t mp = n - g, ntlp = (mp + kTile - 1) / kTile;
  return (T(-0.5) * tau[g - 1]) * block_tree_sum(apart, ntlp, sh, &s_al);
}

/// K1's broadcast operands -conj(W(g, k)) (with the pending axpy for k = i-1) and
/// -conj(V(g, k)), k < i, into nw and nv (shared memory).
template <class T>
__device__ void colupd_stage(index_t g, index_t j0, index_t i, const T* A, index_t lda, const T* W,
                             index_t ldw, const T& al, T* nw, T* nv) {
  const index_t p = i - 1;
  for (index_t k = threadIdx.x; k < i; k += blockDim.x) {
    T wgk = W[g + ldw * k];
    if (k == p) wgk = madd(al, A[g + lda * (g - 1)], wgk);
    nw[k] = -conj(wgk);
    nv[k] = -conj(A[g + lda * (j0 + k)]);
  }
  __syncthreads();
}

/// K1's rows g + vb*kRows .. (+kRows) (vb: the virtual block): the pending axpy, the column
/// update (col) and the block maximum of |x| -> slots[vb].
template <class T>
__device__ void colupd_rows(index_t vb, index_t n, index_t g, index_t j0, index_t i, T* A,
                            index_t lda, T* W, index_t ldw, const T& al, const T* nw, const T* nv,
                            real_t<T>* slots, T* alpha_save, bool col) {
  using R = real_t<T>;
  __shared__ R shr[kRows];
  const int t = threadIdx.x;
  const bool pend = i > 0;
  const index_t p = i - 1;
  const index_t r = g + vb * kRows + t;
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
  if (t == 0) slots[vb] = shr[0];
  __syncthreads();
}

/// K1. col: the column update of A(g:n, g) after the pending axpy of W(:, i-1) (i > 0);
/// !col: only the pending axpy (after a panel's last column; g = j0 + nb, i = nb).
/// Dynamic shared memory: 2 i elements (the broadcast operands -conj(W(g, k)), -conj(V(g, k))).
template <class T>
__global__ void __launch_bounds__(kRows)
    colupd_kernel(index_t n, index_t g, index_t j0, index_t i, T* A, index_t lda, T* W, index_t ldw,
                  const T* tau, const T* apart, real_t<T>* slots, T* alpha_save, bool col) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* nw = reinterpret_cast<T*>(smem_raw);
  T* nv = nw + i;
  pdl_begin();
  const T al = pending_alpha(n, g, i, tau, apart);
  if (col) colupd_stage(g, j0, i, A, lda, W, ldw, al, nw, nv);
  colupd_rows(index_t(blockIdx.x), n, g, j0, i, A, lda, W, ldw, al, nw, nv, slots, alpha_save, col);
}

/// K2's scaling exponent (every block): false when the reflector is trivial (tau = 0).
template <class T>
__device__ bool sumsq_head(index_t n, index_t g, const real_t<T>* slots, index_t ns,
                           const T* alpha_save, int& ex) {
  using R = real_t<T>;
  __shared__ R sh[kRows];
  const R xmax = slots_max(slots, ns, sh);
  return !larfg_head(n - g - 1, alpha_save[g], xmax, ex);
}

/// K2's tiles vb*kTilesK2 .. (+kTilesK2): partials of sum(scale2(x, -ex)^2), 8 threads a tile.
template <class T>
__device__ void sumsq_tiles(index_t vb, index_t n, index_t g, const T* A, index_t lda, int ex,
                            real_t<T>* part) {
  using R = real_t<T>;
  __shared__ R sh[kRows];
  const index_t m = n - g - 1, nx = m - 1;
  const T* x = A + (g + 2) + lda * g;
  const int t = threadIdx.x, q = t & 7;
  const index_t ntl = (nx + kTile - 1) / kTile;
  const index_t tl = vb * kTilesK2 + (t >> 3);
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
  __syncwarp();
}

/// K2. Tile partials of sum(scale2(x, -ex)^2) over x = A(g+2:n, g), 8 threads per tile.
template <class T>
__global__ void __launch_bounds__(kRows)
    sumsq_kernel(index_t n, index_t g, const T* A, index_t lda, const real_t<T>* slots, index_t ns,
                 const T* alpha_save, real_t<T>* part) {
  pdl_begin();
  int ex = 0;
  if (!sumsq_head(n, g, slots, ns, alpha_save, ex)) return;
  sumsq_tiles(index_t(blockIdx.x), n, g, A, lda, ex, part);
}

/// K3's head (every block): beta and tau from the ordered sum of part (hh_detail::larfg);
/// with write0 (one block) tau[g], e[g] and A(g+1, g) = 1. Returns false when x needs no
/// scaling (tau = 0); otherwise ex and rr are x's scale exponent and factor.
template <class T>
__device__ bool finish_head(index_t n, index_t g, T* A, index_t lda, real_t<T>* e, T* tau,
                            const real_t<T>* slots, index_t ns, const T* alpha_save,
                            const real_t<T>* part, bool write0, int& ex, T& rr) {
  using R = real_t<T>;
  __shared__ R sh[kRows];
  __shared__ R s_sum;
  __shared__ T s_r;
  const int t = threadIdx.x;
  const index_t m = n - g - 1, nx = m - 1;
  const R xmax = slots_max(slots, ns, sh);
  const T alpha = alpha_save[g];
  ex = 0;
  if (larfg_head(m, alpha, xmax, ex)) {
    if (write0 && t == 0) {
      e[g] = real_part(alpha);
      tau[g] = T(0);
      A[(g + 1) + lda * g] = T(1);
    }
    return false;
  }
  const index_t ntl = nx > 0 ? (nx + kTile - 1) / kTile : 0;
  const R ss = block_serial_sum(part, ntl, sh, &s_sum);
  if (t == 0) {
    T tg;
    R eg;
    larfg_beta(ntl > 0 ? ss : R(0), alpha, ex, tg, s_r, eg);
    if (write0) {
      tau[g] = tg;
      e[g] = eg;
      A[(g + 1) + lda * g] = T(1);
    }
  }
  __syncthreads();
  rr = s_r;
  __syncthreads();
  return true;
}

/// K3's share vb of x := scale2(x, -ex) * rr.
template <class T>
__device__ void finish_scale(index_t vb, index_t n, index_t g, T* A, index_t lda, int ex,
                             const T& rr) {
  const index_t nx = n - g - 2;
  T* x = A + (g + 2) + lda * g;
  const index_t base = vb * kRows * kScalePerThread;
#pragma unroll
  for (int u = 0; u < kScalePerThread; ++u) {
    const index_t q = base + index_t(u) * kRows + threadIdx.x;
    if (q < nx) x[q] = scale2_any_dev(x[q], -ex) * rr;
  }
}

/// K3. Every block: beta and tau from the ordered sum of part (hh_detail::larfg), then its
/// share of x := scale2(x, -ex) * r; block 0 stores tau[g], e[g] and A(g+1, g) = 1.
template <class T>
__global__ void __launch_bounds__(kRows)
    larfg_finish_kernel(index_t n, index_t g, T* A, index_t lda, real_t<T>* e, T* tau,
                        const real_t<T>* slots, index_t ns, const T* alpha_save,
                        const real_t<T>* part) {
  pdl_begin();
  int ex = 0;
  T rr;
  if (!finish_head(n, g, A, lda, e, tau, slots, ns, alpha_save, part, blockIdx.x == 0, ex, rr))
    return;
  finish_scale(index_t(blockIdx.x), n, g, A, lda, ex, rr);
}

}  // namespace panel_fused
}  // namespace tridiag_cuda
}  // namespace eigsolve
