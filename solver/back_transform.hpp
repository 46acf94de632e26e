// Back-transformation Z := Q Z with Q from the tridiagonalization, and the sign normalization of
// eigenvectors.
#pragma once

#include "core/context.hpp"
#include "core/precision.hpp"

namespace eigsolve {

/// Z := Q Z by our own application of the reflectors of ?sytrd/?hetrd('L') storage: reflector
/// i (0 <= i < n-1) is H(i) = I - tau[i] v v^H with v(i+1) = 1, v(i+2:n) = A(i+2:n, i), and
/// Q = H(0) H(1) ... H(n-2). Applied in reverse order, each column j of Z as
/// s = v^H z_j (canonical_dot over rows i+1..n-1), z_j -= (tau[i] s) v (one madd per element).
/// Columns are independent (parallel over columns): thread-count independent. Z is n x m,
/// ldz >= n; A has lda >= n. Works for every scalar (the dd path; tested against ?ormtr).
template <class T>
void apply_q_generic(const Context& ctx, index_t n, const T* A, index_t lda, const T* tau,
                     index_t m, T* Z, index_t ldz);

/// Z := Q Z: LAPACKE ?ormtr/?unmtr('L', 'L', 'N') where has_vendor_lapack_v<T>, else
/// apply_q_generic.
template <class T>
void back_transform(const Context& ctx, index_t n, const T* A, index_t lda, const T* tau, index_t m,
                    T* Z, index_t ldz);

/// Scales each column of Z (n x m) so that its largest-magnitude component (abs2; the first
/// index on ties) is real and positive: reals flip the sign, complex columns are multiplied by
/// conj(z_k)/|z_k| (|z_k| = sqrt_(abs2(z_k))) and z_k is then set to (|z_k|, 0) exactly.
template <class T>
void normalize_signs(const Context& ctx, index_t n, index_t m, T* Z, index_t ldz);

}  // namespace eigsolve
