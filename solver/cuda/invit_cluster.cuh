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

/// The cluster form of step 2 for n rows, or off (dd, EIGSOLVE_GPU_INVIT_CLUSTER=0, n below
/// kClusterMinN unless forced, n too large, no cluster of that size fits on the device).
/// EIGSOLVE_GPU_INVIT_CLUSTER: unset: clusters of 16 (else 8) from kClusterMinN rows on; 0: off
/// (the single-CTA step2_wave_kernel); 1: clusters of 8 for every n; 2, 4, 8, 16: that size,
/// every n.
/// EIGSOLVE_GPU_INVIT_CLUSTER_TX=1: the partials exchanged by st.async + mbarrier instead of the
/// cluster barrier (invit_cluster_sync.cuh; opt-in, not yet run on a GPU).
template <class R>
struct ClusterStep2 {
  bool on = false;
  ClusterGeom G{};
  void (*kern)(WaveArgs, R*, ClusterGeom) = nullptr;
  std::size_t smem = 0;

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
ClusterStep2<R> cluster_step2_try(index_t n, int cs) {
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
  if (cudaFuncSetAttribute(P.kern, cudaFuncAttributeMaxDynamicSharedMemorySize, int(P.smem)) !=
          cudaSuccess ||
      (cs > 8 && cudaFuncSetAttribute(P.kern, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) !=
                     cudaSuccess)) {
    cudaGetLastError();
    return P;
  }
  cudaLaunchAttribute at[1];
  const cudaLaunchConfig_t cfg = P.config(1, at);
  int nclu = 0;
  if (cudaOccupancyMaxActiveClusters(&nclu, P.kern, &cfg) != cudaSuccess || nclu < 1) {
    cudaGetLastError();
    return P;
  }
  P.on = true;
  const char* prof = std::getenv("EIGSOLVE_GPU_PROFILE");
  if (prof && prof[0] == '1')
    std::fprintf(stderr,
                 "  invit phase B step 2: clusters of %d CTAs x %d threads, %d chunk(s) per "
                 "thread, %lld tiles per CTA, up to %d clusters resident, exchange %s\n",
                 cs, P.G.threads, P.G.kc, (long long)P.G.tpc, nclu,
                 P.G.tx ? "st.async" : "barrier");
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
