// Phase A of the canonical inverse iteration on the device (solver/invit_cuda.hpp): one thread
// per eigenvalue, invit::phase_a compiled for the device (-fmad=false, IEEE division): the
// CPU's bits.
#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "solver/cuda/invit_phase_b.cuh"
#include "solver/invit_cuda.hpp"

namespace eigsolve {
namespace {

void ck(cudaError_t st, const char* what) {
  if (st != cudaSuccess) {
    cudaGetLastError();
    throw DeviceError(std::string("device inverse iteration: ") + what + ": " +
                      cudaGetErrorString(st));
  }
}

/// Threads q < count: eigenvalue j0 + q. work: 5 arrays of n x count, sw: n x count bytes,
/// y: column q at y + q * n.
template <class R>
__global__ void phase_a_kernel(index_t n, const R* d, const R* e, const R* x, invit::Params<R> P,
                               index_t k, index_t count, R* work, unsigned char* sw, R* y) {
  const index_t q = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (q >= count) return;
  const index_t len = n * count;
  const invit::Work<R> W{
      work + q, work + len + q, work + 2 * len + q, work + 3 * len + q, work + 4 * len + q,
      sw + q,   count};
  invit::phase_a(n, d, e, x[q], P, k + q, W, y + q * n);
}

}  // namespace

template <class R>
void invit_phase_a_cuda(index_t n, const R* d, const R* e, index_t m, const R* x,
                        const invit::Params<R>& P, index_t k0, R* z, index_t ldz) {
  if (m <= 0 || n <= 0) return;
  if (ldz < n) throw DimensionError("invit_phase_a_cuda: ldz < n");
  // Per vector: 5 work vectors, the pivot flags and the output column.
  const std::size_t per = std::size_t(n) * (6 * sizeof(R) + 1);
  std::size_t free_b = 0, total_b = 0;
  ck(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
  const std::size_t budget = std::min<std::size_t>(free_b / 2, std::size_t(24) << 30);
  const index_t batch = std::min<index_t>(m, index_t(std::max<std::size_t>(1, budget / per)));
  R *dd = nullptr, *de = nullptr, *dx = nullptr, *work = nullptr, *dy = nullptr;
  unsigned char* sw = nullptr;
  auto release = [&] {
    cudaFree(dd);
    cudaFree(de);
    cudaFree(dx);
    cudaFree(work);
    cudaFree(dy);
    cudaFree(sw);
  };
  try {
    ck(cudaMalloc(&dd, sizeof(R) * std::size_t(n)), "cudaMalloc");
    ck(cudaMalloc(&de, sizeof(R) * std::size_t(n)), "cudaMalloc");
    ck(cudaMalloc(&dx, sizeof(R) * std::size_t(m)), "cudaMalloc");
    ck(cudaMalloc(&work, 5 * sizeof(R) * std::size_t(n) * std::size_t(batch)), "cudaMalloc");
    ck(cudaMalloc(&dy, sizeof(R) * std::size_t(n) * std::size_t(batch)), "cudaMalloc");
    ck(cudaMalloc(&sw, std::size_t(n) * std::size_t(batch)), "cudaMalloc");
    ck(cudaMemcpy(dd, d, sizeof(R) * std::size_t(n), cudaMemcpyHostToDevice), "d");
    if (n > 1) ck(cudaMemcpy(de, e, sizeof(R) * std::size_t(n - 1), cudaMemcpyHostToDevice), "e");
    ck(cudaMemcpy(dx, x, sizeof(R) * std::size_t(m), cudaMemcpyHostToDevice), "x");
    const int threads = 64;
    for (index_t j0 = 0; j0 < m; j0 += batch) {
      const index_t cnt = std::min(batch, m - j0);
      phase_a_kernel<R><<<unsigned((cnt + threads - 1) / threads), threads>>>(
          n, dd, de, dx + j0, P, k0 + j0, cnt, work, sw, dy);
      ck(cudaGetLastError(), "launch");
      ck(cudaMemcpy2D(z + j0 * ldz, sizeof(R) * std::size_t(ldz), dy, sizeof(R) * std::size_t(n),
                      sizeof(R) * std::size_t(n), std::size_t(cnt), cudaMemcpyDeviceToHost),
         "y");
    }
  } catch (...) {
    release();
    throw;
  }
  release();
}

template <class R>
bool invit_cuda(index_t n, const R* d, const R* e, index_t m, const R* x, const index_t* lo,
                const index_t* cb, index_t nclusters, const invit::Params<R>& P, index_t k0, R* z,
                index_t ldz, index_t* fallbacks) {
  if (m <= 0 || n <= 0) return true;
  if (ldz < n) throw DimensionError("invit_cuda: ldz < n");
  const std::size_t per = std::size_t(n) * (5 * sizeof(R) + 1);  // phase A work per vector
  const std::size_t bz = std::size_t(n) * std::size_t(m) * sizeof(R);
  std::size_t free_b = 0, total_b = 0;
  ck(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
  if (bz + 64 * per + (std::size_t(64) << 20) > free_b / 10 * 9) return false;
  const std::size_t budget =
      std::min<std::size_t>((free_b / 10 * 9 - bz) / 2, std::size_t(16) << 30);
  const index_t batch = std::min<index_t>(m, index_t(std::max<std::size_t>(1, budget / per)));
  R *dd = nullptr, *de = nullptr, *dx = nullptr, *work = nullptr, *dz = nullptr;
  unsigned char* sw = nullptr;
  index_t *dlo = nullptr, *dj = nullptr;
  auto release = [&] {
    cudaFree(dd);
    cudaFree(de);
    cudaFree(dx);
    cudaFree(work);
    cudaFree(dz);
    cudaFree(sw);
    cudaFree(dlo);
    cudaFree(dj);
  };
  index_t nfall = 0;
  try {
    ck(cudaMalloc(&dd, sizeof(R) * std::size_t(n)), "cudaMalloc");
    ck(cudaMalloc(&de, sizeof(R) * std::size_t(n)), "cudaMalloc");
    ck(cudaMalloc(&dx, sizeof(R) * std::size_t(m)), "cudaMalloc");
    ck(cudaMalloc(&dz, bz), "cudaMalloc Z");
    ck(cudaMalloc(&work, 5 * sizeof(R) * std::size_t(n) * std::size_t(batch)), "cudaMalloc");
    ck(cudaMalloc(&sw, std::size_t(n) * std::size_t(batch)), "cudaMalloc");
    ck(cudaMalloc(&dlo, sizeof(index_t) * std::size_t(m)), "cudaMalloc");
    ck(cudaMemcpy(dd, d, sizeof(R) * std::size_t(n), cudaMemcpyHostToDevice), "d");
    if (n > 1) ck(cudaMemcpy(de, e, sizeof(R) * std::size_t(n - 1), cudaMemcpyHostToDevice), "e");
    ck(cudaMemcpy(dx, x, sizeof(R) * std::size_t(m), cudaMemcpyHostToDevice), "x");
    ck(cudaMemcpy(dlo, lo, sizeof(index_t) * std::size_t(m), cudaMemcpyHostToDevice), "lo");
    // Phase A straight into the resident Z (ld n).
    for (index_t j0 = 0; j0 < m; j0 += batch) {
      const index_t cnt = std::min(batch, m - j0);
      phase_a_kernel<R><<<unsigned((cnt + 63) / 64), 64>>>(n, dd, de, dx + j0, P, k0 + j0, cnt,
                                                           work, sw, dz + j0 * n);
      ck(cudaGetLastError(), "phase A launch");
    }
    // Phase B. Blocks of step 2: every small cluster (one block each, in one launch), then the
    // blocks of the large clusters one after another (each after its CGS step).
    std::vector<index_t> hj0, hjs, hj1;
    for (index_t c = 0; c < nclusters; ++c)
      if (cb[c + 1] - cb[c] <= invit::kBlock) {
        hj0.push_back(cb[c]);
        hjs.push_back(cb[c]);
        hj1.push_back(cb[c + 1]);
      }
    const index_t nsmall = index_t(hj0.size());
    const std::size_t nj = std::max<std::size_t>(hj0.size(), 1);
    ck(cudaMalloc(&dj, sizeof(index_t) * 4 * nj), "cudaMalloc");
    index_t *dj0 = dj, *djs = dj + nj, *dj1 = dj + 2 * nj, *dflag = dj + 3 * nj;
    std::vector<R> qh, yh(static_cast<std::size_t>(n));
    std::vector<R> wk(5 * static_cast<std::size_t>(n));
    std::vector<unsigned char> wsw(static_cast<std::size_t>(n));
    const invit::Work<R> W{wk.data(),         wk.data() + n, wk.data() + 2 * n, wk.data() + 3 * n,
                           wk.data() + 4 * n, wsw.data(),    index_t(1)};
    // Column f fell back: invit::fallback on the host against the columns [p0, f).
    const auto host_fallback = [&](index_t p0, index_t f) {
      const index_t nq = f - p0;
      qh.resize(static_cast<std::size_t>(std::max<index_t>(nq, 1) * n));
      if (nq > 0)
        ck(cudaMemcpy(qh.data(), dz + p0 * n, sizeof(R) * std::size_t(nq * n),
                      cudaMemcpyDeviceToHost),
           "window");
      invit::fallback(n, d, e, x[f], P, k0 + f, R(0), W, qh.data(), nq, n, yh.data());
      ck(cudaMemcpy(dz + f * n, yh.data(), sizeof(R) * std::size_t(n), cudaMemcpyHostToDevice),
         "fallback column");
      ++nfall;
    };
    // Runs step 2 for one cluster block from js on, with host fallbacks, until the block is done.
    const auto finish_block = [&](index_t p0, index_t j0, index_t js, index_t j1) {
      while (js < j1) {
        const index_t h[3] = {j0, js, j1};
        ck(cudaMemcpy(dj0, &h[0], sizeof(index_t), cudaMemcpyHostToDevice), "j0");
        ck(cudaMemcpy(djs, &h[1], sizeof(index_t), cudaMemcpyHostToDevice), "js");
        ck(cudaMemcpy(dj1, &h[2], sizeof(index_t), cudaMemcpyHostToDevice), "j1");
        invit_dev::step2_kernel<R><<<1, invit_dev::kThreads>>>(n, dz, n, dj0, djs, dj1, dlo, dflag);
        ck(cudaGetLastError(), "phase B launch");
        index_t f = -1;
        ck(cudaMemcpy(&f, dflag, sizeof(index_t), cudaMemcpyDeviceToHost), "flag");
        if (f < 0) return;
        host_fallback(p0, f);
        js = f + 1;
      }
    };
    if (nsmall > 0) {
      ck(cudaMemcpy(dj0, hj0.data(), sizeof(index_t) * nj, cudaMemcpyHostToDevice), "j0");
      ck(cudaMemcpy(djs, hjs.data(), sizeof(index_t) * nj, cudaMemcpyHostToDevice), "js");
      ck(cudaMemcpy(dj1, hj1.data(), sizeof(index_t) * nj, cudaMemcpyHostToDevice), "j1");
      invit_dev::step2_kernel<R>
          <<<unsigned(nsmall), invit_dev::kThreads>>>(n, dz, n, dj0, djs, dj1, dlo, dflag);
      ck(cudaGetLastError(), "phase B launch");
      std::vector<index_t> fl(nj);
      ck(cudaMemcpy(fl.data(), dflag, sizeof(index_t) * nj, cudaMemcpyDeviceToHost), "flags");
      for (index_t b = 0; b < nsmall; ++b)
        if (fl[b] >= 0) {  // the fallback for fl[b], then the rest of that cluster
          host_fallback(hj0[b], fl[b]);
          finish_block(hj0[b], hj0[b], fl[b] + 1, hj1[b]);
        }
    }
    for (index_t c = 0; c < nclusters; ++c) {
      if (cb[c + 1] - cb[c] <= invit::kBlock) continue;
      for (index_t j0 = cb[c]; j0 < cb[c + 1]; j0 += invit::kBlock) {
        const index_t j1 = std::min(j0 + invit::kBlock, cb[c + 1]), p0 = lo[j0];
        if (p0 < j0) {
          invit_dev::cgs2_kernel<R>
              <<<unsigned(j1 - j0), invit_dev::kThreads, std::size_t(j0 - p0) * sizeof(R)>>>(
                  n, dz, n, p0, j0);
          ck(cudaGetLastError(), "phase B CGS launch");
        }
        finish_block(p0, j0, j0, j1);
      }
    }
    ck(cudaMemcpy2D(z, sizeof(R) * std::size_t(ldz), dz, sizeof(R) * std::size_t(n),
                    sizeof(R) * std::size_t(n), std::size_t(m), cudaMemcpyDeviceToHost),
       "Z");
  } catch (...) {
    release();
    throw;
  }
  release();
  if (fallbacks) *fallbacks = nfall;
  return true;
}

#define EIGSOLVE_INSTANTIATE_INVIT_CUDA(R)                                                    \
  template void invit_phase_a_cuda<R>(index_t, const R*, const R*, index_t, const R*,         \
                                      const invit::Params<R>&, index_t, R*, index_t);         \
  template bool invit_cuda<R>(index_t, const R*, const R*, index_t, const R*, const index_t*, \
                              const index_t*, index_t, const invit::Params<R>&, index_t, R*,  \
                              index_t, index_t*);
EIGSOLVE_FOR_EACH_REAL(EIGSOLVE_INSTANTIATE_INVIT_CUDA)
#undef EIGSOLVE_INSTANTIATE_INVIT_CUDA

}  // namespace eigsolve
