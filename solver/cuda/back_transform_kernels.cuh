// Thread maps and per-thread arithmetic of the device back-transformation
// (back_transform_device.cu), host-and-device so that a CPU emulation can run the very index
// math and operation order of the kernels: they neither synchronise nor touch CUDA builtins;
// the kernels pass each function their thread index and a copy functor (cp.async on the
// device, a plain assignment in an emulation). The section at the end (nvcc only) holds the
// cp.async wrappers and the small kernels (pack, ordered tile sum + step 2, T factor).
//
//   step 1 thread (cg, jg) of a 64-row tile, all 8 chunks of it in registers, the tile in two
//   pipeline stages of 32 rows (half1<H>: chunks 4H .. 4H+3):
//
//        reflectors c = refl1(cg, k), k < R       columns j = J jg + u, u < J   (R x J = 4 x 4;
//     vs [32][32] (row-major, V packed)   zs [32][ZS] (row-major copy       2 x 4 for 16-byte
//        of the Z rows)                                                      types)
//        for chunk q = 0..7: s = 0; s = madd_conj(v_rc, z_rj, s) for the 8 rows of q
//        tree as the chunks complete: ((c0 + c1) + (c2 + c3)) + ((c4 + c5) + (c6 + c7))
//
//   step 3 thread (rw, rl; cw, cl): rows 32 rw + rl + RL i (i < RR) of the block's rows,
//     columns cw * CL JJ + cl * JJ + u (u < JJ); vs3[c][pos3(row)] puts a thread's RR rows side
//     by side, ns3[c][col]:  z = madd(v_rc, ny_cj, z) for c = 0 .. k-1.
#pragma once

#include "core/canonical.hpp"
#include "core/hd.hpp"
#include "core/precision.hpp"

namespace eigsolve {
namespace bt {

constexpr int kB = 32;         ///< reflectors per block (the format's constant)
constexpr int kThreads = 256;  ///< threads per thread block, every kernel

/// Register tiles per precision (16-byte scalars, complex double and dd, take smaller ones).
/// Shared memory returns 128 bytes a clock per SM and FP64 does 64 fmas: a thread must do about
/// 4 fmas per 8-byte value it loads, hence R x J tiles of 4 x 4 (a row of loads feeds 16
/// fmas). Lane bit 0 selects the column group and bit 1 the row/reflector group, so that lanes
/// n, n^1 (or n, n^2) load the same address.
template <class T>
struct Cfg {
  static constexpr bool kWide = sizeof(T) >= 16;
  static constexpr int kPad = kWide ? 1 : 16 / int(sizeof(T));  ///< keeps rows 16-byte aligned
  // Step 1: 128 threads of R reflectors x J columns; reflectors in adjacent pairs (P = 2) so
  // that one 16-byte shared load brings two of them. Pipeline stages of half a tile (32 rows).
  static constexpr int kThreads1 = 128;
  static constexpr int kR1 = kWide ? 2 : 4;
  static constexpr int kJ1 = 4;
  static constexpr int kP1 = kWide ? 1 : 2;
  static constexpr int kG1 = kB / kR1;                       ///< reflector groups (8 / 16)
  static constexpr int kJC1 = kThreads1 / kG1 * kJ1;         ///< columns per block (64 / 32)
  static constexpr int kZS1 = kJC1 + kPad;                   ///< row stride of zs
  static constexpr int kHalf = kTile / 2;                    ///< rows per stage
  static constexpr int kStage1 = kHalf * kB + kHalf * kZS1;  ///< elements of one stage
  static constexpr int kStages1 = kWide ? 2 : 3;
  /// The chained tile sums of step 1 in registers where they fit beside the tile's chains
  /// (8-byte and smaller scalars), else in shared memory (kAcc1 slots, acc1()).
  static constexpr bool kAccReg1 = sizeof(T) <= 8;
  static constexpr int kAcc1 = kAccReg1 ? 0 : kR1 * kJ1 * kThreads1;
  static constexpr int kWS1 = kB + 1;  ///< row stride of the W tile (epilogue)
  // Step 3: 256 threads of RR rows x JJ columns; CL column lanes per warp, RW warps down the
  // rows, the rest across.
  static constexpr int kRR3 = kWide ? 2 : 4;
  static constexpr int kJJ3 = 4;
  static constexpr int kCL3 = kWide ? 2 : 4;
  static constexpr int kRL3 = 32 / kCL3;  ///< row lanes; kRL3 * kRR3 = 32 rows per warp
  static constexpr int kRW3 = kWide ? 2 : 4;
  static constexpr int kRT3 = 32 * kRW3;                           ///< rows per block
  static constexpr int kJC3 = kThreads / 32 / kRW3 * kCL3 * kJJ3;  ///< columns per sub-batch
  static constexpr int kVS3 = kRT3 + kPad;                         ///< row stride of vs3
  static_assert(kRL3 * kRR3 == 32, "a warp covers 32 rows");
};

/// V(r, c) of the block at reflector i0 as packed (Vp[r * 32 + c], rows r < Lpad): explicit 0
/// above the unit, 1, then A(i0+1+r, i0+c); 0 for c >= k and r >= L.
template <class T>
ES_HD_INLINE T pack_elem(const T* A, index_t lda, index_t i0, int k, index_t L, index_t r, int c) {
  if (r >= L || c >= k || r < c) return T(0);
  if (r == c) return T(1);
  return A[(i0 + 1 + r) + (i0 + c) * lda];
}

// ---------------------------------------------------------------- step 1

/// Reflector of register k (k < R) of reflector group cg.
template <class T>
ES_HD_INLINE int refl1(int cg, int k) {
  using C = Cfg<T>;
  return (k / C::kP1) * (C::kG1 * C::kP1) + C::kP1 * cg + k % C::kP1;
}

/// Thread tid's reflector group (lane bits 1..) and column group (lane bit 0, the bits above
/// the reflector group's, then the warp).
template <class T>
ES_HD_INLINE void coords1(int tid, int& cg, int& jg) {
  using C = Cfg<T>;
  const int lane = tid & 31, warp = tid >> 5;
  cg = (lane >> 1) % C::kG1;
  jg = ((lane & 1) | (((lane >> 1) / C::kG1) << 1)) + (32 / C::kG1) * warp;
}

/// Stage of rows r0 .. r0+31: vs[rr][c] = Vp[(r0 + rr) * 32 + c] (Vp: packed rows of 32, zero
/// past the block's rows; copy16 copies 16 bytes) and zs[rr][jj] = Z(r0 + rr, j0 + jj) =
/// Z[(r0 + rr) * zrs + (j0 + jj) * zcs], zero past L rows or ncols columns (copy: one element).
/// Thread tid copies V's 16-byte pieces tid + 128 i and the Z elements of one row rr, columns
/// jj0 + 4 i: a half warp takes 16 rows of a column (128 contiguous bytes of a column-major Z)
/// and a warp's shared stores span every bank twice (the whole warp on one column, 32 rows of
/// stride kZS1, was a 4-way conflict). A stage with every row and column present (all but the
/// last of a block's, the test is block-uniform) walks one pointer without checks.
template <class T, class Copy16, class Copy>
ES_HD_INLINE void load1(int tid, T* stage, const T* Vp, const T* Z, index_t zrs, index_t zcs,
                        index_t r0, index_t L, index_t j0, index_t ncols, Copy16&& copy16,
                        Copy&& copy) {
  using C = Cfg<T>;
  static_assert(C::kThreads1 == 128 && C::kHalf == 32, "the copy map below");
  constexpr int n16 = C::kHalf * kB * int(sizeof(T)) / 16;
  static_assert(n16 % C::kThreads1 == 0, "whole V pieces per thread");
  const char* src = reinterpret_cast<const char*>(Vp + r0 * kB) + 16 * tid;
  char* dst = reinterpret_cast<char*>(stage) + 16 * tid;
#pragma unroll
  for (int i = 0; i < n16 / C::kThreads1; ++i)
    copy16(dst + 16 * C::kThreads1 * i, src + 16 * C::kThreads1 * i);
  constexpr int kZI = C::kHalf * C::kJC1 / C::kThreads1;  // Z elements per thread
  static_assert(C::kJC1 % 4 == 0 && kZI * 4 == C::kJC1, "columns jj0 + 4 i cover the block");
  const int lane = tid & 31, warp = tid >> 5;
  const int rr = (lane & 15) + 16 * (warp & 1);
  const int jj0 = (lane >> 4) + 2 * (warp >> 1);
  T* d = stage + C::kHalf * kB + rr * C::kZS1 + jj0;
  if (r0 + C::kHalf <= L && j0 + C::kJC1 <= ncols) {
    const T* s = Z + (r0 + rr) * zrs + (j0 + jj0) * zcs;
    const index_t step = 4 * zcs;
#pragma unroll
    for (int i = 0; i < kZI; ++i) {
      copy(d + 4 * i, s);
      s += step;
    }
  } else {
    const bool rok = r0 + rr < L;
    for (int i = 0; i < kZI; ++i) {
      const index_t j = j0 + jj0 + 4 * i;
      if (rok && j < ncols)
        copy(d + 4 * i, Z + (r0 + rr) * zrs + j * zcs);
      else
        d[4 * i] = T(0);
    }
  }
}

/// The running tree of one tile for thread (cg, jg): a = c0 (+ c1) (+ (c2 + c3)), b = c4 (+ c5),
/// d = c2 / c6, and at the end p = a + (b + (d + c7)) = ((c0 + c1) + (c2 + c3)) + ((c4 + c5) +
/// (c6 + c7)), the tile partial of conj(V(:, refl1(cg, k))) . Z(:, J jg + u).
template <class T>
struct Tree1 {
  T a[Cfg<T>::kR1][Cfg<T>::kJ1], b[Cfg<T>::kR1][Cfg<T>::kJ1], d[Cfg<T>::kR1][Cfg<T>::kJ1];
  T p[Cfg<T>::kR1][Cfg<T>::kJ1];
};

/// Half H (chunks 4H .. 4H+3) of a tile from one stage: for each chunk s = 0; s =
/// madd_conj(v_rc, z_rj, s) over its rows present (rows 0 .. rows-1 of the stage; past them
/// absent, not zero terms; Full: all 32), then into the tree.
template <class T, int H, bool Full>
ES_HD_INLINE void half1(const T* stage, int cg, int jg, int rows, Tree1<T>& tr) {
  using C = Cfg<T>;
  constexpr int R = C::kR1, J = C::kJ1;
  const T* vs = stage;
  const T* zr = stage + C::kHalf * kB + C::kJ1 * jg;
  T s[R][J];
#pragma unroll
  for (int qq = 0; qq < kChunk / 2; ++qq) {
    const int q = 4 * H + qq;
#pragma unroll
    for (int k = 0; k < R; ++k)
#pragma unroll
      for (int u = 0; u < J; ++u)
        s[k][u] = T(0);
#pragma unroll
    for (int i = 0; i < kChunk; ++i) {
      const int rr = kChunk * qq + i;
      if (Full || rr < rows) {
        T v[R], z[J];
#pragma unroll
        for (int k = 0; k < R; ++k)
          v[k] = vs[rr * kB + refl1<T>(cg, k)];
#pragma unroll
        for (int u = 0; u < J; ++u)
          z[u] = zr[rr * C::kZS1 + u];
#pragma unroll
        for (int k = 0; k < R; ++k)
#pragma unroll
          for (int u = 0; u < J; ++u)
            s[k][u] = madd_conj(v[k], z[u], s[k][u]);
      }
    }
#pragma unroll
    for (int k = 0; k < R; ++k)
#pragma unroll
      for (int u = 0; u < J; ++u) {
        T& a = tr.a[k][u];
        T& b = tr.b[k][u];
        T& d = tr.d[k][u];
        if (q == 0) a = s[k][u];
        if (q == 1) a = a + s[k][u];
        if (q == 2) d = s[k][u];
        if (q == 3) a = a + (d + s[k][u]);
        if (q == 4) b = s[k][u];
        if (q == 5) b = b + s[k][u];
        if (q == 6) d = s[k][u];
        if (q == 7) tr.p[k][u] = a + (b + (d + s[k][u]));
      }
  }
}

/// Step 2 of the sweep epilogue, thread tid, its i-th (c, jl): ws[jl][q] = w_qj of the block's
/// column jl; ts[q][c] = T_cq. Returns ny_cj = -s, s = 0; s = madd(T_cq, w_qj, s), q = c..k-1.
template <class T>
ES_HD_INLINE void coords2(int tid, int i, int& c, int& jl) {
  using C = Cfg<T>;
  jl = tid % C::kJC1;
  c = tid / C::kJC1 + (C::kThreads1 / C::kJC1) * i;
}
/// (c, jl) per thread in step 2.
template <class T>
constexpr int kPairs2 = kB* Cfg<T>::kJC1 / Cfg<T>::kThreads1;

/// Shared slot of thread tid's sweep accumulator (k, u).
template <class T>
ES_HD_INLINE int acc1(int tid, int k, int u) {
  return (k * Cfg<T>::kJ1 + u) * Cfg<T>::kThreads1 + tid;
}

template <class T>
ES_HD_INLINE T ny2(const T* ts, const T* ws, int k, int c, int jl) {
  T s = T(0);
  for (int q = c; q < k; ++q)
    s = madd(ts[q * (kB + 1) + c], ws[jl * Cfg<T>::kWS1 + q], s);
  return -s;
}

// ---------------------------------------------------------------- step 3

/// Position of block row rl (0 .. RT-1) in a row of vs3: a thread's RR rows side by side.
template <class T>
ES_HD_INLINE int pos3(int rl) {
  using C = Cfg<T>;
  const int w = rl % 32;
  return 32 * (rl / 32) + C::kRR3 * (w % C::kRL3) + w / C::kRL3;
}

/// Thread tid's first row (block row; the others + RL, + 2 RL, ...), its vs3 position and its
/// first column. Row lane = lane bits 1.., column lane = lane bit 0 and the bits above.
template <class T>
ES_HD_INLINE void coords3(int tid, int& row, int& pos, int& col) {
  using C = Cfg<T>;
  const int lane = tid & 31, warp = tid >> 5;
  const int rw = warp % C::kRW3, cw = warp / C::kRW3;
  const int rl = (lane >> 1) % C::kRL3, cl = (lane & 1) | (((lane >> 1) / C::kRL3) << 1);
  row = 32 * rw + rl;
  pos = 32 * rw + C::kRR3 * rl;
  col = cw * C::kCL3 * C::kJJ3 + cl * C::kJJ3;
}

/// V rows of the thread block into vs3: block row rl is V row s0 + rl - 1 (the row space of
/// step 3 starts one row above the block, at matrix row i0, so that rows align with i0);
/// zero outside 0 .. L-1. Thread tid copies column c = tid % 32 of rows rl0 + 8 i: a block with
/// every row inside (all but the first and the last, the test is block-uniform) walks one pointer
/// with constant offsets and no checks.
template <class T, class Copy>
ES_HD_INLINE void load_v3(int tid, T* vs3, const T* Vp, index_t s0, index_t L, Copy&& copy) {
  using C = Cfg<T>;
  static_assert(kThreads % kB == 0 && C::kRT3 * kB % kThreads == 0, "whole rows per pass");
  constexpr int kPass = C::kRT3 * kB / kThreads, kRows = kThreads / kB;
  // rl0 < kRows and kRows | RL: pos3(rl0 + kRows i) = pos3(rl0) + pos3(kRows i), a constant
  // offset per pass.
  static_assert(C::kRL3 % kRows == 0, "pos3 splits");
  const int c = tid % kB, rl0 = (tid / kB) % kRows;
  T* d = vs3 + c * C::kVS3;
  if (s0 >= 1 && s0 + C::kRT3 - 1 <= L) {
    const T* s = Vp + (s0 - 1 + rl0) * kB + c;
    T* d0 = d + pos3<T>(rl0);
#pragma unroll
    for (int i = 0; i < kPass; ++i)
      copy(d0 + pos3<T>(kRows * i), s + kRows * kB * i);
  } else {
#pragma unroll 1
    for (int i = 0; i < kPass; ++i) {
      const int rl = rl0 + kRows * i;
      const index_t r = s0 + rl - 1;
      if (r >= 0 && r < L)
        copy(d + pos3<T>(rl), Vp + r * kB + c);
      else
        d[pos3<T>(rl)] = T(0);
    }
  }
}

/// NY columns j0 .. j0+JC3-1 into ns3[c][jl] (zero past ncols). Thread tid copies the elements
/// e = tid + 256 i of the buffer (c = e / JC3, jl = e % JC3): a whole number of rows c per pass,
/// so jl and the column test are the thread's own, and the source is one pointer stepped by
/// rows of NY (no division or 64-bit product per element).
template <class T, class Copy>
ES_HD_INLINE void load_ny3(int tid, T* ns3, const T* NY, index_t ldny, index_t j0, index_t ncols,
                           Copy&& copy) {
  using C = Cfg<T>;
  static_assert(kThreads % C::kJC3 == 0 && kB * C::kJC3 % kThreads == 0, "whole rows per pass");
  constexpr int kPass = kB * C::kJC3 / kThreads, kRows = kThreads / C::kJC3;
  const int jl = tid % C::kJC3;
  T* d = ns3 + tid;  // (tid / JC3) * JC3 + jl
  if (j0 + jl < ncols) {
    const T* s = NY + (tid / C::kJC3) * ldny + j0 + jl;
    const index_t step = kRows * ldny;
#pragma unroll
    for (int i = 0; i < kPass; ++i) {
      copy(d + kThreads * i, s);
      s += step;
    }
  } else {
#pragma unroll
    for (int i = 0; i < kPass; ++i)
      d[kThreads * i] = T(0);
  }
}

/// Step 3 for one thread: acc[i][u] = madd(v_rc, ny_cj, acc[i][u]) for c = 0 .. k-1 (Full:
/// k = 32), rows pos + i of vs3 (i < RR), columns col + u of ns3 (u < JJ).
template <class T, bool Full>
ES_HD_INLINE void apply3(const T* vs3, const T* ns3, int k, int pos, int col,
                         T (&acc)[Cfg<T>::kRR3][Cfg<T>::kJJ3]) {
  using C = Cfg<T>;
  const int kk = Full ? kB : k;
#pragma unroll(Full ? 32 : 4)
  for (int c = 0; c < kk; ++c) {
    T v[C::kRR3], y[C::kJJ3];
#pragma unroll
    for (int i = 0; i < C::kRR3; ++i)
      v[i] = vs3[c * C::kVS3 + pos + i];
#pragma unroll
    for (int u = 0; u < C::kJJ3; ++u)
      y[u] = ns3[c * C::kJC3 + col + u];
#pragma unroll
    for (int i = 0; i < C::kRR3; ++i)
#pragma unroll
      for (int u = 0; u < C::kJJ3; ++u)
        acc[i][u] = madd(v[i], y[u], acc[i][u]);
  }
}

// ---------------------------------------------------------------- device only

#if defined(__CUDACC__)
// cp.async: global -> shared without registers (sm_80+); groups committed and awaited in order.
__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
template <int W>
__device__ __forceinline__ void cp_async(void* dst, const void* src) {
  if constexpr (W == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem_addr(dst)), "l"(src)
                 : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(smem_addr(dst)), "l"(src),
                 "n"(W)
                 : "memory");
}
/// One element of T, in pieces of its alignment (4 bytes for complex float, 8 for the 16-byte
/// scalars).
template <class T>
__device__ __forceinline__ void cp_async_elem(T* dst, const T* src) {
  constexpr int W = int(alignof(T));
#pragma unroll
  for (int i = 0; i < int(sizeof(T)) / W; ++i)
    cp_async<W>(reinterpret_cast<char*>(dst) + W * i, reinterpret_cast<const char*>(src) + W * i);
}
__device__ __forceinline__ void cp_commit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}
template <int N>
__device__ __forceinline__ void cp_wait() {  // all but the N newest groups complete
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

/// Vp rows [32 x, 32 x + 32) of block i0 (a 32 x 32 transpose through shared memory: A is read
/// down its columns, Vp written along its rows).
template <class T>
__global__ void __launch_bounds__(kThreads)
    pack_kernel(const T* A, index_t lda, index_t i0, int k, index_t L, T* Vp) {
  __shared__ T tile[kB][kB + 1];
  const int tx = threadIdx.x & 31, ty = threadIdx.x >> 5;
  const index_t r0 = index_t(blockIdx.x) * kB;
  for (int c = ty; c < kB; c += kThreads / 32)
    tile[c][tx] = bt::pack_elem(A, lda, i0, k, L, r0 + tx, c);
  __syncthreads();
  for (int r = ty; r < kB; r += kThreads / 32)
    Vp[(r0 + r) * kB + tx] = tile[tx][r];
}

/// Ordered tile sum and step 2. Warp w of block x: column j = 8x + w; lane c:
///   w_cj = P(0, j, c) + P(t1, j, c) + ... + P(nt-1, j, c)   (ascending, a chain of adds; P(0)
///   holds the chain of tiles 0 .. t1-1 already)
/// Tb == nullptr: out[c * ocs + j * ojs] = w_cj (the G of the T factor).
/// Otherwise (c < k): out[c * ocs + j * ojs] = -s, s = 0; s = madd(T_cq, w_qj, s), q = c..k-1.
template <class T>
__global__ void __launch_bounds__(kThreads)
    sum_kernel(index_t nt, index_t t1, index_t ncols, index_t pld, const T* P, int k, const T* Tb,
               T* out, index_t ocs, index_t ojs) {
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
  index_t t = t1;
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
#endif  // __CUDACC__

}  // namespace bt
}  // namespace eigsolve
