// SYMV / HEMV on the CPU: the executable definition of the canonical order.
#pragma once

#include "core/context.hpp"
#include "core/precision.hpp"

namespace eigsolve {

/// y := alpha * A * x + beta * y, A symmetric (real T) or Hermitian (complex T) of order n,
/// stored in the lower triangle of A (lda >= n); the strict upper triangle is not read, the
/// imaginary parts of the diagonal are taken as zero. When beta == 0, y is not read.
/// Every y[i] is computed in the canonical order of docs/canonical-symv.md, so the bits do not
/// depend on ctx.threads.
template <class T>
void symv_reference(const Context& ctx, index_t n, T alpha, const T* A, index_t lda, const T* x,
                    T beta, T* y);

/// Vectors per pass over A in symm_reference by default: their tile partials take 8/32 of the
/// bytes of A's lower triangle (each vector's are n * ceil(n/64) elements); a tile read from
/// memory feeds 8 kernel runs from cache.
inline constexpr index_t kSymmGroup = 8;

/// X(:, q) := A * V(:, q) for q = 0 .. k-1 (A as in symv_reference; V n x k with leading
/// dimension ldv, X n x k with ldx; X not read): bit for bit the k calls
/// symv_reference(ctx, n, 1, A, lda, V(:, q), 0, X(:, q)), with each tile of A read from memory
/// once per group of vectors instead of once per vector. group: vectors per pass over A (0:
/// kSymmGroup; the bits never depend on it).
template <class T>
void symm_reference(const Context& ctx, index_t n, index_t k, const T* A, index_t lda, const T* V,
                    index_t ldv, T* X, index_t ldx, index_t group = 0);

}  // namespace eigsolve
