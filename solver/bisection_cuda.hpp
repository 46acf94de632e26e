// Canonical bisection on the device (backend-neutral header): the eigenvalues il..iu of the
// symmetric tridiagonal (d, e), each the value bisect::bisect_eigenvalue defines
// (docs/canonical-bisection.md), so the bits are the CPU's. By default a few lanes per
// eigenvalue evaluate the counts of the next two levels at once, after a shared table of the
// top levels, and replay the sequential steps on them (bisect::spec_replay: the same midpoints,
// tests and decisions); EIGSOLVE_GPU_BISECT=0 runs bisect_eigenvalue itself, one thread per
// eigenvalue.
//
//   host: sturm_setup (e2, pivmin, gl, gu)  --d, e2-->  device: w[k - il] = eigenvalue k
//
// In a CPU-only build it throws NotCompiled("cuda").
#pragma once

#include "core/precision.hpp"

namespace eigsolve {

/// Eigenvalues il..iu (0-based, inclusive) of T = (d[0..n), e[0..n-1)) into w[0..iu-il] (host
/// arrays), computed on the current CUDA device. Requires 0 <= il, iu < n, il <= iu + 1.
template <class R>
void bisection_eigenvalues_cuda(index_t n, const R* d, const R* e, index_t il, index_t iu, R* w);

}  // namespace eigsolve
