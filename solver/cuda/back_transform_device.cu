// The canonical back-transformation Z := Q Z on the device (solver/back_transform_cuda.hpp), in
// the order of solver/back_transform.cpp (docs/canonical-backtransform.md), so the bits are the
// CPU's. Compiled with -fmad=false: nothing is fused except madd's explicit fmas.
//
//   block b (i0 = 32b, k reflectors, L = n-1-i0 rows; row r = matrix row i0+1+r), V(r, c) =
//   0 (r < c), 1 (r == c), A(i0+1+r, i0+c) (r > c): the zeros and the unit are terms.
//
//   T factors, once for all b (stream order):
//     step1_kernel<ZisV>  P(t, q, c)  = tile partials of conj(V(:, c)) . V(:, q)
//     sum_kernel          G(c, q)     = P(0) + P(1) + ...  (ascending tiles)
//     tfactor_kernel      T_b         = the recurrence (one warp, c ascending)
//
//   per column panel of Z (mc columns; columns are independent), b = B-1 .. 0:
//
//        Z rows i0+1.. (L x mc)            grid (column ranges, 64-row tiles t)
//     +------------------------+
//     | tile 0 |  step1_kernel | ---> P(t, j, c): 8 chunk chains of 8 rows (thread = (c, cols)),
//     | tile 1 |               |      the fixed tree; V tile (64 x 32) and Z tile in shared mem
//     |  ...   |               |
//     +------------------------+
//     sum_kernel (warp per column j, lane c): w_cj = P(0,j,c) + P(1,j,c) + ... ascending,
//                 ny_cj = -(chain_{q=c..k-1} madd(T_cq, w_qj))            -> NY (c-major)
//     step3_kernel (thread = row r x JT columns; V tile, NY sub-batch in shared memory):
//                 z_rj = madd(v_rc, ny_cj, z_rj) for c = 0 .. k-1 ascending (in place)
//
// Every index product is formed in 64 bits (index_t).
#include <cuda_runtime.h>

#include <algorithm>
#include <memory>
#include <vector>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <string>

#include "core/canonical.hpp"
#include "core/context.hpp"
#include "core/errors.hpp"
#include "core/precision.hpp"
#include "solver/back_transform.hpp"
#include "solver/back_transform_cuda.hpp"

namespace eigsolve {
namespace {

constexpr int kB = 32;  ///< reflectors per block (the format's constant)
static_assert(kB == kBackTransformBlock, "one warp per block of reflectors");
constexpr int kThreads = 256;

void ck(cudaError_t st, const char* what) {
  if (st != cudaSuccess) {
    cudaGetLastError();
    throw DeviceError(std::string("device back-transformation: ") + what + ": " +
                      cudaGetErrorString(st));
  }
}

/// Register tiles per precision: 16-byte scalars (complex double, dd) take fewer columns.
template <class T>
struct Cfg {
  static constexpr bool kWide = sizeof(T) >= 16;
  static constexpr int kJT1 = kWide ? 1 : 4;  ///< step 1: columns per warp per sub-batch
  static constexpr int kJC1 = 8 * kJT1;       ///< step 1: columns per sub-batch (8 warps)
  static constexpr int kJT3 = kWide ? 4 : 8;  ///< step 3: columns per thread
  static constexpr int kJC3 = 4 * kJT3;       ///< step 3: columns per sub-batch (4 row groups)
};

/// V(r, c) of the block at reflector i0 (c < k): explicit 0 above the unit, 1, then A.
template <class T>
__device__ __forceinline__ T v_elem(const T* A, index_t lda, index_t i0, index_t r, index_t c) {
  if (r < c) return T(0);
  if (r == c) return T(1);
  return A[(i0 + 1 + r) + (i0 + c) * lda];
}

/// Step 1 tile partials. Block (x, y): 64-row tile t = y, sub-batches [x*per, x*per+per) of JC
/// columns. Thread (lane c, warp w): columns w*JT .. w*JT+JT-1 of a sub-batch, reflector c; for
/// each of the 8 chunks an fma chain over its (present) rows, then the fixed tree:
///   P[(t * pld + j) * 32 + c] = tile partial of canonical_dot(conj(V(:, c)), Z(:, j)).
/// ZisV: Z(:, j) is V(:, j) itself (the G of the T factor; ncols = k).
template <class T, bool ZisV>
__global__ void __launch_bounds__(kThreads)
    step1_kernel(const T* A, index_t lda, index_t i0, int k, index_t L, const T* Z, index_t ldz,
                 index_t ncols, int per, index_t pld, T* P) {
  constexpr int JT = Cfg<T>::kJT1, JC = Cfg<T>::kJC1;
  __shared__ T vs[kTile][kB + 1];
  __shared__ T zs[JC][kTile];
  const int tid = threadIdx.x, c = tid & 31, w = tid >> 5;
  const index_t t = blockIdx.y;
  const index_t r0 = t * kTile;
  const int rows = static_cast<int>(L - r0 < kTile ? L - r0 : kTile);
  for (int e = tid; e < kTile * kB; e += kThreads) {
    const int rr = e & 63, cc = e >> 6;
    vs[rr][cc] = (rr < rows && cc < k) ? v_elem(A, lda, i0, r0 + rr, cc) : T(0);
  }
  const index_t jb = index_t(blockIdx.x) * per * JC;
  for (int sb = 0; sb < per; ++sb) {
    const index_t j0 = jb + index_t(sb) * JC;
    if (j0 >= ncols) break;
    __syncthreads();  // vs written; the previous sub-batch's zs consumed
    for (int e = tid; e < JC * kTile; e += kThreads) {
      const int rr = e & 63, jj = e >> 6;
      const index_t j = j0 + jj;
      T z = T(0);
      if (rr < rows && j < ncols) {
        if constexpr (ZisV)
          z = v_elem(A, lda, i0, r0 + rr, j);
        else
          z = Z[(r0 + rr) + j * ldz];
      }
      zs[jj][rr] = z;
    }
    __syncthreads();
    T ch[JT][kChunk];
#pragma unroll
    for (int q = 0; q < kChunk; ++q) {
      T s[JT];
#pragma unroll
      for (int jt = 0; jt < JT; ++jt)
        s[jt] = T(0);
#pragma unroll
      for (int i = 0; i < kChunk; ++i) {
        const int rr = kChunk * q + i;
        if (rr < rows) {  // rows past L are absent (not zero terms)
          const T v = vs[rr][c];
#pragma unroll
          for (int jt = 0; jt < JT; ++jt)
            s[jt] = madd_conj(v, zs[w * JT + jt][rr], s[jt]);
        }
      }
#pragma unroll
      for (int jt = 0; jt < JT; ++jt)
        ch[jt][q] = s[jt];
    }
#pragma unroll
    for (int jt = 0; jt < JT; ++jt) {
      const index_t j = j0 + w * JT + jt;
      if (j < ncols) P[(t * pld + j) * kB + c] = tile_tree(ch[jt]);
    }
  }
}

/// Ordered tile sum and step 2. Warp w of block x: column j = 8x + w; lane c:
///   w_cj = P(0, j, c) + P(1, j, c) + ... + P(nt-1, j, c)   (ascending, a chain of adds)
/// Tb == nullptr: out[c * ocs + j * ojs] = w_cj (the G of the T factor).
/// Otherwise (c < k): out[c * ocs + j * ojs] = -s, s = 0; s = madd(T_cq, w_qj, s), q = c..k-1.
template <class T>
__global__ void __launch_bounds__(kThreads)
    sum_kernel(index_t nt, index_t ncols, index_t pld, const T* P, int k, const T* Tb, T* out,
               index_t ocs, index_t ojs) {
  __shared__ T ts[kB][kB + 1];  // ts[q][c] = T_cq
  __shared__ T ws[kThreads / 32][kB];
  const int tid = threadIdx.x, c = tid & 31, w = tid >> 5;
  if (Tb != nullptr) {
    for (int e = tid; e < kB * kB; e += kThreads)
      ts[e >> 5][e & 31] = Tb[e];
  }
  __syncthreads();
  const index_t j = index_t(blockIdx.x) * (kThreads / 32) + w;
  if (j >= ncols) return;
  const T* p = P + j * kB + c;
  const index_t step = pld * kB;
  T acc = p[0];
  index_t t = 1;
  constexpr int kBatch = 8;  // loads in flight; the adds stay one ascending chain
  for (; t + kBatch <= nt; t += kBatch) {
    T v[kBatch];
#pragma unroll
    for (int u = 0; u < kBatch; ++u)
      v[u] = p[(t + u) * step];
#pragma unroll
    for (int u = 0; u < kBatch; ++u)
      acc = acc + v[u];
  }
  for (; t < nt; ++t)
    acc = acc + p[t * step];
  if (Tb == nullptr) {
    out[index_t(c) * ocs + j * ojs] = acc;
    return;
  }
  ws[w][c] = acc;
  __syncwarp();
  if (c < k) {
    T s = T(0);
    for (int q = c; q < k; ++q)
      s = madd(ts[q][c], ws[w][q], s);
    out[index_t(c) * ocs + j * ojs] = -s;
  }
}

/// The T factor of one block (k x k upper, ld 32, zero elsewhere) from G (G[q + 32 c] =
/// g_qc, q < c) and tau, one warp, lane = row:
///   T_cc = tau_c; tau_c == 0: T_rc = 0 (r < c); else x_q = (-tau_c) * g_qc,
///   T_rc = s, s = 0; s = madd(T_rq, x_q, s) for q = r .. c-1.
template <class T>
__global__ void tfactor_kernel(int k, const T* G, const T* tau, T* Tb) {
  __shared__ T tm[kB][kB + 1];  // tm[r][c]
  __shared__ T x[kB];
  const int l = threadIdx.x;
  for (int c = 0; c < kB; ++c)
    tm[l][c] = T(0);
  __syncwarp();
  for (int c = 0; c < k; ++c) {
    const T tc = tau[c];
    if (l == 0) tm[c][c] = tc;
    __syncwarp();
    if (tc == T(0)) continue;  // uniform; T_rc stays 0
    const T nt = -tc;
    if (l < c) x[l] = nt * G[l + kB * c];
    __syncwarp();
    if (l < c) {
      T s = T(0);
      for (int q = l; q < c; ++q)
        s = madd(tm[l][q], x[q], s);
      tm[l][c] = s;
    }
    __syncwarp();
  }
  __syncwarp();
  for (int c = 0; c < kB; ++c)
    Tb[l + kB * c] = tm[l][c];
}

/// Step 3. Block (x, y): rows [64y, 64y+64) of the block's rows, sub-batches [x*per, x*per+per)
/// of JC columns; thread (row tx, group ty) owns z(tx, ty*JT .. ty*JT+JT-1) of a sub-batch:
///   z = madd(v_rc, ny_cj, z) for c = 0 .. k-1.  NY[c * ldny + j].
template <class T>
__global__ void __launch_bounds__(kThreads)
    step3_kernel(const T* A, index_t lda, index_t i0, int k, index_t L, const T* NY, index_t ldny,
                 T* Z, index_t ldz, index_t ncols, int per) {
  constexpr int JT = Cfg<T>::kJT3, JC = Cfg<T>::kJC3;
  __shared__ T vs[kB][kTile];
  __shared__ T ns[kB][JC];
  const int tid = threadIdx.x, tx = tid & 63, ty = tid >> 6;
  const index_t r0 = index_t(blockIdx.y) * kTile;
  const int rows = static_cast<int>(L - r0 < kTile ? L - r0 : kTile);
  for (int e = tid; e < kTile * kB; e += kThreads) {
    const int rr = e & 63, cc = e >> 6;
    vs[cc][rr] = (rr < rows && cc < k) ? v_elem(A, lda, i0, r0 + rr, cc) : T(0);
  }
  const index_t jb = index_t(blockIdx.x) * per * JC;
  T* zr = Z + (r0 + tx);
  for (int sb = 0; sb < per; ++sb) {
    const index_t j0 = jb + index_t(sb) * JC;
    if (j0 >= ncols) break;
    __syncthreads();  // vs written; the previous sub-batch's ns consumed
    for (int e = tid; e < kB * JC; e += kThreads) {
      const int jj = e % JC, cc = e / JC;
      const index_t j = j0 + jj;
      ns[cc][jj] = (j < ncols && cc < k) ? NY[index_t(cc) * ldny + j] : T(0);
    }
    __syncthreads();
    if (tx < rows) {
      T acc[JT];
#pragma unroll
      for (int jt = 0; jt < JT; ++jt) {
        const index_t j = j0 + ty * JT + jt;
        acc[jt] = j < ncols ? zr[j * ldz] : T(0);
      }
      for (int c = 0; c < k; ++c) {
        const T v = vs[c][tx];
#pragma unroll
        for (int jt = 0; jt < JT; ++jt)
          acc[jt] = madd(v, ns[c][ty * JT + jt], acc[jt]);
      }
#pragma unroll
      for (int jt = 0; jt < JT; ++jt) {
        const index_t j = j0 + ty * JT + jt;
        if (j < ncols) zr[j * ldz] = acc[jt];
      }
    }
  }
}

/// Workspace layout and the column-panel width (a pure function of n, m, T; the bits do not
/// depend on it).
struct Plan {
  index_t nblocks = 0, ntmax = 0, mc = 0, pw = 0;
  std::size_t off_t = 0, off_g = 0, off_p = 0, off_ny = 0, bytes = 0;
};

constexpr std::size_t kPartialCap = std::size_t(1) << 30;  ///< tile-partial bytes per panel

std::size_t align_up(std::size_t b) {
  return (b + 255) / 256 * 256;
}

template <class T>
Plan make_plan(index_t n, index_t m) {
  Plan p;
  if (n <= 1 || m <= 0) return p;
  p.nblocks = (n - 1 + kB - 1) / kB;
  p.ntmax = (n - 1 + kTile - 1) / kTile;
  const std::size_t per_col = std::size_t(p.ntmax) * kB * sizeof(T);
  if (per_col * std::size_t(m) <= kPartialCap) {
    p.mc = m;
  } else {
    p.mc = std::max<index_t>(256, index_t(kPartialCap / per_col) / 256 * 256);
    p.mc = std::min(p.mc, m);
  }
  p.pw = std::max<index_t>(p.mc, kB);
  std::size_t off = 0;
  p.off_t = off;
  off += align_up(std::size_t(p.nblocks) * kB * kB * sizeof(T));
  p.off_g = off;
  off += align_up(std::size_t(kB) * kB * sizeof(T));
  p.off_p = off;
  off += align_up(std::size_t(p.ntmax) * std::size_t(p.pw) * kB * sizeof(T));
  p.off_ny = off;
  off += align_up(std::size_t(p.pw) * kB * sizeof(T));
  p.bytes = off;
  return p;
}

/// Sub-batches per thread block: enough blocks to fill the GPU, and V reused across columns.
int batches_per_block(index_t nsub, index_t ntiles) {
  const index_t want = 2048;  // thread blocks in flight worth having
  const index_t per = (nsub * ntiles) / want;
  return static_cast<int>(std::max<index_t>(1, std::min<index_t>(8, per)));
}

index_t ceil_div(index_t a, index_t b) {
  return (a + b - 1) / b;
}

}  // namespace

template <class T>
std::size_t apply_q_device_workspace_bytes(index_t n, index_t m) {
  return make_plan<T>(n, m).bytes;
}

template <class T>
void apply_q_canonical_device(index_t n, const T* dA, index_t ldda, const T* dtau, index_t m, T* dZ,
                              index_t lddz, void* work, std::size_t work_bytes, void* stream) {
  if (n <= 1 || m <= 0) return;
  if (ldda < n || lddz < n) throw DimensionError("apply_q_canonical_device: ldda or lddz < n");
  const Plan p = make_plan<T>(n, m);
  if (work == nullptr || work_bytes < p.bytes)
    throw DimensionError("apply_q_canonical_device: the workspace has " +
                         std::to_string(work_bytes) + " bytes, " + std::to_string(p.bytes) +
                         " are needed (apply_q_device_workspace_bytes)");
  cudaStream_t st = static_cast<cudaStream_t>(stream);
  char* wb = static_cast<char*>(work);
  T* Tall = reinterpret_cast<T*>(wb + p.off_t);
  T* G = reinterpret_cast<T*>(wb + p.off_g);
  T* P = reinterpret_cast<T*>(wb + p.off_p);
  T* NY = reinterpret_cast<T*>(wb + p.off_ny);
  const index_t nrefl = n - 1;
  constexpr int JC1 = Cfg<T>::kJC1, JC3 = Cfg<T>::kJC3, kWarps = kThreads / 32;

  // T factors of every block.
  for (index_t b = 0; b < p.nblocks; ++b) {
    const index_t i0 = kB * b, L = n - 1 - i0;
    const int k = static_cast<int>(std::min<index_t>(kB, nrefl - i0));
    const index_t nt = ceil_div(L, kTile);
    const int per = static_cast<int>(ceil_div(kB, JC1));
    step1_kernel<T, true>
        <<<dim3(1, unsigned(nt)), kThreads, 0, st>>>(dA, ldda, i0, k, L, nullptr, 0, k, per, kB, P);
    sum_kernel<T>
        <<<unsigned(ceil_div(k, kWarps)), kThreads, 0, st>>>(nt, k, kB, P, k, nullptr, G, 1, kB);
    tfactor_kernel<T><<<1, kB, 0, st>>>(k, G, dtau + i0, Tall + kB * kB * b);
    ck(cudaGetLastError(), "T factor launch");
  }

  // Column panels of Z, each through all blocks last to first.
  for (index_t j0 = 0; j0 < m; j0 += p.mc) {
    const index_t nc = std::min(p.mc, m - j0);
    T* Zp = dZ + j0 * lddz;
    for (index_t b = p.nblocks - 1; b >= 0; --b) {
      const index_t i0 = kB * b, L = n - 1 - i0;
      const int k = static_cast<int>(std::min<index_t>(kB, nrefl - i0));
      const index_t nt = ceil_div(L, kTile);
      T* Zb = Zp + (i0 + 1);
      const index_t ns1 = ceil_div(nc, JC1);
      const int per1 = batches_per_block(ns1, nt);
      step1_kernel<T, false>
          <<<dim3(unsigned(ceil_div(ns1, per1)), unsigned(nt)), kThreads, 0, st>>>(
              dA, ldda, i0, k, L, Zb, lddz, nc, per1, p.pw, P);
      sum_kernel<T><<<unsigned(ceil_div(nc, kWarps)), kThreads, 0, st>>>(
          nt, nc, p.pw, P, k, Tall + kB * kB * b, NY, p.pw, 1);
      const index_t ns3 = ceil_div(nc, JC3);
      const int per3 = batches_per_block(ns3, nt);
      step3_kernel<T><<<dim3(unsigned(ceil_div(ns3, per3)), unsigned(nt)), kThreads, 0, st>>>(
          dA, ldda, i0, k, L, NY, p.pw, Zb, lddz, nc, per3);
      ck(cudaGetLastError(), "block launch");
    }
  }
}

#define EIGSOLVE_INSTANTIATE_BACK_CUDA(T)                                                      \
  template std::size_t apply_q_device_workspace_bytes<T>(index_t, index_t);                    \
  template void apply_q_canonical_device<T>(index_t, const T*, index_t, const T*, index_t, T*, \
                                            index_t, void*, std::size_t, void*);
EIGSOLVE_FOR_EACH_SCALAR(EIGSOLVE_INSTANTIATE_BACK_CUDA)
#undef EIGSOLVE_INSTANTIATE_BACK_CUDA

}  // namespace eigsolve
