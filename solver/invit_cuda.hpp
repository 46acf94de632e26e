// Phase A of the canonical inverse iteration (docs/canonical-eigenvectors.md) on the device:
// one thread per eigenvalue runs invit::phase_a, the same __host__ __device__ source as the CPU
// (solver/inverse_iteration_kernels.hpp), with its work vectors interleaved across the threads
// (element i of thread q at [i * count + q]: every step of a warp is one coalesced access).
//
//   host: T scaled, shifts x_j, Params  --d, e, x-->  device: y_j = phase_a(x_j, k0 + j)
//                                        <--Y (n x m)--  (in batches that fit the free memory)
//
// In a CPU-only build it throws NotCompiled("cuda").
#pragma once

#include "core/precision.hpp"
#include "solver/inverse_iteration_kernels.hpp"

namespace eigsolve {

/// z(:, j) = invit::phase_a(n, d, e, x[j], P, k0 + j) for j in [0, m), computed on the current
/// CUDA device (host arrays in and out; d, e and x already scaled as Phase 0 does).
template <class R>
void invit_phase_a_cuda(index_t n, const R* d, const R* e, index_t m, const R* x,
                        const invit::Params<R>& P, index_t k0, R* z, index_t ldz);

/// Phases A and B on the device with Z resident there (phase B: solver/cuda/invit_phase_b.cuh,
/// in waves of one block of 32 per cluster, no host round trip per block;
/// EIGSOLVE_GPU_INVIT_YGLOBAL=1 keeps y_j in global memory instead of shared, for tests; a vector
/// that needs the ?stein-style fallback is recomputed on the host by the same invit::fallback and
/// put back). lo, cb (nclusters + 1 boundaries) as the host's Phase 0 computes them. Returns false,
/// doing nothing, when Z does not fit in the free device memory (the caller then runs phase A with
/// invit_phase_a_cuda and phase B on the host); *fallbacks receives the number of fallbacks.
/// dz_out (device, n x m, ld n): Z is computed there and stays on the device (z, ldz unused);
/// nullptr: Z is allocated here and downloaded into the host's z.
template <class R>
bool invit_cuda(index_t n, const R* d, const R* e, index_t m, const R* x, const index_t* lo,
                const index_t* cb, index_t nclusters, const invit::Params<R>& P, index_t k0, R* z,
                index_t ldz, index_t* fallbacks, R* dz_out = nullptr);

}  // namespace eigsolve
