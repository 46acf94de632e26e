// app/residuals_cuda.hpp on the GPU: cuBLAS for the two products (diagnostics: BLAS order is
// fine, and cuBLAS GEMM is run-to-run deterministic), our own per-column sums.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "app/residuals_cuda.hpp"
#include "core/cuda/staged_copy.cuh"
#include "core/errors.hpp"

namespace eigsolve {
namespace {

void ck(cudaError_t st, const char* what) {
  if (st != cudaSuccess) {
    cudaGetLastError();
    throw DeviceError(std::string("device residuals: ") + what + ": " + cudaGetErrorString(st));
  }
}
void ckb(cublasStatus_t st, const char* what) {
  if (st != CUBLAS_STATUS_SUCCESS)
    throw DeviceError(std::string("device residuals: ") + what + ": cuBLAS status " +
                      std::to_string(int(st)));
}

cublasStatus_t gemm(cublasHandle_t h, bool ct, int n, int m, int k, const float* A, int lda,
                    const float* B, int ldb, float* C, int ldc) {
  const float one = 1, zero = 0;
  return cublasSgemm(h, ct ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, A, lda, B, ldb,
                     &zero, C, ldc);
}
cublasStatus_t gemm(cublasHandle_t h, bool ct, int n, int m, int k, const double* A, int lda,
                    const double* B, int ldb, double* C, int ldc) {
  const double one = 1, zero = 0;
  return cublasDgemm(h, ct ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, A, lda, B, ldb,
                     &zero, C, ldc);
}
cublasStatus_t gemm(cublasHandle_t h, bool ct, int n, int m, int k, const cfloat* A, int lda,
                    const cfloat* B, int ldb, cfloat* C, int ldc) {
  const cuComplex one{1, 0}, zero{0, 0};
  return cublasCgemm(h, ct ? CUBLAS_OP_C : CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one,
                     reinterpret_cast<const cuComplex*>(A), lda,
                     reinterpret_cast<const cuComplex*>(B), ldb, &zero,
                     reinterpret_cast<cuComplex*>(C), ldc);
}
cublasStatus_t gemm(cublasHandle_t h, bool ct, int n, int m, int k, const cdouble* A, int lda,
                    const cdouble* B, int ldb, cdouble* C, int ldc) {
  const cuDoubleComplex one{1, 0}, zero{0, 0};
  return cublasZgemm(h, ct ? CUBLAS_OP_C : CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one,
                     reinterpret_cast<const cuDoubleComplex*>(A), lda,
                     reinterpret_cast<const cuDoubleComplex*>(B), ldb, &zero,
                     reinterpret_cast<cuDoubleComplex*>(C), ldc);
}

constexpr int kThreads = 256;

/// A and Z are uploaded through the pinned chunks of core/cuda/staged_copy.cuh instead of plain
/// pageable copies (H200, d n = 16384 with vectors: residuals 1.59 -> 1.18 s; bench/NOTES.md
/// session 11). EIGSOLVE_GPU_RESIDUALS_STAGED=0: the plain copies (A/B). Same bytes.
bool staged_uploads() {
  const char* e = std::getenv("EIGSOLVE_GPU_RESIDUALS_STAGED");
  return !(e && e[0] == '0');
}

/// out[j] = sum_i |P_ij - s_j Q_ij| (Q given) or |P_ij - delta_ij| (Q null), in double, by one
/// block per column: each thread a strided partial in ascending i, then a fixed tree.
template <class T>
__global__ void __launch_bounds__(kThreads)
    column_abs_sums(index_t rows, const T* P, index_t ldp, const T* Q, index_t ldq,
                    const real_t<T>* s, double* out) {
  __shared__ double sh[kThreads];
  const index_t j = blockIdx.x;
  double acc = 0;
  for (index_t i = threadIdx.x; i < rows; i += kThreads) {
    T v = P[i + ldp * j];
    if (Q)
      v = v - T(s[j]) * Q[i + ldq * j];
    else if (i == j)
      v = v - T(real_t<T>(1));
    acc += sqrt(to_double(abs2(v)));
  }
  sh[threadIdx.x] = acc;
  __syncthreads();
  for (int h = kThreads / 2; h > 0; h /= 2) {
    if (int(threadIdx.x) < h) sh[threadIdx.x] += sh[threadIdx.x + h];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[j] = sh[0];
}

template <class T>
Residuals device_residuals(const HostMatrix<T>& A, const SolveResult<T>& r, double anorm) {
  using R = real_t<T>;
  const index_t n = r.n, m = r.m;
  Residuals res;
  if (n == 0 || m == 0 || r.z.empty()) return res;
  if (n > 2147483647 / 2 || m > 2147483647 / 2)
    throw DimensionError("device residuals: order beyond cuBLAS's 32-bit dimensions");
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    cudaGetLastError();
    throw DeviceError("device residuals: no CUDA device is visible");
  }
  const std::size_t e = sizeof(T), un = std::size_t(n), um = std::size_t(m);
  const std::size_t need = e * (un * un + 2 * un * um + um * um) + sizeof(R) * um +
                           sizeof(double) * 2 * um + (std::size_t(1) << 20);
  std::size_t free_b = 0, total_b = 0;
  ck(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
  if (need > free_b)
    throw DeviceError("device residuals: need " + std::to_string(need) +
                      " bytes of device memory, " + std::to_string(free_b) + " are available");
  T *dA = nullptr, *dZ = nullptr, *dAZ = nullptr, *dG = nullptr;
  R* dw = nullptr;
  double* dsum = nullptr;
  cublasHandle_t h = nullptr;
  auto release = [&] {
    for (void* p : {static_cast<void*>(dA), static_cast<void*>(dZ), static_cast<void*>(dAZ),
                    static_cast<void*>(dG), static_cast<void*>(dw), static_cast<void*>(dsum)})
      cudaFree(p);
    if (h) cublasDestroy(h);
  };
  try {
    ck(cudaMalloc(&dA, e * un * un), "cudaMalloc");
    ck(cudaMalloc(&dZ, e * un * um), "cudaMalloc");
    ck(cudaMalloc(&dAZ, e * un * um), "cudaMalloc");
    ck(cudaMalloc(&dG, e * um * um), "cudaMalloc");
    ck(cudaMalloc(&dw, sizeof(R) * um), "cudaMalloc");
    ck(cudaMalloc(&dsum, sizeof(double) * 2 * um), "cudaMalloc");
    if (staged_uploads()) {
      staged::Stager sg;
      sg.h2d(dA, e * un, A.ptr(), e * un, e * un, un);
      sg.h2d(dZ, e * un, r.z.data(), e * un, e * un, um);
    } else {
      ck(cudaMemcpy(dA, A.ptr(), e * un * un, cudaMemcpyHostToDevice), "upload A");
      ck(cudaMemcpy(dZ, r.z.data(), e * un * um, cudaMemcpyHostToDevice), "upload Z");
    }
    ck(cudaMemcpy(dw, r.w.data(), sizeof(R) * um, cudaMemcpyHostToDevice), "upload w");
    ckb(cublasCreate(&h), "cublasCreate");
    ckb(gemm(h, false, int(n), int(m), int(n), dA, int(n), dZ, int(n), dAZ, int(n)), "A Z");
    ckb(gemm(h, true, int(m), int(m), int(n), dZ, int(n), dZ, int(n), dG, int(m)), "Z^H Z");
    column_abs_sums<T><<<unsigned(m), kThreads>>>(n, dAZ, n, dZ, n, dw, dsum);
    ck(cudaGetLastError(), "column sums");
    column_abs_sums<T><<<unsigned(m), kThreads>>>(m, dG, m, nullptr, 0, dw, dsum + m);
    ck(cudaGetLastError(), "column sums");
    std::vector<double> sums(2 * um);
    ck(cudaMemcpy(sums.data(), dsum, sizeof(double) * 2 * um, cudaMemcpyDeviceToHost), "sums");
    const double rmax = *std::max_element(sums.begin(), sums.begin() + m);
    const double omax = *std::max_element(sums.begin() + m, sums.end());
    res.backward = anorm > 0 ? rmax / (static_cast<double>(n) * anorm) : rmax;
    res.orthogonality = omax / static_cast<double>(n);
  } catch (...) {
    release();
    throw;
  }
  release();
  return res;
}

}  // namespace

template <class T>
Residuals compute_residuals_cuda(const HostMatrix<T>& A, const SolveResult<T>& r, double anorm) {
  if constexpr (residuals_on_device_v<T>)
    return device_residuals<T>(A, r, anorm);
  else
    throw UsageError("device residuals: not available for this precision (the host computes them)");
}

#define EIGSOLVE_INSTANTIATE_RESID_CUDA(T) \
  template Residuals compute_residuals_cuda<T>(const HostMatrix<T>&, const SolveResult<T>&, double);
EIGSOLVE_FOR_EACH_SCALAR(EIGSOLVE_INSTANTIATE_RESID_CUDA)
#undef EIGSOLVE_INSTANTIATE_RESID_CUDA

}  // namespace eigsolve
