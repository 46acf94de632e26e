// K12: K1 and K2 of the fused device panel in one kernel (opt-in, EIGSOLVE_GPU_K12=1; s, d, c,
// z; bitwise on the H200, and only ~0.5 % faster at n = 16384: bench/NOTES.md session 14).
// householder/cuda/panel_fused.cuh has the overview.
//
// K2 needs the largest |x| of the whole column (K1's block maxima) before it can scale x, so it
// is a kernel of its own. But scaling by a power of two commutes with every rounding in the
// range of normal numbers:
//
//   sum over tiles of tile_tree(chunk chains of fma(x_k 2^-e, x_k 2^-e, s))
//     == 2^-2e * (the same sum over x_k, unscaled)                 (bit for bit)
//
// whenever every nonzero value of both computations (the components of x and of x 2^-e, their
// squares, every fma result, every tree and serial sum) is normal and finite. The terms are
// squares, so every nonzero intermediate lies between the smallest nonzero square and
// nx times the largest: it suffices that the smallest nonzero component c_min and the largest
// c_max of x satisfy c_min^2 >= the smallest normal in both scalings, and nx c_max^2 (with a
// margin) stays below the overflow threshold unscaled (scaled, c_max 2^-e < 1).
//
//   K12 (colupd_sq_kernel)   K1's column update with its rows shifted so that each block's 256
//                            main rows are exactly four tiles of x = A(g+2:n, g) (rows g and
//                            g+1 go to an extra warp of block 0); block maxima -> slots, block
//                            minima of the nonzero components (-1: a NaN or Inf) -> slots_min,
//                            and the tile partials of the *unscaled* squares -> part.
//   K3' (finish_sq_kernel)   every block: the maxima, minima, ex; if the condition holds,
//                            ss = 2^-2ex (the ordered sum of part) and each block scales its
//                            share of x as K3; else block 0 alone recomputes the canonical
//                            scaled sum from x (block_canonical_sum) and scales all of x.
//
// The same operations in the same order as K1 + K2 + K3 wherever the result can differ, so the
// same bits; one grid-wide dependency less per column. Not for dd: its low words can be tiny
// next to the high ones, which the condition does not see.
#pragma once

#include <limits>

#include "householder/cuda/panel_fused.cuh"

namespace eigsolve {
namespace tridiag_cuda {
namespace panel_fused {

constexpr int kRows12 = kRows + 32;  ///< K12's threads: 256 main rows and one extra warp

/// Smallest nonzero |component| of c (0 for none) and whether c is finite.
template <class T>
__device__ __forceinline__ real_t<T> min_nonzero_component(const T& c, bool& finite) {
  using R = real_t<T>;
  R mn = R(0);
  auto take = [&](R a) {
    if (!(a - a == R(0))) finite = false;
    const R b = abs(a);
    if (b != R(0) && (mn == R(0) || b < mn)) mn = b;
  };
  take(real_part(c));
  if constexpr (is_complex_v<T>) take(c.im);
  return mn;
}

/// The combination of two block minima of nonzero components (0: none, -1: a NaN or Inf).
template <class R>
__device__ __forceinline__ R min_nonzero_combine(R a, R b) {
  if (a < R(0) || b < R(0)) return R(-1);
  return b != R(0) && (a == R(0) || b < a) ? b : a;
}

/// K12 (see the top of the file). Grid: max(1, ceil(nx / 256)) blocks of kRows12 threads.
/// Dynamic shared memory: 2 i elements (K1's broadcast operands).
template <class T>
__global__ void __launch_bounds__(kRows12)
    colupd_sq_kernel(index_t n, index_t g, index_t j0, index_t i, T* A, index_t lda, T* W,
                     index_t ldw, const T* tau, const T* apart, real_t<T>* slots,
                     real_t<T>* slots_min, T* alpha_save, real_t<T>* part) {
  using R = real_t<T>;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* nw = reinterpret_cast<T*>(smem_raw);
  T* nv = nw + i;
  __shared__ R shx[kRows12], shn[kRows12];
  __shared__ T xsh[kRows];
  __shared__ R csh[kRows / kChunk];
  pdl_begin();
  const int t = threadIdx.x;
  const index_t vb = blockIdx.x, nx = n - g - 2;
  // main rows: x(256 vb + t) = row g + 2 + 256 vb + t; extra warp of block 0: rows g, g + 1
  index_t r = -1;
  if (t < kRows)
    r = g + 2 + vb * kRows + t;
  else if (vb == 0 && t - kRows < 2)
    r = g + (t - kRows);
  // the row's and the broadcast operands first: their loads fly while the block sums the
  // pending alpha
  RowOps<T> o;
  colupd_load(r, n, g, j0, i, A, lda, W, ldw, true, o);
  StageOps<T> so;
  colupd_stage_load(g, j0, i, A, lda, W, ldw, so);
  const T al = pending_alpha<kRows12>(n, g, i, tau, apart);
  colupd_stage(g, j0, i, A, lda, W, ldw, al, nw, nv, so);
  R amax = R(0), amin = R(0);
  bool finite = true;
  T c = T(0);
  if (r >= 0 && r < n) {
    c = colupd_row(r, g, j0, i, A, lda, W, ldw, al, nw, nv, o, true);
    if (r == g + 1) alpha_save[g] = c;
    if (r >= g + 2) {
      amax = abs1(c);
      amin = min_nonzero_component(c, finite);
    }
  }
  if (r < g + 2 || r >= n) c = T(0);  // not an element of x: no term
  // block maxima (NaN never wins, as K1) and minima of the nonzero components (-1: not finite)
  shx[t] = amax;
  shn[t] = finite ? amin : R(-1);
  if (t < kRows) xsh[t] = c;
  __syncthreads();
  if (t < 32) {
    R mx = R(0), mn = R(0);
    for (int q = t; q < kRows12; q += 32) {
      if (shx[q] > mx) mx = shx[q];
      mn = min_nonzero_combine(mn, shn[q]);
    }
    shx[t] = mx;
    shn[t] = mn;
  }
  __syncthreads();
  if (t == 0) {
    R mx = R(0), mn = R(0);
    for (int q = 0; q < 32; ++q) {
      if (shx[q] > mx) mx = shx[q];
      mn = min_nonzero_combine(mn, shn[q]);
    }
    slots[vb] = mx;
    slots_min[vb] = mn;
  }
  // the block's four tiles of x: K2's chunk chains and tile trees, unscaled
  if (t < kRows / kChunk) {
    R s = R(0);
#pragma unroll
    for (int u = 0; u < kChunk; ++u) {
      const index_t xi = vb * kRows + t * kChunk + u;
      if (xi < nx) {
        const T xs = xsh[t * kChunk + u];
        s = madd(real_part(xs), real_part(xs), s);
        if constexpr (is_complex_v<T>) s = madd(xs.im, xs.im, s);
      }
    }
    csh[t] = s;
    __syncwarp();
    const index_t tl = vb * (kRows / kTile) + t;
    if (t < kRows / kTile && tl * kTile < nx) part[tl] = tile_tree(csh + t * kChunk);
  }
}

/// Smallest of slots_min[0..ns) over the nonzero ones (0 for none; -1 if any is -1), in every
/// thread; blockDim a power of two.
template <class R>
__device__ R slots_min_nonzero(const R* slots_min, index_t ns, R* sh) {
  R mn = R(0);
  for (index_t q = threadIdx.x; q < ns; q += blockDim.x)
    mn = min_nonzero_combine(mn, slots_min[q]);
  sh[threadIdx.x] = mn;
  __syncthreads();
  for (int h = blockDim.x / 2; h > 0; h /= 2) {
    if (int(threadIdx.x) < h)
      sh[threadIdx.x] = min_nonzero_combine(sh[threadIdx.x], sh[threadIdx.x + h]);
    __syncthreads();
  }
  const R r = sh[0];
  __syncthreads();
  return r;
}

/// Whether the unscaled sum of squares scaled by 2^-2ex is the canonical scaled one (the
/// condition at the top of the file), from the column's largest |component| xmax, smallest
/// nonzero one xmin (0: none, -1: a NaN or Inf) and nx terms. Conservative.
template <class R>
__device__ bool unscaled_sum_exact(R xmax, R xmin, int ex, index_t nx) {
  if (xmin < R(0)) return false;
  if (xmin == R(0)) return true;  // x is all zeros: every sum is +0 either way
  constexpr int lo = std::numeric_limits<R>::min_exponent - 1;  // smallest normal 2^lo
  constexpr int hi = std::numeric_limits<R>::max_exponent - 1;  // overflow at 2^(hi+1)
  const int emin = exponent_of_dev(xmin);                       // xmin >= 2^(emin-1)
  const int emax = exponent_of_dev(xmax);                       // xmax < 2^emax
  int lg = 0;                                                   // nx <= 2^lg
  while ((index_t(1) << lg) < nx && lg < 62)
    ++lg;
  return 2 * (emin - 1) >= lo + 1 && 2 * (emin - 1 - ex) >= lo + 1 && 2 * emax + lg + 2 <= hi;
}

/// K3' (see the top of the file). Grid and shared memory as K3.
template <class T>
__global__ void __launch_bounds__(kRows)
    finish_sq_kernel(index_t n, index_t g, T* A, index_t lda, real_t<T>* e, T* tau,
                     const real_t<T>* slots, const real_t<T>* slots_min, index_t ns,
                     const T* alpha_save, const real_t<T>* part) {
  using R = real_t<T>;
  __shared__ R sh[kRows];
  __shared__ R s_sum;
  __shared__ T s_r;
  pdl_begin();
  // the block's share of x first: it flies while the block sums the partials
  T xv[kScalePerThread];
  finish_load(index_t(blockIdx.x), n, g, A, lda, xv);
  const int t = threadIdx.x;
  const index_t m = n - g - 1, nx = m - 1;
  const R xmax = slots_max(slots, ns, sh);
  const R xmin = slots_min_nonzero(slots_min, ns, sh);
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
  const T* x = A + (g + 2) + lda * g;
  const index_t ntl = nx > 0 ? (nx + kTile - 1) / kTile : 0;
  R ss;
  const bool fast = unscaled_sum_exact(xmax, xmin, ex, nx);
  if (fast) {
    ss = scale2(block_serial_sum(part, ntl, sh, &s_sum), -2 * ex);
  } else {
    // the canonical scaled sum and all of the scaling by block 0 alone: the other blocks must
    // not scale their shares while block 0 still reads x
    if (blockIdx.x != 0) return;
    const R b = block_canonical_sum<R>(
        nx, [&](index_t q, R sq) { return madd_scaled_square(x[q], ex, sq); }, sh);
    if (t == 0) s_sum = b;
    __syncthreads();
    ss = s_sum;
    __syncthreads();
  }
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
  __syncthreads();
  if (fast) {
    finish_scale(index_t(blockIdx.x), n, g, A, lda, ex, rr, xv);
  } else {
    T* xw = A + (g + 2) + lda * g;
    for (index_t q = t; q < nx; q += kRows)
      xw[q] = scale2_any_dev(xw[q], -ex) * rr;
  }
}

}  // namespace panel_fused
}  // namespace tridiag_cuda
}  // namespace eigsolve
