/* eigsolve SYMV / HEMV: a C API with BLAS semantics on device pointers.
 *
 *   y := alpha * A * x + beta * y,   A symmetric (s, d, dd) or Hermitian (c, z) of order n
 *
 * A, x and y are CUDA device pointers (cudaMalloc, cudaMallocManaged, or mapped host memory).
 * Every result has the bits of eigsolve's canonical order (docs/canonical-symv.md): the same on
 * every GPU, every tuning configuration, every run, and equal to the CPU reference. 'U' is
 * canonically the 'L' case of the conjugate-transposed storage, so it gives exactly the bits of
 * 'L' on that storage.
 *
 *   eigsolve_dsymv(uplo, n, alpha, A, lda, x, incx, beta, y, incy)
 *       asynchronous on the legacy default stream, with a library-owned workspace per device.
 *   eigsolve_create(&h); eigsolve_set_stream(h, stream); eigsolve_dsymv_h(h, uplo, n, ...)
 *       asynchronous on the handle's stream, with the handle's cached workspace.
 *
 * Status (int): 0 success; -k the k-th BLAS argument is invalid (xerbla's position: uplo -1,
 * n -2, A -4, lda -5, x -6, incx -7, y -9, incy -10); > 0 a runtime condition
 * (EIGSOLVE_STATUS_*). eigsolve_status_string() names every status. No function of this API
 * throws, aborts, or prints. Details: docs/c-api.md.
 *
 * Plain C (C99 and later) and C++; no CUDA header is needed: a cudaStream_t is a
 * struct CUstream_st *.
 */
#ifndef EIGSOLVE_SYMV_H
#define EIGSOLVE_SYMV_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define EIGSOLVE_API
#else
#define EIGSOLVE_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- scalars (layout-compatible with eigsolve::Complex<float/double> and eigsolve::dd_real) */

/** Complex single: re, im. Same layout as cuComplex / float _Complex / std::complex<float>. */
typedef struct eigsolve_complex_float {
  float re;
  float im;
} eigsolve_complex_float;

/** Complex double: re, im. Same layout as cuDoubleComplex / double _Complex. */
typedef struct eigsolve_complex_double {
  double re;
  double im;
} eigsolve_complex_double;

/** Double-double: the unevaluated sum hi + lo with hi == fl(hi + lo) (normalized). */
typedef struct eigsolve_dd {
  double hi;
  double lo;
} eigsolve_dd;

/* ---- status codes -------------------------------------------------------------------------- */

enum {
  EIGSOLVE_STATUS_SUCCESS = 0,
  /* -1 .. -10: the BLAS argument at that position is invalid (see the header comment). */
  EIGSOLVE_STATUS_NOT_COMPILED = 1,   /**< this library was built without the CUDA backend */
  EIGSOLVE_STATUS_NO_DEVICE = 2,      /**< no usable CUDA device */
  EIGSOLVE_STATUS_ALLOC_FAILED = 3,   /**< device or host memory could not be allocated */
  EIGSOLVE_STATUS_CUDA_ERROR = 4,     /**< a CUDA call or a kernel launch failed */
  EIGSOLVE_STATUS_INVALID_HANDLE = 5, /**< a NULL or destroyed handle, or a NULL out-pointer */
  EIGSOLVE_STATUS_INTERNAL_ERROR = 6  /**< a bug: please report it */
};

/** A fixed English description of `status` (never NULL; unknown codes get a generic text). */
EIGSOLVE_API const char* eigsolve_status_string(int status);

/** The detail of the last eigsolve call on this thread when it failed ("" after a success),
 *  e.g. the CUDA error text. Valid until the next eigsolve call on this thread. */
EIGSOLVE_API const char* eigsolve_last_error(void);

/** 1 when this library contains the CUDA backend, 0 in a CPU-only build. */
EIGSOLVE_API int eigsolve_cuda_compiled(void);

/** The library version as "MAJOR.MINOR.PATCH". */
EIGSOLVE_API const char* eigsolve_version(void);

/* ---- handles ------------------------------------------------------------------------------- */

struct CUstream_st; /* cudaStream_t is struct CUstream_st * (cuda_runtime_api.h) */

/** A stream, a device and cached workspaces. Not thread-safe: one handle per host thread
 *  (or serialize its use). */
typedef struct eigsolve_context* eigsolve_handle_t;

/** Creates a handle on the current CUDA device, on the legacy default stream. The workspace is
 *  allocated at the first call that needs it and grows on demand (that call synchronizes the
 *  handle's stream). *handle is NULL on failure. */
EIGSOLVE_API int eigsolve_create(eigsolve_handle_t* handle);

/** Waits for the handle's stream, then frees its workspaces. NULL is accepted (no-op). */
EIGSOLVE_API int eigsolve_destroy(eigsolve_handle_t handle);

/** Later calls on `handle` are enqueued on `stream` (a cudaStream_t; NULL: legacy default).
 *  A change of stream first waits for the work queued on the old one (it shares the workspace). */
EIGSOLVE_API int eigsolve_set_stream(eigsolve_handle_t handle, struct CUstream_st* stream);
EIGSOLVE_API int eigsolve_get_stream(eigsolve_handle_t handle, struct CUstream_st** stream);

/* ---- y := alpha A x + beta y ------------------------------------------------------------------
 *
 * uplo  'L' (or 'l'): A(i, j), i >= j, is read from A[i + j*lda];
 *       'U' (or 'u'): A(i, j), i <= j, is read from A[i + j*lda].
 *       The other strict triangle is never read; the imaginary part of the diagonal of a
 *       Hermitian matrix is taken as zero.
 * n     >= 0.                    lda   >= max(1, n).
 * x, y  x(i) = x[i*incx] for incx > 0, x[(n-1-i)*|incx|] for incx < 0 (BLAS); incx, incy != 0.
 * Quick return (nothing read or written) when n == 0 or (alpha == 0 and beta == 1).
 * alpha == 0: y := beta*y without reading A or x (beta == 0: y := 0).
 * beta == 0: y is not read (NaN in y does not propagate).
 * A, x, y must be device-accessible pointers when they are read or written (NULL or an
 * unregistered host pointer gives -4, -6 or -9).
 * The call is asynchronous; launch errors are reported, errors of the running kernel surface at
 * the next synchronizing CUDA call, as with cuBLAS.
 */
EIGSOLVE_API int eigsolve_ssymv(char uplo, int64_t n, float alpha, const float* A, int64_t lda,
                                const float* x, int64_t incx, float beta, float* y, int64_t incy);
EIGSOLVE_API int eigsolve_dsymv(char uplo, int64_t n, double alpha, const double* A, int64_t lda,
                                const double* x, int64_t incx, double beta, double* y,
                                int64_t incy);
EIGSOLVE_API int eigsolve_chemv(char uplo, int64_t n, eigsolve_complex_float alpha,
                                const eigsolve_complex_float* A, int64_t lda,
                                const eigsolve_complex_float* x, int64_t incx,
                                eigsolve_complex_float beta, eigsolve_complex_float* y,
                                int64_t incy);
EIGSOLVE_API int eigsolve_zhemv(char uplo, int64_t n, eigsolve_complex_double alpha,
                                const eigsolve_complex_double* A, int64_t lda,
                                const eigsolve_complex_double* x, int64_t incx,
                                eigsolve_complex_double beta, eigsolve_complex_double* y,
                                int64_t incy);
EIGSOLVE_API int eigsolve_ddsymv(char uplo, int64_t n, eigsolve_dd alpha, const eigsolve_dd* A,
                                 int64_t lda, const eigsolve_dd* x, int64_t incx, eigsolve_dd beta,
                                 eigsolve_dd* y, int64_t incy);

/* The same on a handle (its stream and workspace). A NULL handle gives
 * EIGSOLVE_STATUS_INVALID_HANDLE; argument errors keep the positions above. */
EIGSOLVE_API int eigsolve_ssymv_h(eigsolve_handle_t handle, char uplo, int64_t n, float alpha,
                                  const float* A, int64_t lda, const float* x, int64_t incx,
                                  float beta, float* y, int64_t incy);
EIGSOLVE_API int eigsolve_dsymv_h(eigsolve_handle_t handle, char uplo, int64_t n, double alpha,
                                  const double* A, int64_t lda, const double* x, int64_t incx,
                                  double beta, double* y, int64_t incy);
EIGSOLVE_API int eigsolve_chemv_h(eigsolve_handle_t handle, char uplo, int64_t n,
                                  eigsolve_complex_float alpha, const eigsolve_complex_float* A,
                                  int64_t lda, const eigsolve_complex_float* x, int64_t incx,
                                  eigsolve_complex_float beta, eigsolve_complex_float* y,
                                  int64_t incy);
EIGSOLVE_API int eigsolve_zhemv_h(eigsolve_handle_t handle, char uplo, int64_t n,
                                  eigsolve_complex_double alpha, const eigsolve_complex_double* A,
                                  int64_t lda, const eigsolve_complex_double* x, int64_t incx,
                                  eigsolve_complex_double beta, eigsolve_complex_double* y,
                                  int64_t incy);
EIGSOLVE_API int eigsolve_ddsymv_h(eigsolve_handle_t handle, char uplo, int64_t n,
                                   eigsolve_dd alpha, const eigsolve_dd* A, int64_t lda,
                                   const eigsolve_dd* x, int64_t incx, eigsolve_dd beta,
                                   eigsolve_dd* y, int64_t incy);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* EIGSOLVE_SYMV_H */
