// The two-stage reduction: full Hermitian -> band of half-width b -> real symmetric
// tridiagonal. Canonical order: docs/canonical-two-stage.md (a second canonical order; its bits
// differ from tridiagonalize's and depend on b).
#pragma once

#include <vector>

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
/// V2/tau2 (optional, both or neither): the chase's reflectors for the eigenvectors
/// (docs/canonical-two-stage.md, "Stage 2's reflectors"): sweep i's levels in column i of V2
/// (rows i+1 .. n-1, each level's unit stored as 1; ldv2 >= n; only rows > i of column i are
/// written) and level k's scalar in tau2[k + i * ldt2] (ldt2 >= chase_levels(n, b)).
template <class T>
void band_to_tridiagonal(const Context& ctx, index_t n, index_t b, T* AB, index_t ldab,
                         real_t<T>* d, real_t<T>* e, T* V2 = nullptr, index_t ldv2 = 0,
                         T* tau2 = nullptr, index_t ldt2 = 0);

/// Levels of the chase's longest sweep (sweep 0): ceil((n-1)/b) for n >= 2, else 0.
inline index_t chase_levels(index_t n, index_t b) {
  return n >= 2 ? (n - 1 + b - 1) / b : 0;
}

/// Where both stages' reflectors are kept for the back-transformation (host memory): stage 1's
/// below the band of A (as reduce_to_band leaves them) with tau1[0 .. n); stage 2's in V2
/// (n x n, ldv2 >= n) and tau2 (ldt2 >= chase_levels(n, b), n columns).
template <class T>
struct TwoStageReflectors {
  index_t b = 0;
  std::vector<T> tau1, V2, tau2;
  index_t ldv2 = 0, ldt2 = 0;
};

/// Both stages: A (lower, destroyed) -> d, e. Copies the band of reduce_to_band's result into
/// band storage (ldab = 2b + 1) and runs band_to_tridiagonal. With `refl` (for eigenvectors):
/// stage 1's reflectors stay below the band of A and refl gets tau1, V2 and tau2 (sized here).
template <class T>
void tridiagonalize_two_stage(const Context& ctx, index_t n, index_t b, T* A, index_t lda,
                              real_t<T>* d, real_t<T>* e, TwoStageReflectors<T>* refl = nullptr);

/// Z := Q2 Z (householder/two_stage_vectors.cpp): stage 2's reflectors (V2, tau2 as
/// band_to_tridiagonal stores them) applied one by one, last to first, each column's dot a plain
/// chain (docs/canonical-two-stage.md, "Z := Q2 Z"). Z is n x m, ldz >= n; b >= 1, ldv2 >= n,
/// ldt2 >= chase_levels(n, b). Columns are split over ctx's threads; the bits depend on neither
/// the split nor the kernel (AVX-512, AVX2, scalar).
template <class T>
void apply_q2_canonical(const Context& ctx, index_t n, index_t b, const T* V2, index_t ldv2,
                        const T* tau2, index_t ldt2, index_t m, T* Z, index_t ldz);

/// Z := Q1 Q2 Z: apply_q2_canonical, then stage 1's reflectors (below the band of A, lda >= n,
/// with tau1) by the one-stage canonical back-transformation moved down b-1 rows
/// (apply_q_canonical of order n-b+1 on A + (b-1) and Z + (b-1); nothing when n-b+1 <= 1).
/// refl as tridiagonalize_two_stage fills it for this n (sizes checked). Defined in
/// solver/back_transform_two_stage.cpp (library eigsolve_solver, which links householder/):
/// apply_q_canonical is solver/'s.
template <class T>
void apply_q_two_stage(const Context& ctx, index_t n, const T* A, index_t lda,
                       const TwoStageReflectors<T>& refl, index_t m, T* Z, index_t ldz);

}  // namespace eigsolve
