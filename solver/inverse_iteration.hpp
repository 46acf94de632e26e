// Eigenvectors of the symmetric tridiagonal T by canonical inverse iteration (the bisection
// path, and the only eigenvector path for double-double). The algorithm and its order of
// operations are specified in docs/canonical-eigenvectors.md; the per-vector pieces are ES_HD
// code in solver/inverse_iteration_kernels.hpp.
#pragma once

#include "core/context.hpp"
#include "core/precision.hpp"
#include "solver/invit_cuda.hpp"

namespace eigsolve {

/// Eigenvectors z(:, j) of T = (d[0..n), e[0..n-1)) for the m eigenvalues w[0..m) (ascending),
/// in three phases (docs/canonical-eigenvectors.md):
///  - Phase 0: T scaled by a power of two to ||T||_1 in [1, 2); clusters of consecutive
///    eigenvalues closer than ortol = 1e-3 * ||T||_1; shifts separated inside a cluster by
///    10 * eps * |w_j| (as in LAPACK ?stein).
///  - Phase A (parallel over j): inverse iteration as in ?stein without orthogonalization:
///    LU of T - x_j I with partial pivoting (tiny pivots replaced by +-eps*||T||_1), a fixed
///    pseudo-random start vector that depends only on the global index k0 + j and the row, at
///    most 5 iterations (2 more after the growth test passes); unit 2-norm.
///  - Phase B (per cluster, blocks of 32 ascending): classical Gram-Schmidt twice against the
///    earlier vectors of the cluster closer than ortol to the block (parallel over the block),
///    then modified Gram-Schmidt twice inside the block (sequential), normalization; a vector
///    that lost more than 90% of its norm is recomputed ?stein-style (MGS inside every
///    iteration).
/// Columns have unit 2-norm. The bits do not depend on the thread count. z is n x m
/// column-major with ldz >= n. Requires w ascending.
template <class R>
void inverse_iteration(const Context& ctx, index_t n, const R* d, const R* e, index_t m, const R* w,
                       index_t k0, R* z, index_t ldz);

/// inverse_iteration, returning the number of Phase B fallbacks (for tests and diagnostics).
template <class R>
index_t inverse_iteration_counted(const Context& ctx, index_t n, const R* d, const R* e, index_t m,
                                  const R* w, index_t k0, R* z, index_t ldz);

/// inverse_iteration with Z left on the CUDA device (ctx.backend must be cuda): the same bits into
/// dz (device memory, n x m, ld n). Returns false, having computed nothing, when this path is not
/// taken (T = 0, n = 1, EIGSOLVE_GPU_INVIT_B=0, or phase B's working set does not fit in the free
/// device memory): the caller then runs inverse_iteration into host memory. *fallbacks (may be
/// null) receives the number of phase B fallbacks. hooks (may be null): the stream and the
/// finished-columns callback of InvitDeviceHooks (solver/invit_cuda.hpp).
template <class R>
bool inverse_iteration_device(const Context& ctx, index_t n, const R* d, const R* e, index_t m,
                              const R* w, index_t k0, R* dz, index_t* fallbacks,
                              const InvitDeviceHooks* hooks = nullptr);

}  // namespace eigsolve
