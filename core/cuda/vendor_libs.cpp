// See vendor_libs.hpp. The forwarders below are the prototypes of cublas_api.h and cusolverDn.h
// (CUDA 13.0) for the functions the project calls; the macros of cublas_v2.h map the plain
// names (cublasDgemm) to these (_v2). A function missing here is a link error, not a silent
// fallback. Each forwarder resolves its target once (a function-local static).
#include "core/cuda/vendor_libs.hpp"

#include <cublas_v2.h>
#include <cusolverDn.h>
#include <dlfcn.h>

#include <mutex>
#include <string>

#include "core/errors.hpp"

namespace eigsolve::vendor {
namespace {

struct Loaded {
  void* handle = nullptr;
  std::string from;
};

const char* lib_name(Library lib) {
  return lib == Library::cublas ? "cuBLAS" : "cuSOLVER";
}

/// The build's library file first (CMake's EIGSOLVE_*_PATH), then its soname.
Loaded open_library(Library lib) {
  const char* candidates[2] = {
      lib == Library::cublas ? EIGSOLVE_CUBLAS_PATH : EIGSOLVE_CUSOLVER_PATH,
      lib == Library::cublas ? EIGSOLVE_CUBLAS_SONAME : EIGSOLVE_CUSOLVER_SONAME};
  std::string errors;
  for (const char* c : candidates) {
    if (!c || !*c) continue;
    if (void* h = dlopen(c, RTLD_NOW | RTLD_LOCAL)) return {h, c};
    const char* e = dlerror();
    errors += std::string(errors.empty() ? "" : "; ") + (e ? e : c);
  }
  throw DeviceError(std::string("cannot load ") + lib_name(lib) + " (" + candidates[1] +
                    "): " + errors);
}

const Loaded& loaded(Library lib) {
  static std::mutex mu;
  static Loaded libs[2];
  std::lock_guard<std::mutex> lk(mu);
  Loaded& l = libs[lib == Library::cublas ? 0 : 1];
  if (!l.handle) l = open_library(lib);
  return l;
}

}  // namespace

void* symbol(Library lib, const char* name) {
  const Loaded& l = loaded(lib);
  dlerror();
  void* p = dlsym(l.handle, name);
  if (!p) throw DeviceError(std::string(lib_name(lib)) + " (" + l.from + ") has no " + name);
  return p;
}

const char* loaded_from(Library lib) {
  return loaded(lib).from.c_str();
}

}  // namespace eigsolve::vendor

/// `f`: the library's own `name`, resolved on the first call (the symbol's name is the
/// function's, so the two cannot differ).
#define ES_VENDOR_TARGET(lib, name)                        \
  static const auto f = reinterpret_cast<decltype(&name)>( \
      eigsolve::vendor::symbol(eigsolve::vendor::Library::lib, #name))

extern "C" cublasStatus_t CUBLASWINAPI cublasCreate_v2(cublasHandle_t* handle) {
  ES_VENDOR_TARGET(cublas, cublasCreate_v2);
  return f(handle);
}

extern "C" cublasStatus_t CUBLASWINAPI cublasDestroy_v2(cublasHandle_t handle) {
  ES_VENDOR_TARGET(cublas, cublasDestroy_v2);
  return f(handle);
}

extern "C" cublasStatus_t CUBLASWINAPI cublasSgemm_v2(cublasHandle_t handle,
                                                      cublasOperation_t transa,
                                                      cublasOperation_t transb, int m, int n, int k,
                                                      const float* alpha, const float* A, int lda,
                                                      const float* B, int ldb, const float* beta,
                                                      float* C, int ldc) {
  ES_VENDOR_TARGET(cublas, cublasSgemm_v2);
  return f(handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

extern "C" cublasStatus_t CUBLASWINAPI cublasDgemm_v2(cublasHandle_t handle,
                                                      cublasOperation_t transa,
                                                      cublasOperation_t transb, int m, int n, int k,
                                                      const double* alpha, const double* A, int lda,
                                                      const double* B, int ldb, const double* beta,
                                                      double* C, int ldc) {
  ES_VENDOR_TARGET(cublas, cublasDgemm_v2);
  return f(handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

extern "C" cublasStatus_t CUBLASWINAPI
cublasCgemm_v2(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m,
               int n, int k, const cuComplex* alpha, const cuComplex* A, int lda,
               const cuComplex* B, int ldb, const cuComplex* beta, cuComplex* C, int ldc) {
  ES_VENDOR_TARGET(cublas, cublasCgemm_v2);
  return f(handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

extern "C" cublasStatus_t CUBLASWINAPI cublasZgemm_v2(
    cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
    const cuDoubleComplex* alpha, const cuDoubleComplex* A, int lda, const cuDoubleComplex* B,
    int ldb, const cuDoubleComplex* beta, cuDoubleComplex* C, int ldc) {
  ES_VENDOR_TARGET(cublas, cublasZgemm_v2);
  return f(handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

extern "C" cublasStatus_t CUBLASWINAPI cublasSsymv_v2(cublasHandle_t handle, cublasFillMode_t uplo,
                                                      int n, const float* alpha, const float* A,
                                                      int lda, const float* x, int incx,
                                                      const float* beta, float* y, int incy) {
  ES_VENDOR_TARGET(cublas, cublasSsymv_v2);
  return f(handle, uplo, n, alpha, A, lda, x, incx, beta, y, incy);
}

extern "C" cublasStatus_t CUBLASWINAPI cublasDsymv_v2(cublasHandle_t handle, cublasFillMode_t uplo,
                                                      int n, const double* alpha, const double* A,
                                                      int lda, const double* x, int incx,
                                                      const double* beta, double* y, int incy) {
  ES_VENDOR_TARGET(cublas, cublasDsymv_v2);
  return f(handle, uplo, n, alpha, A, lda, x, incx, beta, y, incy);
}

extern "C" cublasStatus_t CUBLASWINAPI cublasChemv_v2(
    cublasHandle_t handle, cublasFillMode_t uplo, int n, const cuComplex* alpha, const cuComplex* A,
    int lda, const cuComplex* x, int incx, const cuComplex* beta, cuComplex* y, int incy) {
  ES_VENDOR_TARGET(cublas, cublasChemv_v2);
  return f(handle, uplo, n, alpha, A, lda, x, incx, beta, y, incy);
}

extern "C" cublasStatus_t CUBLASWINAPI cublasZhemv_v2(cublasHandle_t handle, cublasFillMode_t uplo,
                                                      int n, const cuDoubleComplex* alpha,
                                                      const cuDoubleComplex* A, int lda,
                                                      const cuDoubleComplex* x, int incx,
                                                      const cuDoubleComplex* beta,
                                                      cuDoubleComplex* y, int incy) {
  ES_VENDOR_TARGET(cublas, cublasZhemv_v2);
  return f(handle, uplo, n, alpha, A, lda, x, incx, beta, y, incy);
}

extern "C" cublasStatus_t CUBLASWINAPI cublasSetAtomicsMode(cublasHandle_t handle,
                                                            cublasAtomicsMode_t mode) {
  ES_VENDOR_TARGET(cublas, cublasSetAtomicsMode);
  return f(handle, mode);
}

extern "C" cusolverStatus_t CUSOLVERAPI cusolverDnCreate(cusolverDnHandle_t* handle) {
  ES_VENDOR_TARGET(cusolver, cusolverDnCreate);
  return f(handle);
}

extern "C" cusolverStatus_t CUSOLVERAPI cusolverDnDestroy(cusolverDnHandle_t handle) {
  ES_VENDOR_TARGET(cusolver, cusolverDnDestroy);
  return f(handle);
}

extern "C" cusolverStatus_t CUSOLVERAPI cusolverDnCreateParams(cusolverDnParams_t* params) {
  ES_VENDOR_TARGET(cusolver, cusolverDnCreateParams);
  return f(params);
}

extern "C" cusolverStatus_t CUSOLVERAPI cusolverDnDestroyParams(cusolverDnParams_t params) {
  ES_VENDOR_TARGET(cusolver, cusolverDnDestroyParams);
  return f(params);
}

extern "C" cusolverStatus_t CUSOLVERAPI
cusolverDnSetDeterministicMode(cusolverDnHandle_t handle, cusolverDeterministicMode_t mode) {
  ES_VENDOR_TARGET(cusolver, cusolverDnSetDeterministicMode);
  return f(handle, mode);
}

extern "C" cusolverStatus_t CUSOLVERAPI
cusolverDnSormtr_bufferSize(cusolverDnHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo,
                            cublasOperation_t trans, int m, int n, const float* A, int lda,
                            const float* tau, const float* C, int ldc, int* lwork) {
  ES_VENDOR_TARGET(cusolver, cusolverDnSormtr_bufferSize);
  return f(handle, side, uplo, trans, m, n, A, lda, tau, C, ldc, lwork);
}

extern "C" cusolverStatus_t CUSOLVERAPI
cusolverDnSormtr(cusolverDnHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo,
                 cublasOperation_t trans, int m, int n, float* A, int lda, float* tau, float* C,
                 int ldc, float* work, int lwork, int* info) {
  ES_VENDOR_TARGET(cusolver, cusolverDnSormtr);
  return f(handle, side, uplo, trans, m, n, A, lda, tau, C, ldc, work, lwork, info);
}

extern "C" cusolverStatus_t CUSOLVERAPI
cusolverDnDormtr_bufferSize(cusolverDnHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo,
                            cublasOperation_t trans, int m, int n, const double* A, int lda,
                            const double* tau, const double* C, int ldc, int* lwork) {
  ES_VENDOR_TARGET(cusolver, cusolverDnDormtr_bufferSize);
  return f(handle, side, uplo, trans, m, n, A, lda, tau, C, ldc, lwork);
}

extern "C" cusolverStatus_t CUSOLVERAPI
cusolverDnDormtr(cusolverDnHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo,
                 cublasOperation_t trans, int m, int n, double* A, int lda, double* tau, double* C,
                 int ldc, double* work, int lwork, int* info) {
  ES_VENDOR_TARGET(cusolver, cusolverDnDormtr);
  return f(handle, side, uplo, trans, m, n, A, lda, tau, C, ldc, work, lwork, info);
}

extern "C" cusolverStatus_t CUSOLVERAPI
cusolverDnCunmtr_bufferSize(cusolverDnHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo,
                            cublasOperation_t trans, int m, int n, const cuComplex* A, int lda,
                            const cuComplex* tau, const cuComplex* C, int ldc, int* lwork) {
  ES_VENDOR_TARGET(cusolver, cusolverDnCunmtr_bufferSize);
  return f(handle, side, uplo, trans, m, n, A, lda, tau, C, ldc, lwork);
}

extern "C" cusolverStatus_t CUSOLVERAPI
cusolverDnCunmtr(cusolverDnHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo,
                 cublasOperation_t trans, int m, int n, cuComplex* A, int lda, cuComplex* tau,
                 cuComplex* C, int ldc, cuComplex* work, int lwork, int* info) {
  ES_VENDOR_TARGET(cusolver, cusolverDnCunmtr);
  return f(handle, side, uplo, trans, m, n, A, lda, tau, C, ldc, work, lwork, info);
}

extern "C" cusolverStatus_t CUSOLVERAPI cusolverDnZunmtr_bufferSize(
    cusolverDnHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo,
    cublasOperation_t trans, int m, int n, const cuDoubleComplex* A, int lda,
    const cuDoubleComplex* tau, const cuDoubleComplex* C, int ldc, int* lwork) {
  ES_VENDOR_TARGET(cusolver, cusolverDnZunmtr_bufferSize);
  return f(handle, side, uplo, trans, m, n, A, lda, tau, C, ldc, lwork);
}

extern "C" cusolverStatus_t CUSOLVERAPI cusolverDnZunmtr(
    cusolverDnHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo,
    cublasOperation_t trans, int m, int n, cuDoubleComplex* A, int lda, cuDoubleComplex* tau,
    cuDoubleComplex* C, int ldc, cuDoubleComplex* work, int lwork, int* info) {
  ES_VENDOR_TARGET(cusolver, cusolverDnZunmtr);
  return f(handle, side, uplo, trans, m, n, A, lda, tau, C, ldc, work, lwork, info);
}

extern "C" cusolverStatus_t CUSOLVERAPI cusolverDnSsyevd_bufferSize(cusolverDnHandle_t handle,
                                                                    cusolverEigMode_t jobz,
                                                                    cublasFillMode_t uplo, int n,
                                                                    const float* A, int lda,
                                                                    const float* W, int* lwork) {
  ES_VENDOR_TARGET(cusolver, cusolverDnSsyevd_bufferSize);
  return f(handle, jobz, uplo, n, A, lda, W, lwork);
}

extern "C" cusolverStatus_t CUSOLVERAPI cusolverDnSsyevd(cusolverDnHandle_t handle,
                                                         cusolverEigMode_t jobz,
                                                         cublasFillMode_t uplo, int n, float* A,
                                                         int lda, float* W, float* work, int lwork,
                                                         int* info) {
  ES_VENDOR_TARGET(cusolver, cusolverDnSsyevd);
  return f(handle, jobz, uplo, n, A, lda, W, work, lwork, info);
}

extern "C" cusolverStatus_t CUSOLVERAPI cusolverDnDsyevd_bufferSize(cusolverDnHandle_t handle,
                                                                    cusolverEigMode_t jobz,
                                                                    cublasFillMode_t uplo, int n,
                                                                    const double* A, int lda,
                                                                    const double* W, int* lwork) {
  ES_VENDOR_TARGET(cusolver, cusolverDnDsyevd_bufferSize);
  return f(handle, jobz, uplo, n, A, lda, W, lwork);
}

extern "C" cusolverStatus_t CUSOLVERAPI cusolverDnDsyevd(cusolverDnHandle_t handle,
                                                         cusolverEigMode_t jobz,
                                                         cublasFillMode_t uplo, int n, double* A,
                                                         int lda, double* W, double* work,
                                                         int lwork, int* info) {
  ES_VENDOR_TARGET(cusolver, cusolverDnDsyevd);
  return f(handle, jobz, uplo, n, A, lda, W, work, lwork, info);
}

extern "C" cusolverStatus_t CUSOLVERAPI cusolverDnCheevd_bufferSize(cusolverDnHandle_t handle,
                                                                    cusolverEigMode_t jobz,
                                                                    cublasFillMode_t uplo, int n,
                                                                    const cuComplex* A, int lda,
                                                                    const float* W, int* lwork) {
  ES_VENDOR_TARGET(cusolver, cusolverDnCheevd_bufferSize);
  return f(handle, jobz, uplo, n, A, lda, W, lwork);
}

extern "C" cusolverStatus_t CUSOLVERAPI cusolverDnCheevd(cusolverDnHandle_t handle,
                                                         cusolverEigMode_t jobz,
                                                         cublasFillMode_t uplo, int n, cuComplex* A,
                                                         int lda, float* W, cuComplex* work,
                                                         int lwork, int* info) {
  ES_VENDOR_TARGET(cusolver, cusolverDnCheevd);
  return f(handle, jobz, uplo, n, A, lda, W, work, lwork, info);
}

extern "C" cusolverStatus_t CUSOLVERAPI cusolverDnZheevd_bufferSize(
    cusolverDnHandle_t handle, cusolverEigMode_t jobz, cublasFillMode_t uplo, int n,
    const cuDoubleComplex* A, int lda, const double* W, int* lwork) {
  ES_VENDOR_TARGET(cusolver, cusolverDnZheevd_bufferSize);
  return f(handle, jobz, uplo, n, A, lda, W, lwork);
}

extern "C" cusolverStatus_t CUSOLVERAPI cusolverDnZheevd(
    cusolverDnHandle_t handle, cusolverEigMode_t jobz, cublasFillMode_t uplo, int n,
    cuDoubleComplex* A, int lda, double* W, cuDoubleComplex* work, int lwork, int* info) {
  ES_VENDOR_TARGET(cusolver, cusolverDnZheevd);
  return f(handle, jobz, uplo, n, A, lda, W, work, lwork, info);
}

extern "C" cusolverStatus_t CUSOLVERAPI cusolverDnXsyevd_bufferSize(
    cusolverDnHandle_t handle, cusolverDnParams_t params, cusolverEigMode_t jobz,
    cublasFillMode_t uplo, int64_t n, cudaDataType dataTypeA, const void* A, int64_t lda,
    cudaDataType dataTypeW, const void* W, cudaDataType computeType,
    size_t* workspaceInBytesOnDevice, size_t* workspaceInBytesOnHost) {
  ES_VENDOR_TARGET(cusolver, cusolverDnXsyevd_bufferSize);
  return f(handle, params, jobz, uplo, n, dataTypeA, A, lda, dataTypeW, W, computeType,
           workspaceInBytesOnDevice, workspaceInBytesOnHost);
}

extern "C" cusolverStatus_t CUSOLVERAPI cusolverDnXsyevd(
    cusolverDnHandle_t handle, cusolverDnParams_t params, cusolverEigMode_t jobz,
    cublasFillMode_t uplo, int64_t n, cudaDataType dataTypeA, void* A, int64_t lda,
    cudaDataType dataTypeW, void* W, cudaDataType computeType, void* bufferOnDevice,
    size_t workspaceInBytesOnDevice, void* bufferOnHost, size_t workspaceInBytesOnHost, int* info) {
  ES_VENDOR_TARGET(cusolver, cusolverDnXsyevd);
  return f(handle, params, jobz, uplo, n, dataTypeA, A, lda, dataTypeW, W, computeType,
           bufferOnDevice, workspaceInBytesOnDevice, bufferOnHost, workspaceInBytesOnHost, info);
}
