// The pre-session-8 loops of Phase A (solver/inverse_iteration_kernels.hpp at fa51cac: factor,
// solve and the Phase A iteration through memory, one pass per step of the spec), kept only so
// that EIGSOLVE_GPU_INVIT_A=0 can A/B the register-carried, loads-ahead loops of
// invit::phase_a in one binary (solver/cuda/invit_device.cu). Same operations in the same order
// as invit::phase_a, so the same bits (tests/gpu/test_gpu_invit.cpp runs both). Remove once
// the new loops have been measured on the H200.
#pragma once

#include "solver/inverse_iteration_kernels.hpp"

namespace eigsolve {
namespace invit_legacy {

using invit::Params;
using invit::Work;

template <class R>
__device__ void factor(index_t n, const R* d, const R* e, const R& x, const R& tol,
                       const Work<R>& W) {
  const index_t s = W.inc;
  for (index_t i = 0; i < n; ++i) {
    W.dd[i * s] = d[i] - x;
    W.du2[i * s] = R(0);
    W.swapped[i * s] = 0;
    if (i + 1 < n) {
      W.dl[i * s] = e[i];
      W.du[i * s] = e[i];
    }
  }
  for (index_t i = 0; i + 1 < n; ++i) {
    R& di = W.dd[i * s];
    R& dn = W.dd[(i + 1) * s];
    if (bisect::rabs(di) >= bisect::rabs(W.dl[i * s])) {
      if (di < tol && -di < tol) di = di < R(0) ? -tol : tol;
      const R fact = W.dl[i * s] / di;
      W.dl[i * s] = fact;
      dn = dn - fact * W.du[i * s];
    } else {
      const R fact = di / W.dl[i * s];
      di = W.dl[i * s];
      W.dl[i * s] = fact;
      const R temp = W.du[i * s];
      W.du[i * s] = dn;
      dn = temp - fact * dn;
      if (i + 2 < n) {
        W.du2[i * s] = W.du[(i + 1) * s];
        W.du[(i + 1) * s] = -fact * W.du[(i + 1) * s];
      }
      W.swapped[i * s] = 1;
    }
  }
  for (index_t i = 0; i < n; ++i) {
    R& u = W.dd[i * s];
    if (u < tol && -u < tol) u = u < R(0) ? -tol : tol;
  }
}

template <class R>
__device__ void solve(index_t n, const Work<R>& W) {
  const index_t s = W.inc;
  R* b = W.b;
  for (index_t i = 0; i + 1 < n; ++i) {
    if (!W.swapped[i * s]) {
      b[(i + 1) * s] = b[(i + 1) * s] - W.dl[i * s] * b[i * s];
    } else {
      const R t = b[i * s];
      b[i * s] = b[(i + 1) * s];
      b[(i + 1) * s] = t - W.dl[i * s] * b[i * s];
    }
  }
  b[(n - 1) * s] = b[(n - 1) * s] / W.dd[(n - 1) * s];
  if (n > 1)
    b[(n - 2) * s] = (b[(n - 2) * s] - W.du[(n - 2) * s] * b[(n - 1) * s]) / W.dd[(n - 2) * s];
  for (index_t i = n - 3; i >= 0; --i)
    b[i * s] =
        ((b[i * s] - W.du[i * s] * b[(i + 1) * s]) - W.du2[i * s] * b[(i + 2) * s]) / W.dd[i * s];
}

/// invit::phase_a as it was (nq = 0: no MGS).
template <class R>
__device__ void phase_a(index_t n, const R* d, const R* e, const R& x, const Params<R>& P,
                        index_t k, const Work<R>& W, R* y) {
  const index_t s = W.inc;
  R* b = W.b;
  for (index_t i = 0; i < n; ++i)
    b[i * s] = R(invit::start_value(k, i));
  invit_legacy::factor(n, d, e, x, P.tol, W);
  const R unn = bisect::rmax(P.eps, bisect::rabs(W.dd[(n - 1) * s]));
  int extra = 0;
  for (int its = 0; its < invit::kMaxIter; ++its) {
    R asum = R(0);
    for (index_t i = 0; i < n; ++i)
      asum = asum + bisect::rabs(b[i * s]);
    const R scl = (P.nr * P.onenrm * unn) / asum;
    for (index_t i = 0; i < n; ++i)
      b[i * s] = b[i * s] * scl;
    invit_legacy::solve(n, W);
    if (invit::max_abs(n, b, s) >= P.dtpcrt && ++extra > invit::kExtraIter) break;
  }
  const R mx = invit::max_abs(n, b, s);
  for (index_t i = 0; i < n; ++i)
    b[i * s] = b[i * s] / mx;
  const R nrm = sqrt_(invit::strided_dot(n, b, s, b, s));
  for (index_t i = 0; i < n; ++i)
    y[i] = b[i * s] / nrm;
}

}  // namespace invit_legacy
}  // namespace eigsolve
