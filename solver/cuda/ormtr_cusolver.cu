// --back-transform cusolver: Z := Q Z by cuSOLVER's ?ormtr / ?unmtr('L', 'L', 'N') on the
// device, from host A (the reflectors of ?sytrd/?hetrd('L') storage), tau and Z. Not in the
// reproducibility contract (cuSOLVER's blocking and kernels choose the order), like LAPACK's
// ?ormtr on the CPU; the canonical order is solver/cuda/back_transform_host.cu's.
//
//   host A (lower triangle), tau, Z --upload--> device --cusolverDn?ormtr--> Z --download--> host
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <climits>
#include <string>
#include <type_traits>

#include "core/context.hpp"
#include "core/cuda/dev_mem.cuh"
#include "core/cuda/staged_copy.cuh"
#include "core/errors.hpp"
#include "solver/back_transform_cuda.hpp"

namespace eigsolve {
namespace {

using staged::ck;  // CUDA runtime errors; cuSOLVER's statuses below
void ck(cusolverStatus_t st, const char* what) {
  if (st != CUSOLVER_STATUS_SUCCESS)
    throw DeviceError(std::string("--back-transform cusolver: ") + what + " failed (status " +
                      std::to_string(static_cast<int>(st)) + ")");
}

/// The cuSOLVER element type of T (layout-compatible: (re, im) pairs for complex).
template <class T>
using Cu =
    std::conditional_t<std::is_same_v<T, Complex<float>>, cuComplex,
                       std::conditional_t<std::is_same_v<T, Complex<double>>, cuDoubleComplex, T>>;

template <class T>
cusolverStatus_t buffer_size(cusolverDnHandle_t h, int n, int m, const T* A, const T* tau,
                             const T* C, int* lwork) {
  const auto s = CUBLAS_SIDE_LEFT;
  const auto u = CUBLAS_FILL_MODE_LOWER;
  const auto o = CUBLAS_OP_N;
  const auto* a = reinterpret_cast<const Cu<T>*>(A);
  const auto* t = reinterpret_cast<const Cu<T>*>(tau);
  const auto* c = reinterpret_cast<const Cu<T>*>(C);
  if constexpr (std::is_same_v<T, float>)
    return cusolverDnSormtr_bufferSize(h, s, u, o, n, m, a, n, t, c, n, lwork);
  else if constexpr (std::is_same_v<T, double>)
    return cusolverDnDormtr_bufferSize(h, s, u, o, n, m, a, n, t, c, n, lwork);
  else if constexpr (std::is_same_v<T, Complex<float>>)
    return cusolverDnCunmtr_bufferSize(h, s, u, o, n, m, a, n, t, c, n, lwork);
  else
    return cusolverDnZunmtr_bufferSize(h, s, u, o, n, m, a, n, t, c, n, lwork);
}

template <class T>
cusolverStatus_t apply(cusolverDnHandle_t h, int n, int m, T* A, T* tau, T* C, T* work, int lwork,
                       int* info) {
  const auto s = CUBLAS_SIDE_LEFT;
  const auto u = CUBLAS_FILL_MODE_LOWER;
  const auto o = CUBLAS_OP_N;
  auto* a = reinterpret_cast<Cu<T>*>(A);
  auto* t = reinterpret_cast<Cu<T>*>(tau);
  auto* c = reinterpret_cast<Cu<T>*>(C);
  auto* w = reinterpret_cast<Cu<T>*>(work);
  if constexpr (std::is_same_v<T, float>)
    return cusolverDnSormtr(h, s, u, o, n, m, a, n, t, c, n, w, lwork, info);
  else if constexpr (std::is_same_v<T, double>)
    return cusolverDnDormtr(h, s, u, o, n, m, a, n, t, c, n, w, lwork, info);
  else if constexpr (std::is_same_v<T, Complex<float>>)
    return cusolverDnCunmtr(h, s, u, o, n, m, a, n, t, c, n, w, lwork, info);
  else
    return cusolverDnZunmtr(h, s, u, o, n, m, a, n, t, c, n, w, lwork, info);
}

struct Handle {
  cusolverDnHandle_t h = nullptr;
  Handle() { ck(cusolverDnCreate(&h), "cusolverDnCreate"); }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() { cusolverDnDestroy(h); }
};

}  // namespace

template <class T>
void ormtr_cusolver(index_t n, index_t m, const T* A, index_t lda, const T* tau, T* Z,
                    index_t ldz) {
  if (n <= 1 || m <= 0) return;
  if (lda < n || ldz < n) throw DimensionError("ormtr_cusolver: lda or ldz < n");
  if (n > INT_MAX || m > INT_MAX)
    throw DimensionError("--back-transform cusolver: cuSOLVER's ?ormtr takes 32-bit orders; n = " +
                         std::to_string(n) + ", m = " + std::to_string(m));
  if (cuda_device_count() == 0)
    throw DeviceError("--back-transform cusolver: no CUDA device is visible");
  const int ni = static_cast<int>(n), mi = static_cast<int>(m);
  const std::size_t es = sizeof(T);
  const std::size_t bA = std::size_t(n) * std::size_t(n) * es, bt = std::size_t(n - 1) * es,
                    bZ = std::size_t(n) * std::size_t(m) * es;
  Handle h;
  DevMem dA, dt, dZ, dw, dinfo;
  std::size_t free_b = 0, total_b = 0;
  ck(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
  require_device_memory("this back-transformation: order " + std::to_string(n) + " with " +
                            std::to_string(m) + " vectors in " + ScalarTraits<T>::name,
                        bA + bt + bZ, free_b, total_b);
  dA.alloc(bA, "cudaMalloc A");
  dt.alloc(bt, "cudaMalloc tau");
  dZ.alloc(bZ, "cudaMalloc Z");
  dinfo.alloc(sizeof(int), "cudaMalloc info");
  // The whole of A goes up; ?ormtr('L') reads only the reflectors below the subdiagonal.
  ck(cudaMemcpy2D(dA.p, es * n, A, es * lda, es * n, n, cudaMemcpyHostToDevice), "upload A");
  ck(cudaMemcpy(dt.p, tau, bt, cudaMemcpyHostToDevice), "upload tau");
  ck(cudaMemcpy2D(dZ.p, es * n, Z, es * ldz, es * n, m, cudaMemcpyHostToDevice), "upload Z");
  T* a = static_cast<T*>(dA.p);
  T* t = static_cast<T*>(dt.p);
  T* z = static_cast<T*>(dZ.p);
  int lwork = 0;
  ck(buffer_size<T>(h.h, ni, mi, a, t, z, &lwork), "?ormtr_bufferSize");
  dw.alloc(std::size_t(lwork > 0 ? lwork : 1) * es, "cudaMalloc ?ormtr workspace");
  ck(apply<T>(h.h, ni, mi, a, t, z, static_cast<T*>(dw.p), lwork, static_cast<int*>(dinfo.p)),
     "?ormtr");
  int info = 0;
  ck(cudaMemcpy(&info, dinfo.p, sizeof(int), cudaMemcpyDeviceToHost), "download info");
  if (info != 0)
    throw DeviceError("--back-transform cusolver: ?ormtr returned info = " + std::to_string(info));
  ck(cudaMemcpy2D(Z, es * ldz, dZ.p, es * n, es * n, m, cudaMemcpyDeviceToHost), "download Z");
}

#define EIGSOLVE_INSTANTIATE_ORMTR_CUSOLVER(T) \
  template void ormtr_cusolver<T>(index_t, index_t, const T*, index_t, const T*, T*, index_t);
EIGSOLVE_INSTANTIATE_ORMTR_CUSOLVER(float)
EIGSOLVE_INSTANTIATE_ORMTR_CUSOLVER(double)
EIGSOLVE_INSTANTIATE_ORMTR_CUSOLVER(Complex<float>)
EIGSOLVE_INSTANTIATE_ORMTR_CUSOLVER(Complex<double>)
#undef EIGSOLVE_INSTANTIATE_ORMTR_CUSOLVER

}  // namespace eigsolve
