// The C API of include/eigsolve/symv.h: BLAS argument checks in xerbla's order, quick returns,
// then the backend (capi_cuda.cu or capi_stub.cpp). No exception crosses this file's extern "C"
// functions: every one ends in a catch-all that turns it into a status.
//
//   check order (the CPU-only build and a machine with no device run steps 1-3 only):
//     1. uplo (-1), n (-2), lda (-5), incx (-7), incy (-10); NULL A/x (-4/-6) when read, NULL y
//        (-9) when written                                       pure, no device touched
//     2. backend compiled?                                       EIGSOLVE_STATUS_NOT_COMPILED
//     3. handle (the _h functions)                               EIGSOLVE_STATUS_INVALID_HANDLE
//     4. quick return: n == 0, or alpha == 0 and beta == 1       status 0, nothing touched
//     5. A, x, y readable by the device (-4, -6, -9)
//     6. alpha == 0: y := beta y; else the SYMV kernels
#include <cstddef>
#include <cstring>
#include <new>
#include <string>
#include <type_traits>

#include "capi/capi_backend.hpp"
#include "core/errors.hpp"
#include "core/precision.hpp"
#include "eigsolve/symv.h"

namespace eigsolve {
namespace capi {
namespace {

static_assert(sizeof(eigsolve_complex_float) == sizeof(Complex<float>) &&
                  offsetof(eigsolve_complex_float, im) == offsetof(Complex<float>, im),
              "eigsolve_complex_float must match eigsolve::Complex<float>");
static_assert(sizeof(eigsolve_complex_double) == sizeof(Complex<double>) &&
                  offsetof(eigsolve_complex_double, im) == offsetof(Complex<double>, im),
              "eigsolve_complex_double must match eigsolve::Complex<double>");
static_assert(sizeof(eigsolve_dd) == sizeof(dd_real) && offsetof(eigsolve_dd, lo) == 8,
              "eigsolve_dd must match eigsolve::dd_real");

thread_local std::string t_last_error;

/// Records the detail of a failure; returns status.
int fail(int status, const char* detail) noexcept {
  try {
    t_last_error = detail;
  } catch (...) {
    t_last_error.clear();
  }
  return status;
}
int fail(int status, const std::string& detail) noexcept {
  return fail(status, detail.c_str());
}

/// Maps any exception to a status (call inside a catch block only).
int current_exception_status() noexcept {
  try {
    throw;
  } catch (const CapiFailure& f) {
    return fail(f.status, f.detail);
  } catch (const NotCompiled& e) {
    return fail(EIGSOLVE_STATUS_NOT_COMPILED, e.what());
  } catch (const OutOfMemory& e) {
    return fail(EIGSOLVE_STATUS_ALLOC_FAILED, e.what());
  } catch (const DeviceError& e) {
    return fail(EIGSOLVE_STATUS_CUDA_ERROR, e.what());
  } catch (const std::bad_alloc&) {
    return fail(EIGSOLVE_STATUS_ALLOC_FAILED, "host memory exhausted");
  } catch (const std::exception& e) {
    return fail(EIGSOLVE_STATUS_INTERNAL_ERROR, e.what());
  } catch (...) {
    return fail(EIGSOLVE_STATUS_INTERNAL_ERROR, "unknown exception");
  }
}

// C scalars -> eigsolve scalars (the layouts are the same; see the static_asserts).
inline float to_scalar(float v) {
  return v;
}
inline double to_scalar(double v) {
  return v;
}
inline Complex<float> to_scalar(eigsolve_complex_float v) {
  return Complex<float>(v.re, v.im);
}
inline Complex<double> to_scalar(eigsolve_complex_double v) {
  return Complex<double>(v.re, v.im);
}
inline dd_real to_scalar(eigsolve_dd v) {
  return dd_real(v.hi, v.lo);
}

template <class T>
bool is_zero(const T& v) {
  if constexpr (std::is_same_v<T, dd_real>)
    return v.hi == 0.0 && v.lo == 0.0;
  else if constexpr (is_complex_v<T>)
    return v.re == 0 && v.im == 0;
  else
    return v == T(0);
}
template <class T>
bool is_one(const T& v) {
  if constexpr (std::is_same_v<T, dd_real>)
    return v.hi == 1.0 && v.lo == 0.0;
  else if constexpr (is_complex_v<T>)
    return v.re == 1 && v.im == 0;
  else
    return v == T(1);
}

/// One SYMV/HEMV entry point. use_handle: the _h form (h must be valid).
template <class C>
int symv_entry(bool use_handle, eigsolve_context* h, char uplo, int64_t n, C alpha_c, const C* A,
               int64_t lda, const C* x, int64_t incx, C beta_c, C* y, int64_t incy) noexcept {
  using T = decltype(to_scalar(alpha_c));
  t_last_error.clear();
  try {
    // 1. The BLAS argument checks, in xerbla's order, then the pointers that will be used.
    bool upper = false;
    if (uplo == 'L' || uplo == 'l')
      upper = false;
    else if (uplo == 'U' || uplo == 'u')
      upper = true;
    else
      return fail(-1, "uplo must be 'L' or 'U'");
    if (n < 0) return fail(-2, "n = " + std::to_string(n) + " < 0");
    if (lda < (n > 1 ? n : 1))
      return fail(-5, "lda = " + std::to_string(lda) + " < max(1, n = " + std::to_string(n) + ")");
    if (incx == 0) return fail(-7, "incx = 0");
    if (incy == 0) return fail(-10, "incy = 0");
    const T alpha = to_scalar(alpha_c), beta = to_scalar(beta_c);
    const bool alpha_zero = is_zero(alpha);
    const bool quick = n == 0 || (alpha_zero && is_one(beta));
    if (!quick) {
      if (!alpha_zero && A == nullptr) return fail(-4, "A is NULL");
      if (!alpha_zero && x == nullptr) return fail(-6, "x is NULL");
      if (y == nullptr) return fail(-9, "y is NULL");
    }
    // 2. The backend. 3. The handle.
    if (!cuda_compiled())
      return fail(EIGSOLVE_STATUS_NOT_COMPILED, "this libeigsolve was built without CUDA");
    if (use_handle && !valid_handle(h))
      return fail(EIGSOLVE_STATUS_INVALID_HANDLE, "handle is NULL or destroyed");
    if (!use_handle) h = nullptr;
    // 4. Quick return.
    if (quick) return EIGSOLVE_STATUS_SUCCESS;
    // 5. Pointers the device will touch.
    if (!alpha_zero && !device_accessible(h, A))
      return fail(-4, "A is not a device-accessible pointer");
    if (!alpha_zero && !device_accessible(h, x))
      return fail(-6, "x is not a device-accessible pointer");
    if (!device_accessible(h, y)) return fail(-9, "y is not a device-accessible pointer");
    // 6. Run.
    T* yt = reinterpret_cast<T*>(y);
    if (alpha_zero)
      scale<T>(h, n, beta, yt, incy);
    else
      symv<T>(h, upper, n, alpha, reinterpret_cast<const T*>(A), lda, reinterpret_cast<const T*>(x),
              incx, beta, yt, incy);
    return EIGSOLVE_STATUS_SUCCESS;
  } catch (...) {
    return current_exception_status();
  }
}

}  // namespace
}  // namespace capi
}  // namespace eigsolve

using eigsolve::capi::symv_entry;

extern "C" {

EIGSOLVE_API const char* eigsolve_status_string(int status) {
  switch (status) {
    case EIGSOLVE_STATUS_SUCCESS:
      return "success";
    case -1:
      return "invalid argument 1 (uplo): must be 'L' or 'U'";
    case -2:
      return "invalid argument 2 (n): must be >= 0";
    case -3:
      return "invalid argument 3 (alpha)";
    case -4:
      return "invalid argument 4 (A): NULL or not readable by the device";
    case -5:
      return "invalid argument 5 (lda): must be >= max(1, n)";
    case -6:
      return "invalid argument 6 (x): NULL or not readable by the device";
    case -7:
      return "invalid argument 7 (incx): must be non-zero";
    case -8:
      return "invalid argument 8 (beta)";
    case -9:
      return "invalid argument 9 (y): NULL or not writable by the device";
    case -10:
      return "invalid argument 10 (incy): must be non-zero";
    case EIGSOLVE_STATUS_NOT_COMPILED:
      return "not compiled: this libeigsolve was built without the CUDA backend";
    case EIGSOLVE_STATUS_NO_DEVICE:
      return "no usable CUDA device";
    case EIGSOLVE_STATUS_ALLOC_FAILED:
      return "memory allocation failed";
    case EIGSOLVE_STATUS_CUDA_ERROR:
      return "CUDA error (see eigsolve_last_error())";
    case EIGSOLVE_STATUS_INVALID_HANDLE:
      return "invalid handle (NULL or destroyed) or NULL out-pointer";
    case EIGSOLVE_STATUS_INTERNAL_ERROR:
      return "internal error in eigsolve (a bug; see eigsolve_last_error())";
    default:
      return status < 0 ? "invalid argument (unknown position)" : "unknown eigsolve status";
  }
}

EIGSOLVE_API const char* eigsolve_last_error(void) {
  return eigsolve::capi::t_last_error.c_str();
}

EIGSOLVE_API int eigsolve_cuda_compiled(void) {
  return eigsolve::capi::cuda_compiled() ? 1 : 0;
}

EIGSOLVE_API const char* eigsolve_version(void) {
  return EIGSOLVE_VERSION_STRING;
}

EIGSOLVE_API int eigsolve_create(eigsolve_handle_t* handle) {
  using namespace eigsolve::capi;
  t_last_error.clear();
  if (handle == nullptr) return fail(EIGSOLVE_STATUS_INVALID_HANDLE, "handle out-pointer is NULL");
  *handle = nullptr;
  try {
    if (!cuda_compiled())
      return fail(EIGSOLVE_STATUS_NOT_COMPILED, "this libeigsolve was built without CUDA");
    *handle = create_handle();
    return EIGSOLVE_STATUS_SUCCESS;
  } catch (...) {
    return current_exception_status();
  }
}

EIGSOLVE_API int eigsolve_destroy(eigsolve_handle_t handle) {
  using namespace eigsolve::capi;
  t_last_error.clear();
  if (handle == nullptr) return EIGSOLVE_STATUS_SUCCESS;
  try {
    if (!valid_handle(handle))
      return fail(EIGSOLVE_STATUS_INVALID_HANDLE, "handle already destroyed");
    destroy_handle(handle);
    return EIGSOLVE_STATUS_SUCCESS;
  } catch (...) {
    return current_exception_status();
  }
}

EIGSOLVE_API int eigsolve_set_stream(eigsolve_handle_t handle, struct CUstream_st* stream) {
  using namespace eigsolve::capi;
  t_last_error.clear();
  try {
    if (!valid_handle(handle))
      return fail(EIGSOLVE_STATUS_INVALID_HANDLE, "handle is NULL or destroyed");
    set_stream(handle, stream);
    return EIGSOLVE_STATUS_SUCCESS;
  } catch (...) {
    return current_exception_status();
  }
}

EIGSOLVE_API int eigsolve_get_stream(eigsolve_handle_t handle, struct CUstream_st** stream) {
  using namespace eigsolve::capi;
  t_last_error.clear();
  try {
    if (!valid_handle(handle) || stream == nullptr)
      return fail(EIGSOLVE_STATUS_INVALID_HANDLE, "handle or stream out-pointer is NULL");
    *stream = static_cast<struct CUstream_st*>(get_stream(handle));
    return EIGSOLVE_STATUS_SUCCESS;
  } catch (...) {
    return current_exception_status();
  }
}

#define EIGSOLVE_CAPI_ENTRY(NAME, C)                                                              \
  EIGSOLVE_API int eigsolve_##NAME(char uplo, int64_t n, C alpha, const C* A, int64_t lda,        \
                                   const C* x, int64_t incx, C beta, C* y, int64_t incy) {        \
    return symv_entry<C>(false, nullptr, uplo, n, alpha, A, lda, x, incx, beta, y, incy);         \
  }                                                                                               \
  EIGSOLVE_API int eigsolve_##NAME##_h(eigsolve_handle_t h, char uplo, int64_t n, C alpha,        \
                                       const C* A, int64_t lda, const C* x, int64_t incx, C beta, \
                                       C* y, int64_t incy) {                                      \
    return symv_entry<C>(true, h, uplo, n, alpha, A, lda, x, incx, beta, y, incy);                \
  }

EIGSOLVE_CAPI_ENTRY(ssymv, float)
EIGSOLVE_CAPI_ENTRY(dsymv, double)
EIGSOLVE_CAPI_ENTRY(chemv, eigsolve_complex_float)
EIGSOLVE_CAPI_ENTRY(zhemv, eigsolve_complex_double)
EIGSOLVE_CAPI_ENTRY(ddsymv, eigsolve_dd)
#undef EIGSOLVE_CAPI_ENTRY

}  // extern "C"
