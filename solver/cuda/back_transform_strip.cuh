// The column-strip back-transformation (EIGSOLVE_GPU_BT_STRIP, real types): one thread block
// owns 32 columns of Z and applies every block of reflectors to them, last to first, with
// step 3 of block b+1 and step 1 of block b in one pass over the rows, so that each element of
// Z is read and written once per block (the three-kernel path reads it twice and writes it
// once, and round-trips step 1's tile partials through DRAM). The order of every operation is
// docs/canonical-backtransform.md's, so the bits are the CPU's:
//
//   pass b (b = B-1 .. -1), rows R0 = 32 max(b,0) + 1 .. nq-1 in tiles of 64 (block b's tiles):
//
//     tile t -> shared (cp.async, 3 stages):  A(rows, 32b .. 32b+63) = [ V_b | V_b+1 ]
//                                             (0 above the unit, 1, A below; 0 past nq / k)
//                                             Z(rows, 32 columns)
//     thread = chunk q (8 rows, lane bits 0-2) x JT columns:
//       step 3 of b+1 (rows >= 32(b+1)+1): z = madd(v1_rc, ny1_cj, z), c = 0 .. k1-1
//       step 1 of b: s = 0; s = madd(v_rc, z_rj, s) over the chunk's rows present, for 32 c
//                    in the lane's rotated order c = i ^ m(q) (m = 16 q0 + 8 q1 + 4 q2), so
//                    that the fixed tree ((c0 + c1) + (c2 + c3)) + ((c4 + c5) + (c6 + c7)) is
//                    three xor-shuffle levels (lane ^ 1, ^ 2, ^ 4) that each halve the values
//                    a lane holds: after them lane q holds p_t for c = m(q) .. m(q)+3
//                    acc = p_0; acc = acc + p_t (ascending tiles, in registers)
//       z back to the stage (the warp's own columns) and to Z, coalesced
//     after the last tile: W = acc; step 2 NY_b = -(T_b W) (chains q = c .. k-1) -> shared,
//     the next pass's step 3 reads it.
//
// Passes are split over launches (NY carried through global memory between them), so that a
// launch stays short beside the inverse iteration's kernels.
#pragma once

#include <cuda_runtime.h>

#include "core/arith.hpp"
#include "core/canonical.hpp"
#include "core/precision.hpp"

namespace eigsolve {
namespace bt_strip {

constexpr int kB = 32;                        ///< reflectors per block (the format's constant)
constexpr int kCW = 32;                       ///< columns per thread block
constexpr int kRS = 80;                       ///< padded rows of a tile: chunk q at 10 q
constexpr int kStages = 3;                    ///< cp.async pipeline stages
constexpr int kStage = (2 * kB + kCW) * kRS;  ///< elements of one stage: A part, then Z part

__host__ __device__ constexpr int threads(int jt) {
  return 8 * (kCW / jt);
}
template <class T>
constexpr std::size_t smem_bytes() {
  return (std::size_t(kStages) * kStage + kB * kCW) * sizeof(T);
}

__device__ __forceinline__ int prow(int r) {  // padded position of tile row r
  return (r >> 3) * 10 + (r & 7);
}

template <class T>
__device__ __forceinline__ void cp8(T* dst, const T* src) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "real types");
  const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(d), "l"(src), "n"(int(sizeof(T)))
               : "memory");
}
__device__ __forceinline__ void commit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}
template <int N>
__device__ __forceinline__ void wait_groups() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

/// Passes b = bhi .. blo (descending, blo >= -1) on columns [32 x, 32 x + 32) of Z (nq rows of
/// the reflector space, ld ldz, ncols columns). A: the reflectors (sytrd 'L' storage, ld lda);
/// Tall: the T factors (block b at Tall + 1024 b, T_rc at [r + 32 c]); NYg (ld ldny, c-major):
/// NY_{bhi+1} in (bhi < B-1), NY_{blo} out (blo >= 0).
template <class T, int JT>
__global__ void __launch_bounds__(threads(JT), 1)
    strip_kernel(const T* __restrict__ A, index_t lda, index_t nq, int nblocks,
                 const T* __restrict__ Tall, T* Z, index_t ldz, index_t ncols, int bhi, int blo,
                 T* NYg, index_t ldny) {
  constexpr int NT = threads(JT);
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* const sm = reinterpret_cast<T*>(smem_raw);
  T* const ny = sm + kStages * kStage;  // ny[c * 32 + j]
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int q = lane & 7;                                   // chunk of the tile
  const int jl0 = JT * ((lane >> 3) + 4 * warp);            // first column (of 32)
  const int m = ((q & 1) << 4) | ((q & 2) << 2) | (q & 4);  // rotation of step 1's c
  const index_t j0 = index_t(blockIdx.x) * kCW;

  // NY of block bhi + 1 (the previous launch's last pass).
  if (bhi + 1 <= nblocks - 1) {
    for (int e = tid; e < kB * kCW; e += NT) {
      const int c = e >> 5, j = e & 31;
      ny[e] = j0 + j < ncols ? NYg[index_t(c) * ldny + j0 + j] : T(0);
    }
  }

  for (int b = bhi; b >= blo; --b) {
    const bool has0 = b >= 0, has1 = b + 1 <= nblocks - 1;
    const index_t R0 = 32 * index_t(b > 0 ? b : 0) + 1;  // first row of the pass
    const index_t L = nq - R0;                           // rows of the pass (>= 1)
    const index_t S3 = 32 * index_t(b + 1) + 1;          // first row of block b+1
    const int k = has0 ? int(nq - 1 - 32 * index_t(b) < kB ? nq - 1 - 32 * index_t(b) : kB) : 0;
    const int k1 = has1 ? int(nq - S3 < kB ? nq - S3 : kB) : 0;
    const index_t nt = (L + kTile - 1) / kTile;
    const index_t acol = 32 * index_t(b);  // A column of stage column a (a >= 32 when b = -1)
    const int alo = has0 ? 0 : kB, ahi = has1 ? 2 * kB : kB;
    __syncthreads();  // the previous pass's stages and ny are consumed

    // Tile t into stage s (an empty group past the end).
    auto issue = [&](index_t t, int s) {
      if (t < nt) {
        T* st = sm + s * kStage;
        const index_t Rt = R0 + kTile * t;
        const bool full = t >= 1 && Rt + kTile <= nq && k == (has0 ? kB : 0) &&
                          k1 == (has1 ? kB : 0) && j0 + kCW <= ncols;
        constexpr int kA = 2 * kB * kTile / NT;  // A elements per thread
        constexpr int kZ = kCW * kTile / NT;     // Z elements per thread
        const int rho = tid & 63;
        const int pr = prow(rho);
        const index_t R = Rt + rho;
        if (full) {
#pragma unroll 8
          for (int i = 0; i < kA; ++i) {
            const int a = (tid >> 6) + (NT / 64) * i;
            if (a >= alo && a < ahi) cp8(st + a * kRS + pr, A + R + (acol + a) * lda);
          }
#pragma unroll 8
          for (int i = 0; i < kZ; ++i) {
            const int j = (tid >> 6) + (NT / 64) * i;
            cp8(st + (2 * kB + j) * kRS + pr, Z + R + (j0 + j) * ldz);
          }
        } else {
          for (int i = 0; i < kA; ++i) {
            const int a = (tid >> 6) + (NT / 64) * i;
            if (a < alo || a >= ahi) continue;
            const int c = a & 31;
            const index_t i0 = acol + (a & 32);  // first column of the block
            const int kk = a < kB ? k : k1;
            T* d = st + a * kRS + pr;
            if (R >= nq || c >= kk)
              *d = T(0);
            else if (R > i0 + 1 + c)
              cp8(d, A + R + (acol + a) * lda);
            else
              *d = R == i0 + 1 + c ? T(1) : T(0);
          }
          for (int i = 0; i < kZ; ++i) {
            const int j = (tid >> 6) + (NT / 64) * i;
            T* d = st + (2 * kB + j) * kRS + pr;
            if (R < nq && j0 + j < ncols)
              cp8(d, Z + R + (j0 + j) * ldz);
            else
              *d = T(0);
          }
        }
      }
      commit();
    };

    for (int s = 0; s < kStages - 1; ++s)
      issue(s, s);

    T acc[4][JT];
    for (index_t t = 0; t < nt; ++t) {
      const int cur = int(t % kStages);
      wait_groups<kStages - 2>();
      __syncthreads();  // tile t landed (every thread's copies); stage t-1 is free
      issue(t + kStages - 1, int((t + kStages - 1) % kStages));
      const T* st = sm + cur * kStage;
      const T* vb = st;             // V_b(row, c) at vb[c * kRS + prow(row)]
      const T* v1 = st + kB * kRS;  // V_{b+1}
      T* zs = const_cast<T*>(st) + 2 * kB * kRS;
      const index_t Rt = R0 + kTile * t;
      T z[8][JT];
#pragma unroll
      for (int u = 0; u < JT; ++u)
#pragma unroll
        for (int i = 0; i < 8; ++i)
          z[i][u] = zs[(jl0 + u) * kRS + 10 * q + i];
      // Step 3 of block b+1 on the chunk's rows (all of them or none are in the block).
      const bool do3 = has1 && Rt + 8 * q >= S3;
      if (do3) {
        auto step3 = [&](int kk) {
          for (int c = 0; c < kk; ++c) {
            T v[8], y[JT];
#pragma unroll
            for (int i = 0; i < 8; ++i)
              v[i] = v1[c * kRS + 10 * q + i];
#pragma unroll
            for (int u = 0; u < JT; ++u)
              y[u] = ny[c * kCW + jl0 + u];
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
              for (int u = 0; u < JT; ++u)
                z[i][u] = madd(v[i], y[u], z[i][u]);
          }
        };
        if (k1 == kB) {
#pragma unroll 4
          for (int c = 0; c < kB; ++c) {
            T v[8], y[JT];
#pragma unroll
            for (int i = 0; i < 8; ++i)
              v[i] = v1[c * kRS + 10 * q + i];
#pragma unroll
            for (int u = 0; u < JT; ++u)
              y[u] = ny[c * kCW + jl0 + u];
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
              for (int u = 0; u < JT; ++u)
                z[i][u] = madd(v[i], y[u], z[i][u]);
          }
        } else {
          step3(k1);
        }
#pragma unroll
        for (int u = 0; u < JT; ++u)
#pragma unroll
          for (int i = 0; i < 8; ++i)
            zs[(jl0 + u) * kRS + 10 * q + i] = z[i][u];
      }
      // Step 1 of block b: the chunk chains, the tree by shuffles, the chain over tiles.
      if (has0) {
        const index_t left = L - kTile * t - 8 * q;  // rows of this chunk present
        const int pres = left >= 8 ? 8 : (left > 0 ? int(left) : 0);
        T s[kB][JT];
        if (pres == 8) {
#pragma unroll
          for (int i = 0; i < kB; ++i) {
            const T* vp = vb + (i ^ m) * kRS + 10 * q;
            T v[8];
#pragma unroll
            for (int r = 0; r < 8; ++r)
              v[r] = vp[r];
#pragma unroll
            for (int u = 0; u < JT; ++u) {
              T a = T(0);
#pragma unroll
              for (int r = 0; r < 8; ++r)
                a = madd_conj(v[r], z[r][u], a);
              s[i][u] = a;
            }
          }
        } else {
#pragma unroll
          for (int i = 0; i < kB; ++i) {
            const T* vp = vb + (i ^ m) * kRS + 10 * q;
#pragma unroll
            for (int u = 0; u < JT; ++u) {
              T a = T(0);
#pragma unroll
              for (int r = 0; r < 8; ++r)
                if (r < pres) a = madd_conj(vp[r], z[r][u], a);
              s[i][u] = a;
            }
          }
        }
        // Tree level 1 (chunks q, q^1): keep c = i ^ m for i < 16, send i + 16.
#pragma unroll
        for (int i = 0; i < 16; ++i)
#pragma unroll
          for (int u = 0; u < JT; ++u)
            s[i][u] = s[i][u] + __shfl_xor_sync(0xffffffffu, s[i + 16][u], 1);
#pragma unroll
        for (int i = 0; i < 8; ++i)
#pragma unroll
          for (int u = 0; u < JT; ++u)
            s[i][u] = s[i][u] + __shfl_xor_sync(0xffffffffu, s[i + 8][u], 2);
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
          for (int u = 0; u < JT; ++u) {
            const T p = s[i][u] + __shfl_xor_sync(0xffffffffu, s[i + 4][u], 4);
            acc[i][u] = t == 0 ? p : acc[i][u] + p;
          }
      }
      // The warp's columns of the tile back to Z (rows of block b+1), coalesced.
      if (has1) {  // (every tile of a pass holds rows of block b+1)
        __syncwarp();
        const int cw0 = JT * 4 * warp;  // the warp's first column
#pragma unroll
        for (int e = lane; e < JT * 4 * kTile; e += 32) {
          const int j = cw0 + e / kTile, rho = e % kTile;
          const index_t R = Rt + rho;
          if (R >= S3 && R < nq && j0 + j < ncols) Z[R + (j0 + j) * ldz] = zs[j * kRS + prow(rho)];
        }
      }
    }
    wait_groups<0>();
    if (!has0) break;             // b = -1: step 3 of block 0 was the last
    __syncthreads();              // every stage consumed: W and T take stage 0
    T* ws = sm;                   // ws[j * 33 + q] = w_qj
    T* ts = sm + kCW * (kB + 1);  // ts[c * 33 + q] = T_cq
    const T* Tb = Tall + index_t(kB) * kB * b;
    for (int e = tid; e < kB * kB; e += NT) {
      const int c = e & 31, qq = e >> 5;
      ts[c * (kB + 1) + qq] = Tb[c + kB * qq];
    }
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int u = 0; u < JT; ++u)
        ws[(jl0 + u) * (kB + 1) + (m + i)] = acc[i][u];
    __syncthreads();
    for (int e = tid; e < kB * kCW; e += NT) {
      const int c = e >> 5, j = e & 31;
      T sum = T(0);
      for (int qq = c; qq < k; ++qq)
        sum = madd(ts[c * (kB + 1) + qq], ws[j * (kB + 1) + qq], sum);
      ny[e] = c < k ? -sum : T(0);
    }
  }
  if (blo >= 0) {
    __syncthreads();
    for (int e = tid; e < kB * kCW; e += NT) {
      const int c = e >> 5, j = e & 31;
      if (j0 + j < ncols) NYg[index_t(c) * ldny + j0 + j] = ny[e];
    }
  }
}

}  // namespace bt_strip
}  // namespace eigsolve
