// app/residuals_cuda.hpp on the GPU: cuBLAS for the two products (diagnostics: BLAS order is
// fine, and cuBLAS GEMM is run-to-run deterministic), our own per-column sums. dd (no cuBLAS):
// our own register-tiled dd products with the column sums fused into them (dd_product_sums).
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#include "app/residuals_cuda.hpp"
#include "core/cuda/staged_copy.cuh"
#include "core/errors.hpp"
#include "symv/cuda/tile_order.cuh"

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

/// Throws DeviceError when no device is visible or when `need` bytes are not free on it.
void require_device_memory(std::size_t need) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    cudaGetLastError();
    throw DeviceError("device residuals: no CUDA device is visible");
  }
  std::size_t free_b = 0, total_b = 0;
  ck(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
  if (need > free_b)
    throw DeviceError("device residuals: need " + std::to_string(need) +
                      " bytes of device memory, " + std::to_string(free_b) + " are available");
}

/// dA (n x n), dZ (n x m), dw (m) := A, r.z, r.w.
template <class T>
void upload(const HostMatrix<T>& A, const SolveResult<T>& r, T* dA, T* dZ, real_t<T>* dw) {
  const std::size_t e = sizeof(T), un = std::size_t(r.n), um = std::size_t(r.m);
  if (staged_uploads()) {
    staged::Stager sg(0, e * un * (un + um));
    sg.h2d(dA, e * un, A.ptr(), e * un, e * un, un);
    sg.h2d(dZ, e * un, r.z.data(), e * un, e * un, um);
  } else {
    ck(cudaMemcpy(dA, A.ptr(), e * un * un, cudaMemcpyHostToDevice), "upload A");
    ck(cudaMemcpy(dZ, r.z.data(), e * un * um, cudaMemcpyHostToDevice), "upload Z");
  }
  ck(cudaMemcpy(dw, r.w.data(), sizeof(real_t<T>) * um, cudaMemcpyHostToDevice), "upload w");
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

/// The residuals from the device's 2m column sums (m of A Z - Z L, then m of I - Z^H Z): the
/// largest of each, normalised as the host's compute_residuals does.
Residuals from_column_sums(const double* dsum, index_t n, index_t m, double anorm) {
  const std::size_t um = static_cast<std::size_t>(m);
  std::vector<double> sums(2 * um);
  ck(cudaMemcpy(sums.data(), dsum, sizeof(double) * 2 * um, cudaMemcpyDeviceToHost), "sums");
  const double rmax = *std::max_element(sums.begin(), sums.begin() + m);
  const double omax = *std::max_element(sums.begin() + m, sums.end());
  Residuals res;
  res.backward = anorm > 0 ? rmax / (static_cast<double>(n) * anorm) : rmax;
  res.orthogonality = omax / static_cast<double>(n);
  return res;
}

template <class T>
Residuals device_residuals(const HostMatrix<T>& A, const SolveResult<T>& r, double anorm) {
  using R = real_t<T>;
  const index_t n = r.n, m = r.m;
  Residuals res;
  if (n == 0 || m == 0 || r.z.empty()) return res;
  if (n > 2147483647 / 2 || m > 2147483647 / 2)
    throw DimensionError("device residuals: order beyond cuBLAS's 32-bit dimensions");
  const std::size_t e = sizeof(T), un = std::size_t(n), um = std::size_t(m);
  require_device_memory(e * (un * un + 2 * un * um + um * um) + sizeof(R) * um +
                        sizeof(double) * 2 * um + (std::size_t(1) << 20));
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
    upload(A, r, dA, dZ, dw);
    ckb(cublasCreate(&h), "cublasCreate");
    ckb(gemm(h, false, int(n), int(m), int(n), dA, int(n), dZ, int(n), dAZ, int(n)), "A Z");
    ckb(gemm(h, true, int(m), int(m), int(n), dZ, int(n), dZ, int(n), dG, int(m)), "Z^H Z");
    column_abs_sums<T><<<unsigned(m), kThreads>>>(n, dAZ, n, dZ, n, dw, dsum);
    ck(cudaGetLastError(), "column sums");
    column_abs_sums<T><<<unsigned(m), kThreads>>>(m, dG, m, nullptr, 0, dw, dsum + m);
    ck(cudaGetLastError(), "column sums");
    res = from_column_sums(dsum, n, m, anorm);
  } catch (...) {
    release();
    throw;
  }
  release();
  return res;
}

// --- dd: our own products (cuBLAS has no dd) -----------------------------------------------
//
//   dd_product_sums<false>: AZ = A Z, tile (I, J) = blockIdx (x, y); element (i, j):
//     c = sum_k A_ik Z_kj as c = madd(A_ik, Z_kj, c), k ascending (the host's chain: the same
//     bits), v = c - w_j Z_ij;  part[I + nsl * j] = sum over the tile's rows i of |v|
//   dd_product_sums<true>: G = Z^T Z, lower tiles I >= J only (tile_coords order);
//     c = madd(Z_ki, Z_kj, c), k ascending, v = c - delta_ij; the diagonal tiles whole.
//     G is symmetric: column j of |G - I| is its lower part (rows i >= j: column sums of the
//     tiles (I, J(j)), I >= J(j)) plus its upper part (rows i < j: G_ij = G_ji, the row sums of
//     the tiles (J(j), K), K < J(j)); so part[s + nsl * j] = the column sum of tile (s, J(j))
//     for s >= J(j), the row sum of tile (J(j), s) for s < J(j): each slot written once.
//   dd_slot_sums: out[j] = sum_s part[s + nsl * j], s ascending.
// |v| = sqrt(to_double(abs2(v))) as on the host. Nothing atomic: the same sums every run.
//
// The product tiles are rank2k_kernel's (householder/cuda/panel_kernels.cuh): 64 x 64 outputs
// per block of 256 threads, thread (tx, ty) = (t % 16, t / 16) owns rows tx + 16q and columns
// ty + 16p (q, p = 0..3: 16 independent dd chains), k staged through shared memory in chunks
// of 8. Only A, Z, w and the (n/64 + m/64) x m partial sums are on the device: no product is
// stored.
constexpr int kDdTile = 64, kDdKc = 8;
/// The staging chunks (2 x 8 x 64 dd) and then the tile of |v| (64 x 65 doubles) share this.
constexpr int kDdShared = kDdTile * (kDdTile + 1);

/// Chunk [k0, k0 + kc) of X rows r0.. (X_ik = X[i + ldx k], or X[k + ldx i] when TransX) and of
/// Y columns c0.. (Y_kj = Y[k + ldy j]); zeros past rows, cols and kdim.
template <bool TransX>
__device__ __forceinline__ void dd_stage(index_t rows, index_t cols, index_t kdim, const dd_real* X,
                                         index_t ldx, const dd_real* Y, index_t ldy, index_t r0,
                                         index_t c0, index_t k0, int t, dd_real (*xs)[kDdTile],
                                         dd_real (*ys)[kDdTile]) {
  for (int e = t; e < kDdKc * kDdTile; e += kThreads) {
    // consecutive threads read consecutive addresses: along i (A) or along k (Z^T, Z)
    const int kx = TransX ? e % kDdKc : e / kDdTile, rx = TransX ? e / kDdKc : e % kDdTile;
    const index_t i = r0 + rx, kk = k0 + kx;
    xs[kx][rx] =
        (i < rows && kk < kdim) ? (TransX ? X[kk + ldx * i] : X[i + ldx * kk]) : dd_real(0.0);
    const int ky = e % kDdKc, cy = e / kDdKc;
    const index_t j = c0 + cy, ky2 = k0 + ky;
    ys[ky][cy] = (j < cols && ky2 < kdim) ? Y[ky2 + ldy * j] : dd_real(0.0);
  }
}

/// Gram = false: X = A (rows = n, kdim = n), Y = Z (n x cols), w the eigenvalues.
/// Gram = true: X = Z^T, Y = Z (rows = cols = m, kdim = n), w unused; nt = tiles per side.
template <bool Gram>
__global__ void __launch_bounds__(kThreads)
    dd_product_sums(index_t rows, index_t cols, index_t kdim, const dd_real* X, index_t ldx,
                    const dd_real* Y, index_t ldy, const dd_real* w, double* part, index_t nsl,
                    index_t nt) {
  __shared__ __align__(16) double sm[kDdShared];
  auto xs = reinterpret_cast<dd_real(*)[kDdTile]>(sm);
  auto ys = reinterpret_cast<dd_real(*)[kDdTile]>(sm + 2 * kDdKc * kDdTile);
  auto mag = reinterpret_cast<double(*)[kDdTile + 1]>(sm);
  index_t I, J;
  if constexpr (Gram) {
    symv_cuda::tile_coords(index_t(blockIdx.x), nt, I, J);
  } else {
    I = index_t(blockIdx.x);
    J = index_t(blockIdx.y);
  }
  const int t = threadIdx.x, tx = t & 15, ty = t >> 4;
  const index_t r0 = I * kDdTile, c0 = J * kDdTile;
  dd_real c[4][4];
#pragma unroll
  for (int q = 0; q < 4; ++q)
#pragma unroll
    for (int p = 0; p < 4; ++p)
      c[q][p] = dd_real(0.0);
  for (index_t k0 = 0; k0 < kdim; k0 += kDdKc) {
    const int kc = int(kdim - k0 < kDdKc ? kdim - k0 : kDdKc);
    dd_stage<Gram>(rows, cols, kdim, X, ldx, Y, ldy, r0, c0, k0, t, xs, ys);
    __syncthreads();
    for (int k = 0; k < kc; ++k) {
      dd_real x[4], y[4];
#pragma unroll
      for (int q = 0; q < 4; ++q)
        x[q] = xs[k][tx + 16 * q];
#pragma unroll
      for (int p = 0; p < 4; ++p)
        y[p] = ys[k][ty + 16 * p];
#pragma unroll
      for (int q = 0; q < 4; ++q)
#pragma unroll
        for (int p = 0; p < 4; ++p)
          c[q][p] = madd(x[q], y[p], c[q][p]);
    }
    __syncthreads();
  }
  // |v| of the tile into shared memory (zeros outside the matrix), then the sums.
#pragma unroll
  for (int q = 0; q < 4; ++q)
#pragma unroll
    for (int p = 0; p < 4; ++p) {
      const int ri = tx + 16 * q, cj = ty + 16 * p;
      const index_t i = r0 + ri, j = c0 + cj;
      double a = 0;
      if (i < rows && j < cols) {
        dd_real v = c[q][p];
        if constexpr (Gram) {
          if (i == j) v = v - dd_real(1.0);
        } else {
          v = v - w[j] * Y[i + ldy * j];
        }
        a = sqrt(to_double(abs2(v)));
      }
      mag[ri][cj] = a;
    }
  __syncthreads();
  if (t < kDdTile) {
    const index_t j = c0 + t;
    if (j < cols) {
      double s = 0;
      for (int ri = 0; ri < kDdTile; ++ri)
        s += mag[ri][t];
      part[I + nsl * j] = s;
    }
  } else if (Gram && I != J && t < 2 * kDdTile) {
    const int ri = t - kDdTile;
    const index_t i = r0 + ri;
    if (i < rows) {
      double s = 0;
      for (int cj = 0; cj < kDdTile; ++cj)
        s += mag[ri][cj];
      part[J + nsl * i] = s;
    }
  }
}

/// out[j] = sum_s part[s + nsl * j] for j < cols, s ascending.
__global__ void __launch_bounds__(kThreads)
    dd_slot_sums(index_t cols, index_t nsl, const double* part, double* out) {
  const index_t j = index_t(blockIdx.x) * kThreads + threadIdx.x;
  if (j >= cols) return;
  double s = 0;
  for (index_t q = 0; q < nsl; ++q)
    s += part[q + nsl * j];
  out[j] = s;
}

Residuals dd_device_residuals(const HostMatrix<dd_real>& A, const SolveResult<dd_real>& r,
                              double anorm) {
  using T = dd_real;
  const index_t n = r.n, m = r.m;
  Residuals res;
  if (n == 0 || m == 0 || r.z.empty()) return res;
  const index_t ntn = (n + kDdTile - 1) / kDdTile, ntm = (m + kDdTile - 1) / kDdTile;
  if (ntn > 2147483647 || ntm > 65535 || ntm * (ntm + 1) / 2 > 2147483647)
    throw DimensionError("device residuals: order beyond the dd kernels' grid");
  const std::size_t e = sizeof(T), un = std::size_t(n), um = std::size_t(m);
  const std::size_t npart = std::size_t(ntn + ntm) * um;
  require_device_memory(e * (un * un + un * um + um) + sizeof(double) * (npart + 2 * um) +
                        (std::size_t(1) << 20));
  T *dA = nullptr, *dZ = nullptr, *dw = nullptr;
  double *dpart = nullptr, *dsum = nullptr;
  auto release = [&] {
    for (void* p : {static_cast<void*>(dA), static_cast<void*>(dZ), static_cast<void*>(dw),
                    static_cast<void*>(dpart), static_cast<void*>(dsum)})
      cudaFree(p);
  };
  try {
    ck(cudaMalloc(&dA, e * un * un), "cudaMalloc");
    ck(cudaMalloc(&dZ, e * un * um), "cudaMalloc");
    ck(cudaMalloc(&dw, e * um), "cudaMalloc");
    ck(cudaMalloc(&dpart, sizeof(double) * npart), "cudaMalloc");
    ck(cudaMalloc(&dsum, sizeof(double) * 2 * um), "cudaMalloc");
    upload(A, r, dA, dZ, dw);
    double* part_r = dpart;                          // ntn slots per column
    double* part_o = dpart + std::size_t(ntn) * um;  // ntm slots per column
    dd_product_sums<false><<<dim3(unsigned(ntn), unsigned(ntm)), kThreads>>>(n, m, n, dA, n, dZ, n,
                                                                             dw, part_r, ntn, ntn);
    ck(cudaGetLastError(), "dd A Z");
    dd_product_sums<true><<<unsigned(ntm * (ntm + 1) / 2), kThreads>>>(m, m, n, dZ, n, dZ, n,
                                                                       nullptr, part_o, ntm, ntm);
    ck(cudaGetLastError(), "dd Z^T Z");
    const unsigned cb = unsigned((m + kThreads - 1) / kThreads);
    dd_slot_sums<<<cb, kThreads>>>(m, ntn, part_r, dsum);
    ck(cudaGetLastError(), "dd column sums");
    dd_slot_sums<<<cb, kThreads>>>(m, ntm, part_o, dsum + m);
    ck(cudaGetLastError(), "dd column sums");
    res = from_column_sums(dsum, n, m, anorm);
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
  if constexpr (has_vendor_lapack_v<T>)
    return device_residuals<T>(A, r, anorm);
  else if constexpr (std::is_same_v<T, dd_real>)
    return dd_device_residuals(A, r, anorm);
  else
    throw UsageError("device residuals: not available for this precision (the host computes them)");
}

#define EIGSOLVE_INSTANTIATE_RESID_CUDA(T) \
  template Residuals compute_residuals_cuda<T>(const HostMatrix<T>&, const SolveResult<T>&, double);
EIGSOLVE_FOR_EACH_SCALAR(EIGSOLVE_INSTANTIATE_RESID_CUDA)
#undef EIGSOLVE_INSTANTIATE_RESID_CUDA

}  // namespace eigsolve
