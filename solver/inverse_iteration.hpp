// Eigenvectors of the symmetric tridiagonal T by inverse iteration (the bisection path, and the
// only eigenvector path for double-double).
#pragma once

#include "core/context.hpp"
#include "core/precision.hpp"

namespace eigsolve {

/// Eigenvectors z(:, j) of T = (d[0..n), e[0..n-1)) for the m eigenvalues w[0..m) (ascending),
/// by inverse iteration as in LAPACK ?stein: LU of T - w_j I with partial pivoting (tiny
/// pivots replaced by +-eps*||T||_1), a fixed pseudo-random start vector that depends only on
/// the global eigenvalue index k0 + j and the row, at most 5 iterations (2 more after the
/// growth test passes), and modified Gram-Schmidt in ascending order against the earlier
/// vectors of the same cluster (consecutive eigenvalues closer than 1e-3 * ||T||_1; within a
/// cluster equal shifts are separated by 10 * eps * |w_j|). Columns have unit 2-norm.
/// Clusters are processed in parallel, each sequentially: the bits do not depend on the
/// thread count. z is n x m column-major with ldz >= n. Requires w ascending.
template <class R>
void inverse_iteration(const Context& ctx, index_t n, const R* d, const R* e, index_t m, const R* w,
                       index_t k0, R* z, index_t ldz);

}  // namespace eigsolve
