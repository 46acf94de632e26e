// Canonical bisection on the device (solver/bisection_cuda.hpp): one thread per eigenvalue,
// bisect::bisect_eigenvalue compiled for the device (-fmad=false, IEEE division): the CPU's bits.
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "core/errors.hpp"
#include "solver/bisection.hpp"
#include "solver/bisection_cuda.hpp"

namespace eigsolve {
namespace {

void ck(cudaError_t st, const char* what) {
  if (st != cudaSuccess) {
    cudaGetLastError();
    throw DeviceError(std::string("device bisection: ") + what + ": " + cudaGetErrorString(st));
  }
}

template <class R>
__global__ void bisect_kernel(index_t n, const R* d, const R* e2, bisect::SturmSetup<R> s,
                              index_t il, index_t count, R* w) {
  const index_t q = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (q >= count) return;
  w[q] = bisect::bisect_eigenvalue(n, d, e2, s, il + q);
}

}  // namespace

template <class R>
void bisection_eigenvalues_cuda(index_t n, const R* d, const R* e, index_t il, index_t iu, R* w) {
  if (n < 1 || il < 0 || iu >= n || il > iu + 1)
    throw DimensionError("bisection_eigenvalues_cuda: bad range [" + std::to_string(il) + ", " +
                         std::to_string(iu) + "] for n = " + std::to_string(n));
  if (iu < il) return;
  std::vector<R> e2(static_cast<std::size_t>(n > 1 ? n - 1 : 1));
  const bisect::SturmSetup<R> s = bisect::sturm_setup(n, d, e, e2.data());
  const index_t count = iu - il + 1;
  R *dd = nullptr, *de2 = nullptr, *dw = nullptr;
  auto release = [&] {
    cudaFree(dd);
    cudaFree(de2);
    cudaFree(dw);
  };
  try {
    ck(cudaMalloc(&dd, sizeof(R) * std::size_t(n)), "cudaMalloc");
    ck(cudaMalloc(&de2, sizeof(R) * e2.size()), "cudaMalloc");
    ck(cudaMalloc(&dw, sizeof(R) * std::size_t(count)), "cudaMalloc");
    ck(cudaMemcpy(dd, d, sizeof(R) * std::size_t(n), cudaMemcpyHostToDevice), "d");
    ck(cudaMemcpy(de2, e2.data(), sizeof(R) * e2.size(), cudaMemcpyHostToDevice), "e2");
    const int threads = 128;
    bisect_kernel<R>
        <<<unsigned((count + threads - 1) / threads), threads>>>(n, dd, de2, s, il, count, dw);
    ck(cudaGetLastError(), "launch");
    ck(cudaMemcpy(w, dw, sizeof(R) * std::size_t(count), cudaMemcpyDeviceToHost), "w");
  } catch (...) {
    release();
    throw;
  }
  release();
}

#define EIGSOLVE_INSTANTIATE_BISECT_CUDA(R) \
  template void bisection_eigenvalues_cuda<R>(index_t, const R*, const R*, index_t, index_t, R*);
EIGSOLVE_FOR_EACH_REAL(EIGSOLVE_INSTANTIATE_BISECT_CUDA)
#undef EIGSOLVE_INSTANTIATE_BISECT_CUDA

}  // namespace eigsolve
