// The canonical back-transformation Z := Q Z on the device (solver/back_transform_cuda.hpp), in
// the order of solver/back_transform.cpp (docs/canonical-backtransform.md), so the bits are the
// CPU's. Compiled with -fmad=false: nothing is fused except madd's explicit fmas. Thread maps
// and per-thread arithmetic: back_transform_kernels.cuh (host-and-device, emulated on a CPU).
//
//   block b (i0 = 32b, k reflectors, L = n-1-i0 rows; row r = matrix row i0+1+r), V(r, c) =
//   0 (r < c), 1 (r == c), A(i0+1+r, i0+c) (r > c): the zeros and the unit are terms.
//   pack_kernel: Vp[r * 32 + c] = V(r, c) (0 for c >= k and r >= L), rows to a multiple of 64.
//
//   T factors, once for all b (stream order):
//     pack_kernel, step1_kernel (Z = V, tile partials P(t, q, c) of conj(V(:, c)) . V(:, q))
//     sum_kernel          G(c, q)     = P(0) + P(1) + ...  (ascending tiles)
//     tfactor_kernel      T_b         = the recurrence (one warp, c ascending)
//
//   per column panel of Z (mc columns; columns are independent), b = B-1 .. 0: pack_kernel,
//
//        Z rows i0+1.. (L x mc)       step1_kernel: thread block = 64 columns (32 for 16-byte
//     +------------------------+      types) x 32 reflectors; thread = 4 (2) reflectors x 4
//     | tile 0 | V, Z rows ->  |      columns, all 8 chunk chains of a 64-row tile and the
//     | tile 1 | smem, 3 (2)   |      tree in registers; half tiles (32 rows) through a
//     |  ...   | half-tile st. |      3-stage (2) cp.async pipeline, tiles ascending:
//     +------------------------+  Sweep (enough column blocks): acc = p_0, acc = acc + p_t in
//                                      registers, then step 2 in the epilogue       -> NY
//                                 partial (few columns): tile partials P(t, j, c) of a range
//                                      of tiles per block; sum_kernel (warp per column, lane c)
//                                      sums them ascending and does step 2            -> NY
//     step 2  ny_cj = -(chain_{q=c..k-1} madd(T_cq, w_qj))               (NY c-major)
//     step3_kernel (thread = 4 (2) rows x 4 columns, block = 128 (64) rows; V rows resident, NY
//                 sub-batches double buffered in shared memory, the next sub-batch's Z loaded
//                 into registers during this one; rows counted from matrix row i0 so they align):
//                 z_rj = madd(v_rc, ny_cj, z_rj) for c = 0 .. k-1 ascending (in place)
//     EIGSOLVE_GPU_BT_DMMA=1 (double, opt-in): step1_dmma_kernel and step3_dmma_kernel, the
//                 same chains on the FP64 tensor cores (core/cuda/dmma.cuh), the same bits
//
// Every index product is formed in 64 bits (index_t).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#include "core/canonical.hpp"
#include "core/cuda/dmma.cuh"
#include "core/env_flag.hpp"
#include "core/errors.hpp"
#include "core/precision.hpp"
#include "solver/back_transform.hpp"
#include "solver/back_transform_cuda.hpp"
#include "solver/cuda/back_transform_kernels.cuh"

namespace eigsolve {
namespace {

using bt::Cfg;
using bt::kB;
using bt::kThreads;
static_assert(kB == kBackTransformBlock, "one warp per block of reflectors");

void ck(cudaError_t st, const char* what) {
  if (st != cudaSuccess) {
    cudaGetLastError();
    throw DeviceError(std::string("device back-transformation: ") + what + ": " +
                      cudaGetErrorString(st));
  }
}

using bt::cp_async;
using bt::cp_async_elem;
using bt::cp_commit;
using bt::cp_wait;
using bt::pack_kernel;
using bt::sum_kernel;
using bt::tfactor_kernel;

/// Step 1. Block (x, y) of 128 threads: columns [x JC, x JC + JC), tiles [y tps, y tps + tps)
/// of 64 rows; Z(r, j) = Z[r * zrs + j * zcs] (zrs = 32, zcs = 1: Z is Vp itself, the T
/// factor's G). Half tiles stream through kStages1 shared stages (cp.async, one barrier each).
///   partial: P[(t * pld + j) * 32 + c] = tile partial of conj(V(:, c)) . Z(:, j); with chain0
///     the blocks y = 0 chain their tiles p_0 + p_1 + ... instead and leave that in P(0).
///   Sweep (y = 0, tps = all tiles): w_cj = p_0 + p_1 + ... ascending (accumulators in
///     registers; in shared memory for the 16-byte scalars), then NY[c * ldny + j] = -s, s = 0; s =
///     madd(T_cq, w_qj, s), q = c .. k-1.
template <class T, bool Sweep>
__global__ void __launch_bounds__(Cfg<T>::kThreads1, 2)
    step1_kernel(const T* Vp, const T* Z, index_t zrs, index_t zcs, index_t L, index_t ncols,
                 int tps, int chain0, int k, T* P, index_t pld, const T* Tb, T* NY, index_t ldny) {
  using C = Cfg<T>;
  constexpr int R = C::kR1, J = C::kJ1, S = C::kStages1;
  extern __shared__ __align__(16) unsigned char smem1[];
  T* sm = reinterpret_cast<T*>(smem1);
  T* accs = sm + S * C::kStage1;  // accumulators of the sweep, acc1() slots
  const int tid = threadIdx.x;
  int cg, jg;
  bt::coords1<T>(tid, cg, jg);
  const index_t nt = (L + kTile - 1) / kTile;
  const index_t tb = index_t(blockIdx.y) * tps, te = tb + tps < nt ? tb + tps : nt;
  const index_t j0 = index_t(blockIdx.x) * C::kJC1;
  const int nh = 2 * static_cast<int>(te - tb);                  // half tiles of this block
  const bool chain = Sweep || (chain0 != 0 && blockIdx.y == 0);  // uniform
  // Half tile h goes into stage h % S; the stages are counted, not divided: issue(h, stage).
  auto issue = [&](int h, int stage) {  // (an empty group past the end)
    if (h < nh)
      bt::load1<T>(
          tid, sm + stage * C::kStage1, Vp, Z, zrs, zcs, tb * kTile + index_t(h) * C::kHalf, L, j0,
          ncols, [](char* d, const char* s) { cp_async<16>(d, s); },
          [](T* d, const T* s) { cp_async_elem(d, s); });
    cp_commit();
  };
  for (int h = 0; h < S - 1; ++h)
    issue(h, h);
  // next(): wait for half h (S - 2 newer groups may be pending), barrier (every thread's copies
  // landed, and every thread is done with half h - 1), refill the stage of half h - 1 with half
  // h + S - 1, return half h's stage; then h + 1.
  int h = 0, cur = 0;  // cur = h % S
  auto next = [&]() {
    cp_wait<S - 2>();
    __syncthreads();
    issue(h + S - 1, cur == 0 ? S - 1 : cur - 1);
    T* st = sm + cur * C::kStage1;
    cur = cur == S - 1 ? 0 : cur + 1;
    ++h;
    return st;
  };
  // The chained tile sums acc = p_0, acc + p_1, ... (Sweep, or the blocks y = 0 with chain0):
  // in registers or in shared memory (Cfg::kAccReg1); the same additions either way.
  constexpr bool kAccReg = C::kAccReg1;
  T accr[R][J];
  bt::Tree1<T> tr;
  auto finish_tile = [&](index_t t) {
#pragma unroll
    for (int kr = 0; kr < R; ++kr)
#pragma unroll
      for (int u = 0; u < J; ++u) {
        if (chain) {
          if constexpr (kAccReg) {
            accr[kr][u] = t == 0 ? tr.p[kr][u] : accr[kr][u] + tr.p[kr][u];
          } else {
            T& a = accs[bt::acc1<T>(tid, kr, u)];  // this thread's own slot
            a = t == 0 ? tr.p[kr][u] : a + tr.p[kr][u];
          }
        } else {
          const index_t j = j0 + J * jg + u;
          if (j < ncols) P[(t * pld + j) * kB + bt::refl1<T>(cg, kr)] = tr.p[kr][u];
        }
      }
  };
  auto acc = [&](int kr, int u) -> T {
    if constexpr (kAccReg)
      return accr[kr][u];
    else
      return accs[bt::acc1<T>(tid, kr, u)];
  };
  // Tiles t < L / 64 have all 64 rows: no row bounds in their loop; the last tile of L after.
  const index_t full_end = te < L / kTile ? te : L / kTile;
  index_t t = tb;
  for (; t < full_end; ++t) {
    bt::half1<T, 0, true>(next(), cg, jg, C::kHalf, tr);
    bt::half1<T, 1, true>(next(), cg, jg, C::kHalf, tr);
    finish_tile(t);
  }
  if (t < te) {
    const int rows = static_cast<int>(L - t * kTile);  // 1 .. 63
    T* st = next();
    if (rows >= C::kHalf)
      bt::half1<T, 0, true>(st, cg, jg, C::kHalf, tr);
    else
      bt::half1<T, 0, false>(st, cg, jg, rows, tr);
    st = next();
    bt::half1<T, 1, false>(st, cg, jg, rows > C::kHalf ? rows - C::kHalf : 0, tr);
    finish_tile(t);
  }
  if (!Sweep) {
    if (chain) {
#pragma unroll
      for (int kr = 0; kr < R; ++kr)
#pragma unroll
        for (int u = 0; u < J; ++u) {
          const index_t j = j0 + J * jg + u;
          if (j < ncols) P[j * kB + bt::refl1<T>(cg, kr)] = acc(kr, u);
        }
    }
    return;
  }
  cp_wait<0>();
  __syncthreads();                 // every stage read: ws and ts take their place
  T* ws = sm;                      // ws[jl][q] = w_qj, ld 33
  T* ts = sm + C::kJC1 * C::kWS1;  // ts[q][c] = T_cq, ld 33
  for (int e = tid; e < kB * kB; e += C::kThreads1)
    ts[(e >> 5) * (kB + 1) + (e & 31)] = Tb[e];
#pragma unroll
  for (int kr = 0; kr < R; ++kr)
#pragma unroll
    for (int u = 0; u < J; ++u)
      ws[(J * jg + u) * C::kWS1 + bt::refl1<T>(cg, kr)] = acc(kr, u);
  __syncthreads();
  for (int i = 0; i < bt::kPairs2<T>; ++i) {
    int c, jl;
    bt::coords2<T>(tid, i, c, jl);
    if (c < k && j0 + jl < ncols) NY[c * ldny + j0 + jl] = bt::ny2(ts, ws, k, c, jl);
  }
}

/// Step 3. Block (x, y): rows s of [RT y, RT y + RT), row s being matrix row i0 + s (V row
/// s - 1; only 1 <= s <= L are touched), sub-batches [x per, x per + per) of JC3 columns;
/// Zs = &Z(i0, 0):  z = madd(v_rc, ny_cj, z) for c = 0 .. k-1.  NY[c * ldny + j].
/// The next sub-batch's NY (cp.async) and Z (registers) load while this one computes.
template <class T>
__global__ void __launch_bounds__(kThreads, 2)
    step3_kernel(const T* Vp, index_t L, int k, const T* NY, index_t ldny, T* Zs, index_t ldz,
                 index_t ncols, int per) {
  using C = Cfg<T>;
  constexpr int RR = C::kRR3, JJ = C::kJJ3;
  extern __shared__ __align__(16) unsigned char smem3[];
  T* vs3 = reinterpret_cast<T*>(smem3);
  T* ns3 = vs3 + kB * C::kVS3;  // two buffers of kB x JC3
  const int tid = threadIdx.x;
  const index_t s0 = index_t(blockIdx.y) * C::kRT3;
  const index_t jb = index_t(blockIdx.x) * per * C::kJC3;
  const index_t left = (ncols - jb + C::kJC3 - 1) / C::kJC3;  // >= 1 by the grid
  const int nb = static_cast<int>(left < per ? left : per);
  int row, pos, col;
  bt::coords3<T>(tid, row, pos, col);
  auto cp = [](T* d, const T* s) { cp_async_elem(d, s); };
  bt::load_v3<T>(tid, vs3, Vp, s0, L, cp);
  bt::load_ny3<T>(tid, ns3, NY, ldny, jb, ncols, cp);
  cp_commit();
  bool rok[RR];
  T* zr[RR];
#pragma unroll
  for (int i = 0; i < RR; ++i) {
    const index_t s = s0 + row + C::kRL3 * i;
    rok[i] = s >= 1 && s <= L;
    zr[i] = Zs + s;
  }
  // A block with every row inside (all but the first and the last; block-uniform) and a
  // sub-batch with every column present read and write Z through one pointer per column with
  // constant row offsets, without per-element tests or 64-bit products.
  const bool rows_in = s0 >= 1 && s0 + C::kRT3 - 1 <= L;
  auto full_cols = [&](index_t j0) { return rows_in && j0 + C::kJC3 <= ncols; };
  auto col_ptr = [&](index_t j0, int u) { return zr[0] + (j0 + col + u) * ldz; };
  T zn[RR][JJ];  // Z of the next sub-batch
  auto load_z = [&](index_t j0) {
    if (full_cols(j0)) {
#pragma unroll
      for (int u = 0; u < JJ; ++u) {
        const T* p = col_ptr(j0, u);
#pragma unroll
        for (int i = 0; i < RR; ++i)
          zn[i][u] = p[C::kRL3 * i];
      }
      return;
    }
#pragma unroll
    for (int u = 0; u < JJ; ++u) {
      const index_t j = j0 + col + u;
#pragma unroll
      for (int i = 0; i < RR; ++i)
        zn[i][u] = (rok[i] && j < ncols) ? zr[i][j * ldz] : T(0);
    }
  };
  load_z(jb);
  for (int sb = 0; sb < nb; ++sb) {
    const index_t j0 = jb + index_t(sb) * C::kJC3;
    cp_wait<0>();
    __syncthreads();  // V and this NY landed; the other NY buffer consumed (sub-batch sb - 1)
    if (sb + 1 < nb)
      bt::load_ny3<T>(tid, ns3 + ((sb + 1) & 1) * kB * C::kJC3, NY, ldny, j0 + C::kJC3, ncols, cp);
    cp_commit();
    T acc[RR][JJ];
#pragma unroll
    for (int i = 0; i < RR; ++i)
#pragma unroll
      for (int u = 0; u < JJ; ++u)
        acc[i][u] = zn[i][u];
    if (sb + 1 < nb) load_z(j0 + C::kJC3);
    const T* ns = ns3 + (sb & 1) * kB * C::kJC3;
    if (k == kB)
      bt::apply3<T, true>(vs3, ns, k, pos, col, acc);
    else
      bt::apply3<T, false>(vs3, ns, k, pos, col, acc);
    if (full_cols(j0)) {
#pragma unroll
      for (int u = 0; u < JJ; ++u) {
        T* p = col_ptr(j0, u);
#pragma unroll
        for (int i = 0; i < RR; ++i)
          p[C::kRL3 * i] = acc[i][u];
      }
      continue;
    }
#pragma unroll
    for (int u = 0; u < JJ; ++u) {
      const index_t j = j0 + col + u;
#pragma unroll
      for (int i = 0; i < RR; ++i)
        if (rok[i] && j < ncols) zr[i][j * ldz] = acc[i][u];
    }
  }
}

/// Step 1 (and step 2 with Sweep) on the FP64 tensor cores: double, the columns of Z (Z(r, j) =
/// Z[r + j * lddz]), the grid, P and NY of step1_kernel<double, Sweep> (64 columns a block, the
/// same tile segments), the same bits. Each chunk chain s = 0; s = fma(v_rc, z_rj, s) over its
/// 8 rows is two DMMAs from a zero accumulator (core/cuda/dmma.cuh: a DMMA is the fma chain over
/// its four k in order); a chunk only partly inside the block's rows (the last tile) runs its
/// present rows as a CUDA-core chain and a chunk wholly past them is +0, as in step1_kernel
/// (rows past L are absent, not zero terms); the tree ((c0 + c1) + (c2 + c3)) + ((c4 + c5) +
/// (c6 + c7)) and the tile chain acc = p_0, acc + p_1, ... are CUDA-core adds. 8 warps: warp w
/// owns reflectors 16 (w % 2) + 8 ci + g and columns 16 (w / 2) + 8 tj + 2 t + e (ci, tj, e <
/// 2). Half tiles (32 rows: V 32 x 32, Z 32 x 64 stored by column) through kStages1D shared
/// stages by cp.async.
///
///     D(8 reflectors x 8 columns) = DMMA(V^T[c, rows 4s..4s+3], Z[rows 4s..4s+3, j], D)
constexpr int kThreads1D = 256, kJC1D = 64, kHalf1D = 32, kStages1D = 3;
constexpr int kVS1D = kB + 4;       ///< vs[r * kVS1D + c]: a fragment load is 2 wavefronts
constexpr int kZS1D = kHalf1D + 4;  ///< zs[j * kZS1D + r]: likewise, and conflict-free fills
constexpr int kStage1D = kHalf1D * kVS1D + kJC1D * kZS1D;
constexpr std::size_t kSmem1D = std::size_t(kStages1D) * kStage1D * sizeof(double);
static_assert(kJC1D == Cfg<double>::kJC1, "the grid of step1_kernel<double>");
static_assert(kJC1D * Cfg<double>::kWS1 + kB * (kB + 1) <= kStages1D * kStage1D, "ws, ts");
template <bool Sweep>
__global__ void __launch_bounds__(kThreads1D, 2)
    step1_dmma_kernel(const double* __restrict__ Vp, const double* __restrict__ Z, index_t lddz,
                      index_t L, index_t ncols, int tps, int chain0, int k, double* P, index_t pld,
                      const double* __restrict__ Tb, double* NY, index_t ldny) {
  extern __shared__ __align__(16) unsigned char smem1d[];
  double* sm = reinterpret_cast<double*>(smem1d);
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, t4 = lane & 3;
  const int cb = 16 * (warp & 1), jbw = 16 * (warp >> 1);
  const index_t nt = (L + kTile - 1) / kTile;
  const index_t tb = index_t(blockIdx.y) * tps, te = tb + tps < nt ? tb + tps : nt;
  const index_t j0 = index_t(blockIdx.x) * kJC1D;
  const int nh = 2 * static_cast<int>(te - tb);
  const bool chain = Sweep || (chain0 != 0 && blockIdx.y == 0);
  auto issue = [&](int h, int stage) {
    if (h < nh) {
      double* vs = sm + stage * kStage1D;
      double* zs = vs + kHalf1D * kVS1D;
      const index_t r0 = tb * kTile + index_t(h) * kHalf1D;
      // V: 32 rows of 32 (inside the packed rows, zero past L), 16-byte pieces
#pragma unroll
      for (int i = 0; i < kHalf1D * kB / 2 / kThreads1D; ++i) {
        const int e = tid + kThreads1D * i, rr = e / (kB / 2), c2 = e % (kB / 2);
        bt::cp_async<16>(vs + rr * kVS1D + 2 * c2, Vp + (r0 + rr) * kB + 2 * c2);
      }
      // Z: 32 rows x 64 columns, a warp down 32 rows of one column; 0 past L and ncols
#pragma unroll
      for (int i = 0; i < kHalf1D * kJC1D / kThreads1D; ++i) {
        const int e = tid + kThreads1D * i, rr = e % kHalf1D, jj = e / kHalf1D;
        const index_t r = r0 + rr, j = j0 + jj;
        double* d = zs + jj * kZS1D + rr;
        if (r < L && j < ncols)
          bt::cp_async_elem(d, Z + r + j * lddz);
        else
          *d = 0.0;
      }
    }
    bt::cp_commit();
  };
  for (int h = 0; h < kStages1D - 1; ++h)
    issue(h, h);
  int h = 0, cur = 0;
  auto next = [&]() {
    bt::cp_wait<kStages1D - 2>();
    __syncthreads();
    issue(h + kStages1D - 1, cur == 0 ? kStages1D - 1 : cur - 1);
    const double* st = sm + cur * kStage1D;
    cur = cur == kStages1D - 1 ? 0 : cur + 1;
    ++h;
    return st;
  };
  // One half tile: its chunks 4 H .. 4 H + 3 (rows: present rows of the half, 0 .. 32) folded
  // into q = (c_4H + c_4H+1) + (c_4H+2 + c_4H+3).
  auto half = [&](const double* st, int rows, double(&q)[2][2][2]) {
    const double* vs = st;
    const double* zs = st + kHalf1D * kVS1D;
    double x[2][2][2], y[2][2][2];
#pragma unroll
    for (int qq = 0; qq < 4; ++qq) {
      double(&s)[2][2][2] = (qq & 1) ? y : x;
      const int pc = rows - 8 * qq;  // present rows of this chunk (block-uniform)
#pragma unroll
      for (int ci = 0; ci < 2; ++ci)
#pragma unroll
        for (int tj = 0; tj < 2; ++tj)
          s[ci][tj][0] = s[ci][tj][1] = 0.0;
      if (pc >= 8) {
#pragma unroll
        for (int ks = 0; ks < 2; ++ks) {
          const int r = 8 * qq + 4 * ks + t4;
          double af[2], bf[2];
#pragma unroll
          for (int ci = 0; ci < 2; ++ci)
            af[ci] = vs[r * kVS1D + cb + 8 * ci + g];
#pragma unroll
          for (int tj = 0; tj < 2; ++tj)
            bf[tj] = zs[(jbw + 8 * tj + g) * kZS1D + r];
#pragma unroll
          for (int ci = 0; ci < 2; ++ci)
#pragma unroll
            for (int tj = 0; tj < 2; ++tj)
              dmma::mma(s[ci][tj][0], s[ci][tj][1], af[ci], bf[tj]);
        }
      } else if (pc > 0) {
        for (int i = 0; i < pc; ++i) {
          const int r = 8 * qq + i;
#pragma unroll
          for (int ci = 0; ci < 2; ++ci)
#pragma unroll
            for (int tj = 0; tj < 2; ++tj)
#pragma unroll
              for (int e = 0; e < 2; ++e)
                s[ci][tj][e] = fma(vs[r * kVS1D + cb + 8 * ci + g],
                                   zs[(jbw + 8 * tj + 2 * t4 + e) * kZS1D + r], s[ci][tj][e]);
        }
      }
      if (qq == 1 || qq == 3) {
#pragma unroll
        for (int ci = 0; ci < 2; ++ci)
#pragma unroll
          for (int tj = 0; tj < 2; ++tj)
#pragma unroll
            for (int e = 0; e < 2; ++e) {
              const double pr = x[ci][tj][e] + y[ci][tj][e];
              if (qq == 1)
                q[ci][tj][e] = pr;
              else
                q[ci][tj][e] = q[ci][tj][e] + pr;
            }
      }
    }
  };
  // The B fragment above is Z(r, jbw + 8 tj + g): the D fragment's columns are 2 t4 + e.
  double acc[2][2][2] = {};
  for (index_t t = tb; t < te; ++t) {
    const int rows = L - t * kTile < kTile ? static_cast<int>(L - t * kTile) : kTile;
    double q0[2][2][2], q1[2][2][2];
    half(next(), rows, q0);
    half(next(), rows - kHalf1D, q1);
#pragma unroll
    for (int ci = 0; ci < 2; ++ci)
#pragma unroll
      for (int tj = 0; tj < 2; ++tj)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const double p = q0[ci][tj][e] + q1[ci][tj][e];
          if (chain) {
            acc[ci][tj][e] = t == 0 ? p : acc[ci][tj][e] + p;
          } else {
            const index_t j = j0 + jbw + 8 * tj + 2 * t4 + e;
            if (j < ncols) P[(t * pld + j) * kB + cb + 8 * ci + g] = p;
          }
        }
  }
  if (!Sweep) {
    if (chain) {
#pragma unroll
      for (int ci = 0; ci < 2; ++ci)
#pragma unroll
        for (int tj = 0; tj < 2; ++tj)
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            const index_t j = j0 + jbw + 8 * tj + 2 * t4 + e;
            if (j < ncols) P[j * kB + cb + 8 * ci + g] = acc[ci][tj][e];
          }
    }
    return;
  }
  bt::cp_wait<0>();
  __syncthreads();  // every stage read: ws and ts take their place
  double* ws = sm;  // ws[jl][q] = w_qj, ld kWS1
  double* ts = sm + kJC1D * Cfg<double>::kWS1;
  for (int e = tid; e < kB * kB; e += kThreads1D)
    ts[(e >> 5) * (kB + 1) + (e & 31)] = Tb[e];
#pragma unroll
  for (int ci = 0; ci < 2; ++ci)
#pragma unroll
    for (int tj = 0; tj < 2; ++tj)
#pragma unroll
      for (int e = 0; e < 2; ++e)
        ws[(jbw + 8 * tj + 2 * t4 + e) * Cfg<double>::kWS1 + cb + 8 * ci + g] = acc[ci][tj][e];
  __syncthreads();
  for (int e = tid; e < kB * kJC1D; e += kThreads1D) {
    const int jl = e % kJC1D, c = e / kJC1D;
    if (c < k && j0 + jl < ncols) NY[c * ldny + j0 + jl] = bt::ny2<double>(ts, ws, k, c, jl);
  }
}

/// Step 3 on the FP64 tensor cores (double, k == 32; core/cuda/dmma.cuh: a DMMA is the fma
/// chain over its four k in order, so eight of them chained over c = 0..31 are exactly
/// z_rj = madd(v_rc, ny_cj, z_rj) for c ascending, the bits of step3_kernel). Block (x, y):
/// rows s of [128 y, 128 y + 128) (matrix row i0 + s; only 1 <= s <= L are written), V's rows
/// resident in shared memory, column sub-batches [x per, x per + per) of 32 with their NY in
/// shared memory. Warp w: rows 32 (w % 4) + 8 ti + g, columns 16 (w / 4) + 8 tj + 2 t + e
/// (ti < 4, tj < 2, e < 2); the next sub-batch's Z loads into registers while this one computes.
///
///     acc(8x8 tile) = Z tile;  for c0 = 0, 4, .., 28:  acc = DMMA(V[rows, c0..c0+3],
///                                                               NY[c0..c0+3, cols], acc)
constexpr int kRows3D = 128, kCols3D = 32;
constexpr int kVS3D = kB + 4;        ///< V row stride: a fragment load is 2 wavefronts
constexpr int kNyS3D = kCols3D + 8;  ///< NY row stride: likewise
constexpr std::size_t kSmem3D = (kRows3D * kVS3D + kB * kNyS3D) * sizeof(double);
__global__ void __launch_bounds__(kThreads, 2)
    step3_dmma_kernel(const double* __restrict__ Vp, index_t L, const double* __restrict__ NY,
                      index_t ldny, double* Zs, index_t ldz, index_t ncols, int per) {
  extern __shared__ __align__(16) unsigned char smem3d[];
  double* vs = reinterpret_cast<double*>(smem3d);  // vs[rr * kVS3D + c] = V(s0b + rr - 1, c)
  double* ns = vs + kRows3D * kVS3D;               // ns[c * kNyS3D + jj] = NY(c, j0 + jj)
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, t = lane & 3;
  const index_t s0b = index_t(blockIdx.y) * kRows3D;
  const int rw = 32 * (warp & 3), cw = 16 * (warp >> 2);  // the warp's first row and column
  const index_t jb = index_t(blockIdx.x) * per * kCols3D;
  const index_t left = (ncols - jb + kCols3D - 1) / kCols3D;  // >= 1 by the grid
  const int nb = static_cast<int>(left < per ? left : per);
  for (int e = tid; e < kRows3D * kB; e += kThreads) {
    const int rr = e / kB, c = e % kB;
    const index_t r = s0b + rr - 1;  // V row
    vs[rr * kVS3D + c] = (r >= 0 && r < L) ? Vp[r * kB + c] : 0.0;
  }
  bool rok[4];
#pragma unroll
  for (int ti = 0; ti < 4; ++ti) {
    const index_t s = s0b + rw + 8 * ti + g;
    rok[ti] = s >= 1 && s <= L;
  }
  double* zrow = Zs + (s0b + rw + g);
  double zn[4][2][2];
  auto load_z = [&](index_t j0) {
#pragma unroll
    for (int tj = 0; tj < 2; ++tj)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const index_t j = j0 + cw + 8 * tj + 2 * t + e;
        const bool jok = j < ncols;
#pragma unroll
        for (int ti = 0; ti < 4; ++ti)
          zn[ti][tj][e] = (rok[ti] && jok) ? zrow[8 * ti + j * ldz] : 0.0;
      }
  };
  load_z(jb);
  for (int sb = 0; sb < nb; ++sb) {
    const index_t j0 = jb + index_t(sb) * kCols3D;
    __syncthreads();  // V stored; the previous sub-batch's NY consumed
    for (int e = tid; e < kB * kCols3D; e += kThreads) {
      const int c = e / kCols3D, jj = e % kCols3D;
      ns[c * kNyS3D + jj] = j0 + jj < ncols ? NY[c * ldny + j0 + jj] : 0.0;
    }
    __syncthreads();
    double acc[4][2][2];
#pragma unroll
    for (int ti = 0; ti < 4; ++ti)
#pragma unroll
      for (int tj = 0; tj < 2; ++tj) {
        acc[ti][tj][0] = zn[ti][tj][0];
        acc[ti][tj][1] = zn[ti][tj][1];
      }
    if (sb + 1 < nb) load_z(j0 + kCols3D);
#pragma unroll
    for (int q = 0; q < kB / 4; ++q) {
      double af[4], bf[2];
#pragma unroll
      for (int ti = 0; ti < 4; ++ti)
        af[ti] = vs[(rw + 8 * ti + g) * kVS3D + 4 * q + t];
#pragma unroll
      for (int tj = 0; tj < 2; ++tj)
        bf[tj] = ns[(4 * q + t) * kNyS3D + cw + 8 * tj + g];
#pragma unroll
      for (int ti = 0; ti < 4; ++ti)
#pragma unroll
        for (int tj = 0; tj < 2; ++tj)
          dmma::mma(acc[ti][tj][0], acc[ti][tj][1], af[ti], bf[tj]);
    }
#pragma unroll
    for (int tj = 0; tj < 2; ++tj)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const index_t j = j0 + cw + 8 * tj + 2 * t + e;
        if (j >= ncols) continue;
#pragma unroll
        for (int ti = 0; ti < 4; ++ti)
          if (rok[ti]) zrow[8 * ti + j * ldz] = acc[ti][tj][e];
      }
  }
}

/// Workspace layout and the column-panel width (a pure function of n, m, T; the bits do not
/// depend on it).
struct Plan {
  index_t nblocks = 0, ntmax = 0, mc = 0, pw = 0;
  std::size_t off_t = 0, off_g = 0, off_p = 0, off_ny = 0, off_v = 0, bytes = 0;
  /// With bytes_once: every block's packed V from off_vall on (block b at packed_offsets[b]),
  /// packed once by the T factors instead of again for every group of columns.
  std::size_t off_vall = 0, bytes_once = 0;
};

/// Where each block's packed V (its tiles of kTile rows x kB) starts when every block is packed
/// once: block b at element off[b], off[nblocks] the total.
std::vector<index_t> packed_offsets(index_t n, index_t nblocks) {
  std::vector<index_t> off(std::size_t(nblocks) + 1, 0);
  for (index_t b = 0; b < nblocks; ++b) {
    const index_t L = n - 1 - kB * b;
    off[std::size_t(b) + 1] = off[std::size_t(b)] + (L + kTile - 1) / kTile * kTile * kB;
  }
  return off;
}

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
  p.off_v = off;
  off += align_up(std::size_t(p.ntmax) * kTile * kB * sizeof(T));
  p.bytes = off;
  p.off_vall = off;
  p.bytes_once = off + align_up(std::size_t(packed_offsets(n, p.nblocks).back()) * sizeof(T));
  return p;
}

index_t ceil_div(index_t a, index_t b) {
  return (a + b - 1) / b;
}

/// Step 1's split of nt tiles for ng column blocks (the bits do not depend on it): segments of
/// tps tiles, one segment (or <= 4 tiles) being the sweep. By default the count that minimises
/// a model of the launch's time on 2 nsm block slots (two blocks per SM), in units of one tile
/// of one block:
///
///   waves(ng nseg) * (tps + 0.5)   +   0.25 * ng nt (nseg - 1) / nseg / slots
///   (the longest slot; 0.5: a       (the tile partials of segments >= 1: written here, read
///    block's pipeline fill and end)  and summed by sum_kernel; 0.25 of a tile each, from
///                                    session 28's trace: sum_kernel 0.088 s beside 0.45 s)
///
/// over segs = 1 .. 32 (nseg = ceil(nt / tps) segments of tps = ceil(nt / segs) tiles); the
/// first minimum wins. EIGSOLVE_GPU_BT_FIT=0: as many segments as one wave of 2 nsm blocks holds
/// (floor(2 nsm / ng), the rule before session 29, which leaves up to half the slots idle, e.g.
/// 208 of 264 blocks for ng = 104); EIGSOLVE_GPU_BT_SEGS=N: N segments (an experiment's knob).
/// EIGSOLVE_GPU_BT_SWEEP=0/1 forces partial (at least 2 segments where nt > 1) / sweep.
index_t step1_tiles_per_block(index_t ng, index_t nt, int nsm, bool& sweep) {
  const index_t slots = 2 * index_t(nsm);
  index_t want = slots / ng;
  if (env_flag("EIGSOLVE_GPU_BT_FIT", true) && nt > 4) {
    double best = 0;
    for (index_t sg = 1; sg <= std::min<index_t>(nt, 32); ++sg) {
      const index_t tps = ceil_div(nt, sg), nseg = ceil_div(nt, tps);
      const double cost = double(ceil_div(ng * nseg, slots)) * (double(tps) + 0.5) +
                          0.25 * double(ng * nt) * double(nseg - 1) / double(nseg) / double(slots);
      if (sg == 1 || cost < best) {
        best = cost;
        want = sg;
      }
    }
  }
  if (const char* s = std::getenv("EIGSOLVE_GPU_BT_SEGS"); s && std::atoll(s) > 0)
    want = index_t(std::atoll(s));
  index_t segs = std::min(nt, std::max<index_t>(1, want));
  const char* e = std::getenv("EIGSOLVE_GPU_BT_SWEEP");
  const int force = (e && (e[0] == '0' || e[0] == '1')) ? e[0] - '0' : -1;
  sweep = force == 1 || (force == -1 && (segs == 1 || nt <= 4));
  if (sweep) return nt;
  segs = std::max<index_t>(segs, std::min<index_t>(nt, 2));
  return ceil_div(nt, segs);
}

/// Step 3's sub-batches per thread block for ns3 sub-batches of nr3 row blocks (the bits do not
/// depend on it: every sub-batch is the same chains whichever block runs it): min(16,
/// ns3 nr3 / 1024), at least 1. (Session 30 measured a count fitted to the waves, as step 1's:
/// no gain; bench/NOTES.md.)
int step3_per_block(index_t ns3, index_t nr3) {
  return static_cast<int>(std::max<index_t>(1, std::min<index_t>(16, ns3 * nr3 / 1024)));
}

}  // namespace

template <class T>
std::size_t apply_q_device_workspace_bytes(index_t n, index_t m) {
  return make_plan<T>(n, m).bytes;
}

template <class T>
std::size_t apply_q_device_workspace_bytes_pack_once(index_t n, index_t m) {
  const Plan p = make_plan<T>(n, m);
  return env_flag("EIGSOLVE_GPU_BT_PACK_ONCE", true) ? p.bytes_once : p.bytes;
}

namespace {

/// One reflector set's back-transformation: the T factors (tfactors), then Q applied to any
/// group of Z's columns (columns; a column's bits do not depend on the group).
template <class T>
class DeviceBt {
 public:
  using C = Cfg<T>;
  DeviceBt(index_t n, const T* dA, index_t ldda, index_t m, void* work, std::size_t work_bytes,
           void* stream)
      : n_(n),
        m_(m),
        ldda_(ldda),
        dA_(dA),
        p_(make_plan<T>(n, m)),
        st_(static_cast<cudaStream_t>(stream)) {
    if (n <= 1 || m <= 0) return;
    if (ldda < n) throw DimensionError("apply_q_canonical_device: ldda < n");
    if (work == nullptr || work_bytes < p_.bytes)
      throw DimensionError("apply_q_canonical_device: the workspace has " +
                           std::to_string(work_bytes) + " bytes, " + std::to_string(p_.bytes) +
                           " are needed (apply_q_device_workspace_bytes)");
    char* wb = static_cast<char*>(work);
    Tall_ = reinterpret_cast<T*>(wb + p_.off_t);
    G_ = reinterpret_cast<T*>(wb + p_.off_g);
    P_ = reinterpret_cast<T*>(wb + p_.off_p);
    NY_ = reinterpret_cast<T*>(wb + p_.off_ny);
    Vp_ = reinterpret_cast<T*>(wb + p_.off_v);
    if (work_bytes >= p_.bytes_once && env_flag("EIGSOLVE_GPU_BT_PACK_ONCE", true)) {
      Vall_ = reinterpret_cast<T*>(wb + p_.off_vall);
      voff_ = packed_offsets(n_, p_.nblocks);
    }
    static_assert(C::kJC1 * C::kWS1 + kB * (kB + 1) <= C::kStages1 * C::kStage1, "ws, ts");
    ck(cudaFuncSetAttribute(step1_kernel<T, false>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                            int(kSmem1)),
       "step 1 shared memory");
    ck(cudaFuncSetAttribute(step1_kernel<T, true>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                            int(kSmem1)),
       "step 1 shared memory");
    ck(cudaFuncSetAttribute(step3_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                            int(kSmem3)),
       "step 3 shared memory");
    int dev = 0;
    ck(cudaGetDevice(&dev), "cudaGetDevice");
    ck(cudaDeviceGetAttribute(&nsm_, cudaDevAttrMultiProcessorCount, dev), "SM count");
    if constexpr (std::is_same_v<T, double>) {
      // Opt-in (EIGSOLVE_GPU_BT_DMMA=1): the same bits, but no faster on the H100 (session 51:
      // d 16384 with vectors 2.79 s against 2.78; both steps are bound by memory, not fmas).
      const bool tc = env_flag("EIGSOLVE_GPU_BT_DMMA", false) && dmma::dmma_chain_verified();
      dmma_ = tc;
      dmma1_ = tc;
      if (dmma_)
        ck(cudaFuncSetAttribute(step3_dmma_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                int(kSmem3D)),
           "step 3 (tensor cores) shared memory");
      if (dmma1_) {
        ck(cudaFuncSetAttribute(step1_dmma_kernel<true>,
                                cudaFuncAttributeMaxDynamicSharedMemorySize, int(kSmem1D)),
           "step 1 (tensor cores) shared memory");
        ck(cudaFuncSetAttribute(step1_dmma_kernel<false>,
                                cudaFuncAttributeMaxDynamicSharedMemorySize, int(kSmem1D)),
           "step 1 (tensor cores) shared memory");
      }
    }
  }

  /// T factors of every block: G = V^H V (step 1 partials with Z = Vp), then the recurrence.
  void tfactors(const T* dtau) {
    if (n_ <= 1 || m_ <= 0) return;
    constexpr int kWarps = kThreads / 32;
    for (index_t b = 0; b < p_.nblocks; ++b) {
      index_t i0, L;
      int k;
      block(b, i0, k, L);
      const index_t nt = ceil_div(L, kTile);
      T* V = vp(b);
      pack(i0, k, L, V);
      step1_kernel<T, false><<<dim3(1, unsigned(nt)), C::kThreads1, kSmem1, st_>>>(
          V, V, kB, 1, L, k, 1, 0, k, P_, kB, nullptr, nullptr, 0);
      sum_kernel<T><<<unsigned(ceil_div(k, kWarps)), kThreads, 0, st_>>>(nt, 1, k, kB, P_, k,
                                                                         nullptr, G_, 1, kB);
      tfactor_kernel<T><<<1, kB, 0, st_>>>(k, G_, dtau + i0, Tall_ + kB * kB * b);
      ck(cudaGetLastError(), "T factor launch");
    }
  }

  /// Z := Q Z on the nc (<= m) columns at dZ: column panels of Z (p_.mc), each through all
  /// blocks last to first.
  void columns(index_t nc, T* dZ, index_t lddz) {
    if (n_ <= 1 || nc <= 0) return;
    if (lddz < n_) throw DimensionError("apply_q_canonical_device: lddz < n");
    if (nc > m_) throw DimensionError("apply_q_canonical_device: more columns than planned");
    for (index_t j0 = 0; j0 < nc; j0 += p_.mc) {
      const index_t w = std::min(p_.mc, nc - j0);
      T* Zp = dZ + j0 * lddz;
      for (index_t b = p_.nblocks - 1; b >= 0; --b) {
        index_t i0, L;
        int k;
        block(b, i0, k, L);
        if (Vall_ == nullptr) pack(i0, k, L, Vp_);  // else packed by tfactors
        step12(b, w, Zp, lddz);
        step3(b, w, Zp, lddz);
        ck(cudaGetLastError(), "block launch");
      }
    }
  }

 private:
  static constexpr std::size_t kSmem1 = (C::kStages1 * C::kStage1 + C::kAcc1) * sizeof(T);
  static constexpr std::size_t kSmem3 = (kB * C::kVS3 + 2 * kB * C::kJC3) * sizeof(T);

  void block(index_t b, index_t& i0, int& k, index_t& L) const {
    i0 = kB * b;
    L = n_ - 1 - i0;
    k = static_cast<int>(std::min<index_t>(kB, n_ - 1 - i0));
  }
  void pack(index_t i0, int k, index_t L, T* V) {
    const index_t nt = ceil_div(L, kTile);
    pack_kernel<T><<<unsigned(nt * (kTile / kB)), kThreads, 0, st_>>>(dA_, ldda_, i0, k, L, V);
  }
  /// Block b's packed V: its own region when every block is packed once (Vall_), else the one
  /// buffer that pack fills before each use.
  T* vp(index_t b) const { return Vall_ ? Vall_ + voff_[std::size_t(b)] : Vp_; }
  /// Steps 1 and 2 of block b (Vp = its V) on the nc columns at Zp -> NY_b.
  void step12(index_t b, index_t nc, T* Zp, index_t lddz) {
    constexpr int kWarps = kThreads / 32;
    index_t i0, L;
    int k;
    block(b, i0, k, L);
    const index_t nt = ceil_div(L, kTile), ng = ceil_div(nc, C::kJC1);
    const T* Tb = Tall_ + kB * kB * b;
    bool sweep = false;
    const index_t tps = step1_tiles_per_block(ng, nt, nsm_, sweep);
    if constexpr (std::is_same_v<T, double>) {
      if (dmma1_) {
        if (sweep) {
          step1_dmma_kernel<true><<<dim3(unsigned(ng), 1), kThreads1D, kSmem1D, st_>>>(
              vp(b), Zp + (i0 + 1), lddz, L, nc, int(nt), 0, k, nullptr, 0, Tb, NY_, p_.pw);
        } else {
          step1_dmma_kernel<false>
              <<<dim3(unsigned(ng), unsigned(ceil_div(nt, tps))), kThreads1D, kSmem1D, st_>>>(
                  vp(b), Zp + (i0 + 1), lddz, L, nc, int(tps), 1, k, P_, p_.pw, nullptr, nullptr,
                  p_.pw);
          sum_kernel<T><<<unsigned(ceil_div(nc, kWarps)), kThreads, 0, st_>>>(
              nt, tps, nc, p_.pw, P_, k, Tb, NY_, p_.pw, 1);
        }
        return;
      }
    }
    if (sweep) {
      step1_kernel<T, true><<<dim3(unsigned(ng), 1), C::kThreads1, kSmem1, st_>>>(
          vp(b), Zp + (i0 + 1), 1, lddz, L, nc, int(nt), 0, k, nullptr, 0, Tb, NY_, p_.pw);
    } else {
      // Segment 0 chains its tiles into P(0); the others leave tile partials.
      step1_kernel<T, false>
          <<<dim3(unsigned(ng), unsigned(ceil_div(nt, tps))), C::kThreads1, kSmem1, st_>>>(
              vp(b), Zp + (i0 + 1), 1, lddz, L, nc, int(tps), 1, k, P_, p_.pw, nullptr, nullptr,
              p_.pw);
      sum_kernel<T><<<unsigned(ceil_div(nc, kWarps)), kThreads, 0, st_>>>(nt, tps, nc, p_.pw, P_, k,
                                                                          Tb, NY_, p_.pw, 1);
    }
  }
  /// Step 3 of block b (Vp = its V, NY = NY_b): about 1024 thread blocks, V rows reused over per
  /// sub-batches.
  void step3(index_t b, index_t nc, T* Zp, index_t lddz) {
    index_t i0, L;
    int k;
    block(b, i0, k, L);
    if constexpr (std::is_same_v<T, double>) {
      if (k == kB && dmma_) {
        const index_t ns = ceil_div(nc, kCols3D), nr = ceil_div(L + 1, kRows3D);
        const int per = step3_per_block(ns, nr);
        step3_dmma_kernel<<<dim3(unsigned(ceil_div(ns, per)), unsigned(nr)), kThreads, kSmem3D,
                            st_>>>(vp(b), L, NY_, p_.pw, Zp + i0, lddz, nc, per);
        return;
      }
    }
    const index_t ns3 = ceil_div(nc, C::kJC3), nr3 = ceil_div(L + 1, C::kRT3);
    const int per3 = step3_per_block(ns3, nr3);
    step3_kernel<T><<<dim3(unsigned(ceil_div(ns3, per3)), unsigned(nr3)), kThreads, kSmem3, st_>>>(
        vp(b), L, k, NY_, p_.pw, Zp + i0, lddz, nc, per3);
  }

  index_t n_, m_, ldda_;
  const T* dA_;
  Plan p_;
  cudaStream_t st_;
  int nsm_ = 0;
  bool dmma_ = false;   ///< double: step 3 on the tensor cores (EIGSOLVE_GPU_BT_DMMA=1)
  bool dmma1_ = false;  ///< double: step 1 on the tensor cores (the columns, not the T factors)
  T *Tall_ = nullptr, *G_ = nullptr, *P_ = nullptr, *NY_ = nullptr, *Vp_ = nullptr;
  T* Vall_ = nullptr;          ///< every block's packed V (work_bytes >= bytes_once), or null
  std::vector<index_t> voff_;  ///< block b's packed V at Vall_ + voff_[b]
};

}  // namespace

template <class T>
void apply_q_canonical_device(index_t n, const T* dA, index_t ldda, const T* dtau, index_t m, T* dZ,
                              index_t lddz, void* work, std::size_t work_bytes, void* stream) {
  if (n <= 1 || m <= 0) return;
  if (ldda < n || lddz < n) throw DimensionError("apply_q_canonical_device: ldda or lddz < n");
  DeviceBt<T> bt(n, dA, ldda, m, work, work_bytes, stream);
  bt.tfactors(dtau);
  bt.columns(m, dZ, lddz);
}

template <class T>
void apply_q_device_prepare(index_t n, const T* dA, index_t ldda, const T* dtau, index_t m,
                            void* work, std::size_t work_bytes, void* stream) {
  DeviceBt<T>(n, dA, ldda, m, work, work_bytes, stream).tfactors(dtau);
}

template <class T>
void apply_q_device_columns(index_t n, const T* dA, index_t ldda, index_t m, index_t nc, T* dZ,
                            index_t lddz, void* work, std::size_t work_bytes, void* stream) {
  DeviceBt<T>(n, dA, ldda, m, work, work_bytes, stream).columns(nc, dZ, lddz);
}

#define EIGSOLVE_INSTANTIATE_BACK_CUDA(T)                                                       \
  template std::size_t apply_q_device_workspace_bytes<T>(index_t, index_t);                     \
  template std::size_t apply_q_device_workspace_bytes_pack_once<T>(index_t, index_t);           \
  template void apply_q_canonical_device<T>(index_t, const T*, index_t, const T*, index_t, T*,  \
                                            index_t, void*, std::size_t, void*);                \
  template void apply_q_device_prepare<T>(index_t, const T*, index_t, const T*, index_t, void*, \
                                          std::size_t, void*);                                  \
  template void apply_q_device_columns<T>(index_t, const T*, index_t, index_t, index_t, T*,     \
                                          index_t, void*, std::size_t, void*);
EIGSOLVE_FOR_EACH_SCALAR(EIGSOLVE_INSTANTIATE_BACK_CUDA)
#undef EIGSOLVE_INSTANTIATE_BACK_CUDA

}  // namespace eigsolve
