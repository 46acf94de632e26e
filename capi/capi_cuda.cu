// The C API's CUDA backend: handles (device, stream, cached workspaces), the library's default
// handle per device, device-pointer checks, y := beta y, and the SYMV plan API
// (symv/symv_gpu.hpp) underneath.
//
//   eigsolve_dsymv_h(h, uplo, n, alpha, A, lda, x, incx, beta, y, incy)
//        |                                       (front end: checks, quick returns)
//        v
//   symv<T>(h, upper, ...) -- on h's device, h's stream --------------------------------+
//        |  ws = h->ws[precision], grown to symv_workspace_bytes<T>(n) (sync + realloc)   |
//        |  upper: B := conj(A)^T into h->upper, lower triangle only  (INTERIM, see below) |
//        v                                                                             |
//   symv_gpu<T>(symv_select<T>(n, lda), n, alpha, A or B, lda or ldb, x, incx, beta, y, incy, ws)
//
// 'U' is canonically 'L' on the conjugate-transposed storage (docs/c-api.md). Until the kernels
// read the upper triangle themselves (a hook requested from the symv/cuda owner), the upper case
// writes that storage to a scratch buffer of ldb*n elements and runs the 'L' kernels on it: the
// same bits, one extra pass over the triangle and n^2 extra device memory.
#include <cuda_runtime.h>

#include <cstdint>
#include <mutex>
#include <string>

#include "capi/capi_backend.hpp"
#include "core/errors.hpp"
#include "core/precision.hpp"
#include "symv/symv_gpu.hpp"

namespace {
constexpr std::uint32_t kHandleMagic = 0x45534856u;  // "ESHV"
constexpr int kPrecisions = 5;
constexpr int kMaxDevices = 64;
}  // namespace

/// The opaque handle of the C API.
struct eigsolve_context {
  struct Buffer {
    void* p = nullptr;
    std::size_t bytes = 0;
    bool clean = false;  ///< tickets zero (symv_workspace_init ran, no failed call since)
  };
  std::uint32_t magic = kHandleMagic;
  int device = 0;
  cudaStream_t stream = nullptr;  ///< nullptr: the legacy default stream
  Buffer ws[kPrecisions];         ///< one SYMV workspace per precision
  Buffer upper;                   ///< interim 'U' path: the conjugate transpose, lower triangle
  // symv_select cache per precision: the configuration of the last order and leading dimension
  // seen (an lda that keeps columns off 16-byte lines selects among the narrow configurations).
  eigsolve::index_t cfg_n[kPrecisions] = {-1, -1, -1, -1, -1};
  eigsolve::index_t cfg_ld[kPrecisions] = {-1, -1, -1, -1, -1};
  eigsolve::SymvConfig cfg[kPrecisions];
};

namespace eigsolve {
namespace capi {
namespace {

int status_of(cudaError_t st) {
  switch (st) {
    case cudaErrorMemoryAllocation:
      return EIGSOLVE_STATUS_ALLOC_FAILED;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorInvalidDevice:
    case cudaErrorDevicesUnavailable:
      return EIGSOLVE_STATUS_NO_DEVICE;
    default:
      return EIGSOLVE_STATUS_CUDA_ERROR;
  }
}

void cuda_check(cudaError_t st, const char* what) {
  if (st == cudaSuccess) return;
  cudaGetLastError();  // clear a non-sticky error
  throw CapiFailure{status_of(st), std::string(what) + ": " + cudaGetErrorString(st)};
}

int current_device() {
  int count = 0;
  cuda_check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  if (count <= 0) throw CapiFailure{EIGSOLVE_STATUS_NO_DEVICE, "no CUDA device"};
  int dev = 0;
  cuda_check(cudaGetDevice(&dev), "cudaGetDevice");
  if (dev < 0 || dev >= kMaxDevices)
    throw CapiFailure{EIGSOLVE_STATUS_NO_DEVICE, "device index out of range"};
  return dev;
}

/// Makes `dev` current for a scope (and restores the previous device).
class DeviceGuard {
 public:
  explicit DeviceGuard(int dev) {
    int cur = -1;
    cuda_check(cudaGetDevice(&cur), "cudaGetDevice");
    if (cur != dev) {
      cuda_check(cudaSetDevice(dev), "cudaSetDevice");
      prev_ = cur;
    }
  }
  ~DeviceGuard() {
    if (prev_ >= 0) cudaSetDevice(prev_);
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int prev_ = -1;
};

/// The library's handles for the plain (handle-less) entry points: one per device, legacy
/// default stream, created at the first call that needs one, never destroyed. Used under g_mu.
std::mutex g_mu;
eigsolve_context* g_default[kMaxDevices] = {};

eigsolve_context* new_handle(int dev) {
  auto* h = new eigsolve_context;
  h->device = dev;
  return h;
}

/// Whether device `dev` reads pageable host memory (HMM / ATS); cached.
bool pageable_access(int dev) {
  static int cached[kMaxDevices] = {};  // 0 unknown, 1 no, 2 yes
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  if (cached[dev] == 0) {
    int v = 0;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrPageableMemoryAccess, dev) != cudaSuccess) {
      cudaGetLastError();
      v = 0;
    }
    cached[dev] = v ? 2 : 1;
  }
  return cached[dev] == 2;
}

/// Grows b to at least `bytes` (waits for the stream first: queued work may still use it).
void reserve(eigsolve_context* h, eigsolve_context::Buffer& b, std::size_t bytes) {
  if (b.bytes >= bytes && b.p) return;
  if (b.p) {
    cuda_check(cudaStreamSynchronize(h->stream), "cudaStreamSynchronize");
    cudaFree(b.p);
    b.p = nullptr;
    b.bytes = 0;
  }
  const cudaError_t st = cudaMalloc(&b.p, bytes);
  if (st != cudaSuccess) {
    b.p = nullptr;
    cudaGetLastError();
    throw CapiFailure{EIGSOLVE_STATUS_ALLOC_FAILED, "cudaMalloc of " + std::to_string(bytes) +
                                                        " bytes: " + cudaGetErrorString(st)};
  }
  b.bytes = bytes;
  b.clean = false;
}

template <class T>
__device__ __forceinline__ T conj_value(const T& v) {
  if constexpr (is_complex_v<T>)
    return T(v.re, -v.im);
  else
    return v;
}

/// B(r, c) := conj(A(c, r)) for n > r >= c >= 0: the 'L' storage of the matrix whose upper
/// triangle A holds. 32x32 tiles through shared memory; tiles above the diagonal return at once.
//
//   A (upper stored)          B (lower written)
//   +--+--+--+                +--+
//   |  |ct|  |  row c0..      |  |
//   +--+--+--+        ==>     +--+--+
//      |  |  |                |ct|  |       tile (R0, C0) of B <- tile (C0, R0) of A, conj
//      +--+--+                +--+--+--+
template <class T>
__global__ void __launch_bounds__(256)
    conj_transpose_upper(index_t n, const T* A, index_t lda, T* B, index_t ldb) {
  __shared__ T tile[32][33];
  const index_t R0 = index_t(blockIdx.y) * 32, C0 = index_t(blockIdx.x) * 32;
  if (C0 > R0) return;
  const int tx = threadIdx.x, ty = threadIdx.y;  // 32 x 8
  for (int k = ty; k < 32; k += 8) {
    const index_t r = R0 + k, c = C0 + tx;  // read A(c, r), contiguous in c
    if (r < n && c <= r) tile[k][tx] = A[c + r * lda];
  }
  __syncthreads();
  for (int k = ty; k < 32; k += 8) {
    const index_t c = C0 + k, r = R0 + tx;  // write B(r, c), contiguous in r
    if (r < n && c <= r) B[r + c * ldb] = conj_value(tile[tx][k]);
  }
}

/// y(i) := beta * y(i) (beta_zero: 0, y not read).
template <class T>
__global__ void __launch_bounds__(256)
    scale_y(index_t n, T beta, bool beta_zero, T* y, index_t incy, index_t yoff) {
  for (index_t i = index_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += index_t(gridDim.x) * blockDim.x) {
    T* p = y + (yoff + i * incy);
    *p = beta_zero ? T(0) : beta * *p;
  }
}

template <class T>
int precision_index() {
  return static_cast<int>(ScalarTraits<T>::precision);
}

template <class T>
void symv_on(eigsolve_context* h, bool upper, index_t n, T alpha, const T* A, index_t lda,
             const T* x, index_t incx, T beta, T* y, index_t incy) {
  DeviceGuard guard(h->device);
  const int p = precision_index<T>();
  eigsolve_context::Buffer& ws = h->ws[p];
  reserve(h, ws, symv_workspace_bytes<T>(n));
  if (!ws.clean) {
    symv_workspace_init(ws.p, ws.bytes, h->stream);
    ws.clean = true;
  }
  const T* a = A;
  index_t ld = lda;
  if (upper) {
    // INTERIM: replace by the kernels' own upper-triangle reads when symv_gpu offers them.
    constexpr index_t kAlign = sizeof(T) >= 16 ? 1 : index_t(16 / sizeof(T));
    const index_t ldb = (n + kAlign - 1) / kAlign * kAlign;
    reserve(h, h->upper, std::size_t(ldb) * std::size_t(n) * sizeof(T));
    const index_t nb = (n + 31) / 32;
    if (nb > 65535) throw CapiFailure{EIGSOLVE_STATUS_INTERNAL_ERROR, "uplo 'U': n too large"};
    conj_transpose_upper<T><<<dim3(unsigned(nb), unsigned(nb)), dim3(32, 8), 0, h->stream>>>(
        n, A, lda, static_cast<T*>(h->upper.p), ldb);
    cuda_check(cudaGetLastError(), "uplo 'U' transpose kernel");
    a = static_cast<const T*>(h->upper.p);
    ld = ldb;
  }
  if (h->cfg_n[p] != n || h->cfg_ld[p] != ld) {
    h->cfg[p] = symv_select<T>(n, ld);
    h->cfg_n[p] = n;
    h->cfg_ld[p] = ld;
  }
  try {
    symv_gpu<T>(h->cfg[p], n, alpha, a, ld, x, incx, beta, y, incy, ws.p, ws.bytes, h->stream);
  } catch (...) {
    ws.clean = false;  // a failed call may leave tickets set
    throw;
  }
}

template <class T>
void scale_on(eigsolve_context* h, index_t n, T beta, T* y, index_t incy) {
  DeviceGuard guard(h->device);
  const index_t blocks = (n + 255) / 256;
  const unsigned grid = unsigned(blocks < 4096 ? blocks : 4096);
  const index_t yoff = incy > 0 ? 0 : (n - 1) * (-incy);
  scale_y<T><<<grid, 256, 0, h->stream>>>(n, beta, beta == T(0), y, incy, yoff);
  cuda_check(cudaGetLastError(), "y := beta y kernel");
}

/// Runs f(handle): h itself, or the default handle of the current device under the lock.
template <class F>
void with_handle(eigsolve_context* h, F&& f) {
  if (h) return f(h);
  std::lock_guard<std::mutex> lock(g_mu);
  const int dev = current_device();
  if (!g_default[dev]) g_default[dev] = new_handle(dev);
  f(g_default[dev]);
}

}  // namespace

bool cuda_compiled() {
  return true;
}

eigsolve_context* create_handle() {
  return new_handle(current_device());
}

void destroy_handle(eigsolve_context* h) {
  {
    DeviceGuard guard(h->device);
    cudaStreamSynchronize(h->stream);
    for (auto* b : {&h->ws[0], &h->ws[1], &h->ws[2], &h->ws[3], &h->ws[4], &h->upper})
      if (b->p) cudaFree(b->p);
    cudaGetLastError();
  }
  h->magic = 0;
  delete h;
}

bool valid_handle(const eigsolve_context* h) {
  return h != nullptr && h->magic == kHandleMagic;
}

void set_stream(eigsolve_context* h, void* stream) {
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  if (s == h->stream) return;
  // Work queued on the old stream may still use the workspaces: let it finish, so that calls on
  // the new stream never overlap it.
  DeviceGuard guard(h->device);
  cuda_check(cudaStreamSynchronize(h->stream), "cudaStreamSynchronize (old stream)");
  h->stream = s;
}

void* get_stream(const eigsolve_context* h) {
  return h->stream;
}

bool device_accessible(eigsolve_context* h, const void* p) {
  const int dev = h ? h->device : current_device();
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    cudaGetLastError();
    return pageable_access(dev);
  }
  switch (a.type) {
    case cudaMemoryTypeDevice:
    case cudaMemoryTypeManaged:
      return true;
    case cudaMemoryTypeHost:
      return a.devicePointer != nullptr;  // pinned and mapped
    default:
      return pageable_access(dev);
  }
}

template <class T>
void symv(eigsolve_context* h, bool upper, index_t n, T alpha, const T* A, index_t lda, const T* x,
          index_t incx, T beta, T* y, index_t incy) {
  with_handle(h, [&](eigsolve_context* c) {
    symv_on<T>(c, upper, n, alpha, A, lda, x, incx, beta, y, incy);
  });
}

template <class T>
void scale(eigsolve_context* h, index_t n, T beta, T* y, index_t incy) {
  with_handle(h, [&](eigsolve_context* c) { scale_on<T>(c, n, beta, y, incy); });
}

#define EIGSOLVE_CAPI_CUDA(T)                                                                      \
  template void symv<T>(eigsolve_context*, bool, index_t, T, const T*, index_t, const T*, index_t, \
                        T, T*, index_t);                                                           \
  template void scale<T>(eigsolve_context*, index_t, T, T*, index_t);
EIGSOLVE_FOR_EACH_SCALAR(EIGSOLVE_CAPI_CUDA)
#undef EIGSOLVE_CAPI_CUDA

}  // namespace capi
}  // namespace eigsolve
