// The device side of the tridiagonalization (householder/tridiag_cuda.hpp): the matrix resident
// on the GPU, the canonical SYMV of symv/cuda for every column, and the canonical rank-2k
// trailing update below.
//
//   rank-2k update of A22 (order m), one 256-thread block per stored 64x64 tile (I, J), I >= J:
//     thread (tx, ty) = (t % 16, t / 16) owns rows 64I + tx + 16q, columns 64J + ty + 16p
//     (q, p = 0..3); per element, k ascending in chunks of 16 staged in shared memory:
//       a = madd(V[i,k], -conj(W[j,k]), a);  a = madd(W[i,k], -conj(V[j,k]), a)
//     exactly the chain of householder/tridiagonalize.cpp (rank2k_update); complex diagonal
//     made real afterwards. Elements above the diagonal are neither read nor written.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "core/canonical.hpp"
#include "core/errors.hpp"
#include "householder/tridiag_cuda.hpp"
#include "symv/cuda/tile_order.cuh"
#include "symv/symv_gpu.hpp"

namespace eigsolve {
namespace {

void ck(cudaError_t st, const char* what) {
  if (st != cudaSuccess) {
    cudaGetLastError();
    throw DeviceError(std::string(what) + ": " + cudaGetErrorString(st));
  }
}

/// k chunk staged in shared memory (4 x kKc x 64 elements: 32 KB for 16-byte scalars).
template <class T>
constexpr int kKc = sizeof(T) > 8 ? 8 : 16;

template <class T>
__device__ __forceinline__ void make_real_dev(T& a) {
  if constexpr (is_complex_v<T>) a.im = real_t<T>(0);
}

template <class T>
__global__ void __launch_bounds__(256)
    rank2k_kernel(index_t m, index_t kb, const T* V, const T* W, T* A, index_t lda, index_t nt) {
  constexpr int KC = kKc<T>;
  __shared__ T vr[KC][64], wr[KC][64], nwc[KC][64], nvc[KC][64];
  index_t I, J;
  symv_cuda::tile_coords(blockIdx.x, nt, I, J);
  const int t = threadIdx.x, tx = t & 15, ty = t >> 4;
  const index_t r0 = I * 64, c0 = J * 64;
  T c[4][4];
#pragma unroll
  for (int q = 0; q < 4; ++q)
#pragma unroll
    for (int p = 0; p < 4; ++p) {
      const index_t i = r0 + tx + 16 * q, j = c0 + ty + 16 * p;
      c[q][p] = (i < m && j <= i) ? A[i + lda * j] : T(0);
    }
  for (index_t k0 = 0; k0 < kb; k0 += KC) {
    const int kc = int(kb - k0 < KC ? kb - k0 : KC);
    for (int e = t; e < KC * 64; e += 256) {
      const int k = e >> 6, r = e & 63;
      const bool ok_k = k < kc;
      const index_t ir = r0 + r, jc = c0 + r;
      vr[k][r] = (ok_k && ir < m) ? V[ir + m * (k0 + k)] : T(0);
      wr[k][r] = (ok_k && ir < m) ? W[ir + m * (k0 + k)] : T(0);
      nwc[k][r] = (ok_k && jc < m) ? -conj(W[jc + m * (k0 + k)]) : T(0);
      nvc[k][r] = (ok_k && jc < m) ? -conj(V[jc + m * (k0 + k)]) : T(0);
    }
    __syncthreads();
    for (int k = 0; k < kc; ++k) {
      T v[4], w[4], nw[4], nv[4];
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        v[q] = vr[k][tx + 16 * q];
        w[q] = wr[k][tx + 16 * q];
      }
#pragma unroll
      for (int p = 0; p < 4; ++p) {
        nw[p] = nwc[k][ty + 16 * p];
        nv[p] = nvc[k][ty + 16 * p];
      }
#pragma unroll
      for (int q = 0; q < 4; ++q)
#pragma unroll
        for (int p = 0; p < 4; ++p) {
          c[q][p] = madd(v[q], nw[p], c[q][p]);
          c[q][p] = madd(w[q], nv[p], c[q][p]);
        }
    }
    __syncthreads();
  }
#pragma unroll
  for (int q = 0; q < 4; ++q)
#pragma unroll
    for (int p = 0; p < 4; ++p) {
      const index_t i = r0 + tx + 16 * q, j = c0 + ty + 16 * p;
      if (i < m && j <= i) {
        T a = c[q][p];
        if (i == j) make_real_dev(a);
        A[i + lda * j] = a;
      }
    }
}

template <class T>
class CudaTridiag final : public TridiagDevice<T> {
 public:
  CudaTridiag(index_t n, const T* A, index_t lda, int nb, TridiagDeviceTimes* times)
      : n_(n), nb_(std::max(1, nb)), ldd_(n), times_(times) {
    if (cuda_device_count() == 0) throw DeviceError("--device cuda: no CUDA device is visible");
    const std::uint64_t need = tridiag_device_bytes<T>(n, nb);
    std::size_t free_b = 0, total_b = 0;
    ck(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
    if (need > free_b)
      throw DeviceError("the GPU cannot hold this problem: order " + std::to_string(n) + " in " +
                        ScalarTraits<T>::name + " needs " + std::to_string(need) +
                        " bytes of device memory, " + std::to_string(free_b) +
                        " are available (of " + std::to_string(total_b) + ")");
    ck(cudaStreamCreateWithFlags(&st_, cudaStreamNonBlocking), "cudaStreamCreate");
    ck(cudaEventCreate(&ev0_), "cudaEventCreate");
    ck(cudaEventCreate(&ev1_), "cudaEventCreate");
    alloc(&dA_, std::size_t(ldd_) * std::size_t(n) * sizeof(T));
    wsb_ = symv_workspace_bytes<T>(std::max<index_t>(n, 1));
    alloc(&ws_, wsb_);
    const std::size_t panel = std::size_t(n) * std::size_t(nb_) * sizeof(T);
    alloc(&dV_, panel);
    alloc(&dW_, panel);
    alloc(&dv_, std::size_t(n) * sizeof(T));
    alloc(&dw_, std::size_t(n) * sizeof(T));
    ck(cudaMallocHost(&hV_, panel), "cudaMallocHost");
    ck(cudaMallocHost(&hW_, panel), "cudaMallocHost");
    ck(cudaMallocHost(&hv_, std::size_t(n) * sizeof(T)), "cudaMallocHost");
    ck(cudaMallocHost(&hw_, std::size_t(n) * sizeof(T)), "cudaMallocHost");
    symv_workspace_init(ws_, wsb_, st_);
    const auto t0 = std::chrono::steady_clock::now();
    ck(cudaMemcpy2DAsync(dA_, ldd_ * sizeof(T), A, lda * sizeof(T), n * sizeof(T), n,
                         cudaMemcpyHostToDevice, st_),
       "upload A");
    ck(cudaStreamSynchronize(st_), "upload A");
    if (times_)
      times_->upload +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  ~CudaTridiag() override {
    cudaStreamSynchronize(st_);
    for (void* p : {static_cast<void*>(dA_), ws_, static_cast<void*>(dV_), static_cast<void*>(dW_),
                    static_cast<void*>(dv_), static_cast<void*>(dw_)})
      cudaFree(p);
    for (void* p : {static_cast<void*>(hV_), static_cast<void*>(hW_), static_cast<void*>(hv_),
                    static_cast<void*>(hw_)})
      cudaFreeHost(p);
    cudaEventDestroy(ev0_);
    cudaEventDestroy(ev1_);
    cudaStreamDestroy(st_);
  }

  void fetch_panel(index_t j0, index_t nb, T* A, index_t lda) override {
    copy_down(j0, j0, n_ - j0, nb, A, lda);
  }

  void symv(index_t g0, index_t m, const T* v, T* w) override {
    const auto t0 = std::chrono::steady_clock::now();
    std::memcpy(hv_, v, std::size_t(m) * sizeof(T));
    ck(cudaMemcpyAsync(dv_, hv_, std::size_t(m) * sizeof(T), cudaMemcpyHostToDevice, st_), "v");
    ck(cudaEventRecord(ev0_, st_), "cudaEventRecord");
    symv_gpu<T>(symv_select<T>(m), m, T(1), dA_ + g0 + ldd_ * g0, ldd_, dv_, 1, T(0), dw_, 1, ws_,
                wsb_, st_);
    ck(cudaEventRecord(ev1_, st_), "cudaEventRecord");
    ck(cudaMemcpyAsync(hw_, dw_, std::size_t(m) * sizeof(T), cudaMemcpyDeviceToHost, st_), "w");
    ck(cudaStreamSynchronize(st_), "symv");
    std::memcpy(w, hw_, std::size_t(m) * sizeof(T));
    if (times_) {
      float ms = 0;
      ck(cudaEventElapsedTime(&ms, ev0_, ev1_), "cudaEventElapsedTime");
      times_->symv += ms * 1e-3;
      times_->transfers +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() - ms * 1e-3;
    }
  }

  void update(index_t s, index_t m, index_t kb, const T* V, index_t ldv, const T* W,
              index_t ldw) override {
    if (m <= 0 || kb <= 0) return;
    for (index_t k = 0; k < kb; ++k) {
      std::memcpy(hV_ + m * k, V + ldv * k, std::size_t(m) * sizeof(T));
      std::memcpy(hW_ + m * k, W + ldw * k, std::size_t(m) * sizeof(T));
    }
    const std::size_t bytes = std::size_t(m) * std::size_t(kb) * sizeof(T);
    ck(cudaMemcpyAsync(dV_, hV_, bytes, cudaMemcpyHostToDevice, st_), "V");
    ck(cudaMemcpyAsync(dW_, hW_, bytes, cudaMemcpyHostToDevice, st_), "W");
    const index_t nt = (m + 63) / 64;
    ck(cudaEventRecord(ev0_, st_), "cudaEventRecord");
    rank2k_kernel<T><<<unsigned(nt * (nt + 1) / 2), 256, 0, st_>>>(m, kb, dV_, dW_,
                                                                   dA_ + s + ldd_ * s, ldd_, nt);
    ck(cudaGetLastError(), "rank2k_kernel");
    ck(cudaEventRecord(ev1_, st_), "cudaEventRecord");
    ck(cudaStreamSynchronize(st_), "rank2k_kernel");
    if (times_) {
      float ms = 0;
      ck(cudaEventElapsedTime(&ms, ev0_, ev1_), "cudaEventElapsedTime");
      times_->update += ms * 1e-3;
    }
  }

  void fetch_tail(index_t j0, T* A, index_t lda) override {
    copy_down(j0, j0, n_ - j0, n_ - j0, A, lda);
  }

 private:
  template <class P>
  void alloc(P** p, std::size_t bytes) {
    ck(cudaMalloc(reinterpret_cast<void**>(p), std::max<std::size_t>(bytes, 1)), "cudaMalloc");
  }
  void copy_down(index_t r0, index_t c0, index_t rows, index_t cols, T* A, index_t lda) {
    if (rows <= 0 || cols <= 0) return;
    ck(cudaMemcpy2DAsync(A + r0 + lda * c0, lda * sizeof(T), dA_ + r0 + ldd_ * c0, ldd_ * sizeof(T),
                         rows * sizeof(T), cols, cudaMemcpyDeviceToHost, st_),
       "fetch columns");
    ck(cudaStreamSynchronize(st_), "fetch columns");
  }

  index_t n_;
  int nb_;
  index_t ldd_;
  TridiagDeviceTimes* times_;
  cudaStream_t st_ = nullptr;
  cudaEvent_t ev0_ = nullptr, ev1_ = nullptr;
  T* dA_ = nullptr;
  void* ws_ = nullptr;
  std::size_t wsb_ = 0;
  T *dV_ = nullptr, *dW_ = nullptr, *dv_ = nullptr, *dw_ = nullptr;
  T *hV_ = nullptr, *hW_ = nullptr, *hv_ = nullptr, *hw_ = nullptr;
};

}  // namespace

template <class T>
std::uint64_t tridiag_device_bytes(index_t n, int nb) {
  const std::uint64_t e = sizeof(T), un = std::uint64_t(std::max<index_t>(n, 1));
  return un * un * e + symv_workspace_bytes<T>(std::max<index_t>(n, 1)) +
         2 * un * std::uint64_t(std::max(nb, 1)) * e + 2 * un * e + (1u << 20);
}

template <class T>
std::unique_ptr<TridiagDevice<T>> make_cuda_tridiag(index_t n, const T* A, index_t lda, int nb,
                                                    TridiagDeviceTimes* times) {
  return std::make_unique<CudaTridiag<T>>(n, A, lda, nb, times);
}

#define EIGSOLVE_INSTANTIATE_TRIDIAG_CUDA(T)                                                       \
  template std::uint64_t tridiag_device_bytes<T>(index_t, int);                                    \
  template std::unique_ptr<TridiagDevice<T>> make_cuda_tridiag<T>(index_t, const T*, index_t, int, \
                                                                  TridiagDeviceTimes*);
EIGSOLVE_FOR_EACH_SCALAR(EIGSOLVE_INSTANTIATE_TRIDIAG_CUDA)
#undef EIGSOLVE_INSTANTIATE_TRIDIAG_CUDA

}  // namespace eigsolve
