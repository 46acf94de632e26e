// The device panel's per-column steps as five kernels that each spread over the whole GPU
// (householder/cuda/tridiag_device.cu, the default; EIGSOLVE_GPU_FUSED=0 runs the step-by-step
// kernels instead). Every chain and sum is the one of docs/canonical-tridiagonalization.md;
// only where the work runs changes, so the bits are the same.
//
//   column g (panel column i, m = n-g-1, v = A(g+1:n, g), w = W(g+1:n, i)):
//
//   K1 colupd    rows g..n-1     [pending: w_{i-1} += al v_{i-1}, al from the tile partials of
//                                 the previous column's w^H v, summed by every block]
//                                 column update of A(g:n, g) (one fma chain per row, its
//                                 operands loaded up front); block maxima of |x| -> slots;
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

/// K1's broadcast operands of thread k = threadIdx.x: W(g, k) and V(g, k) = A(g, j0 + k) (k < i),
/// loaded before the block sums the pending alpha.
template <class T>
struct StageOps {
  T wg = T(0), vg = T(0);
};
template <class T>
__device__ __forceinline__ void colupd_stage_load(index_t g, index_t j0, index_t i, const T* A,
                                                  index_t lda, const T* W, index_t ldw,
                                                  StageOps<T>& s) {
  const index_t k = threadIdx.x;
  if (k < i) {
    s.wg = W[g + ldw * k];
    s.vg = A[g + lda * (j0 + k)];
  }
}

/// K1's broadcast operands -conj(W(g, k)) (with the pending axpy for k = i-1: its v is
/// A(g, g-1) = V(g, i-1)) and -conj(V(g, k)), k < i, into nw and nv (shared memory); thread k's
/// first operands from s (colupd_stage_load).
template <class T>
__device__ void colupd_stage(index_t g, index_t j0, index_t i, const T* A, index_t lda, const T* W,
                             index_t ldw, const T& al, T* nw, T* nv, const StageOps<T>& s) {
  const index_t p = i - 1;
  for (index_t k = threadIdx.x; k < i; k += blockDim.x) {
    const bool own = k == index_t(threadIdx.x);
    T wgk = own ? s.wg : W[g + ldw * k];
    const T vgk = own ? s.vg : A[g + lda * (j0 + k)];
    if (k == p) wgk = madd(al, vgk, wgk);
    nw[k] = -conj(wgk);
    nv[k] = -conj(vgk);
  }
  __syncthreads();
}

/// colupd_stage with its operands loaded on the spot (the cooperative kernel).
template <class T>
__device__ void colupd_stage(index_t g, index_t j0, index_t i, const T* A, index_t lda, const T* W,
                             index_t ldw, const T& al, T* nw, T* nv) {
  StageOps<T> s;
  colupd_stage_load(g, j0, i, A, lda, W, ldw, s);
  colupd_stage(g, j0, i, A, lda, W, ldw, al, nw, nv, s);
}

/// K1's row operands loaded into registers at once: V(r, k) and W(r, k) for k < kPre<T> (the
/// chain's first kPre terms), so that a row's loads are one round trip instead of one per chunk
/// of 8, and they fly while the block computes the pending alpha and stages the broadcast
/// operands. More terms (i > kPre) go on in chunks of 8 as before; the fma chain and its order
/// are the same either way, so are the bits.
template <class T>
inline constexpr int kPre = sizeof(T) <= 8 ? 32 : (std::is_same_v<T, dd_real> ? 8 : 16);

template <class T>
struct RowOps {
  T c = T(0);      ///< A(r, g)
  T aprev = T(0);  ///< A(r, g - 1): v of the pending axpy (i > 0)
  T wraw = T(0);   ///< W(r, i - 1) before the pending axpy (i > 0)
  T av[kPre<T>];   ///< V(r, k) = A(r, j0 + k), k < min(i, kPre)
  T wv[kPre<T>];   ///< W(r, k), k < min(i - 1, kPre)
};

/// Row r's operands (r outside [g, n): nothing); col: also A(r, g) and the chain's.
template <class T>
__device__ __forceinline__ void colupd_load(index_t r, index_t n, index_t g, index_t j0, index_t i,
                                            const T* A, index_t lda, const T* W, index_t ldw,
                                            bool col, RowOps<T>& o) {
  if (r < g || r >= n) return;
  if (i > 0) {
    o.aprev = A[r + lda * (g - 1)];
    o.wraw = W[r + ldw * (i - 1)];
  }
  if (!col) return;
  o.c = A[r + lda * g];
#pragma unroll
  for (int k = 0; k < kPre<T>; ++k) {
    if (k < i) o.av[k] = A[r + lda * (j0 + k)];
    if (k + 1 < i) o.wv[k] = W[r + ldw * k];
  }
}

/// Row r's pending axpy and column update from its preloaded operands; returns A(r, g) updated
/// (stored) and leaves W(r, i-1) updated (stored unless r = g in column mode).
template <class T>
__device__ __forceinline__ T colupd_row(index_t r, index_t g, index_t j0, index_t i, T* A,
                                        index_t lda, T* W, index_t ldw, const T& al, const T* nw,
                                        const T* nv, const RowOps<T>& o, bool col) {
  const index_t p = i - 1;
  T wp = T(0);
  if (i > 0) {
    wp = madd(al, o.aprev, o.wraw);
    if (!col || r != g) W[r + ldw * p] = wp;
  }
  if (!col) return T(0);
  T c = o.c;
  if (r == g) make_real_dev(c);
#pragma unroll
  for (int k = 0; k < kPre<T>; ++k) {
    if (k < i) {
      c = madd(o.av[k], nw[k], c);
      c = madd(k == p ? wp : o.wv[k], nv[k], c);
    }
  }
  for (index_t k0 = kPre<T>; k0 < i; k0 += kChunk) {
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
  return c;
}

/// K1's rows g + vb*kRows .. (+kRows) (vb: the virtual block): the pending axpy, the column
/// update (col) and the block maximum of |x| -> slots[vb], from operands o that the caller
/// loaded (colupd_load) for row g + vb*kRows + threadIdx.x.
template <class T>
__device__ void colupd_rows(index_t vb, index_t n, index_t g, index_t j0, index_t i, T* A,
                            index_t lda, T* W, index_t ldw, const T& al, const T* nw, const T* nv,
                            real_t<T>* slots, T* alpha_save, bool col, const RowOps<T>& o) {
  using R = real_t<T>;
  __shared__ R shr[kRows];
  const int t = threadIdx.x;
  const index_t r = g + vb * kRows + t;
  R amax = R(0);
  if (r < n) {
    const T c = colupd_row(r, g, j0, i, A, lda, W, ldw, al, nw, nv, o, col);
    if (col) {
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

/// colupd_rows with its operands loaded on the spot (the cooperative kernel's loop).
template <class T>
__device__ void colupd_rows(index_t vb, index_t n, index_t g, index_t j0, index_t i, T* A,
                            index_t lda, T* W, index_t ldw, const T& al, const T* nw, const T* nv,
                            real_t<T>* slots, T* alpha_save, bool col) {
  RowOps<T> o;
  colupd_load(g + vb * kRows + threadIdx.x, n, g, j0, i, A, lda, W, ldw, col, o);
  colupd_rows(vb, n, g, j0, i, A, lda, W, ldw, al, nw, nv, slots, alpha_save, col, o);
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
  // the row's and the broadcast operands first: their loads fly while the block sums the
  // pending alpha
  RowOps<T> o;
  colupd_load(g + index_t(blockIdx.x) * kRows + threadIdx.x, n, g, j0, i, A, lda, W, ldw, col, o);
  StageOps<T> so;
  if (col) colupd_stage_load(g, j0, i, A, lda, W, ldw, so);
  const T al = pending_alpha(n, g, i, tau, apart);
  if (col) colupd_stage(g, j0, i, A, lda, W, ldw, al, nw, nv, so);
  colupd_rows(index_t(blockIdx.x), n, g, j0, i, A, lda, W, ldw, al, nw, nv, slots, alpha_save, col,
              o);
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

/// The 8 elements of x = A(g+2:n, g) that thread t of K2's virtual block vb squares (its tile's
/// chunk t & 7); those past x are left alone.
template <class T>
__device__ __forceinline__ void sumsq_load(index_t vb, index_t n, index_t g, const T* A,
                                           index_t lda, T* xv) {
  const index_t nx = n - g - 2;
  const T* x = A + (g + 2) + lda * g;
  const int t = threadIdx.x, q = t & 7;
  const index_t ntl = (nx + kTile - 1) / kTile;
  const index_t tl = vb * kTilesK2 + (t >> 3);
  if (tl < ntl) {
    const index_t cb = tl * kTile + index_t(q) * kChunk;
#pragma unroll
    for (int u = 0; u < kChunk; ++u)
      if (cb + u < nx) xv[u] = x[cb + u];
  }
}

/// K2's tiles vb*kTilesK2 .. (+kTilesK2): partials of sum(scale2(x, -ex)^2), 8 threads a tile,
/// from the elements sumsq_load gave xv.
template <class T>
__device__ void sumsq_tiles(index_t vb, index_t n, index_t g, int ex, const T* xv,
                            real_t<T>* part) {
  using R = real_t<T>;
  __shared__ R sh[kRows];
  const index_t m = n - g - 1, nx = m - 1;
  const int t = threadIdx.x, q = t & 7;
  const index_t ntl = (nx + kTile - 1) / kTile;
  const index_t tl = vb * kTilesK2 + (t >> 3);
  R s = R(0);
  if (tl < ntl) {
    const index_t cb = tl * kTile + index_t(q) * kChunk;
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

/// sumsq_tiles with its elements loaded on the spot (the cooperative kernel's loop).
template <class T>
__device__ void sumsq_tiles(index_t vb, index_t n, index_t g, const T* A, index_t lda, int ex,
                            real_t<T>* part) {
  T xv[kChunk];
  sumsq_load(vb, n, g, A, lda, xv);
  sumsq_tiles(vb, n, g, ex, xv, part);
}

/// K2. Tile partials of sum(scale2(x, -ex)^2) over x = A(g+2:n, g), 8 threads per tile. The
/// elements are loaded first: they fly while the block finds the scaling exponent.
template <class T>
__global__ void __launch_bounds__(kRows)
    sumsq_kernel(index_t n, index_t g, const T* A, index_t lda, const real_t<T>* slots, index_t ns,
                 const T* alpha_save, real_t<T>* part) {
  pdl_begin();
  T xv[kChunk];
  sumsq_load(index_t(blockIdx.x), n, g, A, lda, xv);
  int ex = 0;
  if (!sumsq_head(n, g, slots, ns, alpha_save, ex)) return;
  sumsq_tiles(index_t(blockIdx.x), n, g, ex, xv, part);
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

/// The elements of x = A(g+2:n, g) in K3's share vb (kScalePerThread per thread).
template <class T>
__device__ __forceinline__ void finish_load(index_t vb, index_t n, index_t g, const T* A,
                                            index_t lda, T* xv) {
  const index_t nx = n - g - 2;
  const T* x = A + (g + 2) + lda * g;
  const index_t base = vb * kRows * kScalePerThread;
#pragma unroll
  for (int u = 0; u < kScalePerThread; ++u) {
    const index_t q = base + index_t(u) * kRows + threadIdx.x;
    if (q < nx) xv[u] = x[q];
  }
}

/// K3's share vb of x := scale2(x, -ex) * rr, from the elements finish_load gave xv.
template <class T>
__device__ void finish_scale(index_t vb, index_t n, index_t g, T* A, index_t lda, int ex,
                             const T& rr, const T* xv) {
  const index_t nx = n - g - 2;
  T* x = A + (g + 2) + lda * g;
  const index_t base = vb * kRows * kScalePerThread;
#pragma unroll
  for (int u = 0; u < kScalePerThread; ++u) {
    const index_t q = base + index_t(u) * kRows + threadIdx.x;
    if (q < nx) x[q] = scale2_any_dev(xv[u], -ex) * rr;
  }
}

/// finish_scale with its elements loaded on the spot (the cooperative kernel's loop).
template <class T>
__device__ void finish_scale(index_t vb, index_t n, index_t g, T* A, index_t lda, int ex,
                             const T& rr) {
  T xv[kScalePerThread];
  finish_load(vb, n, g, A, lda, xv);
  finish_scale(vb, n, g, A, lda, ex, rr, xv);
}

/// K3. Every block: beta and tau from the ordered sum of part (hh_detail::larfg), then its
/// share of x := scale2(x, -ex) * r; block 0 stores tau[g], e[g] and A(g+1, g) = 1. The share
/// is loaded first: it flies while the block sums the partials.
template <class T>
__global__ void __launch_bounds__(kRows)
    larfg_finish_kernel(index_t n, index_t g, T* A, index_t lda, real_t<T>* e, T* tau,
                        const real_t<T>* slots, index_t ns, const T* alpha_save,
                        const real_t<T>* part) {
  pdl_begin();
  T xv[kScalePerThread];
  finish_load(index_t(blockIdx.x), n, g, A, lda, xv);
  int ex = 0;
  T rr;
  if (!finish_head(n, g, A, lda, e, tau, slots, ns, alpha_save, part, blockIdx.x == 0, ex, rr))
    return;
  finish_scale(index_t(blockIdx.x), n, g, A, lda, ex, rr, xv);
}

}  // namespace panel_fused
}  // namespace tridiag_cuda
}  // namespace eigsolve
