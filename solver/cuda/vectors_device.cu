// Eigenvectors with the data resident on the device (solver/vectors_cuda.hpp):
//
//   Z_T (real, n x m) := inverse_iteration_device          [device; else host, then uploaded]
//   Z := T(Z_T)                                             [complex: one widening kernel]
//   Z := Q Z, apply_q_canonical_device on the reflectors the tridiagonalization left there
//   host z <-- Z through pinned chunks; z's pages were first touched by a host thread meanwhile
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/cuda/dev_mem.cuh"
#include "core/cuda/staged_copy.cuh"
#include "core/errors.hpp"
#include "core/parallel.hpp"
#include "solver/back_transform_cuda.hpp"
#include "solver/inverse_iteration.hpp"
#include "solver/vectors_cuda.hpp"

namespace eigsolve {
namespace {

using staged::ck;

/// z[k] = (zr[k], 0) for k < count: the real vectors of T as complex ones (the host's T(zt[k])).
template <class R>
__global__ void widen_kernel(std::size_t count, const R* __restrict__ zr, R* __restrict__ z) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; k < count; k += stride) {
    z[2 * k] = zr[k];
    z[2 * k + 1] = R(0);
  }
}

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

template <class T>
void eigenvectors_cuda(const Context& ctx, index_t n, const real_t<T>* d, const real_t<T>* e,
                       index_t m, const real_t<T>* w, index_t k0, const T* dA, index_t ldda,
                       const T* tau, std::vector<T>& z, VectorsDeviceTimes* times) {
  using R = real_t<T>;
  constexpr bool cplx = is_complex_v<T>;
  if (n < 0 || m < 0 || m > n) throw DimensionError("eigenvectors_cuda: bad n or m");
  if (n > 0 && ldda < n) throw DimensionError("eigenvectors_cuda: ldda < n");
  VectorsDeviceTimes tm;
  const std::size_t count = std::size_t(n) * std::size_t(m);
  // z's pages are first touched on host threads while the device works (a 2 GB vector's page
  // faults cost ~0.3 s even in parallel; here they overlap the inverse iteration).
  std::exception_ptr fill_error;
  std::thread filler([&] {
    try {
      assign_zeros_parallel(z, count, ctx.num_threads());
    } catch (...) {
      fill_error = std::current_exception();
    }
  });
  struct Join {
    std::thread& t;
    ~Join() {
      if (t.joinable()) t.join();
    }
  } join{filler};
  if (count == 0) {
    filler.join();
    if (fill_error) std::rethrow_exception(fill_error);
    if (times) *times = tm;
    return;
  }
  const std::size_t bZ = count * sizeof(T), bZr = cplx ? count * sizeof(R) : 0;
  const std::size_t bt = std::size_t(std::max<index_t>(n, 1)) * sizeof(T);
  const std::size_t bw = apply_q_device_workspace_bytes<T>(n, m);
  std::size_t free_b = 0, total_b = 0;
  ck(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
  const std::size_t need = bZ + bZr + bt + bw;
  if (need > free_b)
    throw DeviceError("the GPU cannot hold these eigenvectors: order " + std::to_string(n) +
                      " with " + std::to_string(m) + " vectors in " + ScalarTraits<T>::name +
                      " needs " + std::to_string(need) + " more bytes of device memory, " +
                      std::to_string(free_b) + " are available (of " + std::to_string(total_b) +
                      ")");
  auto t0 = std::chrono::steady_clock::now();
  DevMem dZ, dZr, dt, dw;
  dZ.alloc(bZ, "cudaMalloc Z");
  R* zr = static_cast<R*>(dZ.p);  // real T: Z_T is Z
  if constexpr (cplx) {
    dZr.alloc(bZr, "cudaMalloc Z of T");
    zr = static_cast<R*>(dZr.p);
  }
  // 1. Z_T on the device, else on the host (same bits) and uploaded.
  tm.invit_on_device = inverse_iteration_device<R>(ctx, n, d, e, m, w, k0, zr, nullptr);
  if (!tm.invit_on_device) {
    std::vector<R> zt;
    assign_zeros_parallel(zt, count, ctx.num_threads());
    inverse_iteration<R>(ctx, n, d, e, m, w, k0, zt.data(), n);
    ck(cudaMemcpy(zr, zt.data(), count * sizeof(R), cudaMemcpyHostToDevice), "upload Z of T");
  }
  if constexpr (cplx) {
    widen_kernel<R><<<1024, 256>>>(count, zr, reinterpret_cast<R*>(dZ.p));
    ck(cudaGetLastError(), "widen Z");
    ck(cudaDeviceSynchronize(), "widen Z");
    dZr.reset();
  }
  tm.inverse_iteration = since(t0);
  // 2. Z := Q Z.
  t0 = std::chrono::steady_clock::now();
  dt.alloc(bt, "cudaMalloc tau");
  if (n > 1)
    ck(cudaMemcpy(dt.p, tau, std::size_t(n - 1) * sizeof(T), cudaMemcpyHostToDevice), "tau");
  dw.alloc(bw, "cudaMalloc workspace");
  apply_q_canonical_device<T>(n, dA, ldda, static_cast<const T*>(dt.p), m, static_cast<T*>(dZ.p), n,
                              dw.p, bw, nullptr);
  ck(cudaDeviceSynchronize(), "back-transformation kernels");
  tm.back_transform = since(t0);
  // 3. Download into z, whose pages are present by now.
  t0 = std::chrono::steady_clock::now();
  filler.join();
  if (fill_error) std::rethrow_exception(fill_error);
  const std::size_t es = sizeof(T);
  if (staged::enabled()) {
    staged::Stager sg;
    sg.d2h(z.data(), es * n, dZ.p, es * n, es * n, std::size_t(m));
  } else {
    ck(cudaMemcpy(z.data(), dZ.p, bZ, cudaMemcpyDeviceToHost), "download Z");
  }
  tm.download = since(t0);
  if (times) *times = tm;
}

#define EIGSOLVE_INSTANTIATE_VECTORS_CUDA(T)                                                      \
  template void eigenvectors_cuda<T>(const Context&, index_t, const real_t<T>*, const real_t<T>*, \
                                     index_t, const real_t<T>*, index_t, const T*, index_t,       \
                                     const T*, std::vector<T>&, VectorsDeviceTimes*);
EIGSOLVE_FOR_EACH_SCALAR(EIGSOLVE_INSTANTIATE_VECTORS_CUDA)
#undef EIGSOLVE_INSTANTIATE_VECTORS_CUDA

}  // namespace eigsolve
