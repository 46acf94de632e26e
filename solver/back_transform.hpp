// Back-transformation Z := Q Z with Q from the tridiagonalization, and the sign normalization of
// eigenvectors.
#pragma once

#include "core/context.hpp"
#include "core/precision.hpp"

namespace eigsolve {

/// Reflectors per block of the canonical back-transformation (a constant of the format, like
/// the reduction's tile of 64; it equals the default tridiagonalization panel width).
inline constexpr index_t kBackTransformBlock = 32;

/// How Q Z is computed: `canonical` (our blocked order, docs/canonical-backtransform.md; part of
/// the reproducibility contract), `lapack` (LAPACKE ?ormtr/?unmtr: faster on some CPUs, bits
/// depend on the OpenBLAS kernels) or `cusolver` (cuSOLVER's ?ormtr/?unmtr on the GPU, with
/// --device cuda only; bits depend on the GPU and the library). lapack and cusolver: s/d/c/z
/// and the one-stage reduction only, not in the contract.
enum class BackTransformMethod { canonical, lapack, cusolver };
const char* back_transform_name(BackTransformMethod m);
BackTransformMethod parse_back_transform(const char* s);  ///< throws UsageError

/// Z := Q Z in the canonical blocked order. The reflectors are those of ?sytrd/?hetrd('L')
/// storage: reflector i (0 <= i < n-1) is H(i) = I - tau[i] v v^H with v(0:i+1) = 0,
/// v(i+1) = 1, v(i+2:n) = A(i+2:n, i); Q = H(0) H(1) ... H(n-2). Reflectors are grouped in
/// blocks [32b, 32b+32) (the last one shorter); blocks are applied last to first, each as
/// Z := Z - V (T (V^H Z)) (compact WY, T by a fixed recurrence) with every element a fixed
/// chain (docs/canonical-backtransform.md). Columns of Z are independent, split over threads:
/// the bits do not depend on the thread count or on AVX2 vs the scalar path.
/// Z is n x m, ldz >= n; A has lda >= n.
template <class T>
void apply_q_canonical(const Context& ctx, index_t n, const T* A, index_t lda, const T* tau,
                       index_t m, T* Z, index_t ldz);

/// Z := Q Z by `method` (lapack: LAPACKE ?ormtr/?unmtr('L', 'L', 'N'); cusolver: cuSOLVER's on
/// the current device, solver/back_transform_cuda.hpp's ormtr_cusolver; for dd, which has
/// neither, both throw UsageError).
template <class T>
void back_transform(const Context& ctx, index_t n, const T* A, index_t lda, const T* tau, index_t m,
                    T* Z, index_t ldz, BackTransformMethod method = BackTransformMethod::canonical);

/// Scales each column of Z (n x m) so that its largest-magnitude component (abs2; the first
/// index on ties) is real and positive: reals flip the sign, complex columns are multiplied by
/// conj(z_k)/|z_k| (|z_k| = sqrt_(abs2(z_k))) and z_k is then set to (|z_k|, 0) exactly.
template <class T>
void normalize_signs(const Context& ctx, index_t n, index_t m, T* Z, index_t ldz);

}  // namespace eigsolve
