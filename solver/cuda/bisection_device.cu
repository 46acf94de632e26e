// Canonical bisection on the device (solver/bisection_cuda.hpp): the CPU's bits
// (docs/canonical-bisection.md), compiled with -fmad=false and IEEE division.
//
// Modes (env EIGSOLVE_GPU_BISECT, for A/B; all give the same bits):
//   0   one thread per eigenvalue running bisect::bisect_eigenvalue (the old kernel): a full
//       search of ~55 (double) / ~110 (dd) dependent Sturm counts per thread.
//   1   (default for s, d) speculative multisection over lanes, L = 2: a group of 3 lanes
//       per eigenvalue evaluates the counts of the next 2 levels at once (heap points x0, x1,
//       x2, one count per lane), the group gathers them with shuffles and every lane replays
//       the 2 sequential decisions (bisect::spec_replay). Half the dependent rounds, 3x the
//       warps (10 groups per warp).
//   2   the same with L = 3: 7 lanes (4 groups per warp), a third of the rounds.
//   3   one thread per eigenvalue running bisect::bisect_eigenvalue_spec<2> (3 interleaved
//       count chains in one thread).
//   4   (default for dd) mode 1's groups packed across the warps of a block: a block of 3
//       warps holds exactly 32 groups of 3 lanes (no idle lanes; mode 1 leaves 2 of every 32
//       idle), the counts gathered through shared memory between two block barriers instead
//       of shuffles.
//   5   the same for mode 2: a block of 7 warps holds 32 groups of 7 lanes.
// Measured at n = 16384 on an H100 (bench/NOTES.md, session 53), kernel time: dd mode 4
// 0.742-0.743 s against mode 1's 0.752-0.753 s; d and s no gain (0.0487 against 0.0485 s,
// 0.0140 against 0.0139 s), so they keep mode 1.
// Modes 1, 2 take EIGSOLVE_GPU_BISECT_WARPS warps per block (1-4, default 4; fewer warps spread
// the blocks more evenly over the SMs, and were slower in dd: 0.758-0.761 against 0.752 s).
// Modes 1-5 first take the top levels shared by all eigenvalues (env EIGSOLVE_GPU_BISECT_TOP,
// default min(bit length of n, 16) levels; 0 = none): one kernel evaluates the counts at all
// 2^T - 1 heap points of the first T levels over [gl, gu], and every search replays its first
// T steps from that table (spec_replay, the same decisions), then continues per eigenvalue.
// The lane kernels' counts load d and e2 a few steps ahead (registers); the operations are
// sturm_count's, in its order.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#include "core/cuda/profile_timer.cuh"
#include "core/errors.hpp"
#include "solver/bisection.hpp"
#include "solver/bisection_cuda.hpp"

namespace eigsolve {
namespace {

void ck(cudaError_t st, const char* what) {
  if (st != cudaSuccess) {
    cudaGetLastError();
    throw DeviceError(std::string("device bisection: ") + what + ": " + cudaGetErrorString(st));
  }
}

constexpr unsigned kFull = 0xffffffffu;
constexpr int kThreads = 128;
constexpr int kMaxTop = 16;

/// Prefetch distance of the count loop (steps): covers an L2 hit with the step latency.
template <class R>
struct Prefetch {
  static constexpr int value = sizeof(R) == 4 ? 8 : (sizeof(R) == 8 ? 4 : 2);
};

/// bisect::sturm_count(n, d, e2, pivmin, x), the same operations in the same order; the loads of
/// d[i], e2[i-1] are issued D steps ahead (a register double buffer), so that a step's
/// division does not wait for its e2 load.
template <int D, class R>
__device__ __forceinline__ index_t sturm_count_pf(index_t n, const R* __restrict__ d,
                                                  const R* __restrict__ e2, const R& pivmin,
                                                  const R& x) {
  R q = bisect::guard(R(d[0] - x), pivmin);
  index_t c = q < R(0) ? 1 : 0;
  index_t i = 1;
  if (n - 1 >= 2 * D) {
    R nd[D], ne[D];
#pragma unroll
    for (int u = 0; u < D; ++u) {
      nd[u] = d[i + u];
      ne[u] = e2[i - 1 + u];
    }
    for (; i + 2 * D <= n; i += D) {
      R cd[D], ce[D];
#pragma unroll
      for (int u = 0; u < D; ++u) {
        cd[u] = nd[u];
        ce[u] = ne[u];
        nd[u] = d[i + D + u];
        ne[u] = e2[i - 1 + D + u];
      }
#pragma unroll
      for (int u = 0; u < D; ++u) {
        q = bisect::guard(R((cd[u] - x) - bisect::sturm_div(ce[u], q)), pivmin);
        c += q < R(0) ? 1 : 0;
      }
    }
#pragma unroll
    for (int u = 0; u < D; ++u) {
      q = bisect::guard(R((nd[u] - x) - bisect::sturm_div(ne[u], q)), pivmin);
      c += q < R(0) ? 1 : 0;
    }
    i += D;
  }
  for (; i < n; ++i) {
    q = bisect::guard(R((d[i] - x) - bisect::sturm_div(e2[i - 1], q)), pivmin);
    c += q < R(0) ? 1 : 0;
  }
  return c;
}

/// Mode 0: one thread per eigenvalue, the definition itself.
template <class R>
__global__ void bisect_kernel(index_t n, const R* d, const R* e2, bisect::SturmSetup<R> s,
                              index_t il, index_t count, R* w) {
  const index_t q = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (q >= count) return;
  w[q] = bisect::bisect_eigenvalue(n, d, e2, s, il + q);
}

/// The shared top levels: c[j] = count(spec_point(gl, gu, j)) for the heap nodes j < points.
template <class R>
__global__ void __launch_bounds__(kThreads)
    top_kernel(index_t n, const R* d, const R* e2, bisect::SturmSetup<R> s, int points,
               index_t* c) {
  const int j = int(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= points) return;
  c[j] = sturm_count_pf<Prefetch<R>::value>(n, d, e2, s.pivmin, bisect::spec_point(s.gl, s.gu, j));
}

/// Mode 3: one thread per eigenvalue, bisect_eigenvalue_spec<2> (3 interleaved chains).
template <class R>
__global__ void bisect_ilp_kernel(index_t n, const R* d, const R* e2, bisect::SturmSetup<R> s,
                                  index_t il, index_t count, int top, const index_t* topc, R* w) {
  const index_t q = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (q >= count) return;
  w[q] = bisect::bisect_eigenvalue_spec<2>(n, d, e2, s, il + q, top, topc);
}

/// Modes 1, 2: a group of P = 2^L - 1 lanes per eigenvalue (32 / P groups per warp). Each round,
/// lane j of a group counts at heap point j of the group's current interval; the group gathers
/// the P counts and every lane replays the same L sequential steps, so the lanes of a group
/// hold the same (lo, hi, it) throughout. The whole warp takes every shuffle (the loop ends
/// when no group of the warp is searching).
template <int L, class R>
__global__ void __launch_bounds__(kThreads)
    bisect_lanes_kernel(index_t n, const R* d, const R* e2, bisect::SturmSetup<R> s, index_t il,
                        index_t count, int top, const index_t* topc, R* w) {
  constexpr int P = (1 << L) - 1;
  constexpr int G = 32 / P;
  const int lane = int(threadIdx.x) & 31;
  const int g = lane / P;
  const int j = lane - g * P;
  const index_t warp = (index_t(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const index_t q = warp * G + g;
  const bool mine = g < G && q < count;
  const int base = (g < G ? g : G - 1) * P;
  const index_t k = il + q;
  R lo = s.gl, hi = s.gu;
  int it = 0;
  bool done = !mine;
  if (!done && top > 0) done = bisect::spec_replay(lo, hi, it, s.pivmin, k, top, topc);
  for (;;) {
    if (!done) done = bisect::spec_stopped(lo, hi, it, s.pivmin);
    if (!__any_sync(kFull, !done)) break;
    long long own = 0;
    if (!done)
      own = sturm_count_pf<Prefetch<R>::value>(n, d, e2, s.pivmin, bisect::spec_point(lo, hi, j));
    index_t c[P];
#pragma unroll
    for (int u = 0; u < P; ++u)
      c[u] = index_t(__shfl_sync(kFull, own, base + u));
    if (!done) done = bisect::spec_replay(lo, hi, it, s.pivmin, k, L, c);
  }
  if (mine && j == 0) w[q] = bisect::final_value(lo, hi);
}

/// Modes 4, 5: the groups of modes 1, 2 (P = 2^L - 1 lanes each) packed across the P warps of a
/// block, 32 groups per block and no idle lane; a group may span two warps, so the counts are
/// gathered through shared memory. Each round: the block's barrier that also ends the loop when
/// no group of the block is searching, the counts, a barrier, the replay (the next round's
/// first barrier keeps this round's reads before the next writes). The same steps as modes 1, 2.
template <int L, class R>
__global__ void __launch_bounds__(32 * ((1 << L) - 1))
    bisect_packed_kernel(index_t n, const R* d, const R* e2, bisect::SturmSetup<R> s, index_t il,
                         index_t count, int top, const index_t* topc, R* w) {
  constexpr int P = (1 << L) - 1;
  __shared__ index_t sc[32 * P];
  const int t = int(threadIdx.x);
  const int g = t / P;
  const int j = t - g * P;
  const index_t q = index_t(blockIdx.x) * 32 + g;
  const bool mine = q < count;
  const index_t k = il + q;
  const index_t* cg = sc + g * P;
  R lo = s.gl, hi = s.gu;
  int it = 0;
  bool done = !mine;
  if (!done && top > 0) done = bisect::spec_replay(lo, hi, it, s.pivmin, k, top, topc);
  for (;;) {
    if (!done) done = bisect::spec_stopped(lo, hi, it, s.pivmin);
    if (!__syncthreads_or(!done)) break;
    index_t own = 0;
    if (!done)
      own = sturm_count_pf<Prefetch<R>::value>(n, d, e2, s.pivmin, bisect::spec_point(lo, hi, j));
    sc[t] = own;
    __syncthreads();
    if (!done) done = bisect::spec_replay(lo, hi, it, s.pivmin, k, L, cg);
  }
  if (mine && j == 0) w[q] = bisect::final_value(lo, hi);
}

/// EIGSOLVE_GPU_BISECT: 0, 1, 2, 3, 4 or 5 (see the head of this file); default 4 for dd, else 1.
template <class R>
int bisect_mode() {
  const int dflt = std::is_same_v<R, dd_real> ? 4 : 1;
  const char* m = std::getenv("EIGSOLVE_GPU_BISECT");
  if (!m || !m[0]) return dflt;
  const int v = std::atoi(m);
  return (v >= 0 && v <= 5) ? v : dflt;
}

/// EIGSOLVE_GPU_BISECT_WARPS: warps per block of modes 1, 2 (1-4, default 4).
int lane_warps() {
  const char* m = std::getenv("EIGSOLVE_GPU_BISECT_WARPS");
  if (!m || !m[0]) return kThreads / 32;
  const int v = std::atoi(m);
  return (v >= 1 && v <= kThreads / 32) ? v : kThreads / 32;
}

/// Shared top levels for modes 1-5: EIGSOLVE_GPU_BISECT_TOP (0 = none, else at most 16),
/// default min(bit length of n, 16).
int top_levels(index_t n) {
  int bl = 0;
  while (bl < kMaxTop && (n >> bl) != 0)
    ++bl;
  if (const char* t = std::getenv("EIGSOLVE_GPU_BISECT_TOP"); t && t[0]) {
    const int v = std::atoi(t);
    return v < 0 ? 0 : (v > kMaxTop ? kMaxTop : v);
  }
  return bl;
}

unsigned blocks_for(index_t items, index_t per_block) {
  return unsigned((items + per_block - 1) / per_block);
}

}  // namespace

template <class R>
void bisection_eigenvalues_cuda(index_t n, const R* d, const R* e, index_t il, index_t iu, R* w) {
  if (n < 1 || il < 0 || iu >= n || il > iu + 1)
    throw DimensionError("bisection_eigenvalues_cuda: bad range [" + std::to_string(il) + ", " +
                         std::to_string(iu) + "] for n = " + std::to_string(n));
  if (iu < il) return;
  std::vector<R> e2(static_cast<std::size_t>(n > 1 ? n - 1 : 1));
  const bisect::SturmSetup<R> s = bisect::sturm_setup(n, d, e, e2.data());
  const index_t count = iu - il + 1;
  const int mode = bisect_mode<R>();
  const int warps = lane_warps();
  const int top = mode == 0 ? 0 : top_levels(n);
  const int points = (1 << top) - 1;
  R *dd = nullptr, *de2 = nullptr, *dw = nullptr;
  index_t* dtop = nullptr;
  auto release = [&] {
    cudaFree(dd);
    cudaFree(de2);
    cudaFree(dw);
    cudaFree(dtop);
  };
  try {
    ck(cudaMalloc(&dd, sizeof(R) * std::size_t(n)), "cudaMalloc");
    ck(cudaMalloc(&de2, sizeof(R) * e2.size()), "cudaMalloc");
    ck(cudaMalloc(&dw, sizeof(R) * std::size_t(count)), "cudaMalloc");
    if (points > 0) ck(cudaMalloc(&dtop, sizeof(index_t) * std::size_t(points)), "cudaMalloc");
    ck(cudaMemcpy(dd, d, sizeof(R) * std::size_t(n), cudaMemcpyHostToDevice), "d");
    ck(cudaMemcpy(de2, e2.data(), sizeof(R) * e2.size(), cudaMemcpyHostToDevice), "e2");
    ProfileTimer timer;  // EIGSOLVE_GPU_PROFILE=1
    timer.start();
    if (points > 0) {
      top_kernel<R><<<blocks_for(points, kThreads), kThreads>>>(n, dd, de2, s, points, dtop);
      ck(cudaGetLastError(), "launch (top levels)");
    }
    switch (mode) {
      case 0:
        bisect_kernel<R><<<blocks_for(count, kThreads), kThreads>>>(n, dd, de2, s, il, count, dw);
        break;
      case 2:
        bisect_lanes_kernel<3, R><<<blocks_for(count, warps * (32 / 7)), 32 * warps>>>(
            n, dd, de2, s, il, count, top, dtop, dw);
        break;
      case 4:
        bisect_packed_kernel<2, R>
            <<<blocks_for(count, 32), 32 * 3>>>(n, dd, de2, s, il, count, top, dtop, dw);
        break;
      case 5:
        bisect_packed_kernel<3, R>
            <<<blocks_for(count, 32), 32 * 7>>>(n, dd, de2, s, il, count, top, dtop, dw);
        break;
      case 3:
        bisect_ilp_kernel<R>
            <<<blocks_for(count, kThreads), kThreads>>>(n, dd, de2, s, il, count, top, dtop, dw);
        break;
      default:
        bisect_lanes_kernel<2, R><<<blocks_for(count, warps * (32 / 3)), 32 * warps>>>(
            n, dd, de2, s, il, count, top, dtop, dw);
        break;
    }
    ck(cudaGetLastError(), "launch");
    // The warps per block that ran: EIGSOLVE_GPU_BISECT_WARPS steers modes 1 and 2 only.
    const int ran_warps = mode == 4                  ? 3
                          : mode == 5                ? 7
                          : (mode == 0 || mode == 3) ? kThreads / 32
                                                     : warps;
    if (const double sec = timer.stop(); sec >= 0)
      std::fprintf(stderr,
                   "eigsolve device bisection (n = %lld, count = %lld, mode %d, warps %d, top %d): "
                   "%.4f s\n",
                   static_cast<long long>(n), static_cast<long long>(count), mode, ran_warps, top,
                   sec);
    ck(cudaMemcpy(w, dw, sizeof(R) * std::size_t(count), cudaMemcpyDeviceToHost), "w");
  } catch (...) {
    release();
    throw;
  }
  release();
}

#define EIGSOLVE_INSTANTIATE_BISECT_CUDA(R) \
  template void bisection_eigenvalues_cuda<R>(index_t, const R*, const R*, index_t, index_t, R*);
EIGSOLVE_FOR_EACH_REAL(EIGSOLVE_INSTANTIATE_BISECT_CUDA)
#undef EIGSOLVE_INSTANTIATE_BISECT_CUDA

}  // namespace eigsolve
