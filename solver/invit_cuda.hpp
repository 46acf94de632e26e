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

#include <functional>

#include "core/precision.hpp"
#include "solver/inverse_iteration_kernels.hpp"

namespace eigsolve {

/// z(:, j) = invit::phase_a(n, d, e, x[j], P, k0 + j) for j in [0, m), computed on the current
/// CUDA device (host arrays in and out; d, e and x already scaled as Phase 0 does).
template <class R>
void invit_phase_a_cuda(index_t n, const R* d, const R* e, index_t m, const R* x,
                        const invit::Params<R>& P, index_t k0, R* z, index_t ldz);

/// What a caller of the device inverse iteration may add (solver/cuda/vectors_device.cu: the
/// back-transformation of the finished columns while phase B still runs on the others).
struct InvitDeviceHooks {
  /// cudaStream_t for every launch and copy of phases A and B (nullptr: the legacy default
  /// stream). A non-blocking stream of high priority keeps phase B's dependent chain ahead of
  /// the caller's work on other streams.
  void* stream = nullptr;
  /// Called on the host thread of the call with F (non-decreasing, 0 < F <= m): columns [0, F)
  /// of Z are final on the device (every kernel that wrote them has completed) and no later
  /// phase A or B work reads or writes them, so the caller may overwrite them. Called only at
  /// phase B's stop checks of its first round and before any fallback; columns not reported are
  /// final when invit_cuda returns.
  std::function<void(index_t)> ready;
};

/// Phases A and B on the device with Z resident there (phase B: solver/cuda/invit_phase_b.cuh,
/// in waves of one block of 32 per cluster, no host round trip per block;
/// EIGSOLVE_GPU_INVIT_YGLOBAL=1 keeps y_j in global memory instead of shared, for tests; a vector
/// that needs the ?stein-style fallback is recomputed on the host by the same invit::fallback and
/// put back). lo, cb (nclusters + 1 boundaries) as the host's Phase 0 computes them. Returns false,
/// doing nothing, when Z does not fit in the free device memory (the caller then runs phase A with
/// invit_phase_a_cuda and phase B on the host); *fallbacks receives the number of fallbacks.
/// dz_out (device, n x m, ld n): Z is computed there and stays on the device (z, ldz unused);
/// nullptr: Z is allocated here and downloaded into the host's z. hooks (with dz_out only): see
/// InvitDeviceHooks.
template <class R>
bool invit_cuda(index_t n, const R* d, const R* e, index_t m, const R* x, const index_t* lo,
                const index_t* cb, index_t nclusters, const invit::Params<R>& P, index_t k0, R* z,
                index_t ldz, index_t* fallbacks, R* dz_out = nullptr,
                const InvitDeviceHooks* hooks = nullptr);

}  // namespace eigsolve
