// Phase B of the canonical inverse iteration on the device (docs/canonical-eigenvectors.md),
// included by solver/cuda/invit_device.cu. The same operations in the same order as the host's
// phase B (solver/inverse_iteration.cpp): every dot is the canonical dot (tiles of 64, chunks
// of 8, the fixed tree, tiles ascending: tridiag_cuda::block_canonical_sum), every update one
// madd chain per element with p ascending.
//
//   cgs2_kernel   one block per column j of [j0, j1): twice { c_p = q_p . y_j for p in the
//                 window [p0, j0); y_j[i] = madd(-c_p, q_p[i], y_j[i]), p ascending }
//   step2_kernel  one block per (cluster block): j = js .. j1-1 sequentially: MGS twice against
//                 [max(j0, lo_j), j), nrm = sqrt(y . y); nrm >= 0.1: y /= nrm; else it stops
//                 and reports j (the host runs invit::fallback for it and continues at j + 1)
#pragma once

#include "householder/cuda/panel_kernels.cuh"  // tridiag_cuda::block_canonical_sum
#include "solver/inverse_iteration_kernels.hpp"

namespace eigsolve {
namespace invit_dev {

constexpr int kThreads = 512;

/// x . y in the canonical order, by the whole block; the result in every thread.
template <class R>
__device__ R block_dot(index_t n, const R* x, const R* y, R* sh, R* s_out) {
  const R v = tridiag_cuda::block_canonical_sum<R>(
      n, [&](index_t i, R s) { return madd(x[i], y[i], s); }, sh);
  if (threadIdx.x == 0) *s_out = v;
  __syncthreads();
  const R r = *s_out;
  __syncthreads();
  return r;
}

/// Dynamic shared memory: (j0 - p0) elements (the coefficients c).
template <class R>
__global__ void __launch_bounds__(kThreads)
    cgs2_kernel(index_t n, R* Z, index_t ldz, index_t p0, index_t j0) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  R* c = reinterpret_cast<R*>(smem_raw);
  __shared__ R sh[kThreads];
  __shared__ R s_out;
  const index_t np = j0 - p0;
  R* y = Z + (j0 + index_t(blockIdx.x)) * ldz;
  const R* q = Z + p0 * ldz;
  for (int pass = 0; pass < 2; ++pass) {
    for (index_t p = 0; p < np; ++p) {
      const R cp = block_dot(n, q + p * ldz, static_cast<const R*>(y), sh, &s_out);
      if (threadIdx.x == 0) c[p] = cp;
    }
    __syncthreads();
    for (index_t i = threadIdx.x; i < n; i += blockDim.x) {
      R yi = y[i];
      for (index_t p = 0; p < np; ++p)
        yi = madd(-c[p], q[p * ldz + i], yi);
      y[i] = yi;
    }
    __syncthreads();
  }
}

/// Block b: columns js[b] .. j1[b]-1 of the cluster block starting at j0[b]; flag[b] = the
/// column that needs the fallback, or -1.
template <class R>
__global__ void __launch_bounds__(kThreads)
    step2_kernel(index_t n, R* Z, index_t ldz, const index_t* j0s, const index_t* jss,
                 const index_t* j1s, const index_t* lo, index_t* flag) {
  __shared__ R sh[kThreads];
  __shared__ R s_out;
  const index_t b = blockIdx.x, j0 = j0s[b], j1 = j1s[b];
  for (index_t j = jss[b]; j < j1; ++j) {
    R* y = Z + j * ldz;
    const index_t ps = lo[j] > j0 ? lo[j] : j0;
    for (int pass = 0; pass < 2; ++pass)
      for (index_t p = ps; p < j; ++p) {
        const R* qp = Z + p * ldz;
        const R cp = block_dot(n, qp, static_cast<const R*>(y), sh, &s_out);
        for (index_t i = threadIdx.x; i < n; i += blockDim.x)
          y[i] = madd(-cp, qp[i], y[i]);
        __syncthreads();
      }
    const R nrm =
        sqrt_(block_dot(n, static_cast<const R*>(y), static_cast<const R*>(y), sh, &s_out));
    if (!(nrm >= R(invit::kFallbackNorm))) {
      if (threadIdx.x == 0) flag[b] = j;
      return;
    }
    for (index_t i = threadIdx.x; i < n; i += blockDim.x)
      y[i] = y[i] / nrm;
    __syncthreads();
  }
  if (threadIdx.x == 0) flag[b] = -1;
}

}  // namespace invit_dev
}  // namespace eigsolve
