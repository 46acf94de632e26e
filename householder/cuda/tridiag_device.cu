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
#include <cstdio>
#include <cstdlib>
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

/// Programmatic dependent launch (sm_90): every kernel of the panel loop first waits for the
/// kernel before it in the stream to complete (griddepcontrol.wait: its writes are visible),
/// then lets the next one be launched while it runs. The next launch overlaps only the launch
/// latency, never the data: bits are unchanged. Without the launch attribute both are no-ops.
__device__ __forceinline__ void pdl_begin() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

template <class T>
__device__ __forceinline__ void make_real_dev(T& a) {
  if constexpr (is_complex_v<T>) a.im = real_t<T>(0);
}

template <class T>
__global__ void __launch_bounds__(256)
    rank2k_kernel(index_t m, index_t kb, const T* V, index_t ldv, const T* W, index_t ldw, T* A,
                  index_t lda, index_t nt) {
  constexpr int KC = kKc<T>;
  __shared__ T vr[KC][64], wr[KC][64], nwc[KC][64], nvc[KC][64];
  pdl_begin();
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
      vr[k][r] = (ok_k && ir < m) ? V[ir + ldv * (k0 + k)] : T(0);
      wr[k][r] = (ok_k && ir < m) ? W[ir + ldw * (k0 + k)] : T(0);
      nwc[k][r] = (ok_k && jc < m) ? -conj(W[jc + ldw * (k0 + k)]) : T(0);
      nvc[k][r] = (ok_k && jc < m) ? -conj(V[jc + ldv * (k0 + k)]) : T(0);
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

// ---- the panel on the device (device_panel): the host panel of tridiagonalize.cpp, kernel by
// kernel, every chain and reduction in the same order (docs/canonical-tridiagonalization.md).

__device__ __forceinline__ int exponent_of_dev(float a) {
  int e = 0;
  frexpf(a, &e);
  return e;
}
__device__ __forceinline__ int exponent_of_dev(double a) {
  int e = 0;
  frexp(a, &e);
  return e;
}
__device__ __forceinline__ int exponent_of_dev(const dd_real& a) {
  return exponent_of_dev(a.hi);
}
template <class T>
__device__ __forceinline__ T scale2_any_dev(const T& a, int k) {
  if constexpr (is_complex_v<T>)
    return T(scale2(a.re, k), scale2(a.im, k));
  else
    return scale2(a, k);
}

/// Canonical sum over [0, len) by one whole block (blockDim.x a multiple of 64, at most 1024):
/// 8 threads per tile of 64, thread q of a tile runs chunk q's chain s = elem(i, s) over
/// i = 64 tl + 8q .. +7 (out-of-range terms skipped, as tile_dot does), the 8 chunk sums
/// combined by tile_tree, and the tile partials added in ascending order by thread 0
/// (p0 + p1 + ...: sum_tiles' and canonical_dot's order). Tiles go in batches of blockDim/8
/// staged in shared memory (sh: blockDim.x elements). The result is valid in thread 0; every
/// thread must call it.
template <class S, class Elem>
__device__ S block_canonical_sum(index_t len, Elem elem, S* sh) {
  const int t = threadIdx.x, q = t & 7, groups = int(blockDim.x >> 3);
  const index_t ntl = (len + kTile - 1) / kTile;
  S acc = S(0);
  for (index_t b0 = 0; b0 < ntl; b0 += groups) {
    const index_t tl = b0 + (t >> 3);
    S s = S(0);
    if (tl < ntl) {
      const index_t cb = tl * kTile + index_t(q) * kChunk;
#pragma unroll
      for (int u = 0; u < kChunk; ++u)
        if (cb + u < len) s = elem(cb + u, s);
    }
    sh[t] = s;
    __syncwarp();
    S p = S(0);
    if (q == 0 && tl < ntl) {
      S c[kChunk];
#pragma unroll
      for (int k = 0; k < kChunk; ++k)
        c[k] = sh[t + k];
      p = tile_tree(c);
    }
    __syncwarp();
    if (q == 0) sh[t] = p;
    __syncthreads();
    if (t == 0) {
      const index_t cnt = ntl - b0 < groups ? ntl - b0 : groups;
      for (index_t k = 0; k < cnt; ++k) {
        const S pk = sh[kChunk * k];
        acc = (b0 == 0 && k == 0) ? pk : acc + pk;
      }
    }
    __syncthreads();
  }
  return acc;
}

/// 1. Column update: a(r, g) for r = g .. n-1, chain over k < i (V = A(:, j0..), W).
template <class T>
__global__ void col_update_kernel(index_t n, index_t g, index_t j0, index_t i, T* A, index_t lda,
                                  const T* W, index_t ldw) {
  pdl_begin();
  const index_t r = g + index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= n) return;
  T c = A[r + lda * g];
  if (r == g) make_real_dev(c);
  for (index_t k = 0; k < i; ++k) {
    const T nw = -conj(W[g + ldw * k]);
    const T nv = -conj(A[g + lda * (j0 + k)]);
    c = madd(A[r + lda * (j0 + k)], nw, c);
    c = madd(W[r + ldw * k], nv, c);
  }
  if (r == g) make_real_dev(c);
  A[r + lda * g] = c;
}

/// 2. Reflector of order m = n-g-1 from alpha = A(g+1, g), x = A(g+2:n, g) (hh_detail::larfg),
/// then e[g] = real(beta), A(g+1, g) = 1, tau[g]. One block of 1024 threads.
template <class T>
__global__ void __launch_bounds__(1024)
    larfg_kernel(index_t n, index_t g, T* A, index_t lda, real_t<T>* e, T* tau) {
  using R = real_t<T>;
  __shared__ R red[1024];
  __shared__ int s_e, s_zero;
  __shared__ T s_r;
  pdl_begin();
  const int t = threadIdx.x;
  const index_t m = n - g - 1;
  T* col = A + lda * g;
  T* alpha_p = col + (g + 1);
  T* x = col + (g + 2 < n - 1 ? g + 2 : n - 1);
  const index_t nx = m - 1;
  const bool trivial = is_complex_v<T> ? (m <= 0) : (m <= 1);
  if (trivial) {
    if (t == 0) {
      e[g] = real_part(*alpha_p);
      tau[g] = T(0);
      *alpha_p = T(1);
    }
    return;
  }
  R mx = R(0);
  for (index_t q = t; q < nx; q += blockDim.x) {
    const R a = abs1(x[q]);
    if (a > mx) mx = a;
  }
  red[t] = mx;
  __syncthreads();
  for (int h = blockDim.x / 2; h > 0; h /= 2) {
    if (t < h && red[t + h] > red[t]) red[t] = red[t + h];
    __syncthreads();
  }
  const T alpha = *alpha_p;
  const R ar = real_part(alpha), ai = imag_part(alpha);
  if (t == 0) {
    const R xmax = red[0];
    s_zero = (xmax == R(0) && ai == R(0));
    R amax = xmax;
    if (abs(ar) > amax) amax = abs(ar);
    if (abs(ai) > amax) amax = abs(ai);
    s_e = exponent_of_dev(amax);
  }
  __syncthreads();
  if (s_zero) {
    if (t == 0) {
      e[g] = real_part(alpha);
      tau[g] = T(0);
      *alpha_p = T(1);
    }
    return;
  }
  const int ex = s_e;
  const R ss = block_canonical_sum<R>(
      nx,
      [&](index_t i, R sq) {
        const T xs = scale2_any_dev(x[i], -ex);
        sq = madd(real_part(xs), real_part(xs), sq);
        if constexpr (is_complex_v<T>) sq = madd(xs.im, xs.im, sq);
        return sq;
      },
      red);
  if (t == 0) {
    R tt = nx > 0 ? ss : R(0);
    const R ars = scale2(ar, -ex), ais = scale2(ai, -ex);
    if constexpr (is_complex_v<T>) tt = madd(ais, ais, tt);
    tt = madd(ars, ars, tt);
    const R bn = sqrt_(tt);
    const R bs = (ars >= R(0)) ? -bn : bn;
    T tg, as;
    if constexpr (is_complex_v<T>) {
      tg = T((bs - ars) / bs, -ais / bs);
      as = T(ars, ais);
    } else {
      tg = (bs - ars) / bs;
      as = T(ars);
    }
    s_r = T(1) / (as - T(bs));
    tau[g] = tg;
    e[g] = real_part(T(scale2(bs, ex)));
  }
  __syncthreads();
  const T r = s_r;
  for (index_t q = t; q < nx; q += blockDim.x)
    x[q] = scale2_any_dev(x[q], -ex) * r;
  if (t == 0) *alpha_p = T(1);
}

constexpr int kDotThreads = 512;

/// 4. t[b], b < 2i: b < i: conj(W(g+1:n, b)) . v, else conj(V(g+1:n, b-i)) . v (canonical
/// dots, tiles from g+1). One block per dot.
template <class T>
__global__ void __launch_bounds__(kDotThreads)
    panel_dots_kernel(index_t m, index_t g, index_t j0, index_t i, const T* A, index_t lda,
                      const T* W, index_t ldw, T* tvec) {
  __shared__ T sh[kDotThreads];
  pdl_begin();
  const index_t b = blockIdx.x;
  const T* vec = b < i ? W + (g + 1) + ldw * b : A + (g + 1) + lda * (j0 + (b - i));
  const T* v = A + (g + 1) + lda * g;
  const T s = block_canonical_sum<T>(
      m, [&](index_t q, T acc) { return madd_conj(vec[q], v[q], acc); }, sh);
  if (threadIdx.x == 0) tvec[b] = s;
}

/// 5. w_r = tau ((w_r - V(r,:) . t1) - W(r,:) . t2) for i > 0, else tau w_r.
template <class T>
__global__ void panel_w_kernel(index_t m, index_t g, index_t j0, index_t i, const T* A, index_t lda,
                               T* W, index_t ldw, const T* tvec, const T* tau) {
  pdl_begin();
  const index_t r = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= m) return;
  T* w = W + (g + 1) + ldw * i;
  const T tg = tau[g];
  if (i == 0) {
    w[r] = tg * w[r];
    return;
  }
  const T* vr = A + (g + 1 + r) + lda * j0;
  const T* wr = W + (g + 1 + r);
  T d1 = T(0), d2 = T(0);
  for (index_t k0 = 0; k0 < i; k0 += kTile) {
    const index_t hi = k0 + kTile < i ? k0 + kTile : i;
    const T p1 = tile_dot<false, T>(
        k0, k0, hi, [&](index_t k) { return vr[lda * k]; }, [&](index_t k) { return tvec[k]; });
    const T p2 = tile_dot<false, T>(
        k0, k0, hi, [&](index_t k) { return wr[ldw * k]; }, [&](index_t k) { return tvec[i + k]; });
    d1 = k0 == 0 ? p1 : d1 + p1;
    d2 = k0 == 0 ? p2 : d2 + p2;
  }
  w[r] = tg * ((w[r] - d1) - d2);
}

/// 6. w += alpha v, alpha = (-1/2 tau) (w^H v). One block.
template <class T>
__global__ void __launch_bounds__(1024)
    panel_alpha_kernel(index_t m, index_t g, index_t i, const T* A, index_t lda, T* W, index_t ldw,
                       const T* tau) {
  __shared__ T sh[1024];
  __shared__ T s_al;
  pdl_begin();
  T* w = W + (g + 1) + ldw * i;
  const T* v = A + (g + 1) + lda * g;
  const T s = block_canonical_sum<T>(
      m, [&](index_t q, T acc) { return madd_conj(w[q], v[q], acc); }, sh);
  if (threadIdx.x == 0) s_al = (T(-0.5) * tau[g]) * s;
  __syncthreads();
  const T al = s_al;
  for (index_t r = threadIdx.x; r < m; r += blockDim.x)
    w[r] = madd(al, v[r], w[r]);
}

/// After the panel's trailing update: A(j+1, j) = e[j], d[j] = real(A(j, j)), j in [j0, j0+nb).
template <class T>
__global__ void panel_finish_kernel(index_t j0, index_t nb, T* A, index_t lda, const real_t<T>* e,
                                    real_t<T>* d) {
  pdl_begin();
  if (index_t(threadIdx.x) >= nb) return;
  const index_t j = j0 + threadIdx.x;
  A[(j + 1) + lda * j] = T(e[j]);
  d[j] = real_part(A[j + lda * j]);
}

/// Largest to_double(abs1(a)) over the lower triangle (NaN never wins, as std::max(amax, x) on
/// the host): non-negative doubles order as their bit patterns, so atomicMax on the bits is
/// exact and independent of the order.
template <class T>
__global__ void lower_absmax_kernel(index_t n, const T* A, index_t lda,
                                    unsigned long long* out) {
  unsigned long long best = 0;
  const index_t total = n * n, stride = index_t(gridDim.x) * blockDim.x;
  for (index_t k = index_t(blockIdx.x) * blockDim.x + threadIdx.x; k < total; k += stride) {
    const index_t j = k / n, i = k - j * n;
    if (i < j) continue;
    const double a = to_double(abs1(A[i + lda * j]));
    if (a == a) {
      const unsigned long long bits = static_cast<unsigned long long>(__double_as_longlong(a));
      if (bits > best) best = bits;
    }
  }
  for (int o = 16; o > 0; o >>= 1) {
    const unsigned long long other = __shfl_down_sync(0xffffffffu, best, o);
    if (other > best) best = other;
  }
  if ((threadIdx.x & 31) == 0 && best) atomicMax(out, best);
}

/// a := scale2(a, k) (each part) over the lower triangle: exact, as the host's scale_lower.
template <class T>
__global__ void scale_lower_kernel(index_t n, T* A, index_t lda, int k) {
  const index_t total = n * n, stride = index_t(gridDim.x) * blockDim.x;
  for (index_t q = index_t(blockIdx.x) * blockDim.x + threadIdx.x; q < total; q += stride) {
    const index_t j = q / n, i = q - j * n;
    if (i >= j) A[i + lda * j] = scale2_any_dev(A[i + lda * j], k);
  }
}

/// Per-step device time of the panel loop (EIGSOLVE_GPU_PROFILE=1): events around every step,
/// one synchronisation per column. For measurements only; it slows the loop down.
struct PanelProfile {
  static constexpr int kSteps = 8;
  static constexpr const char* kNames[kSteps] = {"col_update", "larfg",   "symv",  "dots",
                                                 "panel_w",    "alpha",   "rank2k", "finish"};
  double sec[kSteps] = {};
};

bool env_flag(const char* name, bool dflt) {
  const char* v = std::getenv(name);
  if (!v || !*v) return dflt;
  return !(v[0] == '0' && v[1] == '\0');
}

template <class T>
class CudaTridiag final : public CudaTridiagDevice<T> {
 public:
  /// From host memory (host != nullptr) or from device memory (dsrc, ldd_src) on the current
  /// device; the lower triangle is copied into the solver's own storage either way.
  CudaTridiag(index_t n, const T* host, index_t lda, const T* dsrc, int nb,
              TridiagDeviceTimes* times, bool device_panels)
      : n_(n), nb_(std::max(1, nb)), ldd_(std::max<index_t>(n, 1)), times_(times),
        device_panels_(device_panels) {
    if (cuda_device_count() == 0) throw DeviceError("--device cuda: no CUDA device is visible");
    const std::uint64_t need = tridiag_device_bytes<T>(n, nb);
    std::size_t free_b = 0, total_b = 0;
    ck(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
    if (need > free_b)
      throw DeviceError("the GPU cannot hold this problem: order " + std::to_string(n) + " in " +
                        ScalarTraits<T>::name + " needs " + std::to_string(need) +
                        " bytes of device memory, " + std::to_string(free_b) +
                        " are available (of " + std::to_string(total_b) + ")");
    pdl_ = env_flag("EIGSOLVE_GPU_PDL", true);
    profile_ = env_flag("EIGSOLVE_GPU_PROFILE", false);
    ck(cudaStreamCreateWithFlags(&st_, cudaStreamNonBlocking), "cudaStreamCreate");
    ck(cudaEventCreate(&ev0_), "cudaEventCreate");
    ck(cudaEventCreate(&ev1_), "cudaEventCreate");
    if (profile_)
      for (auto& e : pev_)
        ck(cudaEventCreate(&e), "cudaEventCreate");
    alloc(&dA_, std::size_t(ldd_) * std::size_t(n) * sizeof(T));
    wsb_ = symv_workspace_bytes<T>(std::max<index_t>(n, 1));
    alloc(&ws_, wsb_);
    const std::size_t panel = std::size_t(n) * std::size_t(nb_) * sizeof(T);
    alloc(&dV_, panel);
    alloc(&dW_, panel);
    alloc(&dv_, std::size_t(n) * sizeof(T));
    alloc(&dw_, std::size_t(n) * sizeof(T));
    alloc(&dmax_, sizeof(unsigned long long));
    if (!device_panels_) {
      ck(cudaMallocHost(&hV_, panel), "cudaMallocHost");
      ck(cudaMallocHost(&hW_, panel), "cudaMallocHost");
      ck(cudaMallocHost(&hv_, std::size_t(n) * sizeof(T)), "cudaMallocHost");
      ck(cudaMallocHost(&hw_, std::size_t(n) * sizeof(T)), "cudaMallocHost");
    }
    symv_workspace_init(ws_, wsb_, st_);
    const auto t0 = std::chrono::steady_clock::now();
    if (n > 0) {
      if (host)
        ck(cudaMemcpy2DAsync(dA_, ldd_ * sizeof(T), host, lda * sizeof(T), n * sizeof(T), n,
                             cudaMemcpyHostToDevice, st_),
           "upload A");
      else
        ck(cudaMemcpy2DAsync(dA_, ldd_ * sizeof(T), dsrc, lda * sizeof(T), n * sizeof(T), n,
                             cudaMemcpyDeviceToDevice, st_),
           "copy A");
    }
    ck(cudaStreamSynchronize(st_), "upload A");
    if (times_)
      times_->upload +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  ~CudaTridiag() override {
    cudaStreamSynchronize(st_);
    if (profile_ && prof_.sec[2] + prof_.sec[6] > 0) {
      std::fprintf(stderr, "eigsolve gpu profile (n = %lld, %s, PDL %s):",
                   static_cast<long long>(n_), ScalarTraits<T>::name,
                   "off: profiling serialises the steps");
      for (int k = 0; k < PanelProfile::kSteps; ++k)
        std::fprintf(stderr, " %s %.4f s", PanelProfile::kNames[k], prof_.sec[k]);
      std::fprintf(stderr, "\n");
    }
    for (void* p : {static_cast<void*>(dA_), ws_, static_cast<void*>(dV_), static_cast<void*>(dW_),
                    static_cast<void*>(dv_), static_cast<void*>(dw_), static_cast<void*>(dd_),
                    static_cast<void*>(de_), static_cast<void*>(dtau_), static_cast<void*>(dt_),
                    static_cast<void*>(dmax_)})
      cudaFree(p);
    for (void* p : {static_cast<void*>(hV_), static_cast<void*>(hW_), static_cast<void*>(hv_),
                    static_cast<void*>(hw_)})
      cudaFreeHost(p);
    for (auto& e : pev_)
      if (e) cudaEventDestroy(e);
    cudaEventDestroy(ev0_);
    cudaEventDestroy(ev1_);
    cudaStreamDestroy(st_);
  }

  double lower_absmax() override {
    if (n_ == 0) return 0;
    ck(cudaMemsetAsync(dmax_, 0, sizeof(unsigned long long), st_), "cudaMemset");
    const index_t total = n_ * n_;
    const unsigned blocks = unsigned(std::min<index_t>((total + 255) / 256, 132 * 16));
    lower_absmax_kernel<T><<<blocks, 256, 0, st_>>>(n_, dA_, ldd_, dmax_);
    ck(cudaGetLastError(), "lower_absmax_kernel");
    unsigned long long bits = 0;
    ck(cudaMemcpyAsync(&bits, dmax_, sizeof(bits), cudaMemcpyDeviceToHost, st_), "absmax");
    ck(cudaStreamSynchronize(st_), "absmax");
    double a = 0;
    std::memcpy(&a, &bits, sizeof(a));
    return a;
  }

  void scale_lower(int k) override {
    if (n_ == 0 || k == 0) return;
    const index_t total = n_ * n_;
    const unsigned blocks = unsigned(std::min<index_t>((total + 255) / 256, 132 * 16));
    scale_lower_kernel<T><<<blocks, 256, 0, st_>>>(n_, dA_, ldd_, k);
    ck(cudaGetLastError(), "scale_lower_kernel");
    ck(cudaStreamSynchronize(st_), "scale_lower_kernel");
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
    rank2k_kernel<T><<<unsigned(nt * (nt + 1) / 2), 256, 0, st_>>>(m, kb, dV_, m, dW_, m,
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

  bool device_panels() const override { return device_panels_; }

  void device_panel(index_t j0, index_t nb) override {
    using R = real_t<T>;
    if (!dd_) {
      alloc(&dd_, std::size_t(n_) * sizeof(R));
      alloc(&de_, std::size_t(n_) * sizeof(R));
      alloc(&dtau_, std::size_t(n_) * sizeof(T));
      alloc(&dt_, std::size_t(2 * nb_) * sizeof(T));
      ck(cudaMemsetAsync(de_, 0, std::size_t(n_) * sizeof(R), st_), "cudaMemset");
      ck(cudaMemsetAsync(dtau_, 0, std::size_t(n_) * sizeof(T), st_), "cudaMemset");
      sel_.assign(std::size_t(n_) + 1, SymvConfig{});
      sel_ok_.assign(std::size_t(n_) + 1, 0);
      ck(cudaEventRecord(ev0_, st_), "cudaEventRecord");
    }
    T* W = dW_;  // n x nb, ld n
    const index_t ldw = n_;
    for (index_t i = 0; i < nb; ++i) {
      const index_t g = j0 + i, m = n_ - g - 1, rows = n_ - g;
      mark(0);
      launch(col_update_kernel<T>, unsigned((rows + 255) / 256), 256, n_, g, j0, i, dA_, ldd_,
             static_cast<const T*>(W), ldw);
      mark(1);
      launch(larfg_kernel<T>, 1, 1024, n_, g, dA_, ldd_, de_, dtau_);
      mark(2);
      if (!sel_ok_[std::size_t(m)]) {
        sel_[std::size_t(m)] = symv_select<T>(m);
        sel_ok_[std::size_t(m)] = 1;
      }
      symv_gpu<T>(sel_[std::size_t(m)], m, T(1), dA_ + (g + 1) + ldd_ * (g + 1), ldd_,
                  dA_ + (g + 1) + ldd_ * g, 1, T(0), W + (g + 1) + ldw * i, 1, ws_, wsb_, st_);
      mark(3);
      if (i > 0)
        launch(panel_dots_kernel<T>, unsigned(2 * i), kDotThreads, m, g, j0, i,
               static_cast<const T*>(dA_), ldd_, static_cast<const T*>(W), ldw, dt_);
      mark(4);
      launch(panel_w_kernel<T>, unsigned((m + 255) / 256), 256, m, g, j0, i,
             static_cast<const T*>(dA_), ldd_, W, ldw, static_cast<const T*>(dt_),
             static_cast<const T*>(dtau_));
      mark(5);
      launch(panel_alpha_kernel<T>, 1, 1024, m, g, i, static_cast<const T*>(dA_), ldd_, W, ldw,
             static_cast<const T*>(dtau_));
      mark(6);
      ck(cudaGetLastError(), "device panel kernels");
      end_column();
    }
    const index_t s = j0 + nb, m = n_ - s, nt = (m + 63) / 64;
    mark(6);
    if (m > 0)
      launch(rank2k_kernel<T>, unsigned(nt * (nt + 1) / 2), 256, m, index_t(nb),
             static_cast<const T*>(dA_ + s + ldd_ * j0), ldd_, static_cast<const T*>(W + s), ldw,
             dA_ + s + ldd_ * s, ldd_, nt);
    mark(7);
    launch(panel_finish_kernel<T>, 1, unsigned(nb), j0, index_t(nb), dA_, ldd_,
           static_cast<const R*>(de_), dd_);
    mark(8);
    ck(cudaGetLastError(), "device panel update");
    end_column(6);
  }

  void fetch_panels(index_t j0, T* A, index_t lda, real_t<T>* d, real_t<T>* e, T* tau,
                    bool reflectors) override {
    using R = real_t<T>;
    if (dd_) {
      ck(cudaEventRecord(ev1_, st_), "cudaEventRecord");
      ck(cudaEventSynchronize(ev1_), "device panels");
      float ms = 0;
      ck(cudaEventElapsedTime(&ms, ev0_, ev1_), "cudaEventElapsedTime");
      if (times_) times_->panels += ms * 1e-3;
    }
    const auto t0 = std::chrono::steady_clock::now();
    if (reflectors)
      copy_down(0, 0, n_, n_, A, lda);  // the panels' reflectors and the trailing block
    else
      copy_down(j0, j0, n_ - j0, n_ - j0, A, lda);  // the trailing block only
    if (j0 > 0 && dd_) {
      ck(cudaMemcpyAsync(d, dd_, std::size_t(j0) * sizeof(R), cudaMemcpyDeviceToHost, st_), "d");
      ck(cudaMemcpyAsync(e, de_, std::size_t(j0) * sizeof(R), cudaMemcpyDeviceToHost, st_), "e");
      ck(cudaMemcpyAsync(tau, dtau_, std::size_t(j0) * sizeof(T), cudaMemcpyDeviceToHost, st_),
         "tau");
      ck(cudaStreamSynchronize(st_), "fetch panels");
    }
    if (times_)
      times_->transfers +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
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
  /// A kernel of the panel loop, with programmatic dependent launch unless EIGSOLVE_GPU_PDL=0
  /// (every such kernel starts with pdl_begin()).
  template <class... K, class... A>
  void launch(void (*kernel)(K...), unsigned grid, unsigned block, A... args) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(grid);
    cfg.blockDim = dim3(block);
    cfg.dynamicSmemBytes = 0;
    cfg.stream = st_;
    cudaLaunchAttribute at[1];
    at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    at[0].val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = at;
    cfg.numAttrs = pdl_ && !profile_ ? 1 : 0;
    ck(cudaLaunchKernelEx(&cfg, kernel, args...), "kernel launch");
  }
  void mark(int k) {
    if (profile_) ck(cudaEventRecord(pev_[k], st_), "cudaEventRecord");
  }
  /// Profile: waits for the column and adds each step's time (steps from..from+k).
  void end_column(int from = 0) {
    if (!profile_) return;
    ck(cudaEventSynchronize(pev_[from == 0 ? 6 : 8]), "profile");
    const int lo = from == 0 ? 0 : 6, hi = from == 0 ? 6 : 8;
    for (int k = lo; k < hi; ++k) {
      float ms = 0;
      ck(cudaEventElapsedTime(&ms, pev_[k], pev_[k + 1]), "cudaEventElapsedTime");
      prof_.sec[k] += ms * 1e-3;
    }
  }

  index_t n_;
  int nb_;
  index_t ldd_;
  TridiagDeviceTimes* times_;
  cudaStream_t st_ = nullptr;
  cudaEvent_t ev0_ = nullptr, ev1_ = nullptr;
  cudaEvent_t pev_[9] = {};
  bool pdl_ = true, profile_ = false;
  PanelProfile prof_;
  T* dA_ = nullptr;
  void* ws_ = nullptr;
  std::size_t wsb_ = 0;
  T *dV_ = nullptr, *dW_ = nullptr, *dv_ = nullptr, *dw_ = nullptr;
  T *hV_ = nullptr, *hW_ = nullptr, *hv_ = nullptr, *hw_ = nullptr;
  unsigned long long* dmax_ = nullptr;
  bool device_panels_ = false;
  real_t<T>*dd_ = nullptr, *de_ = nullptr;
  T *dtau_ = nullptr, *dt_ = nullptr;
  std::vector<SymvConfig> sel_;
  std::vector<char> sel_ok_;
};

}  // namespace

template <class T>
std::uint64_t tridiag_device_bytes(index_t n, int nb) {
  const std::uint64_t e = sizeof(T), un = std::uint64_t(std::max<index_t>(n, 1));
  const std::uint64_t unb = std::uint64_t(std::max(nb, 1)), tiles = (un + 63) / 64;
  // matrix, SYMV workspace, V and W, v and w, d/e/tau, panel dots and their tile partials
  return un * un * e + symv_workspace_bytes<T>(std::max<index_t>(n, 1)) + 2 * un * unb * e +
         2 * un * e + 3 * un * e + (2 * unb + 1) * (tiles + 1) * e + (1u << 20);
}

template <class T>
std::unique_ptr<TridiagDevice<T>> make_cuda_tridiag(index_t n, const T* A, index_t lda, int nb,
                                                    TridiagDeviceTimes* times, bool device_panels) {
  return std::make_unique<CudaTridiag<T>>(n, A, lda, nullptr, nb, times, device_panels);
}

template <class T>
std::unique_ptr<CudaTridiagDevice<T>> make_cuda_tridiag_device(index_t n, const T* dA,
                                                               index_t ldda, int nb,
                                                               TridiagDeviceTimes* times) {
  if (ldda < std::max<index_t>(1, n))
    throw DimensionError("make_cuda_tridiag_device: ldda = " + std::to_string(ldda) +
                         " < max(1, n)");
  return std::make_unique<CudaTridiag<T>>(n, nullptr, ldda, dA, nb, times, true);
}

#define EIGSOLVE_INSTANTIATE_TRIDIAG_CUDA(T)                                                       \
  template std::uint64_t tridiag_device_bytes<T>(index_t, int);                                    \
  template std::unique_ptr<TridiagDevice<T>> make_cuda_tridiag<T>(index_t, const T*, index_t, int, \
                                                                  TridiagDeviceTimes*, bool);   \
  template std::unique_ptr<CudaTridiagDevice<T>> make_cuda_tridiag_device<T>(                      \
      index_t, const T*, index_t, int, TridiagDeviceTimes*);
EIGSOLVE_FOR_EACH_SCALAR(EIGSOLVE_INSTANTIATE_TRIDIAG_CUDA)
#undef EIGSOLVE_INSTANTIATE_TRIDIAG_CUDA

}  // namespace eigsolve
