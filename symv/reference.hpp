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

}  // namespace eigsolve
