// The canonical SYMM / HEMM on a CUDA device (backend-neutral header, no CUDA includes).
//
//   X(:, q) = symv_reference(1, A, V(:, q), beta = 0)      q = 0 .. k-1
//
// bit for bit: stage 1 of the two-stage reduction (docs/canonical-two-stage.md, step 3), where
// the trailing matrix is read once per panel of k columns instead of once per column. Every
// element of X follows docs/canonical-symv.md: tile partials of 64 columns (8 chunk chains of 8
// columns from +0, the fixed tree), added in ascending tile order, then 1 * acc. A is Hermitian
// of order m in the lower triangle (strict upper triangle never read, imaginary part of the
// diagonal taken as 0); A, V and X are device pointers, column-major with leading dimensions
// lda, ldv, ldx (>= max(1, m)); `stream` is a cudaStream_t passed as void* (nullptr = default).
// No workspace, no atomics, no host synchronisation.
//
// In a CPU-only build every entry point throws NotCompiled("cuda").
#pragma once

#include <string>

#include "core/precision.hpp"

namespace eigsolve {

/// The largest k one call takes.
inline constexpr index_t kSymmMaxK = 64;

/// Number of kernel configurations for T (every one gives the same bits; the tests run all).
template <class T>
int symm_config_count();

/// A configuration's name, e.g. "r4q4-rb64-qb32-kc64" (rows x vectors per thread, rows and
/// vectors per block, columns per shared-memory stage), with optional suffixes: -cs2 (each
/// output's chunks 0-3 and 4-7 in two warp groups, the tree's top addition joined through shared
/// memory), -lean (the chunk loop not unrolled), -wN (N warps per block), -bN (launch bounds:
/// at least N blocks per SM).
template <class T>
std::string symm_config_name(int config);

/// The configuration symm_canonical_gpu picks for (m, k) with config = -1 on the current device
/// (EIGSOLVE_SYMM_CONFIG=<index> overrides it, same bits either way; a value that is not an index
/// below symm_config_count<T>() throws UsageError).
template <class T>
int symm_select(index_t m, index_t k);

/// X(:, q) := symv_reference(1, A, V(:, q), 0) for q < k (0 <= k <= kSymmMaxK). X must not
/// overlap A or V. config: an index below symm_config_count<T>(), or -1 for symm_select.
/// Throws DimensionError on bad arguments, DeviceError on a launch failure.
template <class T>
void symm_canonical_gpu(index_t m, index_t k, const T* A, index_t lda, const T* V, index_t ldv,
                        T* X, index_t ldx, void* stream, int config = -1);

}  // namespace eigsolve
