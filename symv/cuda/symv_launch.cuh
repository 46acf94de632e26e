// Host side of the CUDA SYMV: argument checks, workspace layout, kernel choice and launch.
// Included by one .cu per scalar type (symv_<p>.cu), which ends with the instantiation.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <type_traits>

#include "core/cuda/pdl_launch.cuh"
#include "core/env_flag.hpp"
#include "core/errors.hpp"
#include "symv/cuda/symv_kernels.cuh"
#include "symv/cuda/symv_xs.cuh"
#include "symv/symv_gpu.hpp"

namespace eigsolve {
namespace symv_cuda {

inline void check_launch(const char* what) {
  const cudaError_t st = cudaGetLastError();
  if (st != cudaSuccess) throw DeviceError(std::string(what) + ": " + cudaGetErrorString(st));
}

/// Streaming multiprocessors of the current device (cached per device).
int sm_count();

inline index_t tiles_of(index_t n) {
  return (n + kTile - 1) / kTile;
}
inline std::size_t round256(std::size_t b) {
  return (b + 255) / 256 * 256;
}

/// Launches one SYMV kernel Kern (errors: the caller's check_launch). The kernel's dynamic
/// shared memory limit (and, with max_shared, the largest shared-memory carveout) is set once
/// per kernel.
template <auto Kern, class T>
void launch_k(const SymvArgs<T>& g, int blocks, int threads, std::size_t smem, cudaStream_t st,
              bool max_shared = false) {
  static std::once_flag once;
  std::call_once(once, [&] {
    cudaFuncSetAttribute(Kern, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
    if (max_shared)
      cudaFuncSetAttribute(Kern, cudaFuncAttributePreferredSharedMemoryCarveout,
                           int(cudaSharedmemCarveoutMaxShared));
  });
  Kern<<<blocks, threads, smem, st>>>(g);
}

template <class T, int TPB, bool Wide, int L, bool Ticket, bool Shift = false, int MinB = 0,
          int Early = -1>
void launch_tiles(const SymvArgs<T>& g, int blocks, cudaStream_t st) {
  launch_k<symv_tiles<T, TPB, Wide, L, Ticket, Shift, MinB, Early>>(g, blocks, 64 * TPB,
                                                                    sizeof(GroupSmem<T>) * TPB, st);
}

/// Complex float's plain tile kernels with 4 tiles per block (ldg, cg, cs, shifted or not) are
/// built for 3 blocks per SM (<= 80 registers; without the bound 128: 2 blocks, 16 warps per SM,
/// 75 % of DRAM peak at n = 16384 against d's 84 % at 24 warps). H200 (session 12): bench symv
/// c 16384 3281 -> 3586 GB/s, 32768 3392 -> 3799, c eigenvalues at 16384 2.792 -> 2.627 s.
/// EIGSOLVE_GPU_SYMV_C3=0: the unbounded kernels (A/B). Register allocation only: same bits.
/// Read at every call, so that a test can switch it.
inline bool c3_mode() {
  return env_flag("EIGSOLVE_GPU_SYMV_C3", true);
}

/// EIGSOLVE_GPU_SYMV_DISCARD=0: the row sums leave the partials' lines in L2 (A/B; default: they
/// discard them, symv_kernels.cuh rowsums_discard). A hint only: the same bits. Read at every
/// call, so that a test can switch it.
inline bool discard_mode() {
  return env_flag("EIGSOLVE_GPU_SYMV_DISCARD", true);
}

/// EIGSOLVE_GPU_SYMV_HOIST=0: dd's x16_tiles kernel and symv_tiles_zr (z's default from 6144 up,
/// dd's DDXS=5 and 6) work out the source of every load at every step, tile_at and the bounds
/// tests included, as before session 63 (A/B; default: once per tile for whole off-diagonal
/// tiles, x16_src; complex double's zxs kernels always take the old form). The same elements: the
/// same bits. Read at every call, so that a test can switch it.
inline bool hoist_mode() {
  return env_flag("EIGSOLVE_GPU_SYMV_HOIST", true);
}

/// EIGSOLVE_GPU_SYMV_ROWS16=0: the row sums stage P element by element (A/B; default: by 16-byte
/// copies, symv_kernels.cuh rowsums_stage). The same bytes land in shared memory: the same bits.
/// Read at every call, so that a test can switch it.
inline bool rows16_mode() {
  return env_flag("EIGSOLVE_GPU_SYMV_ROWS16", true);
}

/// EIGSOLVE_GPU_SYMV_ROWS_PDL=0: the two-pass row-sum kernel is launched after the tile kernel
/// as before (A/B; default: as a programmatic dependent launch from compute capability 9.0 on,
/// its blocks resident and waiting while the tile kernel's last wave runs; symv_kernels.cuh
/// trigger_rowsums). It waits for the whole tile kernel either way: the same bits. Not for the
/// row sums that the tridiagonalization runs itself (SymvRunOptions::defer_rowsums). Read at
/// every call, so that a test can switch it.
inline bool rows_pdl_mode() {
  return env_flag("EIGSOLVE_GPU_SYMV_ROWS_PDL", true);
}

/// Compute capability major of the current device (cached per device).
int cc_major();

/// EIGSOLVE_GPU_SYMV_ROWSK=1, 2 or 3 (session 62, opt-in): symv_gpu's own two-pass row sums run
/// symv_rowsums_k instead of symv_rowsums: 1 = 64 rows per block (a panel's whole column,
/// s 256 / d 512 contiguous bytes, per copy stream; half the blocks) with 2 buffers, 2 = 64 rows
/// with 4 buffers (3 chunks in flight), 3 = 32 rows with 4 buffers. Unset or other values: the
/// default kernel. The same chains in the same order: the same bits. Read at every call, so that
/// a test can switch it.
inline int rowsk_mode() {
  const char* e = std::getenv("EIGSOLVE_GPU_SYMV_ROWSK");
  return e && e[0] >= '1' && e[0] <= '3' && e[1] == 0 ? e[0] - '0' : 0;
}

/// symv_rowsums with Rows (32 or 64) rows of one panel per block of kSumThreads threads and NB
/// shared buffers of 16 KB (NB - 1 chunks in flight while one is summed): thread r < Rows runs
/// row i0 + r's chain, acc = P(R,0)[r]; acc = acc + P(R,1)[r]; ... ascending C, as
/// rowsums_chain, and writes y as symv_rowsums. Dynamic shared memory NB x 16 KB.
template <class T, int Rows, int NB>
__global__ void __launch_bounds__(kSumThreads) symv_rowsums_k(SymvArgs<T> g) {
  extern __shared__ __align__(16) unsigned char rk_raw[];
  T* buf = reinterpret_cast<T*>(rk_raw);
  constexpr int CC = int(16384 / (Rows * sizeof(T)));  // tile columns per chunk
  constexpr int per = CC * Rows;
  static_assert(kTile % Rows == 0, "rows of one panel");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if (g.rows_mode & kRowsPdl) asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
  const index_t i0 = index_t(blockIdx.x) * Rows, nt = g.nt;
  const int rows = int(g.n - i0 < Rows ? g.n - i0 : Rows);
  const T* p = g.P + (i0 / kTile) * nt * kTile + i0 % kTile;  // P(R, C)[r] = p[C * kTile + r]
  const int chunks = int((nt + CC - 1) / CC);
  const bool wide = rows == Rows && reinterpret_cast<std::uintptr_t>(g.P) % 16 == 0;
  auto stage = [&](int k) {  // chunk k into buffer k % NB, one cp.async group (maybe empty)
    if (k < chunks) {
      T* b = buf + (k % NB) * per;
      const index_t c0 = index_t(k) * CC;
      const int cols = int(nt - c0 < CC ? nt - c0 : CC);
      constexpr int V = sizeof(T) < 16 ? int(16 / sizeof(T)) : 1, per_col = Rows / V;
      if (wide) {
        const T* src = p + c0 * kTile;
        for (int q = threadIdx.x; q < cols * per_col; q += kSumThreads) {
          const int C = q / per_col, r = (q % per_col) * V;
          cp_async<16>(b + C * Rows + r, src + C * kTile + r, true);
        }
      } else {
        for (int e = threadIdx.x; e < cols * Rows; e += kSumThreads) {
          const int C = e / Rows, r = e % Rows;
          const bool ok = r < rows;
          cp_async<int(sizeof(T))>(b + e, ok ? p + (c0 + C) * kTile + r : g.P, ok);
        }
      }
    }
    cp_async_commit();
  };
#pragma unroll
  for (int k = 0; k < NB - 1; ++k)
    stage(k);
  T acc = T(0);
  constexpr int lines = int(Rows * sizeof(T) / 128);
  static_assert(Rows * sizeof(T) % 128 == 0, "whole lines");
  for (int k = 0; k < chunks; ++k) {
    stage(k + NB - 1);
    if constexpr (NB == 2)
      asm volatile("cp.async.wait_group 1;\n" ::);
    else if constexpr (NB == 3)
      asm volatile("cp.async.wait_group 2;\n" ::);
    else
      asm volatile("cp.async.wait_group 3;\n" ::);
    __syncthreads();  // chunk k is in shared memory
    const index_t c0 = index_t(k) * CC;
    const int cn = int(nt - c0 < CC ? nt - c0 : CC);
    if (g.discard_p && reinterpret_cast<std::uintptr_t>(g.P) % 128 == 0) {
      for (int e = threadIdx.x; e < cn * lines; e += kSumThreads) {
        const char* a =
            reinterpret_cast<const char*>(p + (c0 + e / lines) * kTile) + (e % lines) * 128;
        asm volatile("discard.global.L2 [%0], 128;\n" ::"l"(a) : "memory");
      }
    }
    if (threadIdx.x < Rows) {
      const T* cur = buf + (k % NB) * per;
      const int r = threadIdx.x;
      int C = 0;
      if (k == 0) {
        acc = cur[r];
        C = 1;
      }
#pragma unroll 8
      for (; C < cn; ++C)
        acc = acc + cur[C * Rows + r];
    }
    __syncthreads();  // buffer k % NB is free for chunk k + NB
  }
  asm volatile("cp.async.wait_all;\n" ::);
  if (int(threadIdx.x) < rows) {
    T* yi = g.y + (g.yoff + (i0 + threadIdx.x) * g.incy);
    *yi = g.beta_zero ? g.alpha * acc : madd(g.alpha, acc, g.beta * *yi);
  }
}

/// symv_rowsums_k<T, Rows, NB>, plain or as a programmatic dependent launch (g.rows_mode).
template <class T, int Rows, int NB>
void launch_rowsums_k(const SymvArgs<T>& g, cudaStream_t st) {
  constexpr std::size_t smem = std::size_t(NB) * 16384;
  static std::once_flag once;
  std::call_once(once, [] {
    cudaFuncSetAttribute(symv_rowsums_k<T, Rows, NB>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                         int(smem));
  });
  const int blocks = int((g.n + Rows - 1) / Rows);
  if (!(g.rows_mode & kRowsPdl)) {
    symv_rowsums_k<T, Rows, NB><<<blocks, kSumThreads, smem, st>>>(g);
    return;
  }
  const cudaError_t e = launch_pdl(symv_rowsums_k<T, Rows, NB>, dim3(unsigned(blocks)),
                                   dim3(unsigned(kSumThreads)), smem, st, true, g);
  if (e != cudaSuccess)
    throw DeviceError(std::string("symv_gpu row-sum kernel (dependent launch): ") +
                      cudaGetErrorString(e));
}

/// The two-pass row-sum kernel; as a programmatic dependent launch when g.rows_mode has kRowsPdl.
/// Errors: a plain launch's through the caller's check_launch, a dependent launch's thrown here
/// (DeviceError).
template <class T>
void launch_rowsums(const SymvArgs<T>& g, cudaStream_t st) {
  switch (rowsk_mode()) {
    case 1:
      return launch_rowsums_k<T, 64, 2>(g, st);
    case 2:
      return launch_rowsums_k<T, 64, 4>(g, st);
    case 3:
      return launch_rowsums_k<T, 32, 4>(g, st);
    default:
      break;
  }
  const int blocks = int((g.n + kSumRows - 1) / kSumRows);
  if (!(g.rows_mode & kRowsPdl)) {
    symv_rowsums<T><<<blocks, kSumThreads, 0, st>>>(g);
    return;
  }
  const cudaError_t e = launch_pdl(symv_rowsums<T>, dim3(unsigned(blocks)),
                                   dim3(unsigned(kSumThreads)), 0, st, true, g);
  if (e != cudaSuccess)
    throw DeviceError(std::string("symv_gpu row-sum kernel (dependent launch): ") +
                      cudaGetErrorString(e));
}

/// EIGSOLVE_GPU_SYMV_RR=S (2, 3, 4 or 6): float and double's two-pass plain configurations (ldg,
/// cg, cs) with 16-byte loads run symv_tiles_rr (symv_xs.cuh: the columns through a ring of S
/// shared buffers per warp, the transposed trees by warp shuffles) instead of symv_tiles; unset
/// or 0: symv_tiles (the default). Same bits. H100, session 61 (n = 16384, tuned configurations):
/// s 0.194 -> 0.237-0.248 ms, d 0.384 -> 0.382-0.389 ms; H200 (RR=4): s 0.148 -> 0.241 ms, d 0.289
/// -> 0.315 ms; so off. Read at every call, so that a test can switch it.
inline int rr_mode() {
  const char* e = std::getenv("EIGSOLVE_GPU_SYMV_RR");
  if (!e || e[1] != 0) return 0;
  return e[0] == '2' || e[0] == '3' || e[0] == '4' || e[0] == '6' ? e[0] - '0' : 0;
}

template <class T, int TPB, int S>
void launch_rr(const SymvArgs<T>& g, int blocks, cudaStream_t st) {
  launch_k<symv_tiles_rr<T, TPB, S>>(g, blocks, 64 * TPB, sizeof(RrSmem<T, S>) * TPB, st, true);
}

/// EIGSOLVE_GPU_SYMV_OCC=W: float's (W = 40 or 48) and double's (W = 24, 28 or 32) two-pass plain
/// 16-byte kernels built for W warps per SM (a launch bound of W / (2 x tiles per block) blocks:
/// ptxas holds the registers to fit them); unset or any other value: no bound (the default).
/// Register allocation only: the same bits. Session 62's probe: Nsight (H100, session 61) shows
/// s's tuned tile kernel at 64 registers, 4 blocks of 8 warps per SM (50 % occupancy), d's at 96
/// (5 blocks of 4 warps). Read at every call, so that a test can switch it.
inline int occ_mode() {
  const char* e = std::getenv("EIGSOLVE_GPU_SYMV_OCC");
  if (!e || !e[0] || !e[1] || e[2] != 0) return 0;
  const int w = (e[0] - '0') * 10 + (e[1] - '0');
  return w == 24 || w == 28 || w == 32 || w == 40 || w == 48 ? w : 0;
}

/// launch_tiles under occ_mode's bound (W warps per SM) for float and double's two-pass plain
/// 16-byte configurations; false where W does not apply to T (the caller runs the default).
template <class T, int TPB, int L>
bool launch_occ(const SymvArgs<T>& g, int blocks, cudaStream_t st) {
  const int w = occ_mode();
  auto go = [&](auto wc) {
    constexpr int W = decltype(wc)::value;
    launch_tiles<T, TPB, true, L, false, false, (W / (2 * TPB) > 0 ? W / (2 * TPB) : 1)>(g, blocks,
                                                                                         st);
    return true;
  };
  if constexpr (std::is_same_v<T, float>) {
    if (w == 40) return go(std::integral_constant<int, 40>{});
    if (w == 48) return go(std::integral_constant<int, 48>{});
  } else if constexpr (std::is_same_v<T, double>) {
    if (w == 24) return go(std::integral_constant<int, 24>{});
    if (w == 28) return go(std::integral_constant<int, 28>{});
    if (w == 32) return go(std::integral_constant<int, 32>{});
  }
  return false;
}

/// EIGSOLVE_GPU_SYMV_EARLY=E (1, 2, 4 or 8): float and double's two-pass plain 16-byte kernels
/// load the first E columns of each off-diagonal block early (symv_tiles' Early), E > 1 without a
/// launch bound. Unset or other values: the configuration's count (SymvConfig::early, 1 or 8:
/// the names' "-e1", "-e8", which the tuner measures for s and d since session 67) where it has
/// one; else 8 for double, and for float 8 from n = kFloatEarlyFrom, 1 below. Session 66, H200,
/// three rounds: double with 8 2-8 % faster than with 1 at 4096-32768 (16384: 266.6-267.1 us
/// against 286.1-287.6, 4020-4028 GB/s); float with 8 3-6 % slower at 4096 (18.4-18.5 us
/// against 17.5-17.9) but 1-7 % faster at 8192-32768 (16384: 138.2-138.8 us against 140.5-141.2).
/// Session 65, H100: double 2-3 % faster from 8192 up, float equal or up to 1 % slower at 4096 and
/// 16384; 2 and 4 slower than 8 for both (d with 4 8-10 % slower than with 1 at 24576-32768, s with
/// 2 67 % slower at 16384). The same loads: the same bits. Read at every call, so that a test can
/// switch it.
inline constexpr index_t kFloatEarlyFrom = 6144;

template <class T>
int early_mode(index_t n, int config_early) {
  const char* e = std::getenv("EIGSOLVE_GPU_SYMV_EARLY");
  if (e && e[0] && e[1] == 0 && (e[0] == '1' || e[0] == '2' || e[0] == '4' || e[0] == '8'))
    return e[0] - '0';
  if (config_early == 1 || config_early == 8) return config_early;
  return std::is_same_v<T, double> || n >= kFloatEarlyFrom ? 8 : 1;
}

/// EIGSOLVE_GPU_SYMV_PF=256 or 128: float and double's two-pass plain 16-byte kernels with cs
/// loads (the tuned ones at n >= 8192) load A with an L2 prefetch-size hint of that many bytes
/// (symv_kernels.cuh ldcs_pf: on a miss the L2 fetches the aligned block from DRAM at once); unset
/// or other values: no hint (the default). A hint only: the same bits. Read at every call, so that
/// a test can switch it.
inline int pf_mode() {
  const char* e = std::getenv("EIGSOLVE_GPU_SYMV_PF");
  if (!e) return 0;
  if (std::strcmp(e, "256") == 0) return 256;
  if (std::strcmp(e, "128") == 0) return 128;
  return 0;
}

/// launch_tiles; for complex float with 4 tiles per block (unless EIGSOLVE_GPU_SYMV_C3=0) the
/// same kernel bounded to 3 blocks per SM; for float and double under EIGSOLVE_GPU_SYMV_RR the
/// two-pass 16-byte configurations run symv_tiles_rr, under EIGSOLVE_GPU_SYMV_OCC symv_tiles with
/// a launch bound (occ_mode), under EIGSOLVE_GPU_SYMV_PF its prefetch-hint loads, else with
/// early_mode's early columns (the configuration's, else double's and, from n = 6144, float's 8).
template <class T, int TPB, bool Wide, int L, bool Ticket, bool Shift = false>
void launch_plain(const SymvArgs<T>& g, int blocks, cudaStream_t st) {
  if constexpr ((std::is_same_v<T, float> || std::is_same_v<T, double>)&&Wide && !Ticket &&
                !Shift) {
    switch (rr_mode()) {
      case 2:
        return launch_rr<T, TPB, 2>(g, blocks, st);
      case 3:
        return launch_rr<T, TPB, 3>(g, blocks, st);
      case 4:
        return launch_rr<T, TPB, 4>(g, blocks, st);
      case 6:
        return launch_rr<T, TPB, 6>(g, blocks, st);
      default:
        break;
    }
    if (launch_occ<T, TPB, L>(g, blocks, st)) return;
    if constexpr (L == 2) {
      const int pf = pf_mode();
      if (pf == 256) return launch_tiles<T, TPB, true, 5, false>(g, blocks, st);
      if (pf == 128) return launch_tiles<T, TPB, true, 6, false>(g, blocks, st);
    }
    switch (early_mode<T>(g.n, g.early)) {
      case 2:
        return launch_tiles<T, TPB, true, L, false, false, 0, 2>(g, blocks, st);
      case 4:
        return launch_tiles<T, TPB, true, L, false, false, 0, 4>(g, blocks, st);
      case 8:
        return launch_tiles<T, TPB, true, L, false, false, 0, 8>(g, blocks, st);
      default:
        break;
    }
  }
  if constexpr (std::is_same_v<T, Complex<float>> && TPB == 4) {
    if (c3_mode()) return launch_tiles<T, TPB, Wide, L, Ticket, Shift, 3>(g, blocks, st);
  }
  launch_tiles<T, TPB, Wide, L, Ticket, Shift>(g, blocks, st);
}

template <class T, int TPB, bool Wide, bool Ticket>
void launch_staged(const SymvArgs<T>& g, int blocks, cudaStream_t st) {
  launch_k<symv_tiles_staged<T, TPB, Wide, Ticket>>(g, blocks, 64 * TPB,
                                                    sizeof(StagedSmem<T>) * TPB, st);
}

template <class T, int TPB, bool Wide, bool Ticket>
void launch_xs(const SymvArgs<T>& g, int blocks, cudaStream_t st) {
  launch_k<symv_tiles_xs<T, TPB, Wide, Ticket>>(g, blocks, 64 * TPB, sizeof(XsSmem<T>) * TPB, st);
}

/// EIGSOLVE_GPU_SYMV_ZXS=1, 2 or 3: the xs configurations of complex double run
/// symv_tiles_zxs in that mode (same bits); 4 or 5: symv_tiles_zr (launch_zxs); 0:
/// symv_tiles_xs. Read at every call, so that a test can switch it.
/// Complex double's xs kernel: 4 (default since session 60: symv_tiles_zr with a 2-step ring
/// where it applies, mode 1 elsewhere; H100, n = 16384: 0.790-0.797 -> 0.773-0.776 ms, 32768:
/// 3.208-3.211 -> 3.113-3.124 ms, the schedule sweep unchanged; faster than mode 1 in every
/// persistent grid tried; H200, session 61: 0.593-0.596 -> 0.553-0.560 ms at 16384, 3593-3624 ->
/// 3839-3884 GB/s, 32768 2.388-2.394 -> 2.219-2.230 ms, 4096 equal), 5 (a 3-step ring: as fast in
/// the tuned configurations, 14 % slower than mode 1 in the grids t2-m4 and t1-m8, likely those
/// that ask more blocks per SM than its 3 or 6 fit), 1 (session 7's zxs kernel: H200 n = 16384 2939
/// -> 3396 GB/s, z eigenvalues 5.73 -> 5.38 s), 2 or 3 (its variants, measured slower), 0 (the
/// generic symv_tiles_xs). Same bits in every mode (bench/NOTES.md, sessions 7, 59, 60).
inline int zxs_mode() {
  const char* e = std::getenv("EIGSOLVE_GPU_SYMV_ZXS");
  return e && e[0] >= '0' && e[0] <= '5' && e[1] == 0 ? e[0] - '0' : 4;
}

/// EIGSOLVE_GPU_SYMV_ZXS_NOCUT=0: mode 1 runs the kernel with the cut-block code (Cut = true)
/// at every n (A/B; default: where n % 8 == 0 the kernel without it, which has no 8-row block
/// cut by n to recompute: same bits). Read at every call, so that a test can switch it.
inline bool zxs_nocut_mode() {
  return env_flag("EIGSOLVE_GPU_SYMV_ZXS_NOCUT", true);
}

template <int TPB, bool Wide, bool Ticket, int Mode>
void launch_zxs(const SymvArgs<Complex<double>>& g, int blocks, cudaStream_t st) {
  // Modes 4 and 5: symv_tiles_zr (symv_xs.cuh) where it applies (A 16-byte aligned, two-pass;
  // without the cut-block code where n % 8 == 0), mode 1 elsewhere.
  if constexpr (Mode >= 4) {
    if constexpr (Wide && !Ticket) {
      constexpr int S = Mode == 4 ? 2 : 3;
      constexpr std::size_t smem = sizeof(ZrSmem<S>) * TPB;
      if (g.n % 8 == 0)
        launch_k<symv_tiles_zr<Zd, TPB, S, Mode == 5, false>>(g, blocks, 64 * TPB, smem, st, true);
      else
        launch_k<symv_tiles_zr<Zd, TPB, S, Mode == 5, true>>(g, blocks, 64 * TPB, smem, st, true);
      return;
    }
    launch_zxs<TPB, Wide, Ticket, 1>(g, blocks, st);
  } else {
    // 4 blocks of 2 groups need 4 x 53 KB: the largest carveout (the loads stream past L1)
    if constexpr (Mode == 1) {
      if (g.n % 8 == 0 && zxs_nocut_mode()) {
        launch_k<symv_tiles_zxs<TPB, Wide, Ticket, Mode, false>>(g, blocks, 64 * TPB,
                                                                 sizeof(X16Smem) * TPB, st, true);
        return;
      }
    }
    launch_k<symv_tiles_zxs<TPB, Wide, Ticket, Mode>>(g, blocks, 64 * TPB, sizeof(X16Smem) * TPB,
                                                      st, true);
  }
}

/// EIGSOLVE_GPU_SYMV_DDXS: double-double's 16-byte-move kernel symv_tiles_ddxs (symv_xs.cuh),
/// same bits in every mode. Read at every call, so that a test can switch it.
///   0: none (symv_tiles_xs for the xs configurations, symv_tiles / symv_tiles_staged for the
///      others, as before);
///   1: the xs configurations run symv_tiles_ddxs<Var 1> (x of panel I re-read from shared
///      memory, <= 128 registers: 4 blocks of 128 threads per SM);
///   2: every configuration (ldg, cg, cs, st, xs; w and n) runs symv_tiles_ddxs<Var 1> with its
///      tiles per block, blocks per SM and variant (twopass / ticket);
///   3, 4: as 1, 2 with Var 3 (x of panel I in registers, <= 168 registers: 3 blocks per SM);
///   5, 6: every two-pass configuration with A 16-byte aligned runs symv_tiles_zr<dd_real>
///      (symv_xs.cuh: the columns through a ring of shared buffers, the transposed trees by
///      warp shuffles, x of panel I in registers; 5: a 2-step ring, <= 128 registers, 4 blocks
///      of 128 threads per SM; 6: a 3-step ring, <= 170 registers, ptxas uses 142), Var 3
///      elsewhere.
/// Default 4 (H200, session 8: dd n = 16384 2008 -> 2164 GB/s, 4096 1450 -> 1525; dd eigenvalues
/// at 16384 13.44 -> 12.90 s; mode 2: 2139 GB/s, 12.96 s; bench/NOTES.md). 5 was the default in
/// session 60 from an H100 (n = 16384 0.877-0.881 -> 0.865-0.868 ms against 4) and is slower on
/// the H200 (session 61: 16384 0.886-0.921 against 0.854-0.859 ms, 32768 and 8192 slower too), so
/// 4 again; 6 slower than 4 on both. 8, 9 (session 63): as 4 with Var 8 (each column element
/// read from the buffer one term ahead) or Var 9 (that and the transposed chain's first term as
/// madd_zero): 9 the default in session 64 (H200, two rounds: n = 16384 720-731 us against
/// 748-756 with 4, 8192 and 32768 1-2 % faster, 4096 equal). 7 (session 64): as 9 with every
/// other madd's signed-zero fix-up selecting the high word only (core/dd_real.hpp madd_hiword).
/// **Default 7 since session 65** (H100, three rounds: n = 16384 789.5-790.3 us against 9's
/// 794.9-795.6, 4096 2.5 %, 8192 1.7 %, 32768 0.6 % faster; GPU == CPU). (Session 62's 7, the
/// code held to 144 registers, measured 14-17 % slower and was removed in session 63.)
/// Same bits in every mode.
struct DdxsMode {
  bool on = false;  ///< this configuration runs symv_tiles_ddxs
  int var = 1;      ///< its template variant
};
inline DdxsMode ddxs_mode(SymvLoad load) {
  const char* e = std::getenv("EIGSOLVE_GPU_SYMV_DDXS");
  const int m = e && e[0] >= '0' && e[0] <= '9' && e[1] == 0 ? e[0] - '0' : 7;
  DdxsMode r;
  r.on = m != 0 && (m % 2 == 0 || m >= 5 || load == SymvLoad::xs);
  r.var = m >= 5 ? m : (m >= 3 ? 3 : 1);
  return r;
}

template <int TPB, bool Wide, bool Ticket, int Var>
void launch_ddxs(const SymvArgs<dd_real>& g, int blocks, cudaStream_t st) {
  if constexpr (Var == 5 || Var == 6) {  // symv_tiles_zr where it applies, Var 3 elsewhere
    if constexpr (Wide && !Ticket) {
      constexpr int S = Var == 5 ? 2 : 3;
      launch_k<symv_tiles_zr<dd_real, TPB, S, true, false>>(g, blocks, 64 * TPB,
                                                            sizeof(ZrSmem<S>) * TPB, st, true);
    } else {
      launch_ddxs<TPB, Wide, Ticket, 3>(g, blocks, st);
    }
  } else {
    launch_k<symv_tiles_ddxs<TPB, Wide, Ticket, Var>>(g, blocks, 64 * TPB, sizeof(X16Smem) * TPB,
                                                      st, true);
  }
}

/// symv_tiles_ddxs for tiles_per_block tpb; wide: A 16-byte aligned (every element then is).
template <int TPB>
void launch_ddxs_tpb(bool wide, bool ticket, int var, const SymvArgs<dd_real>& g, int blocks,
                     cudaStream_t st) {
  auto go = [&](auto wc, auto vc) {
    constexpr bool W = decltype(wc)::value;
    constexpr int V = decltype(vc)::value;
    if (ticket)
      launch_ddxs<TPB, W, true, V>(g, blocks, st);
    else
      launch_ddxs<TPB, W, false, V>(g, blocks, st);
  };
  using T1 = std::true_type;
  using F1 = std::false_type;
  using V1 = std::integral_constant<int, 1>;
  using V3 = std::integral_constant<int, 3>;
  using V5 = std::integral_constant<int, 5>;
  using V6 = std::integral_constant<int, 6>;
  using V8 = std::integral_constant<int, 8>;
  using V9 = std::integral_constant<int, 9>;
  using V7 = std::integral_constant<int, 7>;
  if (var == 7)
    wide ? go(T1{}, V7{}) : go(F1{}, V7{});
  else if (var == 8)
    wide ? go(T1{}, V8{}) : go(F1{}, V8{});
  else if (var == 9)
    wide ? go(T1{}, V9{}) : go(F1{}, V9{});
  else if (var == 5)
    wide ? go(T1{}, V5{}) : go(F1{}, V5{});
  else if (var == 6)
    wide ? go(T1{}, V6{}) : go(F1{}, V6{});
  else if (var == 3)
    wide ? go(T1{}, V3{}) : go(F1{}, V3{});
  else
    wide ? go(T1{}, V1{}) : go(F1{}, V1{});
}

/// Groups per block of the staged kernel: the configuration's, or fewer where a block would
/// exceed the 227 KB of shared memory of a block.
template <class T>
constexpr int staged_groups(int tpb) {
  constexpr std::size_t kMax = 227 * 1024;
  return sizeof(StagedSmem<T>) * std::size_t(tpb) <= kMax ? tpb
         : sizeof(StagedSmem<T>) * 2 <= kMax              ? 2
                                                          : 1;
}

template <class T, int TPB, bool Wide, int L>
void launch_variant(bool ticket, const SymvArgs<T>& g, int blocks, cudaStream_t st) {
  if constexpr (L == 4) {
    if constexpr (std::is_same_v<T, Complex<double>>) {
      const int mode = zxs_mode();
      if (mode != 0) {
        auto go = [&](auto mc) {
          constexpr int M = decltype(mc)::value;
          if (ticket)
            launch_zxs<TPB, Wide, true, M>(g, blocks, st);
          else
            launch_zxs<TPB, Wide, false, M>(g, blocks, st);
        };
        if (mode == 1)
          go(std::integral_constant<int, 1>{});
        else if (mode == 2)
          go(std::integral_constant<int, 2>{});
        else if (mode == 3)
          go(std::integral_constant<int, 3>{});
        else if (mode == 4)
          go(std::integral_constant<int, 4>{});
        else
          go(std::integral_constant<int, 5>{});
        return;
      }
    }
    if (ticket)
      launch_xs<T, TPB, Wide, true>(g, blocks, st);
    else
      launch_xs<T, TPB, Wide, false>(g, blocks, st);
  } else if constexpr (L == 3) {
    constexpr int G = staged_groups<T>(TPB);
    if (ticket)
      launch_staged<T, G, Wide, true>(g, blocks, st);
    else
      launch_staged<T, G, Wide, false>(g, blocks, st);
  } else {
    if (ticket)
      launch_plain<T, TPB, Wide, L, true>(g, blocks, st);
    else
      launch_plain<T, TPB, Wide, L, false>(g, blocks, st);
  }
}

template <class T, int TPB, bool Wide>
void launch_load(int load, bool ticket, const SymvArgs<T>& g, int blocks, cudaStream_t st) {
  switch (load) {
    case 0:
      return launch_variant<T, TPB, Wide, 0>(ticket, g, blocks, st);
    case 1:
      return launch_variant<T, TPB, Wide, 1>(ticket, g, blocks, st);
    case 2:
      return launch_variant<T, TPB, Wide, 2>(ticket, g, blocks, st);
    case 3:
      return launch_variant<T, TPB, Wide, 3>(ticket, g, blocks, st);
    default:
      return launch_variant<T, TPB, Wide, 4>(ticket, g, blocks, st);
  }
}

/// The plain tile kernels (loads ldg, cg, cs) with shifted 16-byte loads (g.shift > 0).
template <class T, int TPB>
void launch_shift(int load, bool ticket, const SymvArgs<T>& g, int blocks, cudaStream_t st) {
  if constexpr (sizeof(T) < 16) {
    auto go = [&](auto lc) {
      constexpr int L = decltype(lc)::value;
      if (ticket)
        launch_plain<T, TPB, false, L, true, true>(g, blocks, st);
      else
        launch_plain<T, TPB, false, L, false, true>(g, blocks, st);
    };
    if (load == 0)
      go(std::integral_constant<int, 0>{});
    else if (load == 1)
      go(std::integral_constant<int, 1>{});
    else
      go(std::integral_constant<int, 2>{});
  }
}

template <class T, int TPB>
void launch_wide(bool wide, int load, bool ticket, const SymvArgs<T>& g, int blocks,
                 cudaStream_t st) {
  if (g.shift > 0)
    launch_shift<T, TPB>(load, ticket, g, blocks, st);
  else if (wide)
    launch_load<T, TPB, true>(load, ticket, g, blocks, st);
  else
    launch_load<T, TPB, false>(load, ticket, g, blocks, st);
}

}  // namespace symv_cuda

template <class T>
std::size_t symv_workspace_bytes(index_t n) {
  if (n <= 0) return 256;
  const index_t nt = symv_cuda::tiles_of(n);
  return symv_cuda::round256(std::size_t(nt) * std::size_t(nt) * kTile * sizeof(T)) +
         symv_cuda::round256(std::size_t(nt) * sizeof(unsigned));
}

template <class T>
void symv_gpu(const SymvConfig& cfg, index_t n, T alpha, const T* A, index_t lda, const T* x,
              index_t incx, T beta, T* y, index_t incy, void* workspace, std::size_t ws_bytes,
              void* stream, const SymvRunOptions& opt) {
  using namespace symv_cuda;
  if (n < 0) throw DimensionError("symv_gpu: n = " + std::to_string(n) + " < 0");
  if (lda < (n > 1 ? n : 1))
    throw DimensionError("symv_gpu: lda = " + std::to_string(lda) + " < max(1, n)");
  if (incx == 0 || incy == 0) throw DimensionError("symv_gpu: incx and incy must be non-zero");
  if (cfg.tiles_per_block != 1 && cfg.tiles_per_block != 2 && cfg.tiles_per_block != 4)
    throw DimensionError("symv_gpu: tiles_per_block must be 1, 2 or 4");
  if (cfg.blocks_per_sm < 1 || cfg.blocks_per_sm > 64)
    throw DimensionError("symv_gpu: blocks_per_sm must be in 1..64");
  if (cfg.early != 0 && cfg.early != 1 && cfg.early != 8)
    throw DimensionError("symv_gpu: early must be 0, 1 or 8");
  if (n == 0) return;
  if (ws_bytes < symv_workspace_bytes<T>(n) || workspace == nullptr)
    throw DimensionError("symv_gpu: workspace of " + std::to_string(ws_bytes) +
                         " bytes, n = " + std::to_string(n) + " needs " +
                         std::to_string(symv_workspace_bytes<T>(n)));
  SymvArgs<T> g;
  g.n = n;
  g.lda = lda;
  g.nt = tiles_of(n);
  g.ntiles = g.nt * (g.nt + 1) / 2;
  g.A = A;
  g.x = x;
  g.incx = incx;
  g.xoff = incx > 0 ? 0 : (n - 1) * (-incx);
  g.y = y;
  g.incy = incy;
  g.yoff = incy > 0 ? 0 : (n - 1) * (-incy);
  g.alpha = alpha;
  g.beta = beta;
  g.beta_zero = (beta == T(0));
  g.rev = opt.reverse;
  g.P = static_cast<T*>(workspace);
  // Tickets at the end of the workspace: a workspace sized for a larger n keeps them clear of
  // the partials of every smaller n.
  const std::size_t tb = std::size_t(g.nt) * sizeof(unsigned);
  g.ticket = reinterpret_cast<unsigned*>(
      (reinterpret_cast<std::uintptr_t>(workspace) + ws_bytes - tb) & ~std::uintptr_t(3));
  g.discard_p = discard_mode();
  g.hoist = hoist_mode();
  g.early = static_cast<unsigned char>(cfg.early);
  g.rows_mode = rows16_mode() ? kRowsWide : 0;
  // ddxs (EIGSOLVE_GPU_SYMV_DDXS): this dd configuration runs symv_tiles_ddxs, whatever its load
  // path (mode 2/4: its tiles per block as configured, also for st).
  DdxsMode ddxs;
  if constexpr (std::is_same_v<T, dd_real>) ddxs = ddxs_mode(cfg.load);
  // Wide: 16-byte loads of the direct path need A and every column 16-byte aligned; the staged
  // path copies whole elements and needs A aligned to the element size only.
  const bool staged = cfg.load == SymvLoad::staged && !ddxs.on;
  bool wide = cfg.wide && (staged ? reinterpret_cast<std::uintptr_t>(A) % sizeof(T) == 0
                                  : (reinterpret_cast<std::uintptr_t>(A) % 16 == 0) &&
                                        ((std::size_t(lda) * sizeof(T)) % 16 == 0));
  // zxs (EIGSOLVE_GPU_SYMV_ZXS=1..3) takes 16-byte loads wherever A is 16-byte aligned, w and n
  // alike (every column then is: lda * 16 % 16 == 0); symv_tiles_xs loads complex double by
  // components for both.
  if constexpr (std::is_same_v<T, Complex<double>>)
    if (cfg.load == SymvLoad::xs && zxs_mode() != 0)
      wide = reinterpret_cast<std::uintptr_t>(A) % 16 == 0;
  // ddxs takes 16-byte loads wherever A is 16-byte aligned (w and n alike, as zxs).
  if (ddxs.on) wide = reinterpret_cast<std::uintptr_t>(A) % 16 == 0;
  // Shifted wide loads (symv_tiles' Shift): columns 16-byte apart but not on 16-byte lines, as
  // every other column step of the tridiagonalization in d and c (3 of 4 in s) with an even lda.
  using Rc = typename Parts<T>::R;
  const std::uintptr_t ua = reinterpret_cast<std::uintptr_t>(A);
  const bool plain =
      cfg.load == SymvLoad::ldg || cfg.load == SymvLoad::cg || cfg.load == SymvLoad::cs;
  static const bool shift_on = [] {  // EIGSOLVE_GPU_SYMV_SHIFT=0: narrow loads there (A/B)
    const char* e = std::getenv("EIGSOLVE_GPU_SYMV_SHIFT");
    return !(e && e[0] == '0');
  }();
  g.shift = (sizeof(T) < 16 && shift_on && cfg.wide && plain && ua % 16 != 0 &&
             ua % sizeof(Rc) == 0 && (std::size_t(lda) * sizeof(T)) % 16 == 0)
                ? int((ua % 16) / sizeof(Rc))
                : 0;
  const bool ticket = cfg.variant == SymvVariant::ticket;
  if (!ticket && !opt.defer_rowsums && rows_pdl_mode() && cc_major() >= 9) g.rows_mode |= kRowsPdl;
  const int load = static_cast<int>(cfg.load);
  const int tpb = staged ? (cfg.tiles_per_block == 1   ? staged_groups<T>(1)
                            : cfg.tiles_per_block == 2 ? staged_groups<T>(2)
                                                       : staged_groups<T>(4))
                         : cfg.tiles_per_block;
  const index_t groups = (g.ntiles + tpb - 1) / tpb;
  const index_t want = index_t(cfg.blocks_per_sm) * sm_count();
  const int blocks = int(groups < want ? groups : want);
  cudaStream_t st = static_cast<cudaStream_t>(stream);
  if (ddxs.on) {
    if constexpr (std::is_same_v<T, dd_real>) {
      if (tpb == 1)
        launch_ddxs_tpb<1>(wide, ticket, ddxs.var, g, blocks, st);
      else if (tpb == 2)
        launch_ddxs_tpb<2>(wide, ticket, ddxs.var, g, blocks, st);
      else
        launch_ddxs_tpb<4>(wide, ticket, ddxs.var, g, blocks, st);
    }
  } else {
    switch (cfg.tiles_per_block) {
      case 1:
        launch_wide<T, 1>(wide, load, ticket, g, blocks, st);
        break;
      case 2:
        launch_wide<T, 2>(wide, load, ticket, g, blocks, st);
        break;
      default:
        launch_wide<T, 4>(wide, load, ticket, g, blocks, st);
        break;
    }
  }
  check_launch("symv_gpu tiles kernel");
  if (opt.rowsums_deferred) *opt.rowsums_deferred = !ticket && opt.defer_rowsums;
  if (!ticket && opt.defer_rowsums) {
    *static_cast<SymvArgs<T>*>(opt.defer_rowsums) = g;
  } else if (!ticket) {
    launch_rowsums(g, st);
    check_launch("symv_gpu row-sum kernel");
  }
}

}  // namespace eigsolve

#define EIGSOLVE_SYMV_GPU_INSTANTIATE(T)                                                           \
  template std::size_t eigsolve::symv_workspace_bytes<T>(eigsolve::index_t);                       \
  template void eigsolve::symv_gpu<T>(const eigsolve::SymvConfig&, eigsolve::index_t, T, const T*, \
                                      eigsolve::index_t, const T*, eigsolve::index_t, T, T*,       \
                                      eigsolve::index_t, void*, std::size_t, void*,                \
                                      const eigsolve::SymvRunOptions&);
