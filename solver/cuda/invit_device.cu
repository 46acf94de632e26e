// Phase A of the canonical inverse iteration on the device (solver/invit_cuda.hpp): one thread
// per eigenvalue, invit::phase_a compiled for the device (-fmad=false, IEEE division): the
// CPU's bits. Its loops carry the recurrences in registers and load their next rows ahead
// (solver/inverse_iteration_kernels.hpp; H200, d n = m = 16384: 0.159 -> 0.030 s against the
// earlier loops through memory, same bits; bench/NOTES.md session 8).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#include "core/cuda/profile_timer.cuh"
#include "core/errors.hpp"
#include "solver/cuda/invit_phase_b.cuh"
#include "solver/cuda/invit_cluster.cuh"
#include "solver/invit_cuda.hpp"

namespace eigsolve {
namespace {

void ck(cudaError_t st, const char* what) {
  if (st != cudaSuccess) {
    cudaGetLastError();
    throw DeviceError(std::string("device inverse iteration: ") + what + ": " +
                      cudaGetErrorString(st));
  }
}

/// Threads q < count: eigenvalue j0 + q. work: 5 arrays of n x count, sw: n x count bytes,
/// y: column q at y + q * n.
template <class R>
__global__ void phase_a_kernel(index_t n, const R* d, const R* e, const R* x, invit::Params<R> P,
                               index_t k, index_t count, R* work, unsigned char* sw, R* y) {
  const index_t q = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (q >= count) return;
  const index_t len = n * count;
  const invit::Work<R> W{
      work + q, work + len + q, work + 2 * len + q, work + 3 * len + q, work + 4 * len + q,
      sw + q,   count};
  invit::phase_a(n, d, e, x[q], P, k + q, W, y + q * n);
}

/// EIGSOLVE_GPU_PROFILE=1: the device time of the Phase A kernels, one line on stderr.
void report_phase_a(double sec, index_t n, index_t m) {
  if (sec >= 0)
    std::fprintf(stderr, "eigsolve device phase A kernels (n = %lld, m = %lld): %.4f s\n",
                 static_cast<long long>(n), static_cast<long long>(m), sec);
}

}  // namespace

template <class R>
void invit_phase_a_cuda(index_t n, const R* d, const R* e, index_t m, const R* x,
                        const invit::Params<R>& P, index_t k0, R* z, index_t ldz) {
  if (m <= 0 || n <= 0) return;
  if (ldz < n) throw DimensionError("invit_phase_a_cuda: ldz < n");
  // Per vector: 5 work vectors, the pivot flags and the output column.
  const std::size_t per = std::size_t(n) * (6 * sizeof(R) + 1);
  std::size_t free_b = 0, total_b = 0;
  ck(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
  const std::size_t budget = std::min<std::size_t>(free_b / 2, std::size_t(24) << 30);
  const index_t batch = std::min<index_t>(m, index_t(std::max<std::size_t>(1, budget / per)));
  R *dd = nullptr, *de = nullptr, *dx = nullptr, *work = nullptr, *dy = nullptr;
  unsigned char* sw = nullptr;
  auto release = [&] {
    cudaFree(dd);
    cudaFree(de);
    cudaFree(dx);
    cudaFree(work);
    cudaFree(dy);
    cudaFree(sw);
  };
  try {
    ck(cudaMalloc(&dd, sizeof(R) * std::size_t(n)), "cudaMalloc");
    ck(cudaMalloc(&de, sizeof(R) * std::size_t(n)), "cudaMalloc");
    ck(cudaMalloc(&dx, sizeof(R) * std::size_t(m)), "cudaMalloc");
    ck(cudaMalloc(&work, 5 * sizeof(R) * std::size_t(n) * std::size_t(batch)), "cudaMalloc");
    ck(cudaMalloc(&dy, sizeof(R) * std::size_t(n) * std::size_t(batch)), "cudaMalloc");
    ck(cudaMalloc(&sw, std::size_t(n) * std::size_t(batch)), "cudaMalloc");
    ck(cudaMemcpy(dd, d, sizeof(R) * std::size_t(n), cudaMemcpyHostToDevice), "d");
    if (n > 1) ck(cudaMemcpy(de, e, sizeof(R) * std::size_t(n - 1), cudaMemcpyHostToDevice), "e");
    ck(cudaMemcpy(dx, x, sizeof(R) * std::size_t(m), cudaMemcpyHostToDevice), "x");
    const int threads = 64;
    const auto phase_a = &phase_a_kernel<R>;
    for (index_t j0 = 0; j0 < m; j0 += batch) {
      const index_t cnt = std::min(batch, m - j0);
      ProfileTimer timer;  // EIGSOLVE_GPU_PROFILE=1: per batch (one at d 16384)
      timer.start();
      phase_a<<<unsigned((cnt + threads - 1) / threads), threads>>>(n, dd, de, dx + j0, P, k0 + j0,
                                                                    cnt, work, sw, dy);
      ck(cudaGetLastError(), "launch");
      report_phase_a(timer.stop(), n, cnt);
      ck(cudaMemcpy2D(z + j0 * ldz, sizeof(R) * std::size_t(ldz), dy, sizeof(R) * std::size_t(n),
                      sizeof(R) * std::size_t(n), std::size_t(cnt), cudaMemcpyDeviceToHost),
         "y");
    }
  } catch (...) {
    release();
    throw;
  }
  release();
}

template <class R>
bool invit_cuda(index_t n, const R* d, const R* e, index_t m, const R* x, const index_t* lo,
                const index_t* cb, index_t nclusters, const invit::Params<R>& P, index_t k0, R* z,
                index_t ldz, index_t* fallbacks, R* dz_out, const InvitDeviceHooks* hooks) {
  if (m <= 0 || n <= 0) return true;
  if (!dz_out && ldz < n) throw DimensionError("invit_cuda: ldz < n");
  const std::size_t per = std::size_t(n) * (5 * sizeof(R) + 1);  // phase A work per vector
  const std::size_t bz = std::size_t(n) * std::size_t(m) * sizeof(R);
  // Z (unless the caller's dz_out holds it) and the CGS coefficients of phase B (32 per column)
  // stay resident.
  const std::size_t bres =
      (dz_out ? 0 : bz) + std::size_t(invit::kBlock) * std::size_t(m) * sizeof(R);
  std::size_t free_b = 0, total_b = 0;
  ck(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
  if (bres + 64 * per + (std::size_t(64) << 20) > free_b / 10 * 9) return false;
  const std::size_t budget =
      std::min<std::size_t>((free_b / 10 * 9 - bres) / 2, std::size_t(16) << 30);
  const index_t batch = std::min<index_t>(m, index_t(std::max<std::size_t>(1, budget / per)));
  R *dd = nullptr, *de = nullptr, *dx = nullptr, *work = nullptr, *dz = nullptr, *cbuf = nullptr;
  unsigned char* sw = nullptr;
  index_t *dlo = nullptr, *dj = nullptr;
  auto release = [&] {
    cudaFree(dd);
    cudaFree(de);
    cudaFree(dx);
    cudaFree(work);
    if (!dz_out) cudaFree(dz);
    cudaFree(sw);
    cudaFree(dlo);
    cudaFree(dj);
    cudaFree(cbuf);
  };
  index_t nfall = 0;
  // Every launch and copy on st (hooks->stream, else the legacy default stream); copies to the
  // host wait for it.
  const cudaStream_t st = hooks ? static_cast<cudaStream_t>(hooks->stream) : cudaStream_t(0);
  const auto h2d = [&](void* dst, const void* src, std::size_t bytes, const char* what) {
    ck(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, st), what);
  };
  const auto d2h = [&](void* dst, const void* src, std::size_t bytes, const char* what) {
    ck(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, st), what);
    ck(cudaStreamSynchronize(st), what);
  };
  try {
    ck(cudaMalloc(&dd, sizeof(R) * std::size_t(n)), "cudaMalloc");
    ck(cudaMalloc(&de, sizeof(R) * std::size_t(n)), "cudaMalloc");
    ck(cudaMalloc(&dx, sizeof(R) * std::size_t(m)), "cudaMalloc");
    if (dz_out)
      dz = dz_out;
    else
      ck(cudaMalloc(&dz, bz), "cudaMalloc Z");
    ck(cudaMalloc(&work, 5 * sizeof(R) * std::size_t(n) * std::size_t(batch)), "cudaMalloc");
    ck(cudaMalloc(&sw, std::size_t(n) * std::size_t(batch)), "cudaMalloc");
    ck(cudaMalloc(&dlo, sizeof(index_t) * std::size_t(m)), "cudaMalloc");
    h2d(dd, d, sizeof(R) * std::size_t(n), "d");
    if (n > 1) h2d(de, e, sizeof(R) * std::size_t(n - 1), "e");
    h2d(dx, x, sizeof(R) * std::size_t(m), "x");
    h2d(dlo, lo, sizeof(index_t) * std::size_t(m), "lo");
    // Phase A straight into the resident Z (ld n).
    const auto phase_a = &phase_a_kernel<R>;
    {
      ProfileTimer timer;  // EIGSOLVE_GPU_PROFILE=1
      timer.start(st);
      for (index_t j0 = 0; j0 < m; j0 += batch) {
        const index_t cnt = std::min(batch, m - j0);
        phase_a<<<unsigned((cnt + 63) / 64), 64, 0, st>>>(n, dd, de, dx + j0, P, k0 + j0, cnt, work,
                                                          sw, dz + j0 * n);
        ck(cudaGetLastError(), "phase A launch");
      }
      report_phase_a(timer.stop(st), n, m);
    }
    // Phase B in rounds of waves (solver/cuda/invit_phase_b.cuh): wave k = block k of every
    // cluster, CGS kernel then sequential kernel, all launched without a host round trip. A
    // column that needs the fallback stops its cluster (the others go on); after the round the
    // host runs invit::fallback for each stopped column and the next round resumes those
    // clusters at the column after it.
    std::vector<R> qh, yh(static_cast<std::size_t>(n));
    std::vector<R> wk(5 * static_cast<std::size_t>(n));
    std::vector<unsigned char> wsw(static_cast<std::size_t>(n));
    const invit::Work<R> W{wk.data(),         wk.data() + n, wk.data() + 2 * n, wk.data() + 3 * n,
                           wk.data() + 4 * n, wsw.data(),    index_t(1)};
    // Column f fell back: invit::fallback on the host against the columns [p0, f).
    const auto host_fallback = [&](index_t p0, index_t f) {
      const index_t nq = f - p0;
      qh.resize(static_cast<std::size_t>(std::max<index_t>(nq, 1) * n));
      if (nq > 0) d2h(qh.data(), dz + p0 * n, sizeof(R) * std::size_t(nq * n), "window");
      invit::fallback(n, d, e, x[f], P, k0 + f, R(0), W, qh.data(), nq, n, yh.data());
      h2d(dz + f * n, yh.data(), sizeof(R) * std::size_t(n), "fallback column");
      ck(cudaStreamSynchronize(st), "fallback column");  // yh is reused
      ++nfall;
    };
    const index_t nc = nclusters;
    std::vector<index_t> hst(6 * std::size_t(nc)), nb(static_cast<std::size_t>(nc));
    index_t* hc0 = hst.data();
    index_t* hc1 = hc0 + nc;
    index_t* hkst = hc1 + nc;
    index_t* hjst = hkst + nc;
    index_t* hstop = hjst + nc;
    index_t* hord = hstop + nc;
    for (index_t c = 0; c < nc; ++c) {
      hc0[c] = cb[c];
      hc1[c] = cb[c + 1];
      hkst[c] = 0;
      hjst[c] = cb[c];
      nb[c] = (cb[c + 1] - cb[c] + invit::kBlock - 1) / invit::kBlock;
    }
    ck(cudaMalloc(&dj, sizeof(index_t) * 6 * std::size_t(nc)), "cudaMalloc");
    ck(cudaMalloc(&cbuf, sizeof(R) * std::size_t(invit::kBlock) * std::size_t(m)), "cudaMalloc");
    h2d(dj, hst.data(), sizeof(index_t) * 2 * std::size_t(nc), "clusters");
    invit_dev::WaveArgs wa{};
    wa.n = n;
    wa.ldz = n;
    wa.c0 = dj;
    wa.c1 = dj + nc;
    wa.kst = dj + 2 * nc;
    wa.jst = dj + 3 * nc;
    wa.stop = dj + 4 * nc;
    wa.order = dj + 5 * nc;
    wa.lo = dlo;
    // The sequential kernel: on thread block clusters (float, double; solver/cuda/
    // invit_cluster.cuh, EIGSOLVE_GPU_INVIT_CLUSTER), else one CTA per cluster of eigenvalues:
    // y_j in shared memory when it fits (EIGSOLVE_GPU_INVIT_YGLOBAL=1 forces the global-memory
    // path, for the tests), KC slots of q in registers.
    const invit_dev::ClusterStep2<R> cl2 = invit_dev::cluster_step2_plan<R>(n);
    const index_t ntiles = (n + kTile - 1) / kTile, nchunks = (n + kChunk - 1) / kChunk;
    const index_t nslots = (n + invit_dev::kSlot - 1) / invit_dev::kSlot;
    int dev = 0, smem_optin = 0;
    ck(cudaGetDevice(&dev), "cudaGetDevice");
    ck(cudaDeviceGetAttribute(&smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev),
       "cudaDeviceGetAttribute");
    const std::size_t smem_limit = std::size_t(smem_optin) - 2 * sizeof(R);  // minus s_c
    const std::size_t smem_part = sizeof(R) * std::size_t(ntiles);
    const std::size_t smem_y = sizeof(R) * std::size_t(invit_dev::kYStride) * std::size_t(nchunks);
    const char* yg_env = std::getenv("EIGSOLVE_GPU_INVIT_YGLOBAL");
    const bool force_global = yg_env && yg_env[0] == '1';
    const int y_shared = (!force_global && smem_part + smem_y <= smem_limit) ? 1 : 0;
    const std::size_t smem = smem_part + (y_shared ? smem_y : 0);
    if (!cl2.on && smem > smem_limit) throw DimensionError("invit_cuda: n too large for phase B");
    // VEC: every column of Z 16-byte aligned (cudaMalloc: 256), so the half chunks of q are
    // loaded 16 bytes at a time (float, double).
    const bool vec = sizeof(R) <= 8 && (std::size_t(n) * sizeof(R)) % 16 == 0;
    const auto pick = [&](auto kc) {
      constexpr int KC = decltype(kc)::value;
      if (y_shared)
        return vec ? &invit_dev::step2_wave_kernel<R, KC, true, true>
                   : &invit_dev::step2_wave_kernel<R, KC, true, false>;
      return vec ? &invit_dev::step2_wave_kernel<R, KC, false, true>
                 : &invit_dev::step2_wave_kernel<R, KC, false, false>;
    };
    auto step2 = pick(std::integral_constant<int, 1>{});
    if constexpr (sizeof(R) <= 8)  // KC = 2 slots of q in registers (dd: 1, it spills beyond)
      if (nslots >= 2) step2 = pick(std::integral_constant<int, 2>{});
    if (!cl2.on)
      ck(cudaFuncSetAttribute(step2, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)),
         "cudaFuncSetAttribute");
    std::vector<index_t> todo(static_cast<std::size_t>(nc));
    for (index_t c = 0; c < nc; ++c)
      todo[c] = c;
    // hooks->ready, in the first round while no column has stopped: after wave k, cluster c
    // (clusters are consecutive column ranges) has its first min(nb, k + 1) blocks final; its
    // next block, starting at column s, and everything after it (fallbacks included) read
    // columns from lo[s] on (lo is non-decreasing inside a cluster). So [0, F) is final and
    // unread from here on, F the first cluster's lo[s] that is not complete (m when all are).
    bool ready_ok = hooks && hooks->ready;
    index_t ready_f = 0;
    const auto report_ready = [&](index_t k) {
      index_t f = m;
      for (index_t c = 0; c < nc; ++c) {
        const index_t s = cb[c] + (k + 1) * invit::kBlock;
        if (s < cb[c + 1]) {
          f = lo[s];
          break;
        }
      }
      if (f > ready_f) {
        ready_f = f;
        hooks->ready(f);
      }
    };
    while (!todo.empty()) {
      // Clusters with the most blocks first: wave k's clusters are a prefix of the order.
      std::stable_sort(todo.begin(), todo.end(),
                       [&](index_t a, index_t b) { return nb[a] > nb[b]; });
      const index_t nt = index_t(todo.size());
      index_t kmin = nb[todo[0]];
      for (index_t i = 0; i < nt; ++i) {
        hord[i] = todo[i];
        kmin = std::min(kmin, hkst[todo[i]]);
      }
      for (index_t c = 0; c < nc; ++c)
        hstop[c] = -1;
      h2d(dj + 2 * nc, hkst,
          sizeof(index_t) * 3 * std::size_t(nc) + sizeof(index_t) * std::size_t(nt), "round state");
      index_t nact = nt;
      for (index_t k = kmin; k < nb[todo[0]]; ++k) {
        while (nact > 0 && nb[todo[nact - 1]] <= k)
          --nact;
        wa.k = k;
        if (k > 0)  // wave 0: every window is empty
          invit_dev::cgs2_wave_kernel<R>
              <<<dim3(unsigned(nact), unsigned(invit::kBlock)), invit_dev::kT1, 0, st>>>(wa, dz,
                                                                                         cbuf);
        if (cl2.on)
          ck(cl2.launch(nact, wa, dz, st), "phase B cluster launch");
        else
          step2<<<unsigned(nact), invit_dev::kT2, smem, st>>>(wa, dz);
        ck(cudaGetLastError(), "phase B launch");
        // Every 16 waves: once every cluster of the round has stopped (fallbacks: a giant
        // cluster stops at each one), the later waves would only launch kernels that exit;
        // end the round (one small copy per 16 waves otherwise).
        if ((k - kmin) % 16 == 15 && k + 1 < nb[todo[0]]) {
          d2h(hstop, dj + 4 * nc, sizeof(index_t) * std::size_t(nc), "stops");
          bool all = true, none = true;
          for (index_t i = 0; i < nt; ++i) {
            all = all && hstop[todo[i]] >= 0;
            none = none && hstop[todo[i]] < 0;
          }
          if (all) break;
          if (!none) ready_ok = false;
          if (ready_ok) report_ready(k);
        }
      }
      ready_ok = false;  // later rounds (after fallbacks): the columns are final at the return
      d2h(hstop, dj + 4 * nc, sizeof(index_t) * std::size_t(nc), "stops");
      std::vector<index_t> next;
      for (index_t i = 0; i < nt; ++i) {
        const index_t c = todo[i], f = hstop[c];
        if (f < 0) continue;
        const index_t kb = (f - cb[c]) / invit::kBlock, j0 = cb[c] + kb * invit::kBlock;
        const index_t j1 = std::min(j0 + invit::kBlock, cb[c + 1]);
        host_fallback(lo[j0], f);
        if (f + 1 < j1) {
          hkst[c] = kb;
          hjst[c] = f + 1;
        } else {
          hkst[c] = kb + 1;
          hjst[c] = j1;
        }
        if (hkst[c] < nb[c]) next.push_back(c);
      }
      todo.swap(next);
    }
    if (!dz_out) {
      ck(cudaMemcpy2DAsync(z, sizeof(R) * std::size_t(ldz), dz, sizeof(R) * std::size_t(n),
                           sizeof(R) * std::size_t(n), std::size_t(m), cudaMemcpyDeviceToHost, st),
         "Z");
      ck(cudaStreamSynchronize(st), "Z");
    } else {
      ck(cudaStreamSynchronize(st), "phase B");
    }
  } catch (...) {
    release();
    throw;
  }
  release();
  if (fallbacks) *fallbacks = nfall;
  return true;
}

#define EIGSOLVE_INSTANTIATE_INVIT_CUDA(R)                                                    \
  template void invit_phase_a_cuda<R>(index_t, const R*, const R*, index_t, const R*,         \
                                      const invit::Params<R>&, index_t, R*, index_t);         \
  template bool invit_cuda<R>(index_t, const R*, const R*, index_t, const R*, const index_t*, \
                              const index_t*, index_t, const invit::Params<R>&, index_t, R*,  \
                              index_t, index_t*, R*, const InvitDeviceHooks*);
EIGSOLVE_FOR_EACH_REAL(EIGSOLVE_INSTANTIATE_INVIT_CUDA)
#undef EIGSOLVE_INSTANTIATE_INVIT_CUDA

}  // namespace eigsolve
