// Phase B step 2 on thread block clusters (Hopper, sm_90), included by solver/cuda/invit_device.cu
// after invit_phase_b.cuh. The same operations in the same order as step2_wave_kernel and the
// host's finish_column (MGS twice against [max(j0, lo_j), j), nrm = sqrt(y . y), y / nrm), with
// the rows of a column spread over the cs CTAs of a cluster (geometry: invit_cluster_ops.hpp):
//
//   per dot k of column j (every thread of every CTA of the cluster):
//     own chunks (registers): y_i = madd(-c_{k-1}, q_prev_i, y_i); chunk chain s = madd(v_i, y_i,
//     s) tile partial = tree of the 8 chunk sums (shuffles; all 8 lanes of the tile get it) lane q
//     of the tile stores it into buffer k & 1 of CTAs q, q + 8 (st to distributed smem) next dot's
//     v: issued now (global loads in flight across the barrier and the chain) cluster barrier
//     (arrive.release / wait.acquire: the partials of every CTA are visible) c_k = p_0 + p_1 + ...
//     + p_{T-1}, ascending, by every thread from its own CTA's copy
//
//   so every thread holds the same bits of c_k without a broadcast; one barrier per dot. Two
//   partial buffers (parity of the running dot count): a CTA writes buffer b again only two
//   barriers later, after every CTA has finished the chain that read it. y_j, the previous q and
//   the next v live in registers (kc chunks per thread); a thread reads back only the rows of
//   q that it wrote itself, so columns need no barrier. ||y_j|| < 0.1 (or NaN): every CTA sees
//   the same nrm; rank 0 writes stop[cluster] and the whole cluster returns (after a barrier:
//   no distributed-shared-memory access is outstanding).
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <type_traits>

#include "solver/cuda/invit_cluster_ops.hpp"
#include "solver/cuda/invit_cluster_sync.cuh"
#include "solver/cuda/invit_phase_b.cuh"

namespace eigsolve {
namespace invit_dev {

constexpr index_t kClusterMinN = 2048;  // default: clusters from this many rows on

/// Lanes 8a + q (q = 0..7) hold the chunk sums c_q of one tile; every one of the 8 lanes gets
/// ((c0 + c1) + (c2 + c3)) + ((c4 + c5) + (c6 + c7)) (a butterfly: lane q adds the partner's
/// value to its own; IEEE addition is commutative, so each lane's sums are the tree's).
template <class R>
__device__ __forceinline__ R tree8_all(R v) {
  v = v + __shfl_xor_sync(0xffffffffu, v, 1);
  v = v + __shfl_xor_sync(0xffffffffu, v, 2);
  return v + __shfl_xor_sync(0xffffffffu, v, 4);
}

/// x = rows base .. base+7 of p (absent rows 0); VEC and full: 16-byte loads.
template <bool VEC, class R>
__device__ __forceinline__ void load_chunk(const R* p, bool full, index_t base, index_t n,
                                           R (&x)[kChunk]) {
  if (VEC && full) {
    R(&lo)[4] = *reinterpret_cast<R(*)[4]>(&x[0]);
    R(&hi)[4] = *reinterpret_cast<R(*)[4]>(&x[4]);
    load4<true>(p + base, lo);
    load4<true>(p + base + 4, hi);
    return;
  }
#pragma unroll
  for (int u = 0; u < kChunk; ++u)
    x[u] = (full || base + u < n) ? p[base + u] : R(0);
}

/// Step 2 of the wave's block of the cluster at slot blockIdx.x / G.cs, CTA rank
/// blockIdx.x % G.cs. Dynamic shared memory: two mbarriers (16 bytes, used by the tx exchange
/// only), then 2 * G.ntp partials. VEC: every column of Z 16-byte aligned.
template <class R, int KC, bool VEC>
__global__ void __launch_bounds__(kCT, 1) step2_cluster_kernel(WaveArgs a, R* Z, ClusterGeom G) {
  index_t c, j0, js, j1;
  if (!wave_block(a, index_t(blockIdx.x) / G.cs, c, j0, js, j1)) return;  // whole cluster
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const std::uint32_t mb0 = smem_u32(smem_raw);  // mbarrier of buffer b at mb0 + 8 b
  R* part = reinterpret_cast<R*>(smem_raw + 16);
  const int rank = int(__clusterRelativeBlockRank()), t = threadIdx.x, q8 = t & 7;
  const index_t n = a.n, ld = a.ldz;
  const index_t te = (rank + 1) * G.tpc < G.ntiles ? (rank + 1) * G.tpc : G.ntiles;
  const index_t cend = te * (kTile / kChunk), g0 = rank * G.tpc * (kTile / kChunk) + t;
  // Slot s: chunk g0 + threads * s (owned: inside this CTA's tiles), its first row (n when not
  // owned: no row), and whether all its 8 rows are below n.
  const auto owned = [&](int s) { return g0 + index_t(G.threads) * s < cend; };
  const auto row = [&](int s) { return owned(s) ? (g0 + index_t(G.threads) * s) * kChunk : n; };
  const auto full = [&](int s) { return row(s) + kChunk <= n; };
  if (G.tx && t == 0) {
    mbar_init(mb0, 1);
    mbar_init(mb0 + 8, 1);
    mbar_init_fence();
  }
  cluster_barrier();  // every CTA of the cluster runs (and has its mbarriers) before any store
  const std::uint32_t bytes = std::uint32_t(G.ntiles) * sizeof(R);
  std::uint32_t phases = 0;  // bit b: the parity of buffer b's next mbarrier phase
  index_t par = 0;
  R y[KC][kChunk], v[KC][kChunk], qp[KC][kChunk];
  for (index_t j = js; j < j1; ++j) {
    R* yg = Z + j * ld;
#pragma unroll
    for (int s = 0; s < KC; ++s)
      load_chunk<VEC>(yg, full(s), row(s), n, y[s]);
    const index_t ps = a.lo[j] > j0 ? a.lo[j] : j0, nq = j - ps, L = 2 * nq + 1;
    if (nq > 0) {
#pragma unroll
      for (int s = 0; s < KC; ++s)
        load_chunk<VEC>(Z + ps * ld, full(s), row(s), n, v[s]);
    }
#pragma unroll
    for (int s = 0; s < KC; ++s)
#pragma unroll
      for (int u = 0; u < kChunk; ++u)
        qp[s][u] = R(0);          // with cprev = +0: the first dot's update is exact (y unchanged)
    index_t kn = nq > 1 ? 1 : 0;  // (k + 1) % nq, stepped
    R cprev = R(0);
    for (index_t k = 0; k < L; ++k) {
      const bool nrm = k == L - 1;
      const R ncp = -cprev;
      R* buf = part + par * G.ntp;
#pragma unroll
      for (int s = 0; s < KC; ++s) {
        R cs = R(0);
        if (owned(s)) {
          if (full(s))
            cs = nrm ? cluster_chunk<true, true>(row(s), n, ncp, y[s], qp[s], v[s])
                     : cluster_chunk<true, false>(row(s), n, ncp, y[s], qp[s], v[s]);
          else
            cs = nrm ? cluster_chunk<false, true>(row(s), n, ncp, y[s], qp[s], v[s])
                     : cluster_chunk<false, false>(row(s), n, ncp, y[s], qp[s], v[s]);
        }
        const R tp = tree8_all(cs);
        if (owned(s)) {  // the same for the 8 lanes of a tile: lane q8 -> CTAs q8, q8 + 8
          R* const dst = buf + (row(s) >> 6);
          const auto send = [&](int r) {
            if (G.tx)
              st_async(mapa_u32(smem_u32(dst), r), tp, mapa_u32(mb0 + 8 * std::uint32_t(par), r));
            else
              *static_cast<R*>(__cluster_map_shared_rank(dst, unsigned(r))) = tp;
          };
          if (q8 < G.cs) send(q8);
          if (q8 + 8 < G.cs) send(q8 + 8);
        }
      }
      if (!nrm) {  // dot k + 1 updates with this v; its own v is loaded now
#pragma unroll
        for (int s = 0; s < KC; ++s)
#pragma unroll
          for (int u = 0; u < kChunk; ++u)
            qp[s][u] = v[s][u];
        if (k + 1 < L - 1) {
          const R* vn = Z + (ps + kn) * ld;
          kn = kn + 1 == nq ? 0 : kn + 1;
#pragma unroll
          for (int s = 0; s < KC; ++s)
            load_chunk<VEC>(vn, full(s), row(s), n, v[s]);
        }
      }
      if (G.tx) {  // every partial of this dot arrived in this CTA's buffer
        const std::uint32_t mb = mb0 + 8 * std::uint32_t(par);
        if (t == 0) mbar_arrive_expect(mb, bytes);
        mbar_wait(mb, (phases >> par) & 1u);
        phases ^= 1u << par;
      } else {
        cluster_barrier();
      }
      cprev = cluster_chain(buf, G.ntiles);
      par ^= 1;
    }
    const R nr = sqrt_(cprev);
    if (!(nr >= R(invit::kFallbackNorm))) {  // the same on every CTA of the cluster
      if (rank == 0 && t == 0) a.stop[c] = j;
      if (G.tx) cluster_barrier();  // no st.async of this CTA still in flight at its exit
      return;
    }
#pragma unroll
    for (int s = 0; s < KC; ++s)
#pragma unroll
      for (int u = 0; u < kChunk; ++u)
        if (row(s) + u < n) yg[row(s) + u] = y[s][u] / nr;
  }
  if (G.tx) cluster_barrier();
}

constexpr int kCT3 = 256;  // most threads per CTA of the B3 kernel (two columns in registers)

/// The B3 form of step 2 (the default where it applies; EIGSOLVE_GPU_INVIT_B3=0 turns it off):
/// two columns in flight. H200, d n = m = 16384: phases A+B 0.666 -> 0.514 s alone, 1.086 ->
/// 0.833 s beside the back-transformation (session 10; the same files).
/// One chunk per thread (G.kc == 1, G.threads <= kCT3), barrier exchange only (G.tx == 0).
/// Dynamic shared memory: 16 bytes (unused), then 4 * G.ntp partials: buffer b (the parity of
/// the step count) holds the lead's partials at 2 b G.ntp, the follower's at (2 b + 1) G.ntp.
///
/// Per column exactly the dots of step2_cluster_kernel, with the same operands in the same order
/// (the same cluster_chunk, tree8_all, tile slots and ascending chain); only the schedule
/// changes. The lead column j runs its dots k = k0 .. 2 nq; the follower f = j + 1 (y_f and its
/// first q loaded in the lead's first step, "armed") runs, one per later step of the lead, its
/// first-pass dots against q_p for p < j (dot k_f < nq_f - 1: q_p final, stored by this thread
/// or before the launch), its partials in the same exchange and barrier as the lead's, its
/// chain interleaved with the lead's (cluster_chain2). After the lead's norm and store, the
/// follower becomes the lead at dot k_f (its next v is q_j, taken from the division: the bits
/// a reload returns, absent rows 0), and column j + 2 the follower. Which dots run in a step
/// depends on lo[], j, k, k_f only: the same on every CTA. The follower never runs its norm and
/// never stores: on a stop its work is dropped (y_f in Z untouched), as the resumed round expects.
/// Steps per column in a block: nq + 2 instead of 2 nq + 1 (nq >= 2).
template <class R, bool VEC>
__global__ void __launch_bounds__(kCT3, 1)
    step2_cluster_b3_kernel(WaveArgs a, R* Z, ClusterGeom G) {
  index_t c, j0, js, j1;
  if (!wave_block(a, index_t(blockIdx.x) / G.cs, c, j0, js, j1)) return;  // whole cluster
  extern __shared__ __align__(16) unsigned char smem_raw[];
  R* part = reinterpret_cast<R*>(smem_raw + 16);
  const int rank = int(__clusterRelativeBlockRank()), t = threadIdx.x, q8 = t & 7;
  const index_t n = a.n, ld = a.ldz;
  const index_t te = (rank + 1) * G.tpc < G.ntiles ? (rank + 1) * G.tpc : G.ntiles;
  const index_t cend = te * (kTile / kChunk), g0 = rank * G.tpc * (kTile / kChunk) + t;
  // This thread's one chunk g0 (owned: inside this CTA's tiles), its first row (n when not
  // owned), whether all its 8 rows are below n.
  const bool own = g0 < cend;
  const index_t row = own ? g0 * kChunk : n;
  const bool full = row + kChunk <= n;
  cluster_barrier();  // every CTA of the cluster runs before any store
  // Lead column j: y, v (the next dot's q), qp (the previous dot's q), cprev (its c); the
  // follower: the same with f.
  R y[kChunk], v[kChunk], qp[kChunk], yf[kChunk], vf[kChunk], qpf[kChunk];
  R cprev = R(0), cprevf = R(0);
  index_t j = js, ps = a.lo[j] > j0 ? a.lo[j] : j0, nq = j - ps, k = 0, par = 0;
  load_chunk<VEC>(Z + j * ld, full, row, n, y);
  if (nq > 0) load_chunk<VEC>(Z + ps * ld, full, row, n, v);
#pragma unroll
  for (int u = 0; u < kChunk; ++u)
    qp[u] = R(0);  // with cprev = +0: the first dot's update is exact (y unchanged)
  const auto send = [&](R* dst, R tp) {  // lane q8 of a tile -> CTAs q8, q8 + 8
    if (q8 < G.cs) *static_cast<R*>(__cluster_map_shared_rank(dst, unsigned(q8))) = tp;
    if (q8 + 8 < G.cs) *static_cast<R*>(__cluster_map_shared_rank(dst, unsigned(q8 + 8))) = tp;
  };
  for (;;) {
    R* const yg = Z + j * ld;
    const index_t L = 2 * nq + 1, f = j + 1;
    const bool hasf = f < j1;
    const index_t psf = hasf ? (a.lo[f] > j0 ? a.lo[f] : j0) : f, nqf = f - psf;
    const index_t pre = nqf - 1;  // the follower's dots against q_p, p < j
    bool armed = false;
    index_t kf = 0;  // the follower's dots done
    for (; k < L; ++k) {
      const bool nrm = k == L - 1, runf = armed && kf < pre;
      R* const buf = part + 2 * par * G.ntp;
      R* const buff = buf + G.ntp;
      {
        const R ncp = -cprev;
        R cs = R(0);
        if (own) {
          if (full)
            cs = nrm ? cluster_chunk<true, true>(row, n, ncp, y, qp, v)
                     : cluster_chunk<true, false>(row, n, ncp, y, qp, v);
          else
            cs = nrm ? cluster_chunk<false, true>(row, n, ncp, y, qp, v)
                     : cluster_chunk<false, false>(row, n, ncp, y, qp, v);
        }
        const R tp = tree8_all(cs);
        if (own) send(buf + (row >> 6), tp);
      }
      if (runf) {  // the follower's dot kf (first pass, never its norm)
        const R ncp = -cprevf;
        R cs = R(0);
        if (own)
          cs = full ? cluster_chunk<true, false>(row, n, ncp, yf, qpf, vf)
                    : cluster_chunk<false, false>(row, n, ncp, yf, qpf, vf);
        const R tp = tree8_all(cs);
        if (own) send(buff + (row >> 6), tp);
      }
      if (!nrm) {  // the lead's dot k + 1 updates with this v; its own v is loaded now
#pragma unroll
        for (int u = 0; u < kChunk; ++u)
          qp[u] = v[u];
        if (k + 1 < L - 1) {
          const index_t m = k + 1 < nq ? k + 1 : k + 1 - nq;  // (k + 1) % nq
          load_chunk<VEC>(Z + (ps + m) * ld, full, row, n, v);
        }
      }
      if (runf) {  // the same for the follower's dot kf + 1 (p = psf + kf + 1 < j)
#pragma unroll
        for (int u = 0; u < kChunk; ++u)
          qpf[u] = vf[u];
        if (kf + 1 < pre) load_chunk<VEC>(Z + (psf + kf + 1) * ld, full, row, n, vf);
      } else if (hasf && !armed) {  // arm the follower: its first dot runs in the next step
        load_chunk<VEC>(Z + f * ld, full, row, n, yf);
        if (pre > 0) load_chunk<VEC>(Z + psf * ld, full, row, n, vf);
#pragma unroll
        for (int u = 0; u < kChunk; ++u)
          qpf[u] = R(0);
        cprevf = R(0);
        armed = true;
      }
      cluster_barrier();
      if (runf) {
        cluster_chain2(buf, buff, G.ntiles, cprev, cprevf);
        ++kf;
      } else {
        cprev = cluster_chain(buf, G.ntiles);
      }
      par ^= 1;
    }
    const R nr = sqrt_(cprev);
    if (!(nr >= R(invit::kFallbackNorm))) {  // the same on every CTA of the cluster
      if (rank == 0 && t == 0) a.stop[c] = j;
      return;
    }
    // The follower ran all its dots below j: its next dot is against q_j.
    const bool vq = hasf && nqf > 0 && kf == pre;
#pragma unroll
    for (int u = 0; u < kChunk; ++u) {
      if (row + u < n) {
        const R q = y[u] / nr;
        yg[row + u] = q;
        if (vq) vf[u] = q;
      } else if (vq) {
        vf[u] = R(0);
      }
    }
    if (!hasf) return;
    // The follower becomes the lead at its dot kf (armed: L >= 1 step ran).
    j = f;
    ps = psf;
    nq = nqf;
    k = kf;
    cprev = cprevf;
#pragma unroll
    for (int u = 0; u < kChunk; ++u) {
      y[u] = yf[u];
      v[u] = vf[u];
      qp[u] = qpf[u];
    }
  }
}

/// The cluster form of step 2 for n rows, or off (dd, EIGSOLVE_GPU_INVIT_CLUSTER=0, n below
/// kClusterMinN unless forced, n too large, no cluster of that size fits on the device).
/// EIGSOLVE_GPU_INVIT_CLUSTER: unset: clusters of 16 (else 8) from kClusterMinN rows on; 0: off
/// (the single-CTA step2_wave_kernel); 1: clusters of 8 for every n; 2, 4, 8, 16: that size,
/// every n.
/// EIGSOLVE_GPU_INVIT_CLUSTER_TX=1: the partials exchanged by st.async + mbarrier instead of the
/// cluster barrier (invit_cluster_sync.cuh; opt-in: as fast on the H200, README).
/// B3 form (step2_cluster_b3_kernel: two columns in flight; same bits) by default where it
/// applies (one chunk per thread, at most kCT3 threads, barrier exchange), else
/// step2_cluster_kernel; EIGSOLVE_GPU_INVIT_B3=0: step2_cluster_kernel always.
template <class R>
struct ClusterStep2 {
  bool on = false;
  ClusterGeom G{};
  void (*kern)(WaveArgs, R*, ClusterGeom) = nullptr;
  std::size_t smem = 0;
  bool b3 = false;  // the B3 kernel

  /// A launch configuration of nclu clusters on stream (at: its one attribute, the cluster
  /// size).
  cudaLaunchConfig_t config(index_t nclu, cudaLaunchAttribute (&at)[1],
                            cudaStream_t stream = 0) const {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(unsigned(nclu * G.cs));
    cfg.blockDim = dim3(unsigned(G.threads));
    cfg.dynamicSmemBytes = smem;
    cfg.stream = stream;
    at[0].id = cudaLaunchAttributeClusterDimension;
    at[0].val.clusterDim.x = unsigned(G.cs);
    at[0].val.clusterDim.y = 1;
    at[0].val.clusterDim.z = 1;
    cfg.attrs = at;
    cfg.numAttrs = 1;
    return cfg;
  }
  /// Step 2 of a wave: one cluster per cluster of eigenvalues of the wave (nact), on stream.
  cudaError_t launch(index_t nact, const WaveArgs& wa, R* dz, cudaStream_t stream = 0) const {
    cudaLaunchAttribute at[1];
    const cudaLaunchConfig_t cfg = config(nact, at, stream);
    return cudaLaunchKernelEx(&cfg, kern, wa, dz, G);
  }
};

/// The plan for clusters of cs CTAs, or off (P.on false) if they cannot run here.
template <class R>
ClusterStep2<R> cluster_step2_try(index_t n, int cs, bool allow_b3 = true) {
  ClusterStep2<R> P;
  if (!cluster_geom(n, cs, P.G)) return P;
  const bool vec = (std::size_t(n) * sizeof(R)) % 16 == 0;
  const auto pick = [&](auto kc) {
    constexpr int KC = decltype(kc)::value;
    return vec ? &step2_cluster_kernel<R, KC, true> : &step2_cluster_kernel<R, KC, false>;
  };
  P.kern =
      P.G.kc == 1 ? pick(std::integral_constant<int, 1>{}) : pick(std::integral_constant<int, 2>{});
  P.smem = 16 + 2 * sizeof(R) * std::size_t(P.G.ntp);
  const char* tx = std::getenv("EIGSOLVE_GPU_INVIT_CLUSTER_TX");
  P.G.tx = tx && tx[0] == '1' ? 1 : 0;
  const char* b3 = std::getenv("EIGSOLVE_GPU_INVIT_B3");
  if (allow_b3 && !(b3 && b3[0] == '0') && P.G.kc == 1 && P.G.threads <= kCT3 && !P.G.tx) {
    P.b3 = true;
    P.kern = vec ? &step2_cluster_b3_kernel<R, true> : &step2_cluster_b3_kernel<R, false>;
    P.smem = 16 + 4 * sizeof(R) * std::size_t(P.G.ntp);
  }
  if (cudaFuncSetAttribute(P.kern, cudaFuncAttributeMaxDynamicSharedMemorySize, int(P.smem)) !=
          cudaSuccess ||
      (cs > 8 && cudaFuncSetAttribute(P.kern, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) !=
                     cudaSuccess)) {
    cudaGetLastError();
    if (P.b3) return cluster_step2_try<R>(n, cs, false);
    return P;
  }
  cudaLaunchAttribute at[1];
  const cudaLaunchConfig_t cfg = P.config(1, at);
  int nclu = 0;
  if (cudaOccupancyMaxActiveClusters(&nclu, P.kern, &cfg) != cudaSuccess || nclu < 1) {
    cudaGetLastError();
    if (P.b3) return cluster_step2_try<R>(n, cs, false);  // B3 does not fit: the plain kernel
    return P;
  }
  P.on = true;
  const char* prof = std::getenv("EIGSOLVE_GPU_PROFILE");
  if (prof && prof[0] == '1')
    std::fprintf(stderr,
                 "  invit phase B step 2: clusters of %d CTAs x %d threads, %d chunk(s) per "
                 "thread, %lld tiles per CTA, up to %d clusters resident, exchange %s%s\n",
                 cs, P.G.threads, P.G.kc, (long long)P.G.tpc, nclu, P.G.tx ? "st.async" : "barrier",
                 P.b3 ? ", B3 (two columns in flight)" : "");
  return P;
}

/// Default: clusters of 16 (non-portable size; H200, d n = m = 16384: phases A+B 0.92 s against
/// 0.98 s with 8 and 2.23 s with the single-CTA kernel), else of 8, from kClusterMinN rows on.
template <class R>
ClusterStep2<R> cluster_step2_plan(index_t n) {
  if constexpr (!std::is_same<R, float>::value && !std::is_same<R, double>::value) {
    return ClusterStep2<R>{};
  } else {
    const char* env = std::getenv("EIGSOLVE_GPU_INVIT_CLUSTER");
    if (env && env[0]) {
      const int v = std::atoi(env);
      if (v == 0) return ClusterStep2<R>{};
      return cluster_step2_try<R>(n, (v == 2 || v == 4 || v == 16) ? v : 8);
    }
    if (n < kClusterMinN) return ClusterStep2<R>{};
    ClusterStep2<R> P = cluster_step2_try<R>(n, 16);
    return P.on ? P : cluster_step2_try<R>(n, 8);
  }
}

}  // namespace invit_dev
}  // namespace eigsolve
