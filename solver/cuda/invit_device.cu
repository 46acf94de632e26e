// Phase A of the canonical inverse iteration on the device (solver/invit_cuda.hpp): one thread
// per eigenvalue, invit::phase_a compiled for the device (-fmad=false, IEEE division): the
// CPU's bits.
#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "core/errors.hpp"
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

#define EIGSOLVE_INSTANTIATE_INVIT_CUDA(R)                                            \
  template void invit_phase_a_cuda<R>(index_t, const R*, const R*, index_t, const R*, \
                                      const invit::Params<R>&, index_t, R*, index_t);
EIGSOLVE_FOR_EACH_REAL(EIGSOLVE_INSTANTIATE_INVIT_CUDA)
#undef EIGSOLVE_INSTANTIATE_INVIT_CUDA

}  // namespace eigsolve
