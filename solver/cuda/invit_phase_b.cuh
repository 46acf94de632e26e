// Phase B of the canonical inverse iteration on the device (docs/canonical-eigenvectors.md),
// included by solver/cuda/invit_device.cu. The same operations in the same order as the host's
// phase B (solver/inverse_iteration.cpp): every dot is the canonical dot (chunks of 8 as madd
// chains, the fixed tree of the 8 chunks of a tile of 64, the tile partials added in ascending
// order), every update one madd chain per element with p ascending.
//
// The host launches phase B in waves: wave k is block k (columns [c0 + 32k, c0 + 32k + 32)) of
// every cluster that has one, all clusters at once, two launches per wave and no host round trip
// in between (the per-cluster state lives on the device, WaveArgs):
//
//   cgs2_wave_kernel   grid (clusters, 32 columns), 512 threads: column j of the block, CGS twice
//                      against the window [p0, j0): the dots of up to 8 window columns per sweep
//                      over y_j (8 chains of the ascending tile sums in parallel, one warp each),
//                      the coefficients in a global scratch, then y_j[i] = madd(-c_p, q_p[i],
//                      y_j[i]) for p ascending.
//   step2_wave_kernel  grid (clusters), 1024 threads: the sequential step of the block (MGS twice
//                      against [max(j0, lo_j), j), nrm = sqrt(y . y), y / nrm). Thread t owns the
//                      chunks g = t + 1024 s (elements 8g .. 8g+7) of y_j for good: y_j stays in
//                      shared memory (chunk stride 9: no bank conflicts) when it fits, else in
//                      its column of Z, and is only ever touched by its owner, so a dot costs
//                      one sweep (the update with the previous coefficient fused with the chains
//                      of the next dot), a shuffle tree per tile, a __syncthreads per slot plus
//                      one, and the ascending sum of the n/64 tile partials by thread 0 (started
//                      on slot s's tiles while the others sweep slot s + 1). The previous q's
//                      elements are kept in registers (KC slots) for the fused update; the q
//                      loads of a chunk are issued before their use (16 bytes each when the
//                      columns are 16-byte aligned), y is addressed as shared memory (YS).
//                      ||y_j|| < 0.1 (or NaN): stop[cluster] = j and the cluster's later kernels
//                      do nothing; the host runs invit::fallback for j and resumes at j + 1.
#pragma once

#include <type_traits>

#include "core/canonical.hpp"
#include "solver/inverse_iteration_kernels.hpp"

namespace eigsolve {
namespace invit_dev {

constexpr int kT1 = 512;      // threads of the CGS kernel
constexpr int kPB = 8;        // window columns per sweep of the CGS dots
constexpr int kCStage = 256;  // CGS coefficients staged in shared memory per update sweep
constexpr int kT2 = 1024;     // threads of the sequential kernel
constexpr index_t kSlot = index_t(kT2) * kChunk;  // elements per slot (one chunk per thread)
constexpr int kYStride = kChunk + 1;              // shared y: chunk g at [9g, 9g + 8)

/// Per-cluster state of a round of waves (device arrays indexed by the cluster), and the wave.
struct WaveArgs {
  index_t n, ldz;
  const index_t* order;  // slot (blockIdx) -> cluster
  const index_t* c0;     // cluster [c0, c1)
  const index_t* c1;
  const index_t* kst;  // first block of this round
  const index_t* jst;  // first column of this round (inside block kst; == its j0: CGS too)
  const index_t* lo;   // window start of every column
  index_t* stop;       // -1, or the column that needs the fallback
  index_t k;           // the wave
};

/// The block of the cluster at `slot` in wave a.k; false when it has none (or has stopped).
__device__ __forceinline__ bool wave_block(const WaveArgs& a, index_t slot, index_t& c, index_t& j0,
                                           index_t& js, index_t& j1) {
  c = a.order[slot];
  if (a.stop[c] >= 0 || a.k < a.kst[c]) return false;
  j0 = a.c0[c] + a.k * invit::kBlock;
  if (j0 >= a.c1[c]) return false;
  j1 = j0 + invit::kBlock < a.c1[c] ? j0 + invit::kBlock : a.c1[c];
  js = a.k == a.kst[c] ? a.jst[c] : j0;
  return js < j1;
}

__device__ __forceinline__ float shfl_down8(float v, int d) {
  return __shfl_down_sync(0xffffffffu, v, d, 8);
}
__device__ __forceinline__ double shfl_down8(double v, int d) {
  return __shfl_down_sync(0xffffffffu, v, d, 8);
}
__device__ __forceinline__ dd_real shfl_down8(const dd_real& v, int d) {
  return dd_real(__shfl_down_sync(0xffffffffu, v.hi, d, 8),
                 __shfl_down_sync(0xffffffffu, v.lo, d, 8));
}

/// Lanes 8r + q (q = 0..7) hold the chunk sums c_q of one tile: tile_tree(c) in lane 8r
/// (((c0 + c1) + (c2 + c3)) + ((c4 + c5) + (c6 + c7))); the other lanes get junk. Whole warp.
template <class R>
__device__ __forceinline__ R tree8(const R& v) {
  const R a = v + shfl_down8(v, 1);
  const R b = a + shfl_down8(a, 2);
  return b + shfl_down8(b, 4);
}

/// Step 1 of one column (blockIdx.y) of the wave's block of the cluster at slot blockIdx.x.
/// cbuf: 32 * m scratch, cluster c's coefficients at 32 * c0 + column * (c1 - c0).
template <class R>
__global__ void __launch_bounds__(kT1) cgs2_wave_kernel(WaveArgs a, R* Z, R* cbuf) {
  index_t c, j0, js, j1;
  if (!wave_block(a, blockIdx.x, c, j0, js, j1)) return;
  const index_t j = j0 + index_t(blockIdx.y);
  if (js != j0 || j >= j1) return;  // resumed inside the block: step 1 is done
  const index_t p0 = a.lo[j0], np = j0 - p0;
  if (np <= 0) return;
  __shared__ R part[kPB][kT1 / 8];
  __shared__ R cs[kCStage];
  const int t = threadIdx.x, q8 = t & 7, lane = t & 31, warp = t >> 5;
  const index_t n = a.n, ld = a.ldz, ntiles = (n + kTile - 1) / kTile;
  R* y = Z + j * ld;
  const R* Q = Z + p0 * ld;
  R* cg = cbuf + invit::kBlock * a.c0[c] + index_t(blockIdx.y) * (a.c1[c] - a.c0[c]);
  for (int pass = 0; pass < 2; ++pass) {
    // c_p = q_p . y for all p of the window (the same y), kPB columns per sweep over y.
    for (index_t pb = 0; pb < np; pb += kPB) {
      const int nb = int(np - pb < kPB ? np - pb : kPB);
      R acc = R(0);
      for (index_t tb = 0; tb < ntiles; tb += kT1 / 8) {
        const index_t base = (tb * 8 + t) * kChunk;
        R yv[kChunk];
#pragma unroll
        for (int u = 0; u < kChunk; ++u)
          yv[u] = base + u < n ? y[base + u] : R(0);
#pragma unroll
        for (int p = 0; p < kPB; ++p) {
          if (p < nb) {  // block-uniform
            const R* qp = Q + (pb + p) * ld;
            R s = R(0);
#pragma unroll
            for (int u = 0; u < kChunk; ++u)
              if (base + u < n) s = madd(qp[base + u], yv[u], s);
            const R tp = tree8(s);
            if (q8 == 0) part[p][t >> 3] = tp;
          }
        }
        __syncthreads();
        if (lane == 0 && warp < nb) {  // dot pb + warp: its tile partials, ascending
          const index_t cnt = ntiles - tb < kT1 / 8 ? ntiles - tb : kT1 / 8;
          for (index_t k = 0; k < cnt; ++k)
            acc = (tb == 0 && k == 0) ? part[warp][k] : acc + part[warp][k];
        }
        __syncthreads();
      }
      if (lane == 0 && warp < nb) cg[pb + warp] = acc;
    }
    __syncthreads();
    // y[i] = madd(-c_p, q_p[i], y[i]), p ascending (staged kCStage coefficients at a time).
    for (index_t cb0 = 0; cb0 < np; cb0 += kCStage) {
      const int cn = int(np - cb0 < kCStage ? np - cb0 : kCStage);
      for (int k = t; k < cn; k += kT1)
        cs[k] = -cg[cb0 + k];
      __syncthreads();
      // kU elements per thread at a time, their loads before the stores of y (one L2 latency
      // per kU elements, not per element); per element the same chain over p ascending.
      constexpr int kU = 4;
      for (index_t i0 = t; i0 < n; i0 += index_t(kU) * kT1) {
        R yi[kU];
#pragma unroll
        for (int r = 0; r < kU; ++r) {
          const index_t i = i0 + index_t(r) * kT1;
          yi[r] = i < n ? y[i] : R(0);
        }
        const R* qi = Q + cb0 * ld + i0;
        for (int p = 0; p < cn; ++p) {
          const R cp = cs[p];
#pragma unroll
          for (int r = 0; r < kU; ++r)
            if (i0 + index_t(r) * kT1 < n) yi[r] = madd(cp, qi[p * ld + index_t(r) * kT1], yi[r]);
        }
#pragma unroll
        for (int r = 0; r < kU; ++r) {
          const index_t i = i0 + index_t(r) * kT1;
          if (i < n) y[i] = yi[r];
        }
      }
      __syncthreads();
    }
  }
}

/// x[0..4) = p[0..4), half a chunk; VEC: p is 16-byte aligned, loaded 16 bytes at a time
/// (double: 2 loads, float: 1, instead of 4: fewer L1 requests).
template <bool VEC, class R>
__device__ __forceinline__ void load4(const R* p, R (&x)[4]) {
  if constexpr (VEC && std::is_same<R, double>::value) {
    const double2* p2 = reinterpret_cast<const double2*>(p);
    const double2 w0 = p2[0], w1 = p2[1];
    x[0] = w0.x;
    x[1] = w0.y;
    x[2] = w1.x;
    x[3] = w1.y;
  } else if constexpr (VEC && std::is_same<R, float>::value) {
    const float4 w = *reinterpret_cast<const float4*>(p);
    x[0] = w.x;
    x[1] = w.y;
    x[2] = w.z;
    x[3] = w.w;
  } else {
#pragma unroll
    for (int u = 0; u < 4; ++u)
      x[u] = p[u];
  }
}

/// One slot of the fused sweep of dot number k of column j: for the owned elements i of chunk
/// g: (upd) y_i = madd(ncp, qprev_i, y_i); then s = madd(v_i, y_i, s) (norm: madd(y_i, y_i, s)).
/// Cached: qprev_i comes from (and v_i goes to) the registers qc. Returns the chunk sum.
/// YS: y in shared memory (ysh, chunk stride 9), else in global memory (yg).
/// A full chunk of a cached slot (float, double) issues the global loads of each half of v
/// before any use, so they are in flight together (the first version loaded one element, used
/// it, stored y through a generic pointer that might alias q, and only then loaded the next:
/// one L2 latency per element, 16 per thread and dot at n = 16384); the partial last chunk,
/// the uncached slots (float beyond 16384 rows, double beyond 16384) and dd keep the
/// element-by-element form. Same operations, same order, per element and per chain.
template <bool Cached, bool YS, bool VEC, class R>
__device__ __forceinline__ R sweep_chunk(index_t n, index_t g, R* ysh, R* yg, bool upd, bool nrm,
                                         const R& ncp, const R* vprev, const R* v,
                                         R (&qc)[kChunk]) {
  R s = R(0);
  const index_t base = g * kChunk;
  if (base >= n) return s;
  R* yp = YS ? ysh + g * kYStride : yg + base;
  if (Cached && sizeof(R) <= 8 && base + kChunk <= n) {
    // Half a chunk at a time: its loads of v_i first, then the update (qprev_i from qc) and the
    // chain; y streamed (halves, not the whole chunk: with qc's 2 slots live the whole chunk
    // spilled at 1024 threads).
#pragma unroll
    for (int h = 0; h < kChunk; h += 4) {
      R qv[4];
      if (!nrm) load4<VEC>(v + base + h, qv);
#pragma unroll
      for (int u = 0; u < 4; ++u) {
        R yi = yp[h + u];
        if (upd) {
          yi = madd(ncp, qc[h + u], yi);
          yp[h + u] = yi;
        }
        if (nrm) {
          s = madd(yi, yi, s);
        } else {
          qc[h + u] = qv[u];
          s = madd(qv[u], yi, s);
        }
      }
    }
    return s;
  }
#pragma unroll
  for (int u = 0; u < kChunk; ++u) {
    if (base + u < n) {
      R yi = yp[u];
      if (upd) {
        yi = madd(ncp, Cached ? qc[u] : vprev[base + u], yi);
        yp[u] = yi;
      }
      if (nrm) {
        s = madd(yi, yi, s);
      } else {
        const R qv = v[base + u];
        if (Cached) qc[u] = qv;
        s = madd(qv, yi, s);
      }
    }
  }
  return s;
}

constexpr index_t kSlotTiles = kSlot / kTile;  // tiles per slot (128)

/// The ascending chain of the tile partials continued over [from, to): acc + part[from] + ...
/// (from == 0: the chain starts with part[0] itself, as the host's). Software-pipelined: the
/// next B partials are loaded into registers before the adds of the current B, so the shared
/// loads overlap the dependent adds (the first version waited for a load group before each
/// group of adds). B = 4 (dd: 1, registers).
template <class R>
__device__ __forceinline__ R tile_chain(const R* part, R acc, index_t from, index_t to) {
  constexpr int B = sizeof(R) <= 8 ? 4 : 1;
  if (from >= to) return acc;
  if (from == 0) acc = part[from++];
  if (from + B <= to) {
    R b[B];
#pragma unroll
    for (int u = 0; u < B; ++u)
      b[u] = part[from + u];
    from += B;  // b holds [from - B, from)
#pragma unroll 1
    for (; from + B <= to; from += B) {
      R nx[B];
#pragma unroll
      for (int u = 0; u < B; ++u)
        nx[u] = part[from + u];
#pragma unroll
      for (int u = 0; u < B; ++u)
        acc = acc + b[u];
#pragma unroll
      for (int u = 0; u < B; ++u)
        b[u] = nx[u];
    }
#pragma unroll
    for (int u = 0; u < B; ++u)
      acc = acc + b[u];
  }
  for (; from < to; ++from)
    acc = acc + part[from];
  return acc;
}

/// Step 2 of the wave's block of the cluster at slot blockIdx.x. Dynamic shared memory:
/// ntiles partials, then (YS) 9 * ceil(n / 8) elements of y. VEC: every column of Z starts
/// 16-byte aligned (float, double: n * sizeof(R) a multiple of 16).
template <class R, int KC, bool YS, bool VEC>
__global__ void __launch_bounds__(kT2) step2_wave_kernel(WaveArgs a, R* Z) {
  index_t c, j0, js, j1;
  if (!wave_block(a, blockIdx.x, c, j0, js, j1)) return;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  __shared__ R s_c;
  const index_t n = a.n, ld = a.ldz, ntiles = (n + kTile - 1) / kTile;
  const index_t nslots = (n + kSlot - 1) / kSlot;
  R* part = reinterpret_cast<R*>(smem_raw);
  R* ysh = YS ? part + ntiles : nullptr;
  const int t = threadIdx.x, q8 = t & 7;
  R qc[KC][kChunk];
  for (index_t j = js; j < j1; ++j) {
    R* yg = Z + j * ld;
    if (YS) {  // own chunks only: no barrier needed
      for (index_t s = 0; s < nslots; ++s) {
        const index_t g = t + kT2 * s, base = g * kChunk;
        for (int u = 0; u < kChunk; ++u)
          if (base + u < n) ysh[g * kYStride + u] = yg[base + u];
      }
    }
    const index_t ps = a.lo[j] > j0 ? a.lo[j] : j0, nq = j - ps, L = 2 * nq + 1;
    R cprev = R(0);
    // kv = k % nq, kp = (k - 1) % nq, stepped (a 64-bit % is a routine of tens of instructions
    // on the device; two per dot and thread, 1024 threads: some hundreds of issue cycles).
    index_t kv = 0, kp = 0;
    for (index_t k = 0; k < L; ++k) {
      const bool upd = k > 0, nrm = k == L - 1;
      const R* v = nrm ? nullptr : Z + (ps + kv) * ld;
      const R* vprev = upd ? Z + (ps + kp) * ld : nullptr;
      kp = kv;
      kv = kv + 1 == nq ? 0 : kv + 1;
      const R ncp = -cprev;
      // Thread 0's chain of the tile partials in ascending order; slot s writes exactly the
      // tiles [128 s, 128 s + 128), so after a barrier behind slot s thread 0 adds those while
      // the other threads sweep slot s + 1 (the same chain, started earlier). Not for dd (its
      // registers spill already).
      constexpr bool kEarly = sizeof(R) <= 8;
      R acc = R(0);
      index_t done = 0;
#pragma unroll
      for (int s = 0; s < KC; ++s) {
        if (s < nslots) {  // block-uniform
          const index_t g = t + index_t(kT2) * s;
          const R cs =
              sweep_chunk<true, YS, VEC>(n, g, ysh, yg, upd, nrm, ncp, vprev, v, qc[s]);
          const R tp = tree8(cs);
          if (q8 == 0 && g * kChunk < n) part[g >> 3] = tp;
          if (kEarly && s + 1 < nslots) {  // block-uniform
            __syncthreads();
            const index_t upto = index_t(s + 1) * kSlotTiles;
            if (t == 0) acc = tile_chain(part, acc, done, upto);
            done = upto;
          }
        }
      }
      for (index_t s = KC; s < nslots; ++s) {
        const index_t g = t + index_t(kT2) * s;
        const R cs = sweep_chunk<false, YS, VEC>(n, g, ysh, yg, upd, nrm, ncp, vprev, v, qc[0]);
        const R tp = tree8(cs);
        if (q8 == 0 && g * kChunk < n) part[g >> 3] = tp;
        if (kEarly && s + 1 < nslots) {  // block-uniform
          __syncthreads();
          const index_t upto = (s + 1) * kSlotTiles;
          if (t == 0) acc = tile_chain(part, acc, done, upto);
          done = upto;
        }
      }
      __syncthreads();
      if (t == 0) s_c = tile_chain(part, acc, done, ntiles);
      __syncthreads();
      cprev = s_c;
    }
    const R nrm = sqrt_(cprev);
    if (!(nrm >= R(invit::kFallbackNorm))) {  // block-uniform
      if (t == 0) a.stop[c] = j;
      return;
    }
    for (index_t s = 0; s < nslots; ++s) {
      const index_t g = t + kT2 * s, base = g * kChunk;
      for (int u = 0; u < kChunk; ++u)
        if (base + u < n) yg[base + u] = (YS ? ysh[g * kYStride + u] : yg[base + u]) / nrm;
    }
    __syncthreads();  // q_j visible to the whole block
  }
}

}  // namespace invit_dev
}  // namespace eigsolve
