// The host-pointer form of the device back-transformation (solver/back_transform_cuda.hpp):
// upload A's lower triangle, tau and Z, run apply_q_canonical_device, download Z.
//
//   host A (lower, blocks of 64 columns), Z --pinned chunks (staged_copy.cuh)--> device
//   device: Z := Q Z (canonical blocked order)  --pinned chunks--> host Z
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "core/context.hpp"
#include "core/errors.hpp"
#include "solver/back_transform_cuda.hpp"
#include "core/cuda/dev_mem.cuh"
#include "core/cuda/staged_copy.cuh"

namespace eigsolve {
using staged::ck;

template <class T>
void apply_q_canonical_cuda(index_t n, const T* A, index_t lda, const T* tau, index_t m, T* Z,
                            index_t ldz) {
  if (n <= 1 || m <= 0) return;
  if (lda < n || ldz < n) throw DimensionError("apply_q_canonical_cuda: lda or ldz < n");
  if (cuda_device_count() == 0)
    throw DeviceError("apply_q_canonical_cuda: no CUDA device is visible");
  const std::size_t bA = std::size_t(n) * std::size_t(n) * sizeof(T);
  const std::size_t bt = std::size_t(n - 1) * sizeof(T);
  const std::size_t bZ = std::size_t(n) * std::size_t(m) * sizeof(T);
  std::size_t free_b = 0, total_b = 0;
  ck(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
  // the reflectors packed once where that fits, else again for every column panel (same bits)
  std::size_t bw = apply_q_device_workspace_bytes_pack_once<T>(n, m);
  if (bA + bt + bZ + bw > free_b) bw = apply_q_device_workspace_bytes<T>(n, m);
  const std::size_t need = bA + bt + bZ + bw;
  require_device_memory("this back-transformation: order " + std::to_string(n) + " with " +
                            std::to_string(m) + " vectors in " + ScalarTraits<T>::name,
                        need, free_b, total_b);
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  DevMem dA, dt, dZ, dw;
  dA.alloc(bA, "cudaMalloc A");
  dt.alloc(bt, "cudaMalloc tau");
  dZ.alloc(bZ, "cudaMalloc Z");
  dw.alloc(bw, "cudaMalloc workspace");
  const std::size_t es = sizeof(T);
  const bool stage = staged::enabled();
  std::unique_ptr<staged::Stager> sg;
  if (stage) {
    // Only the lower triangle of A is read: it goes up in blocks of 64 columns (rows j0..n-1,
    // half the bytes), with Z, through pinned chunks; the rest of dA is zeroed, never garbage.
    ck(cudaMemset(dA.p, 0, bA), "cudaMemset A");
    std::vector<staged::Stager::Piece> pcs;
    for (index_t j0 = 0; j0 < n; j0 += 64) {
      const index_t nc = std::min<index_t>(64, n - j0);
      pcs.push_back({static_cast<char*>(dA.p) + es * std::size_t(j0 + n * j0), es * n,
                     A + (j0 + lda * j0), es * lda, es * std::size_t(n - j0), std::size_t(nc)});
    }
    pcs.push_back({dZ.p, es * n, Z, es * ldz, es * n, std::size_t(m)});
    std::size_t up = 0;
    for (const auto& q : pcs)
      up += q.width * q.cols;
    sg = std::make_unique<staged::Stager>(0, std::max(up, bZ));  // bZ: Z comes back through it
    sg->h2d(pcs.data(), pcs.size());
  } else {
    ck(cudaMemcpy2D(dA.p, es * n, A, es * lda, es * n, n, cudaMemcpyHostToDevice), "upload A");
    ck(cudaMemcpy2D(dZ.p, es * n, Z, es * ldz, es * n, m, cudaMemcpyHostToDevice), "upload Z");
  }
  ck(cudaMemcpy(dt.p, tau, bt, cudaMemcpyHostToDevice), "upload tau");
  const auto t1 = Clock::now();
  apply_q_canonical_device<T>(n, static_cast<const T*>(dA.p), n, static_cast<const T*>(dt.p), m,
                              static_cast<T*>(dZ.p), n, dw.p, bw, nullptr);
  ck(cudaStreamSynchronize(nullptr), "kernels");
  const auto t2 = Clock::now();
  if (stage)
    sg->d2h(Z, es * ldz, dZ.p, es * n, es * n, std::size_t(m));
  else
    ck(cudaMemcpy2D(Z, es * ldz, dZ.p, es * n, es * n, m, cudaMemcpyDeviceToHost), "download Z");
  if (const char* pf = std::getenv("EIGSOLVE_GPU_PROFILE"); pf && pf[0] == '1')
    std::fprintf(stderr,
                 "eigsolve back-transformation on the device (n = %lld, m = %lld): allocation "
                 "and upload %.3f s, kernels %.3f s, download %.3f s\n",
                 static_cast<long long>(n), static_cast<long long>(m),
                 std::chrono::duration<double>(t1 - t0).count(),
                 std::chrono::duration<double>(t2 - t1).count(),
                 std::chrono::duration<double>(Clock::now() - t2).count());
}

#define EIGSOLVE_INSTANTIATE_BACK_CUDA_HOST(T)                                               \
  template void apply_q_canonical_cuda<T>(index_t, const T*, index_t, const T*, index_t, T*, \
                                          index_t);
EIGSOLVE_FOR_EACH_SCALAR(EIGSOLVE_INSTANTIATE_BACK_CUDA_HOST)
#undef EIGSOLVE_INSTANTIATE_BACK_CUDA_HOST

}  // namespace eigsolve
