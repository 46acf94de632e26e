// The two-stage reduction: full Hermitian -> band of half-width b -> real symmetric
// tridiagonal. Canonical order: docs/canonical-two-stage.md (a second canonical order; its bits
// differ from tridiagonalize's and depend on b).
#pragma once

#include "core/context.hpp"
#include "core/precision.hpp"

namespace eigsolve {

/// Stage 1 (householder/band_reduce.cpp). Reduces the Hermitian matrix in the lower triangle of
/// A (order n, lda >= n; the strict upper triangle is not read) to B = Q1^H A Q1 with half-width
/// b >= 1: on exit B(r, c) for 0 <= r - c <= b is in A's lower triangle, the reflectors below the
/// band (as ?geqrf stores them, panel by panel) with their scalars in tau1[0 .. n) (0 where none
/// was formed). Complex: the diagonal of B is real.
template <class T>
void reduce_to_band(const Context& ctx, index_t n, index_t b, T* A, index_t lda, T* tau1);

/// Stage 2 (householder/bulge_chase.cpp). Reduces the Hermitian band matrix B of half-width
/// b >= 1 held in AB (AB[(r - c) + c * ldab] = B(r, c), 0 <= r - c <= b; ldab >= 2b; rows
/// b+1 .. ldab-1 are workspace for the bulge and are overwritten) to real tridiagonal form by
/// the canonical bulge chase: d[0 .. n) the diagonal, e[0 .. n-1) the subdiagonal. AB is
/// destroyed.
template <class T>
void band_to_tridiagonal(const Context& ctx, index_t n, index_t b, T* AB, index_t ldab,
                         real_t<T>* d, real_t<T>* e);

/// Both stages: A (lower, destroyed) -> d, e. Copies the band of reduce_to_band's result into
/// band storage (ldab = 2b + 1) and runs band_to_tridiagonal.
template <class T>
void tridiagonalize_two_stage(const Context& ctx, index_t n, index_t b, T* A, index_t lda,
                              real_t<T>* d, real_t<T>* e);

}  // namespace eigsolve
