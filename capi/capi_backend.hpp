// The C API's backend interface (internal): the CUDA backend (capi_cuda.cu) or the CPU-only stub
// (capi_stub.cpp). The front end (symv_capi.cpp) checks the BLAS arguments, then calls these;
// they may throw (eigsolve::Error, CapiFailure, std::bad_alloc), the front end never lets an
// exception out.
#pragma once

#include <string>

#include "core/precision.hpp"
#include "eigsolve/symv.h"

namespace eigsolve {
namespace capi {

/// A failure with a definite status code (EIGSOLVE_STATUS_*) and its detail.
struct CapiFailure {
  int status;
  std::string detail;
};

/// Whether this build contains the CUDA backend.
bool cuda_compiled();

/// A new handle on the current device (throws CapiFailure: no device, allocation).
eigsolve_context* create_handle();
/// Waits for the handle's stream and frees everything it owns.
void destroy_handle(eigsolve_context* h);
/// Whether h is a live handle (best effort: a magic word, cleared by destroy_handle).
bool valid_handle(const eigsolve_context* h);
void set_stream(eigsolve_context* h, void* stream);
void* get_stream(const eigsolve_context* h);

/// Whether the device of h (nullptr: the current device) can read p (a device, managed or
/// mapped pointer, or any pointer where the device reads pageable memory). p != nullptr.
bool device_accessible(eigsolve_context* h, const void* p);

/// y := alpha A x + beta y for alpha != 0 (upper: A(i,j), i < j, read at A[i + j*lda]).
/// h == nullptr: the library's handle of the current device, on the legacy default stream.
template <class T>
void symv(eigsolve_context* h, bool upper, index_t n, T alpha, const T* A, index_t lda, const T* x,
          index_t incx, T beta, T* y, index_t incy);

/// y := beta y (beta == 0: y := 0, y not read); n > 0.
template <class T>
void scale(eigsolve_context* h, index_t n, T beta, T* y, index_t incy);

}  // namespace capi
}  // namespace eigsolve
