// Blocked Householder tridiagonalization A = Q T Q^H (LAPACK ?sytrd/?hetrd, uplo = 'L').
#pragma once

#include <functional>

#include "core/context.hpp"
#include "core/precision.hpp"

namespace eigsolve {

struct TridiagOptions {
  int nb = 32;  ///< panel width (latrd); results are bitwise independent of it? see docs
  /// Called now and then with (columns done, n); may be empty.
  std::function<void(index_t, index_t)> progress;
};

/// Reduces the Hermitian matrix held in the lower triangle of A (order n, lda >= n) to real
/// symmetric tridiagonal form T = Q^H A Q. On exit d[0..n) is the diagonal of T, e[0..n-1) its
/// subdiagonal, and the strict lower triangle of A with tau[0..n-1) holds the reflectors
/// exactly as LAPACK ?sytrd/?hetrd('L') stores them (so ?ormtr/?unmtr can apply Q).
/// Canonical order: docs/canonical-tridiagonalization.md.
template <class T>
void tridiagonalize(const Context& ctx, index_t n, T* A, index_t lda, real_t<T>* d,
                    real_t<T>* e, T* tau, const TridiagOptions& opt = {});

}  // namespace eigsolve
