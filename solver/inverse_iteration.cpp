// Canonical inverse iteration (solver/inverse_iteration.hpp, docs/canonical-eigenvectors.md),
// generic over float/double/dd_real.
//
//   Phase 0 (sequential)  scale T to ||T||_1 in [1, 2); ortol, tol; clusters (gaps > ortol
//                         split); shifts x_j = max(w_j, x_{j-1} + 10 eps |w_j|) in a cluster;
//                         lo[j] = first p of j's cluster with w_j - w_p < ortol
//   Phase A (parallel j)  y_j = unit inverse-iteration vector, no orthogonalization
//                         (invit::phase_a, solver/inverse_iteration_kernels.hpp; on the CPU
//                         8 vectors interleaved per thread: solver/inverse_iteration_lanes.hpp)
//   Phase B (per cluster, blocks [j0, j1) of kBlock = 32 from the cluster start, ascending):
//     window [p0, j0), p0 = lo[j0]
//     parallel j in block:  CGS twice: c_p = q_p . y_j (all p of the window), then
//                           y_j[i] = madd(-c_p, q_p[i], y_j[i]) for p ascending
//     sequential j:         MGS twice against q_p, p in [max(j0, lo[j]), j) ascending;
//                           nrm = ||y_j||; nrm >= 0.1: q_j = y_j / nrm, else
//                           invit::fallback against [p0, j)
#include "solver/inverse_iteration.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <memory>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "core/canonical.hpp"
#include "core/errors.hpp"
#include "core/parallel.hpp"
#include "solver/inverse_iteration_kernels.hpp"
#include "solver/inverse_iteration_lanes.hpp"
#include "solver/invit_cuda.hpp"

namespace eigsolve {
namespace {

using bisect::rabs;
using bisect::rmax;

/// Work vectors of one thread (contiguous: inc = 1).
template <class R>
struct HostWork {
  std::vector<R> dl, dd, du, du2, b;
  std::vector<unsigned char> swapped;
  explicit HostWork(index_t n) : dl(n), dd(n), du(n), du2(n), b(n), swapped(n) {}
  invit::Work<R> view() {
    return {dl.data(), dd.data(), du.data(), du2.data(), b.data(), swapped.data(), index_t(1)};
  }
};

/// What Phase B needs besides z.
template <class R>
struct Problem {
  index_t n;
  const R* d;
  const R* e;
  const R* x;         // shifts
  const index_t* lo;  // first index of the ortol window of each j
  invit::Params<R> P;
  index_t k0;
};

/// y[i] = madd(-c[p], q_p[i], y[i]) for p = 0 .. np-1 ascending: one chain per element (four
/// columns per sweep; the same chain).
template <class R>
void subtract_columns(index_t n, R* y, const R* q, index_t ldq, const R* c, index_t np) {
  index_t p = 0;
  for (; p + 4 <= np; p += 4) {
    const R *q0 = q + p * ldq, *q1 = q0 + ldq, *q2 = q1 + ldq, *q3 = q2 + ldq;
    const R c0 = -c[p], c1 = -c[p + 1], c2 = -c[p + 2], c3 = -c[p + 3];
    for (index_t i = 0; i < n; ++i)
      y[i] = madd(c3, q3[i], madd(c2, q2[i], madd(c1, q1[i], madd(c0, q0[i], y[i]))));
  }
  for (; p < np; ++p) {
    const R* qp = q + p * ldq;
    const R cp = -c[p];
    for (index_t i = 0; i < n; ++i)
      y[i] = madd(cp, qp[i], y[i]);
  }
}

/// Classical Gram-Schmidt, twice, of y against the np columns q (the window).
template <class R>
void cgs2(index_t n, R* y, const R* q, index_t ldq, index_t np, std::vector<R>& c) {
  c.resize(static_cast<size_t>(np));
  for (int pass = 0; pass < 2; ++pass) {
    for (index_t p = 0; p < np; ++p)
      c[p] = contiguous_dot<false>(n, q + p * ldq, y);
    subtract_columns(n, y, q, ldq, c.data(), np);
  }
}

/// The sequential step of column j of the block starting at j0 (window start p0): MGS twice
/// against [max(j0, lo[j]), j), then normalization or the fallback. Returns 1 on a fallback.
template <class R>
int finish_column(const Problem<R>& pr, R* z, index_t ldz, index_t j0, index_t p0, index_t j,
                  std::vector<R>& c, std::unique_ptr<HostWork<R>>& W) {
  const index_t n = pr.n;
  R* y = z + j * ldz;
  const index_t ps = std::max(j0, pr.lo[j]);
  for (int pass = 0; pass < 2; ++pass)
    for (index_t p = ps; p < j; ++p) {
      const R* qp = z + p * ldz;
      c.resize(1);
      c[0] = contiguous_dot<false>(n, qp, y);
      subtract_columns(n, y, qp, ldz, c.data(), 1);
    }
  const R nrm = sqrt_(contiguous_dot<false>(n, y, y));
  if (nrm >= R(invit::kFallbackNorm)) {
    for (index_t i = 0; i < n; ++i)
      y[i] = y[i] / nrm;
    return 0;
  }
  if (!W) W = std::make_unique<HostWork<R>>(n);
  invit::fallback(n, pr.d, pr.e, pr.x[j], pr.P, pr.k0 + j, nrm, W->view(), z + p0 * ldz, j - p0,
                  ldz, y);
  return 1;
}

/// Phase B for the block [j0, j1) with window [p0, j0). `threads` > 1 splits the CGS step.
template <class R>
int phase_b_block(const Problem<R>& pr, R* z, index_t ldz, index_t p0, index_t j0, index_t j1,
                  int threads, std::vector<R>& c, std::unique_ptr<HostWork<R>>& W) {
  if (p0 < j0) {
    parallel_for(j1 - j0, threads, 1, [&](index_t b, index_t e) {
      std::vector<R> cc;
      for (index_t j = j0 + b; j < j0 + e; ++j)
        cgs2(pr.n, z + j * ldz, z + p0 * ldz, ldz, j0 - p0, cc);
    });
  }
  int fallbacks = 0;
  for (index_t j = j0; j < j1; ++j)
    fallbacks += finish_column(pr, z, ldz, j0, p0, j, c, W);
  return fallbacks;
}

/// The whole inverse iteration. dz (device mode, cuda context): phases A and B into the device's
/// dz (n x m, ld n), z unused; *on_device = false, nothing computed, when that path is not taken
/// (T = 0, n = 1, EIGSOLVE_GPU_INVIT_B=0, or Z's working set does not fit on the device); hooks:
/// invit_cuda's (device mode only).
template <class R>
index_t invit_impl(const Context& ctx, index_t n, const R* d_in, const R* e_in, index_t m,
                   const R* w_in, index_t k0, R* z, index_t ldz, R* dz, bool* on_device,
                   const InvitDeviceHooks* hooks = nullptr) {
  if (dz) *on_device = false;
  if (m == 0 || n == 0) {
    if (dz) *on_device = true;
    return 0;
  }
  if (dz && (ctx.backend != Backend::cuda || n == 1)) return 0;
  if (!dz && ldz < n) throw DimensionError("inverse_iteration: ldz < n");
  if (n == 1) {
    for (index_t j = 0; j < m; ++j)
      z[j * ldz] = R(1);
    return 0;
  }
  // Phase 0. ||T||_1 in ascending order; scale T by a power of two so that it lies in [1, 2).
  R onenrm = R(0);
  for (index_t i = 0; i < n; ++i) {
    R r = rabs(d_in[i]);
    if (i > 0) r = r + rabs(e_in[i - 1]);
    if (i + 1 < n) r = r + rabs(e_in[i]);
    onenrm = rmax(onenrm, r);
  }
  if (onenrm == R(0)) {  // T = 0: the unit vectors
    if (dz) return 0;    // on the host
    for (index_t j = 0; j < m; ++j)
      for (index_t i = 0; i < n; ++i)
        z[i + j * ldz] = R((k0 + j) == i ? 1 : 0);
    return 0;
  }
  const int sh = -std::ilogb(to_double(onenrm));
  std::vector<R> d(n), e(n), w(m), x(m);
  for (index_t i = 0; i < n; ++i)
    d[i] = scale2(d_in[i], sh);
  for (index_t i = 0; i + 1 < n; ++i)
    e[i] = scale2(e_in[i], sh);
  for (index_t j = 0; j < m; ++j)
    w[j] = scale2(w_in[j], sh);
  onenrm = scale2(onenrm, sh);

  invit::Params<R> P;
  P.onenrm = onenrm;
  P.eps = R(2) * bisect::unit_roundoff<R>();
  P.tol = P.eps * onenrm;
  P.dtpcrt = sqrt_(R(0.1) / R(static_cast<double>(n)));
  P.nr = R(static_cast<double>(n));
  const R ortol = R(invit::kOrtolFactor) * onenrm;

  // Clusters [cb[c], cb[c+1]), shifts, windows.
  std::vector<index_t> cb{0}, lo(m);
  for (index_t j = 1; j < m; ++j)
    if (w[j] - w[j - 1] > ortol) cb.push_back(j);
  cb.push_back(m);
  const index_t nclusters = static_cast<index_t>(cb.size()) - 1;
  for (index_t c = 0; c < nclusters; ++c) {
    index_t p = cb[c];
    for (index_t j = cb[c]; j < cb[c + 1]; ++j) {
      x[j] = w[j];
      if (j > cb[c]) {
        const R pertol = R(10) * rabs(P.eps * x[j]);
        if (x[j] - x[j - 1] < pertol) x[j] = x[j - 1] + pertol;
      }
      while (p < j && !(w[j] - w[p] < ortol))  // p < j: also with a NaN
        ++p;
      lo[j] = p;
    }
  }
  const Problem<R> pr{n, d.data(), e.data(), x.data(), lo.data(), P, k0};
  const int threads = ctx.num_threads();

  const auto ta = std::chrono::steady_clock::now();
  // Phase A: every vector on its own, on the GPU for a cuda context (solver/invit_cuda.hpp:
  // the same source, one device thread per vector), else kLanes interleaved per host thread.
  // Phase B on the device too, when Z fits (same bits; d n = 16384 on the H200: A+B 2.30 s
  // against A 0.37 s + the host's B 3.92 s, bench/NOTES.md, GPU session 6);
  // EIGSOLVE_GPU_INVIT_B=0 keeps phase B on the host.
  bool device_b = false;
  index_t device_fallbacks = 0;
  if (ctx.backend == Backend::cuda) {
    const char* gb = std::getenv("EIGSOLVE_GPU_INVIT_B");
    if (!(gb && gb[0] == '0' && gb[1] == '\0'))
      device_b = invit_cuda(n, pr.d, pr.e, m, x.data(), lo.data(), cb.data(), nclusters, P, k0, z,
                            ldz, &device_fallbacks, dz, dz ? hooks : nullptr);
    if (dz && !device_b) return 0;  // the caller runs the host form
    if (dz) *on_device = true;
    if (!device_b) invit_phase_a_cuda(n, pr.d, pr.e, m, x.data(), P, k0, z, ldz);
  } else {
    constexpr int kLanes = 8;
    const index_t groups = (m + kLanes - 1) / kLanes;
    parallel_for(groups, threads, std::max<index_t>(1, 512 / n), [&](index_t b, index_t end) {
      invit::LaneWork<R, kLanes> W(n);
      for (index_t g = b; g < end; ++g) {
        const int nl = static_cast<int>(std::min<index_t>(kLanes, m - g * kLanes));
        invit::phase_a_lanes<R, kLanes>(n, pr.d, pr.e, x.data(), P, k0, g * kLanes, nl, W, z, ldz);
      }
    });
  }

  const auto tb = std::chrono::steady_clock::now();
  if (device_b) {
    if (const char* pf = std::getenv("EIGSOLVE_GPU_PROFILE"); pf && pf[0] == '1')
      std::fprintf(stderr,
                   "eigsolve inverse iteration (n = %lld, m = %lld): phases A and B on the device "
                   "%.3f s (%lld clusters, %lld fallbacks on the host)\n",
                   static_cast<long long>(n), static_cast<long long>(m),
                   std::chrono::duration<double>(tb - ta).count(),
                   static_cast<long long>(nclusters), static_cast<long long>(device_fallbacks));
    return device_fallbacks;
  }
  // Phase B: clusters of one block in parallel.
  std::vector<index_t> small, large;
  for (index_t c = 0; c < nclusters; ++c)
    (cb[c + 1] - cb[c] <= invit::kBlock ? small : large).push_back(c);
  std::atomic<index_t> fallbacks{0};
  parallel_for(static_cast<index_t>(small.size()), threads, 16, [&](index_t b, index_t end) {
    std::vector<R> c;
    std::unique_ptr<HostWork<R>> W;
    index_t f = 0;
    for (index_t k = b; k < end; ++k) {
      const index_t c0 = cb[small[k]], c1 = cb[small[k] + 1];
      f += phase_b_block(pr, z, ldz, c0, c0, c1, 1, c, W);
    }
    fallbacks += f;
  });
  // Larger clusters: in parallel over the clusters (each one sequential) when no cluster holds
  // half of their vectors, else one by one with the CGS step split over the block's columns.
  index_t total = 0, biggest = 0;
  for (const index_t cl : large) {
    total += cb[cl + 1] - cb[cl];
    biggest = std::max(biggest, cb[cl + 1] - cb[cl]);
  }
  const bool by_cluster = threads > 1 && 2 * biggest <= total;
  parallel_for(static_cast<index_t>(large.size()), by_cluster ? threads : 1, 1,
               [&](index_t b, index_t end) {
                 std::unique_ptr<HostWork<R>> W;
                 std::vector<R> c;
                 index_t f = 0;
                 for (index_t k = b; k < end; ++k) {
                   const index_t c0 = cb[large[k]], c1 = cb[large[k] + 1];
                   for (index_t j0 = c0; j0 < c1; j0 += invit::kBlock)
                     f += phase_b_block(pr, z, ldz, lo[j0], j0, std::min(j0 + invit::kBlock, c1),
                                        by_cluster ? 1 : threads, c, W);
                 }
                 fallbacks += f;
               });
  if (const char* pf = std::getenv("EIGSOLVE_GPU_PROFILE"); pf && pf[0] == '1') {
    const auto te = std::chrono::steady_clock::now();
    std::fprintf(stderr,
                 "eigsolve inverse iteration (n = %lld, m = %lld): phase A %.3f s (%s), phase B "
                 "%.3f s (host, %lld clusters, %lld fallbacks)\n",
                 static_cast<long long>(n), static_cast<long long>(m),
                 std::chrono::duration<double>(tb - ta).count(),
                 ctx.backend == Backend::cuda ? "device" : "host",
                 std::chrono::duration<double>(te - tb).count(), static_cast<long long>(nclusters),
                 static_cast<long long>(fallbacks.load()));
  }
  return fallbacks.load();
}

}  // namespace

template <class R>
index_t inverse_iteration_counted(const Context& ctx, index_t n, const R* d, const R* e, index_t m,
                                  const R* w, index_t k0, R* z, index_t ldz) {
  return invit_impl(ctx, n, d, e, m, w, k0, z, ldz, static_cast<R*>(nullptr), nullptr);
}

template <class R>
void inverse_iteration(const Context& ctx, index_t n, const R* d, const R* e, index_t m, const R* w,
                       index_t k0, R* z, index_t ldz) {
  inverse_iteration_counted(ctx, n, d, e, m, w, k0, z, ldz);
}

template <class R>
bool inverse_iteration_device(const Context& ctx, index_t n, const R* d, const R* e, index_t m,
                              const R* w, index_t k0, R* dz, index_t* fallbacks,
                              const InvitDeviceHooks* hooks) {
  bool on = false;
  const index_t f = invit_impl(ctx, n, d, e, m, w, k0, static_cast<R*>(nullptr), n, dz, &on, hooks);
  if (fallbacks) *fallbacks = f;
  return on;
}

#define EIGSOLVE_INSTANTIATE_INVIT(R)                                                             \
  template void inverse_iteration<R>(const Context&, index_t, const R*, const R*, index_t,        \
                                     const R*, index_t, R*, index_t);                             \
  template index_t inverse_iteration_counted<R>(const Context&, index_t, const R*, const R*,      \
                                                index_t, const R*, index_t, R*, index_t);         \
  template bool inverse_iteration_device<R>(const Context&, index_t, const R*, const R*, index_t, \
                                            const R*, index_t, R*, index_t*,                      \
                                            const InvitDeviceHooks*);
EIGSOLVE_FOR_EACH_REAL(EIGSOLVE_INSTANTIATE_INVIT)
#undef EIGSOLVE_INSTANTIATE_INVIT

}  // namespace eigsolve
