// The two-stage reduction on the device (householder/two_stage_cuda.hpp), in the order of
// docs/canonical-two-stage.md, so d and e are bitwise the CPU's tridiagonalize_two_stage:
//
//   per panel j0 (r0 = j0 + b, m = n - r0, k = min(b, m)), one stream:
//     panel QR, per column i:  larfg_kernel (one block: panel_kernels.cuh, the one-stage's
//                              reflector with the panel's column as its "column g")
//                              panel_apply_kernel (one block per later column: the canonical
//                              dot v^H a, then a += v u, u = -(conj(tau) w))
//     form_v_kernel            V (m x k, explicit zeros and unit), the betas into the panel
//     gram_kernel, tfactor_kernel   T (larft forward, columnwise)
//     symm_canonical_gpu       X = A22 V (symv/symm_gpu.hpp: k canonical SYMVs)
//     y_kernel, zdot_kernel, m_kernel, w_kernel   Y = X T, Z = V^H Y, M = T^H Z, W = Y - V M / 2
//   (EIGSOLVE_GPU_STAGE1_SMALL=1 and k <= 32, the default band width: dots_kernel for the Gram
//   matrix and Z, tfactor_block_kernel, m_smem_kernel; the same chains, bitwise the CPU's on an
//   H100 in session 50, but not faster there (dd 16384 8.08 against 8.00 s), so off by default;
//   dots_kernel's loads reordered since, not yet run: scripts/gpu-batch.sh s51-a)
//     rank2k (panel_kernels.cuh)   A22 -= V W^H + W V^H, the one-stage's canonical kernel
//   then band_kernel (band storage, ldab = 2b + 1) and the bulge chase
//   (householder/bulge_chase_cuda.hpp); d and e to the host.
//   keep_reflectors (eigenvectors): the chase also stores its reflectors in dV2 (n x n, ld n,
//   zeroed once) and dtau2 (chase_levels x n, zeroed once); dA (stage 1's reflectors below the
//   band) and dtau1 (zeroed once, so tau1[j] = +0 for j >= n - b as on the CPU) stay on the
//   device for the back-transformation (reflectors(), reflectors_to_host()).
//
// The panel QR: unset or 2 (the default since session 23) panel_qr_rf_kernel
// (householder/cuda/panel_qr_rf.cuh, the column in registers) where it fits, else
// panel_qr_kernel; EIGSOLVE_GPU_QR1=1 panel_qr_kernel (one kernel per panel) everywhere; 0 the two
// kernels per column above. All three give the same bits.
//
// Version 1: every step is its own kernel, launched with programmatic dependent launch
// (EIGSOLVE_GPU_PDL=0: plain launches; the same bits); no graphs, no overlap of the panel with
// the previous update. bench/NOTES.md says where the time goes.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/context.hpp"
#include "core/cuda/pdl_launch.cuh"
#include "core/cuda/l2_access.cuh"
#include "core/env_flag.hpp"
#include "core/errors.hpp"
#include "householder/bulge_chase_cuda.hpp"
#include "householder/two_stage_cuda.hpp"
#include "symv/symm_gpu.hpp"

namespace eigsolve {
namespace {

void ck(cudaError_t st, const char* what) {
  if (st != cudaSuccess) {
    cudaGetLastError();
    throw DeviceError(std::string(what) + ": " + cudaGetErrorString(st));
  }
}

}  // namespace
}  // namespace eigsolve

#include "householder/cuda/panel_kernels.cuh"
#include "householder/cuda/panel_qr_rf.cuh"

namespace eigsolve {
namespace two_stage_cuda {

using tridiag_cuda::block_canonical_sum;
using tridiag_cuda::make_real_dev;

constexpr int kSumThreads = 512;

/// The spec's 0.5·s: both components scaled by 2^-1 (exact).
template <class T>
__device__ __forceinline__ T half_of(const T& s) {
  if constexpr (is_complex_v<T>)
    return T(scale2(s.re, -1), scale2(s.im, -1));
  else
    return scale2(s, -1);
}

template <class T>
__global__ void diag_real_kernel(index_t n, T* A, index_t lda) {
  tridiag_cuda::pdl_begin();
  const index_t i = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) make_real_dev(A[i + lda * i]);
}

/// Panel column c = i + 1 + blockIdx.x (rows i .. m-1 of the panel P): w = canonical_dot(conj(v),
/// a) with tiles from row i, u = -(conj(tau) * w), a_r = madd(v_r, u, a_r).
template <class T>
__global__ void __launch_bounds__(kSumThreads)
    panel_apply_kernel(index_t m, index_t i, T* P, index_t lda, const T* tau) {
  tridiag_cuda::pdl_begin();
  __shared__ T sh[kSumThreads];
  __shared__ T s_u;
  const index_t c = i + 1 + index_t(blockIdx.x);
  const T* v = P + i + lda * i;
  T* a = P + i + lda * c;
  const index_t len = m - i;
  const T w = block_canonical_sum<T>(
      len, [&](index_t q, T acc) { return madd_conj(v[q], a[q], acc); }, sh);
  if (threadIdx.x == 0) s_u = -(conj(*tau) * w);
  __syncthreads();
  const T u = s_u;
  for (index_t r = threadIdx.x; r < len; r += blockDim.x)
    a[r] = madd(v[r], u, a[r]);
}

/// The whole panel QR in one kernel (EIGSOLVE_GPU_QR1=1, and the default's fallback): b blocks,
/// block t (by an atomic ticket in dispatch order, so it only ever waits for blocks already
/// running: no deadlock) owns panel column c = t. It applies reflectors i = 0 .. min(c, k)-1 to its
/// column as each is published (flag[i] == epoch), exactly as panel_apply_kernel does, then (c < k)
/// forms reflector c as larfg_kernel does and publishes it. The same chains, the same bits;
/// only the kernel boundaries between the columns are gone. Flags count panels (epochs), never
/// data, so NaN cannot stall it.
template <class T>
__global__ void __launch_bounds__(kSumThreads)
    panel_qr_kernel(index_t m, index_t k, T* P, index_t lda, T* tau, real_t<T>* beta,
                    real_t<T>* alpha_im, unsigned* flag, unsigned long long* ticket,
                    unsigned long long base, unsigned epoch) {
  using R = real_t<T>;
  tridiag_cuda::pdl_begin();
  __shared__ T sh[kSumThreads];
  __shared__ R red[kSumThreads];
  __shared__ T s_u, s_r;
  __shared__ long long s_c;
  __shared__ int s_e, s_zero;
  const int t = threadIdx.x;
  if (t == 0) s_c = static_cast<long long>(atomicAdd(ticket, 1ull) - base);
  __syncthreads();
  const index_t c = index_t(s_c);
  T* a = P + lda * c;
  const index_t napply = c < k ? c : k;
  for (index_t i = 0; i < napply; ++i) {
    if (t == 0) {
      while (*reinterpret_cast<volatile unsigned*>(flag + i) != epoch) {
      }
      __threadfence();
    }
    __syncthreads();
    const T* v = P + i + lda * i;
    const index_t len = m - i;
    const T w = block_canonical_sum<T>(
        len, [&](index_t q, T acc) { return madd_conj(ldcg(v + q), a[i + q], acc); }, sh);
    if (t == 0) s_u = -(conj(ldcg(tau + i)) * w);
    __syncthreads();
    const T u = s_u;
    for (index_t r = t; r < len; r += blockDim.x)
      a[i + r] = madd(ldcg(v + r), u, a[i + r]);
    __syncthreads();
  }
  if (c >= k) return;
  // Reflector c of order m - c from alpha = P(c, c), x = P(c+1 : m, c): larfg_kernel's steps.
  T* alpha_p = a + c;
  T* x = a + c + 1;
  const index_t nx = m - c - 1;
  const bool trivial = is_complex_v<T> ? (m - c <= 0) : (m - c <= 1);
  bool done = trivial;
  const T alpha = *alpha_p;
  if (!trivial) {
    R mx = R(0);
    for (index_t q = t; q < nx; q += blockDim.x) {
      const R av = abs1(x[q]);
      if (av > mx) mx = av;
    }
    red[t] = mx;
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h /= 2) {
      if (t < h && red[t + h] > red[t]) red[t] = red[t + h];
      __syncthreads();
    }
    const R ar = real_part(alpha), ai = imag_part(alpha);
    if (t == 0) {
      const R xmax = red[0];
      s_zero = (xmax == R(0) && ai == R(0));
      R amax = xmax;
      if (abs(ar) > amax) amax = abs(ar);
      if (abs(ai) > amax) amax = abs(ai);
      s_e = tridiag_cuda::exponent_of_dev(amax);
    }
    __syncthreads();
    done = s_zero != 0;
  }
  if (t == 0) alpha_im[c] = imag_part(alpha);  // form_v_kernel's P(c, c) when tau = 0
  if (done) {
    if (t == 0) {
      beta[c] = real_part(alpha);
      tau[c] = T(0);
      *alpha_p = T(1);
    }
  } else {
    const int ex = s_e;
    const R ss = block_canonical_sum<R>(
        nx, [&](index_t i, R sq) { return tridiag_cuda::madd_scaled_square(x[i], ex, sq); }, red);
    if (t == 0) {
      T tg;
      R eg;
      T r;
      tridiag_cuda::larfg_beta(nx > 0 ? ss : R(0), alpha, ex, tg, r, eg);
      tau[c] = tg;
      beta[c] = eg;
      s_r = r;
    }
    __syncthreads();
    const T r = s_r;
    for (index_t q = t; q < nx; q += blockDim.x)
      x[q] = tridiag_cuda::scale2_any_dev(x[q], -ex) * r;
    if (t == 0) *alpha_p = T(1);
  }
  __threadfence();  // every thread's writes of the reflector, then the flag
  __syncthreads();
  if (t == 0) atomicExch(flag + c, epoch);
}

/// imag(P(i, i)) before reflector i of the panel at P (the EIGSOLVE_GPU_QR1=0 path; the one
/// panel_qr_kernel records it itself), for form_v_kernel.
template <class T>
__global__ void record_alpha_im_kernel(const T* P, index_t lda, index_t i, real_t<T>* alpha_im) {
  tridiag_cuda::pdl_begin();
  alpha_im[i] = imag_part(P[i + lda * i]);
}

/// V(r, q) = 0 above, 1 on, P(r, q) below the diagonal (r < m, q < k); P(q, q) := beta_q, or
/// for complex T with tau_q = 0 (larfg left alpha as it was: x == 0, imag(alpha) == +-0) alpha
/// itself, (beta_q, alpha_im_q): the CPU keeps alpha's imaginary -0 there (hh_detail::larfg).
template <class T>
__global__ void form_v_kernel(index_t m, index_t k, T* P, index_t lda, const real_t<T>* beta,
                              const real_t<T>* alpha_im, const T* tau, T* V) {
  tridiag_cuda::pdl_begin();
  const index_t r = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const index_t q = blockIdx.y;
  if (r >= m || q >= k) return;
  T v;
  if (r < q) {
    v = T(0);
  } else if (r == q) {
    v = T(1);
    T d = T(beta[q]);
    if constexpr (is_complex_v<T>) {
      const T tq = tau[q];
      if (tq.re == real_t<T>(0) && tq.im == real_t<T>(0)) d = T(beta[q], alpha_im[q]);
    }
    P[q + lda * q] = d;
  } else {
    v = P[r + lda * q];
  }
  V[r + m * q] = v;
}

/// G(l, i) = canonical_dot(conj(V(:, l)), V(:, i)) over the m rows, l < i.
template <class T>
__global__ void __launch_bounds__(kSumThreads) gram_kernel(index_t m, index_t k, const T* V, T* G) {
  tridiag_cuda::pdl_begin();
  __shared__ T sh[kSumThreads];
  const index_t l = blockIdx.x % k, i = blockIdx.x / k;
  if (l >= i) return;
  const T* a = V + m * l;
  const T* b = V + m * i;
  const T s = block_canonical_sum<T>(
      m, [&](index_t q, T acc) { return madd_conj(a[q], b[q], acc); }, sh);
  if (threadIdx.x == 0) G[l + k * i] = s;
}

/// T (k x k, upper): T(i, i) = tau_i; T(q, i) = (-tau_i) * (chain l = q .. i-1 of
/// madd(T(q, l), G(l, i), z)). Thread q; columns i in order.
template <class T>
__global__ void tfactor_kernel(index_t k, const T* tau, const T* G, T* Tm) {
  tridiag_cuda::pdl_begin();
  const index_t q = threadIdx.x;
  for (index_t i = 0; i < k; ++i) {
    if (q < i) {
      T z = T(0);
      for (index_t l = q; l < i; ++l)
        z = madd(Tm[q + k * l], G[l + k * i], z);
      Tm[q + k * i] = (-tau[i]) * z;
    } else if (q < k) {
      Tm[q + k * i] = q == i ? tau[i] : T(0);
    }
    __syncthreads();
  }
}

/// Y(r, q) = chain l = 0 .. q of madd(X(r, l), T(l, q), y).
template <class T>
__global__ void y_kernel(index_t m, index_t k, const T* X, const T* Tm, T* Y) {
  tridiag_cuda::pdl_begin();
  const index_t r = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const index_t q = blockIdx.y;
  if (r >= m) return;
  T y = T(0);
  for (index_t l = 0; l <= q; ++l)
    y = madd(X[r + m * l], Tm[l + k * q], y);
  Y[r + m * q] = y;
}

/// Z(p, q) = canonical_dot(conj(V(:, p)), Y(:, q)) over the m rows.
template <class T>
__global__ void __launch_bounds__(kSumThreads)
    zdot_kernel(index_t m, index_t k, const T* V, const T* Y, T* Z) {
  tridiag_cuda::pdl_begin();
  __shared__ T sh[kSumThreads];
  const index_t p = blockIdx.x % k, q = blockIdx.x / k;
  const T* a = V + m * p;
  const T* b = Y + m * q;
  const T s = block_canonical_sum<T>(
      m, [&](index_t r, T acc) { return madd_conj(a[r], b[r], acc); }, sh);
  if (threadIdx.x == 0) Z[p + k * q] = s;
}

/// M(p, q) = chain l = 0 .. p of madd_conj(T(l, p), Z(l, q), s).
template <class T>
__global__ void m_kernel(index_t k, const T* Tm, const T* Z, T* M) {
  tridiag_cuda::pdl_begin();
  for (index_t e = threadIdx.x; e < k * k; e += blockDim.x) {
    const index_t p = e % k, q = e / k;
    T s = T(0);
    for (index_t l = 0; l <= p; ++l)
      s = madd_conj(Tm[l + k * p], Z[l + k * q], s);
    M[p + k * q] = s;
  }
}

/// W(r, q) = Y(r, q) - 0.5·(chain p = 0 .. k-1 of madd(V(r, p), M(p, q), s)).
template <class T>
__global__ void w_kernel(index_t m, index_t k, const T* V, const T* M, const T* Y, T* W) {
  tridiag_cuda::pdl_begin();
  const index_t r = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const index_t q = blockIdx.y;
  if (r >= m) return;
  T s = T(0);
  for (index_t p = 0; p < k; ++p)
    s = madd(V[r + m * p], M[p + k * q], s);
  W[r + m * q] = Y[r + m * q] - half_of(s);
}

/// Out(p, q) = canonical_dot(conj(A(:, p)), B(:, q)) over the m rows (A, B with leading
/// dimension m) for kDotCols consecutive p of one q per block: zdot_kernel's and gram_kernel's
/// chains, the same bits, in one block per kDotCols dots instead of one block per dot (session
/// 49). Thread t owns chunk t % 8 of tile t / 8 of each batch of kDotTiles tiles, for every p
/// of the block (one load of B's element for all of them, the p chains interleaved); the tile
/// trees by all threads; p's tile partials added in ascending order by thread p - p0, all p at
/// once. Lower: only p < q (gram_kernel's pairs). Out(p, q) at out[p + ldo q].
///
///   batch of 32 tiles:  | tile 0: chunks t = 0..7 | tile 1: t = 8..15 | ... | tile 31 |
///   each thread:        s_p = madd_conj(A(r, p), B(r, q), s_p), r over its 8 rows ascending
///   tile trees:         ((c0 + c1) + (c2 + c3)) + ((c4 + c5) + (c6 + c7)) per (tile, p)
///   thread p - p0:      acc_p = p_0 + p_1 + ... (this batch's 32, then the next batch's)
constexpr int kDotThreads = 256;
constexpr int kDotTiles = kDotThreads / kChunk;
constexpr int kDotCols = 8;

template <class T>
__global__ void __launch_bounds__(kDotThreads)
    dots_kernel(index_t m, index_t np, const T* A, const T* B, T* out, index_t ldo, bool lower) {
  tridiag_cuda::pdl_begin();
  // chunk sums, tile by tile with one element of padding (the trees read a tile's 8 at once)
  __shared__ T ch[kDotCols][kDotTiles * (kChunk + 1)];
  __shared__ T tp[kDotCols][kDotTiles];
  const int t = threadIdx.x;
  const index_t q = blockIdx.y, p0 = index_t(blockIdx.x) * kDotCols;
  const index_t pend = lower ? (q < np ? q : np) : np;
  if (p0 >= pend) return;  // the whole block: before any barrier
  const int cols = int(pend - p0 < kDotCols ? pend - p0 : kDotCols);
  const T* b = B + m * q;
  const T* a = A + m * p0;
  const index_t ntl = (m + kTile - 1) / kTile;
  const int slot = (t >> 3) * (kChunk + 1) + (t & 7);
  T acc = T(0);
  for (index_t b0 = 0; b0 < ntl; b0 += kDotTiles) {
    const index_t cb = (b0 + (t >> 3)) * kTile + index_t(t & 7) * kChunk;
    // The chunk's 8 elements of B once, then column by column its 8 of A (one 128-byte line
    // for dd, reused at once from L1): the chains are the same, each c over u ascending. (Row
    // by row over all 8 columns, session 49's order, kept 8 lines per thread live: 256 KB per
    // block, more than L1 holds.)
    T bv[kChunk];
#pragma unroll
    for (int u = 0; u < kChunk; ++u)
      bv[u] = cb + u < m ? b[cb + u] : T(0);
    T s[kDotCols];
#pragma unroll
    for (int c = 0; c < kDotCols; ++c) {
      s[c] = T(0);
      if (c < cols) {
        const T* ac = a + m * c + cb;
#pragma unroll
        for (int u = 0; u < kChunk; ++u)
          if (cb + u < m) s[c] = madd_conj(ac[u], bv[u], s[c]);
      }
    }
#pragma unroll
    for (int c = 0; c < kDotCols; ++c)
      ch[c][slot] = s[c];
    __syncthreads();
    for (int e = t; e < kDotCols * kDotTiles; e += kDotThreads) {
      const int c = e / kDotTiles, tb = e % kDotTiles;
      tp[c][tb] = tile_tree(&ch[c][tb * (kChunk + 1)]);
    }
    __syncthreads();
    if (t < cols) {
      const index_t cnt = ntl - b0 < kDotTiles ? ntl - b0 : kDotTiles;
      acc = tridiag_cuda::serial_add(&tp[t][0], 1, cnt, acc, b0 == 0);
    }
    __syncthreads();
  }
  if (t < cols) out[p0 + t + ldo * q] = acc;
}

/// tfactor_kernel for k <= 32, the same chains, one thread per element (q, i) of T: the chains
/// advance together, one term a step, so T(q, l) is known when the step l term needs it.
///
///   step l = 0 .. k-2:  thread (q, i), q <= l < i:  z := madd(T(q, l), G(l, i), z)
///                       thread (q, l+1), q <= l:    T(q, l+1) := (-tau_{l+1}) * z (last term)
///                       barrier
///
/// Each z(q, i) takes its terms l = q .. i-1 in ascending order from +0, as tfactor_kernel's
/// chain; T(q, q) = tau_q and T(q, i) = 0 below the diagonal are set first. G and T in shared
/// memory (T(q, l) at q + 33 l).
template <class T>
__global__ void __launch_bounds__(1024)
    tfactor_block_kernel(index_t k, const T* tau, const T* G, T* Tm) {
  tridiag_cuda::pdl_begin();
  __shared__ T gs[32 * 32];
  __shared__ T ts[32 * 33];
  const int kk = int(k), e = threadIdx.x, q = e % kk, i = e / kk;
  const bool on = e < kk * kk;
  if (on) {
    gs[e] = G[e];  // G(l, i) at l + k i, only l < i read
    if (q >= i) ts[q + 33 * i] = q == i ? tau[i] : T(0);
  }
  const T mtau = on ? -tau[i] : T(0);
  T z = T(0);
  __syncthreads();
  for (int l = 0; l + 1 < kk; ++l) {
    if (on && q <= l && l < i) {
      z = madd(ts[q + 33 * l], gs[l + kk * i], z);
      if (i == l + 1) ts[q + 33 * i] = mtau * z;
    }
    __syncthreads();
  }
  if (on) Tm[e] = ts[q + 33 * i];
}

/// m_kernel for k <= 32, the same chains: T and Z in shared memory, one thread per element.
template <class T>
__global__ void __launch_bounds__(1024) m_smem_kernel(index_t k, const T* Tm, const T* Z, T* M) {
  tridiag_cuda::pdl_begin();
  __shared__ T ts[32 * 33];  // T(l, p) at l + 33 p
  __shared__ T zs[32 * 32];
  const int kk = int(k);
  for (int e = threadIdx.x; e < kk * kk; e += blockDim.x) {
    ts[e % kk + 33 * (e / kk)] = Tm[e];
    zs[e] = Z[e];
  }
  __syncthreads();
  for (int e = threadIdx.x; e < kk * kk; e += blockDim.x) {
    const int p = e % kk, q = e / kk;
    T s = T(0);
    for (int l = 0; l <= p; ++l)
      s = madd_conj(ts[l + 33 * p], zs[l + kk * q], s);
    M[p + kk * q] = s;
  }
}

/// AB[(r - c) + c ldab] = A(r, c) for 0 <= r - c <= b, zero below (the bulge's rows).
template <class T>
__global__ void band_kernel(index_t n, index_t b, const T* A, index_t lda, T* AB, index_t ldab) {
  const index_t c = blockIdx.x;
  for (index_t d = threadIdx.x; d < ldab; d += blockDim.x) {
    const index_t r = c + d;
    AB[d + ldab * c] = (d <= b && r < n) ? A[r + lda * c] : T(0);
  }
}

}  // namespace two_stage_cuda

namespace {

using namespace two_stage_cuda;

template <class T>
constexpr index_t kLdMulOf2 = sizeof(T) >= 16 ? 1 : index_t(16 / sizeof(T));

/// panel_qr_rf_kernel<T, NB>'s dynamic shared-memory attribute, set once per instance (by the
/// constructor, not per launch); false when the device cannot run it (its opt-in shared memory
/// per block is too small, or no block fits on an SM).
template <class T, int NB>
bool rf_prepare_one(int smem_optin) {
  constexpr std::size_t bytes = panel_rf::smem_bytes<T, NB>();
  if (bytes > std::size_t(smem_optin)) return false;
  ck(cudaFuncSetAttribute(panel_rf::panel_qr_rf_kernel<T, NB>,
                          cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)),
     "panel_qr_rf_kernel: cudaFuncSetAttribute");
  int blocks = 0;
  ck(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, panel_rf::panel_qr_rf_kernel<T, NB>,
                                                   panel_rf::kThreads, bytes),
     "panel_qr_rf_kernel: occupancy");
  return blocks > 0;
}

/// The largest NB (m <= 4096 NB) for which the current device runs panel_qr_rf_kernel<T, NB>,
/// 0 for none; the instances' attributes set. NB = 1 .. panel_rf::kMaxNb<T> need increasing
/// shared memory, so the first that does not fit ends the list.
template <class T>
int rf_prepare() {
  int dev = 0, optin = 0;
  ck(cudaGetDevice(&dev), "cudaGetDevice");
  ck(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev),
     "cudaDeviceGetAttribute");
  if (!rf_prepare_one<T, 1>(optin)) return 0;
  if (!rf_prepare_one<T, 2>(optin)) return 1;
  if constexpr (panel_rf::kMaxNb<T> >= 4) {
    if (!rf_prepare_one<T, 3>(optin)) return 2;
    if (!rf_prepare_one<T, 4>(optin)) return 3;
  }
  return panel_rf::kMaxNb<T>;
}

/// One launch of panel_qr_rf_kernel<T, NB> (b blocks), with panel_qr_kernel's arguments.
template <class T, int NB>
cudaError_t launch_rf(cudaStream_t st, bool pdl, index_t m, index_t k, index_t b, T* P, index_t lda,
                      T* tau, real_t<T>* beta, real_t<T>* alpha_im, unsigned* flag,
                      unsigned long long* ticket, unsigned long long base, unsigned epoch) {
  return launch_pdl(panel_rf::panel_qr_rf_kernel<T, NB>, dim3(unsigned(b)),
                    dim3(panel_rf::kThreads), panel_rf::smem_bytes<T, NB>(), st, pdl, m, k, P, lda,
                    tau, beta, alpha_im, flag, ticket, base, epoch);
}

/// The panel QR of an m x b panel P (k = min(b, m) reflectors) as one kernel: with rf_nb > 0
/// (EIGSOLVE_GPU_QR1=2, the default, and rf_prepare's result) panel_qr_rf_kernel<T, NB>, NB =
/// ceil(m / 4096), where NB <= rf_nb, i.e. m <= 16384 for s, d, c and m <= 8192 for z, dd on an
/// H100/H200 (NB = 1 .. 4 and 1 .. 2 are compiled); every other panel, and rf_nb = 0,
/// panel_qr_kernel. The two give the same bits, so which one runs a panel never shows in the
/// result.
template <class T>
void launch_panel_qr(int rf_nb, cudaStream_t st, bool pdl, index_t m, index_t k, index_t b, T* P,
                     index_t lda, T* tau, real_t<T>* beta, real_t<T>* alpha_im, unsigned* flag,
                     unsigned long long* ticket, unsigned long long base, unsigned epoch) {
  const index_t nb = (m + panel_rf::kBatch - 1) / panel_rf::kBatch;
  if (m >= 1 && nb <= rf_nb) {
    cudaError_t err = cudaErrorInvalidValue;
    switch (nb) {
      case 1:
        err = launch_rf<T, 1>(st, pdl, m, k, b, P, lda, tau, beta, alpha_im, flag, ticket, base,
                              epoch);
        break;
      case 2:
        err = launch_rf<T, 2>(st, pdl, m, k, b, P, lda, tau, beta, alpha_im, flag, ticket, base,
                              epoch);
        break;
      case 3:
        if constexpr (panel_rf::kMaxNb<T> >= 3)
          err = launch_rf<T, 3>(st, pdl, m, k, b, P, lda, tau, beta, alpha_im, flag, ticket, base,
                                epoch);
        break;
      case 4:
        if constexpr (panel_rf::kMaxNb<T> >= 4)
          err = launch_rf<T, 4>(st, pdl, m, k, b, P, lda, tau, beta, alpha_im, flag, ticket, base,
                                epoch);
        break;
      default:
        break;
    }
    ck(err, "panel_qr_rf_kernel");
    return;
  }
  ck(launch_pdl(panel_qr_kernel<T>, dim3(unsigned(b)), dim3(kSumThreads), 0, st, pdl, m, k, P, lda,
                tau, beta, alpha_im, flag, ticket, base, epoch),
     "panel_qr_kernel");
}

/// EIGSOLVE_GPU_QR1: "0" -> 0, "1" -> 1, anything else (unset included) -> 2.
int qr1_mode() {
  const char* v = std::getenv("EIGSOLVE_GPU_QR1");
  if (!v || !*v) return 2;
  if (std::strcmp(v, "0") == 0) return 0;
  if (std::strcmp(v, "1") == 0) return 1;
  return 2;
}

template <class T>
class TwoStageDevice final : public TwoStageCuda<T> {
 public:
  TwoStageDevice(index_t n, index_t b, const T* A, index_t lda, bool device_input,
                 TwoStageDeviceTimes* times, bool keep_reflectors)
      : n_(n),
        b_(std::max<index_t>(b, 1)),
        ldd_((std::max<index_t>(n, 1) + kLdMulOf2<T> - 1) / kLdMulOf2<T> * kLdMulOf2<T>),
        keep_(keep_reflectors),
        ldv2_(std::max<index_t>(n, 1)),
        ldt2_(std::max<index_t>(chase_levels(n, std::max<index_t>(b, 1)), 1)),
        times_(times) {
    if (cuda_device_count() == 0) throw DeviceError("--device cuda: no CUDA device is visible");
    const std::uint64_t need = two_stage_device_bytes<T>(n, b_, keep_);
    std::size_t free_b = 0, total_b = 0;
    ck(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
    require_device_memory("this problem: order " + std::to_string(n) + " in " +
                              ScalarTraits<T>::name + " (two-stage)",
                          need, free_b, total_b);
    pdl_ = env_flag("EIGSOLVE_GPU_PDL", true);
    lookahead_ = env_flag("EIGSOLVE_GPU_LOOKAHEAD", true);
    async_r2k_ = env_flag("EIGSOLVE_GPU_RANK2K_ASYNC", true);
    vec_r2k_ = env_flag("EIGSOLVE_GPU_RANK2K_VEC", true);
    r2k_bound_ = env_flag("EIGSOLVE_GPU_R2K_BOUND", true);
    small_fast_ = env_flag("EIGSOLVE_GPU_STAGE1_SMALL", false);
    qr_mode_ = qr1_mode();
    if (qr_mode_ == 2) rf_nb_ = rf_prepare<T>();
    profile_ = env_flag("EIGSOLVE_GPU_PROFILE", false);
    ck(cudaStreamCreateWithFlags(&st_, cudaStreamNonBlocking), "cudaStreamCreate");
    {  // the next panel's QR (lookahead) goes first wherever the update leaves room
      int lo = 0, hi = 0;
      ck(cudaDeviceGetStreamPriorityRange(&lo, &hi), "cudaDeviceGetStreamPriorityRange");
      ck(cudaStreamCreateWithPriority(&st2_, cudaStreamNonBlocking, hi), "cudaStreamCreate");
    }
    ck(cudaEventCreateWithFlags(&ev_upd_, cudaEventDisableTiming), "cudaEventCreate");
    ck(cudaEventCreateWithFlags(&ev_qr_, cudaEventDisableTiming), "cudaEventCreate");
    if (profile_)
      for (auto& e : pev_)
        ck(cudaEventCreate(&e), "cudaEventCreate");
    ck(cudaEventCreate(&ev0_), "cudaEventCreate");
    ck(cudaEventCreate(&ev1_), "cudaEventCreate");
    ck(cudaEventCreate(&ev2_), "cudaEventCreate");
    const std::size_t nn = std::size_t(std::max<index_t>(n, 1));
    const std::size_t panel = nn * std::size_t(b_) * sizeof(T);
    alloc(&dA_, std::size_t(ldd_) * nn * sizeof(T));
    alloc(&dV_, panel);
    alloc(&dX_, panel);
    alloc(&dY_, panel);
    alloc(&dW_, panel);
    alloc(&dsmall_, 4 * std::size_t(b_) * std::size_t(b_) * sizeof(T));
    alloc(&dtau_, nn * sizeof(T));
    alloc(&dbeta_, 2 * std::size_t(b_) * sizeof(real_t<T>));  // beta, then imag(alpha)
    alloc(&dAB_, (2 * std::size_t(b_) + 1) * nn * sizeof(T));
    alloc(&dd_, nn * sizeof(real_t<T>));
    alloc(&de_, nn * sizeof(real_t<T>));
    alloc(&dmax_, sizeof(unsigned long long));
    alloc(&dflag_, std::size_t(b_) * sizeof(unsigned));
    alloc(&dticket_, sizeof(unsigned long long));
    if (keep_) {
      const std::size_t v2 = std::size_t(ldv2_) * nn * sizeof(T);
      const std::size_t t2 = std::size_t(ldt2_) * nn * sizeof(T);
      alloc(&dV2_, v2);
      alloc(&dtau2_, t2);
      // what the chase does not write stays +0, as in tridiagonalize_two_stage's refl
      ck(cudaMemsetAsync(dV2_, 0, v2, st_), "V2");
      ck(cudaMemsetAsync(dtau2_, 0, t2, st_), "tau2");
    }
    // tau1[j] for j >= n - b is never written by stage 1: +0, as on the CPU
    ck(cudaMemsetAsync(dtau_, 0, nn * sizeof(T), st_), "tau1");
    ck(cudaMemsetAsync(dflag_, 0, std::size_t(b_) * sizeof(unsigned), st_), "flags");
    ck(cudaMemsetAsync(dticket_, 0, sizeof(unsigned long long), st_), "ticket");
    const auto t0 = std::chrono::steady_clock::now();
    if (n > 0)
      ck(cudaMemcpy2DAsync(dA_, ldd_ * sizeof(T), A, lda * sizeof(T), n * sizeof(T), n,
                           device_input ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice, st_),
         "upload A");
    ck(cudaStreamSynchronize(st_), "upload A");
    if (times_)
      times_->upload +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  ~TwoStageDevice() override {
    cudaStreamSynchronize(st_);
    for (void* p : {static_cast<void*>(dA_), static_cast<void*>(dV_), static_cast<void*>(dX_),
                    static_cast<void*>(dY_), static_cast<void*>(dW_), static_cast<void*>(dsmall_),
                    static_cast<void*>(dtau_), static_cast<void*>(dbeta_), static_cast<void*>(dAB_),
                    static_cast<void*>(dd_), static_cast<void*>(de_), static_cast<void*>(dmax_),
                    static_cast<void*>(dflag_), static_cast<void*>(dticket_),
                    static_cast<void*>(dV2_), static_cast<void*>(dtau2_)})
      if (p) cudaFree(p);
    cudaEventDestroy(ev0_);
    cudaEventDestroy(ev1_);
    cudaEventDestroy(ev2_);
    cudaStreamSynchronize(st2_);
    cudaEventDestroy(ev_upd_);
    cudaEventDestroy(ev_qr_);
    for (auto e : pev_)
      if (e) cudaEventDestroy(e);
    cudaStreamDestroy(st2_);
    cudaStreamDestroy(st_);
  }

  double lower_absmax() override {
    if (n_ == 0) return 0;
    ck(cudaMemsetAsync(dmax_, 0, sizeof(unsigned long long), st_), "absmax");
    tridiag_cuda::lower_absmax_kernel<T><<<1024, 256, 0, st_>>>(n_, dA_, ldd_, dmax_);
    ck(cudaGetLastError(), "lower_absmax_kernel");
    unsigned long long bits = 0;
    ck(cudaMemcpyAsync(&bits, dmax_, sizeof bits, cudaMemcpyDeviceToHost, st_), "absmax");
    ck(cudaStreamSynchronize(st_), "absmax");
    double a = 0;
    std::memcpy(&a, &bits, sizeof a);
    return a;
  }

  void scale_lower(int k) override {
    if (n_ == 0 || k == 0) return;
    tridiag_cuda::scale_lower_kernel<T><<<1024, 256, 0, st_>>>(n_, dA_, ldd_, k);
    ck(cudaGetLastError(), "scale_lower_kernel");
  }

  void stage1(index_t b, T* A, index_t lda) override {
    if (b != b_) throw UsageError("two-stage device: band width differs from the allocation's");
    if (n_ == 0) return;
    reduce_to_band_dev(b);
    ck(cudaMemcpy2DAsync(A, lda * sizeof(T), dA_, ldd_ * sizeof(T), n_ * sizeof(T), n_,
                         cudaMemcpyDeviceToHost, st_),
       "download A");
    ck(cudaStreamSynchronize(st_), "two-stage stage 1");
  }

  void run(index_t b, real_t<T>* d, real_t<T>* e) override {
    using R = real_t<T>;
    if (b != b_) throw UsageError("two-stage device: band width differs from the allocation's");
    const index_t n = n_;
    if (n == 0) return;
    ck(cudaEventRecord(ev0_, st_), "cudaEventRecord");
    reduce_to_band_dev(b);
    ck(cudaEventRecord(ev1_, st_), "cudaEventRecord");
    const index_t ldab = 2 * b + 1;
    band_kernel<T><<<unsigned(n), 128, 0, st_>>>(n, b, dA_, ldd_, dAB_, ldab);
    ck(cudaGetLastError(), "band_kernel");
    if (keep_)
      band_to_tridiagonal_cuda<T>(n, b, dAB_, ldab, dd_, de_, st_, dV2_, ldv2_, dtau2_, ldt2_);
    else
      band_to_tridiagonal_cuda<T>(n, b, dAB_, ldab, dd_, de_, st_);
    ck(cudaEventRecord(ev2_, st_), "cudaEventRecord");
    ck(cudaMemcpyAsync(d, dd_, std::size_t(n) * sizeof(R), cudaMemcpyDeviceToHost, st_), "d");
    if (n > 1)
      ck(cudaMemcpyAsync(e, de_, std::size_t(n - 1) * sizeof(R), cudaMemcpyDeviceToHost, st_), "e");
    ck(cudaStreamSynchronize(st_), "two-stage reduction");
    ran_ = true;
    if (times_) {
      float ms1 = 0, ms2 = 0;
      ck(cudaEventElapsedTime(&ms1, ev0_, ev1_), "cudaEventElapsedTime");
      ck(cudaEventElapsedTime(&ms2, ev1_, ev2_), "cudaEventElapsedTime");
      times_->stage1 += ms1 * 1e-3;
      times_->stage2 += ms2 * 1e-3;
    }
    if (profile_) {
      float ms2 = 0;
      ck(cudaEventElapsedTime(&ms2, ev1_, ev2_), "cudaEventElapsedTime");
      std::fprintf(stderr,
                   "two-stage profile (%s, n = %lld, b = %lld; steps serialised): panel QR %.3f s, "
                   "V and T %.3f s, SYMM %.3f s, Y/Z/M/W %.3f s, rank-2k %.3f s; band and chase "
                   "%.3f s\n",
                   ScalarTraits<T>::name, (long long)n, (long long)b, prof_[0], prof_[1], prof_[2],
                   prof_[3], prof_[4], ms2 * 1e-3);
    }
  }

  TwoStageDeviceReflectors<T> reflectors() const override {
    check_reflectors("reflectors");
    TwoStageDeviceReflectors<T> r;
    r.n = n_;
    r.b = b_;
    r.dA = dA_;
    r.ldda = ldd_;
    r.dtau1 = dtau_;
    r.dV2 = dV2_;
    r.ldv2 = ldv2_;
    r.dtau2 = dtau2_;
    r.ldt2 = ldt2_;
    return r;
  }

  void reflectors_to_host(T* A, index_t lda, TwoStageReflectors<T>& refl) override {
    check_reflectors("reflectors_to_host");
    const std::size_t nn = std::size_t(n_);
    refl.b = b_;
    refl.ldv2 = ldv2_;
    refl.ldt2 = ldt2_;
    refl.tau1.assign(nn, T(0));
    refl.V2.assign(std::size_t(ldv2_) * nn, T(0));
    refl.tau2.assign(std::size_t(ldt2_) * nn, T(0));
    if (n_ == 0) return;
    ck(cudaMemcpy2DAsync(A, lda * sizeof(T), dA_, ldd_ * sizeof(T), n_ * sizeof(T), n_,
                         cudaMemcpyDeviceToHost, st_),
       "download A");
    ck(cudaMemcpyAsync(refl.tau1.data(), dtau_, nn * sizeof(T), cudaMemcpyDeviceToHost, st_),
       "download tau1");
    ck(cudaMemcpyAsync(refl.V2.data(), dV2_, refl.V2.size() * sizeof(T), cudaMemcpyDeviceToHost,
                       st_),
       "download V2");
    ck(cudaMemcpyAsync(refl.tau2.data(), dtau2_, refl.tau2.size() * sizeof(T),
                       cudaMemcpyDeviceToHost, st_),
       "download tau2");
    ck(cudaStreamSynchronize(st_), "two-stage reflectors");
  }

 private:
  void check_reflectors(const char* what) const {
    if (!keep_)
      throw UsageError(std::string("two-stage device: ") + what +
                       "() needs an object made with keep_reflectors");
    if (!ran_ && n_ > 0)
      throw UsageError(std::string("two-stage device: ") + what + "() before run()");
  }

  /// The panel QR of the panel at j0 (step 1) on stream `st`; pdl: its kernels with
  /// programmatic dependent launch (only on the stream whose previous kernel they follow).
  void panel_qr(index_t j0, cudaStream_t st, bool pdl) {
    const index_t b = b_, lda = ldd_;
    const index_t r0 = j0 + b, m = n_ - r0, k = std::min(b, m);
    T* P = dA_ + r0 + lda * j0;
    if (qr_mode_ != 0) {
      const unsigned long long base = qr_launches_ * static_cast<unsigned long long>(b);
      const unsigned epoch = static_cast<unsigned>(qr_launches_ + 1);
      ++qr_launches_;
      launch_panel_qr<T>(rf_nb_, st, pdl, m, k, b, P, lda, dtau_ + j0, dbeta_, dbeta_ + b, dflag_,
                         dticket_, base, epoch);
      return;
    }
    for (index_t i = 0; i < k; ++i) {
      if constexpr (is_complex_v<T>) {
        ck(launch_pdl(record_alpha_im_kernel<T>, dim3(1), dim3(1), 0, st, pdl,
                      static_cast<const T*>(P), lda, i, dbeta_ + b),
           "record_alpha_im_kernel");
        pdl = pdl_;
      }
      // larfg_kernel's column g = 0 of the matrix "P(i-1.., i)": alpha = P(i, i), x below.
      ck(launch_pdl(tridiag_cuda::larfg_kernel<T>, dim3(1), dim3(1024), 0, st, pdl,
                    index_t(m - i + 1), index_t(0), P + (i - 1) + lda * i, lda, dbeta_ + i,
                    dtau_ + j0 + i),
         "larfg_kernel");
      if (b - 1 - i > 0)
        ck(launch_pdl(panel_apply_kernel<T>, dim3(unsigned(b - 1 - i)), dim3(kSumThreads), 0, st,
                      pdl, m, i, P, lda, static_cast<const T*>(dtau_ + j0 + i)),
           "panel_apply_kernel");
      pdl = pdl_;  // after the first kernel on st, the rest follow it
    }
  }

  void mark(int step) {
    if (!profile_) return;
    ck(cudaEventRecord(pev_[step], st_), "cudaEventRecord");
  }

  /// Stage 1 on dA_, queued on st_ (docs/canonical-two-stage.md, steps 1-8 per panel).
  /// Lookahead (b <= 64, not under EIGSOLVE_GPU_PROFILE): the rank-2k update of A22's first
  /// tile column (which holds the next panel) runs first; the next panel's QR then runs on a
  /// second stream beside the update of the rest of A22 (the two touch disjoint elements; each
  /// element keeps its chain, so the bits do not change). EIGSOLVE_GPU_LOOKAHEAD=0: in order.
  void reduce_to_band_dev(index_t b) {
    const index_t n = n_;
    const index_t lda = ldd_;
    const bool ahead = lookahead_ && !profile_ && b <= 64;
    if constexpr (is_complex_v<T>)
      ck(launch_pdl(diag_real_kernel<T>, dim3(unsigned((n + 255) / 256)), dim3(256), 0, st_, false,
                    n, dA_, lda),
         "diag_real_kernel");
    T* G = dsmall_;
    T* Tm = G + b * b;
    T* Z = Tm + b * b;
    T* M = Z + b * b;
    bool qr_done = false;  // the panel's QR already ran on st2_ (lookahead)
    for (index_t j0 = 0; j0 + b < n; j0 += b) {
      const index_t r0 = j0 + b, m = n - r0, k = std::min(b, m);
      T* P = dA_ + r0 + lda * j0;
      T* A22 = dA_ + r0 + lda * r0;
      mark(0);
      // 1. panel QR
      bool pdl = pdl_;
      if (qr_done) {
        ck(cudaStreamWaitEvent(st_, ev_qr_, 0), "cudaStreamWaitEvent");
        pdl = false;  // the first kernel after a cross-stream wait: a plain launch
      } else {
        panel_qr(j0, st_, pdl_);
      }
      mark(1);
      const dim3 rk(unsigned((m + 127) / 128), unsigned(k));
      ck(launch_pdl(form_v_kernel<T>, rk, dim3(128), 0, st_, pdl, m, k, P, lda,
                    static_cast<const real_t<T>*>(dbeta_),
                    static_cast<const real_t<T>*>(dbeta_ + b_), static_cast<const T*>(dtau_ + j0),
                    dV_),
         "form_v_kernel");
      // 2. T
      const bool small = small_fast_ && k <= 32;  // session 49's kernels (the same chains)
      const dim3 dg(unsigned((k + kDotCols - 1) / kDotCols), unsigned(k));
      if (k > 1 && small)
        ck(launch_pdl(dots_kernel<T>, dg, dim3(kDotThreads), 0, st_, pdl_, m, k,
                      static_cast<const T*>(dV_), static_cast<const T*>(dV_), G, k, true),
           "dots_kernel (gram)");
      else if (k > 1)
        ck(launch_pdl(gram_kernel<T>, dim3(unsigned(k * k)), dim3(kSumThreads), 0, st_, pdl_, m, k,
                      static_cast<const T*>(dV_), G),
           "gram_kernel");
      if (small)
        ck(launch_pdl(tfactor_block_kernel<T>, dim3(1), dim3(unsigned(((k * k + 31) / 32) * 32)), 0,
                      st_, pdl_, k, static_cast<const T*>(dtau_ + j0), static_cast<const T*>(G),
                      Tm),
           "tfactor_block_kernel");
      else
        ck(launch_pdl(tfactor_kernel<T>, dim3(1), dim3(unsigned(((k + 31) / 32) * 32)), 0, st_,
                      pdl_, k, static_cast<const T*>(dtau_ + j0), static_cast<const T*>(G), Tm),
           "tfactor_kernel");
      mark(2);
      // 3. X = A22 V (a plain launch: the next kernel waits for it as for any other)
      symm_canonical_gpu<T>(m, k, A22, lda, dV_, m, dX_, m, st_);
      mark(3);
      // 4-7. Y, Z, M, W
      ck(launch_pdl(y_kernel<T>, rk, dim3(128), 0, st_, pdl_, m, k, static_cast<const T*>(dX_),
                    static_cast<const T*>(Tm), dY_),
         "y_kernel");
      if (small) {
        ck(launch_pdl(dots_kernel<T>, dg, dim3(kDotThreads), 0, st_, pdl_, m, k,
                      static_cast<const T*>(dV_), static_cast<const T*>(dY_), Z, k, false),
           "dots_kernel (Z)");
        ck(launch_pdl(m_smem_kernel<T>, dim3(1), dim3(unsigned(((k * k + 31) / 32) * 32)), 0, st_,
                      pdl_, k, static_cast<const T*>(Tm), static_cast<const T*>(Z), M),
           "m_smem_kernel");
      } else {
        ck(launch_pdl(zdot_kernel<T>, dim3(unsigned(k * k)), dim3(kSumThreads), 0, st_, pdl_, m, k,
                      static_cast<const T*>(dV_), static_cast<const T*>(dY_), Z),
           "zdot_kernel");
        ck(launch_pdl(m_kernel<T>, dim3(1), dim3(256), 0, st_, pdl_, k, static_cast<const T*>(Tm),
                      static_cast<const T*>(Z), M),
           "m_kernel");
      }
      ck(launch_pdl(w_kernel<T>, rk, dim3(128), 0, st_, pdl_, m, k, static_cast<const T*>(dV_),
                    static_cast<const T*>(M), static_cast<const T*>(dY_), dW_),
         "w_kernel");
      mark(4);
      // 8. A22 -= V W^H + W V^H
      const bool next = r0 + b < n;  // a next panel exists
      if (ahead && next && m > 64) {
        rank2k(m, k, A22, lda, 0, m, true);  // tile column 0: the next panel's columns
        ck(cudaEventRecord(ev_upd_, st_), "cudaEventRecord");
        ck(cudaStreamWaitEvent(st2_, ev_upd_, 0), "cudaStreamWaitEvent");
        panel_qr(r0, st2_, false);
        ck(cudaEventRecord(ev_qr_, st2_), "cudaEventRecord");
        rank2k(m - 64, k, A22 + 64 + lda * 64, lda, 64, m, false);  // the rest of A22
        qr_done = true;
      } else {
        rank2k(m, k, A22, lda, 0, m, false);
        qr_done = false;
      }
      mark(5);
      if (profile_) {
        ck(cudaEventSynchronize(pev_[5]), "profile");
        for (int q = 0; q < 5; ++q) {
          float ms = 0;
          ck(cudaEventElapsedTime(&ms, pev_[q], pev_[q + 1]), "cudaEventElapsedTime");
          prof_[q] += ms * 1e-3;
        }
      }
    }
  }

  template <class P>
  void alloc(P** p, std::size_t bytes) {
    ck(cudaMalloc(reinterpret_cast<void**>(p), std::max<std::size_t>(bytes, 16)), "cudaMalloc");
  }

  /// The one-stage's canonical rank-2k kernels (the same choice per precision as
  /// tridiag_device.cu's rank2k(), the same bits) on the m x m matrix A with V, W from row `off`
  /// (leading dimension ldvw); strip: only its first tile column (the grid's first nt tiles).
  void rank2k(index_t m, index_t k, T* A, index_t lda, index_t off, index_t ldvw, bool strip) {
    const index_t nt = (m + 63) / 64;
    const dim3 tiles(unsigned(strip ? nt : nt * (nt + 1) / 2));
    const T* V = dV_ + off;
    const T* W = dW_ + off;
    constexpr int kBound = tridiag_cuda::kRank2kBound2<T> ? 2 : 0;  // z, sloppy dd: 2 per SM
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                  std::is_same_v<T, Complex<float>>)
      ck(launch_pdl(tridiag_cuda::rank2k_wide_kernel<T>, tiles, dim3(128), 0, st_, pdl_, m, k, V,
                    ldvw, W, ldvw, A, lda, nt, false, async_r2k_, vec_r2k_),
         "rank2k");
    else if (tridiag_cuda::kRank2kBound2<T> && r2k_bound_)
      ck(launch_pdl(tridiag_cuda::rank2k_kernel<T, kBound>, tiles, dim3(256), 0, st_, pdl_, m, k, V,
                    ldvw, W, ldvw, A, lda, nt, false),
         "rank2k");
    else
      ck(launch_pdl(tridiag_cuda::rank2k_kernel<T>, tiles, dim3(256), 0, st_, pdl_, m, k, V, ldvw,
                    W, ldvw, A, lda, nt, false),
         "rank2k");
  }

  index_t n_, b_, ldd_;
  bool keep_ = false;  ///< keep both stages' reflectors (eigenvectors)
  bool ran_ = false;   ///< run() completed
  index_t ldv2_ = 1, ldt2_ = 1;
  T *dV2_ = nullptr, *dtau2_ = nullptr;
  bool pdl_ = true;        ///< EIGSOLVE_GPU_PDL=0: plain launches (the same bits)
  bool lookahead_ = true;  ///< EIGSOLVE_GPU_LOOKAHEAD=0: the next panel's QR after the update
  bool async_r2k_ = true;  ///< EIGSOLVE_GPU_RANK2K_ASYNC=0: the rank-2k stages by registers
  bool vec_r2k_ = true;    ///< EIGSOLVE_GPU_RANK2K_VEC=0: the rank-2k moves A by element
  /// EIGSOLVE_GPU_R2K_BOUND=0: z's and dd's rank-2k without the 2-blocks-per-SM bound
  bool r2k_bound_ = true;
  /// EIGSOLVE_GPU_STAGE1_SMALL=1: the panel's Gram matrix, T factor, Z and M by session 49's
  /// kernels (k <= 32) instead of one block per dot and global loads on the T chains; the same
  /// chains. Off: bitwise the CPU's, but slower on an H100 (session 50, bench/NOTES.md)
  bool small_fast_ = false;
  int qr_mode_ = 2;  ///< EIGSOLVE_GPU_QR1: 0 two kernels per column, 1 panel_qr_kernel, 2 rf
  int rf_nb_ = 0;    ///< qr_mode_ 2: panel_qr_rf_kernel for m <= 4096 rf_nb_ (rf_prepare)
  unsigned* dflag_ = nullptr;
  unsigned long long* dticket_ = nullptr;
  unsigned long long qr_launches_ = 0;
  bool profile_ = false;  ///< EIGSOLVE_GPU_PROFILE=1: per-step seconds (serialised)
  cudaStream_t st2_ = nullptr;
  cudaEvent_t ev_upd_ = nullptr, ev_qr_ = nullptr;
  cudaEvent_t pev_[6] = {};
  double prof_[5] = {};
  TwoStageDeviceTimes* times_;
  cudaStream_t st_ = nullptr;
  cudaEvent_t ev0_ = nullptr, ev1_ = nullptr, ev2_ = nullptr;
  T* dA_ = nullptr;
  T *dV_ = nullptr, *dX_ = nullptr, *dY_ = nullptr, *dW_ = nullptr, *dsmall_ = nullptr;
  T* dtau_ = nullptr;
  real_t<T>* dbeta_ = nullptr;
  T* dAB_ = nullptr;
  real_t<T>*dd_ = nullptr, *de_ = nullptr;
  unsigned long long* dmax_ = nullptr;
};

}  // namespace

template <class T>
std::uint64_t two_stage_device_bytes(index_t n, index_t b, bool keep_reflectors) {
  const std::uint64_t nn = std::uint64_t(std::max<index_t>(n, 1));
  const std::uint64_t ld = (nn + kLdMulOf2<T> - 1) / kLdMulOf2<T> * kLdMulOf2<T>;
  const std::uint64_t bb = std::uint64_t(std::max<index_t>(b, 1));
  // V2 (ld n, n columns) and tau2 (ld chase_levels, n columns) with keep_reflectors
  const std::uint64_t lt2 =
      std::uint64_t(std::max<index_t>(chase_levels(n, std::max<index_t>(b, 1)), 1));
  const std::uint64_t refl = keep_reflectors ? nn * nn + lt2 * nn : 0;
  return sizeof(T) * (ld * nn + 4 * nn * bb + 4 * bb * bb + nn + (2 * bb + 1) * nn + refl) +
         sizeof(real_t<T>) * (2 * nn + bb) + (std::uint64_t(1) << 20);
}

template <class T>
std::unique_ptr<TwoStageCuda<T>> make_two_stage_cuda(index_t n, index_t b, const T* A, index_t lda,
                                                     bool device_input, TwoStageDeviceTimes* times,
                                                     bool keep_reflectors) {
  return std::make_unique<TwoStageDevice<T>>(n, b, A, lda, device_input, times, keep_reflectors);
}

template <class T>
void panel_qr_cuda_for_test(index_t m, index_t b, T* P, index_t lda, T* tau, int mode) {
  using R = real_t<T>;
  if (mode != 1 && mode != 2) throw UsageError("panel_qr_cuda_for_test: mode 1 or 2");
  if (m < 1 || b < 1 || lda < m) throw UsageError("panel_qr_cuda_for_test: m, b >= 1, lda >= m");
  if (cuda_device_count() == 0) throw DeviceError("panel_qr_cuda_for_test: no CUDA device");
  const index_t k = std::min(b, m);
  const int rf_nb = mode == 2 ? rf_prepare<T>() : 0;
  struct Bufs {  // freed on every path, exceptions included
    T *P = nullptr, *tau = nullptr;
    R* beta = nullptr;  // beta, then imag(alpha): b each
    unsigned* flag = nullptr;
    unsigned long long* ticket = nullptr;
    cudaStream_t st = nullptr;
    ~Bufs() {
      if (st) cudaStreamSynchronize(st);
      for (void* p : {static_cast<void*>(P), static_cast<void*>(tau), static_cast<void*>(beta),
                      static_cast<void*>(flag), static_cast<void*>(ticket)})
        if (p) cudaFree(p);
      if (st) cudaStreamDestroy(st);
    }
  } d;
  const std::size_t nb = std::size_t(b);
  ck(cudaStreamCreateWithFlags(&d.st, cudaStreamNonBlocking), "cudaStreamCreate");
  ck(cudaMalloc(&d.P, std::size_t(lda) * nb * sizeof(T)), "cudaMalloc");
  ck(cudaMalloc(&d.tau, nb * sizeof(T)), "cudaMalloc");
  ck(cudaMalloc(&d.beta, 2 * nb * sizeof(R)), "cudaMalloc");
  ck(cudaMalloc(&d.flag, nb * sizeof(unsigned)), "cudaMalloc");
  ck(cudaMalloc(&d.ticket, sizeof(unsigned long long)), "cudaMalloc");
  ck(cudaMemcpyAsync(d.P, P, std::size_t(lda) * nb * sizeof(T), cudaMemcpyHostToDevice, d.st),
     "upload P");
  ck(cudaMemsetAsync(d.tau, 0, nb * sizeof(T), d.st), "tau");
  ck(cudaMemsetAsync(d.flag, 0, nb * sizeof(unsigned), d.st), "flags");
  ck(cudaMemsetAsync(d.ticket, 0, sizeof(unsigned long long), d.st), "ticket");
  launch_panel_qr<T>(rf_nb, d.st, false, m, k, b, d.P, lda, d.tau, d.beta, d.beta + b, d.flag,
                     d.ticket, 0ull, 1u);
  std::vector<R> beta(2 * nb);
  ck(cudaMemcpyAsync(P, d.P, std::size_t(lda) * nb * sizeof(T), cudaMemcpyDeviceToHost, d.st),
     "download P");
  ck(cudaMemcpyAsync(tau, d.tau, std::size_t(k) * sizeof(T), cudaMemcpyDeviceToHost, d.st),
     "download tau");
  ck(cudaMemcpyAsync(beta.data(), d.beta, 2 * nb * sizeof(R), cudaMemcpyDeviceToHost, d.st),
     "download beta");
  ck(cudaStreamSynchronize(d.st), "panel QR (test)");
  // form_v_kernel's P(q, q) := beta_q, or (beta_q, imag(alpha_q)) for complex T with tau_q = 0
  for (index_t q = 0; q < k; ++q) {
    T dq = T(beta[std::size_t(q)]);
    if constexpr (is_complex_v<T>)
      if (tau[q].re == R(0) && tau[q].im == R(0)) dq = T(beta[std::size_t(q)], beta[nb + q]);
    P[q + lda * q] = dq;
  }
}

#define EIGSOLVE_INSTANTIATE_TWO_STAGE_CUDA(T)                                \
  template std::uint64_t two_stage_device_bytes<T>(index_t, index_t, bool);   \
  template std::unique_ptr<TwoStageCuda<T>> make_two_stage_cuda<T>(           \
      index_t, index_t, const T*, index_t, bool, TwoStageDeviceTimes*, bool); \
  template void panel_qr_cuda_for_test<T>(index_t, index_t, T*, index_t, T*, int);
EIGSOLVE_FOR_EACH_SCALAR(EIGSOLVE_INSTANTIATE_TWO_STAGE_CUDA)
#undef EIGSOLVE_INSTANTIATE_TWO_STAGE_CUDA

}  // namespace eigsolve
