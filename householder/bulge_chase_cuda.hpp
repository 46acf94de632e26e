// Stage 2 of the two-stage reduction on a CUDA device (backend-neutral header: no CUDA
// includes): the canonical bulge chase of docs/canonical-two-stage.md ("Stage 2"), bitwise the
// CPU's band_to_tridiagonal (householder/two_stage.hpp) for every precision.
//
//   one persistent kernel, one warp per sweep (householder/cuda/bulge_chase_device.cu):
//     warp: i = atomicAdd(next, 1)          sweeps are taken in order
//           level 0 (task A), then levels k = 1, 2, ... (tasks B, C), each after sweep i-1
//           has published levels 0 .. k+1 (release/acquire on per-sweep progress counters),
//           on blocks copied from the band (which stays in L2) into the warp's shared memory
//   then d, e from the band's diagonal and subdiagonal
//
// In a CPU-only build it throws NotCompiled("cuda").
#pragma once

#include "core/precision.hpp"
#include "householder/two_stage.hpp"

namespace eigsolve {

/// Reduces the Hermitian band matrix of half-width b >= 1 held in dAB (device memory, band
/// storage of band_to_tridiagonal: B(r, c) at dAB[(r - c) + c * ldab], 0 <= r - c <= b,
/// ldab >= 2b; rows b+1 .. ldab-1 are zeroed and used for the bulge; dAB is destroyed) to real
/// tridiagonal form on the current CUDA device: d_dev[0 .. n) the diagonal, e_dev[0 .. n-1) the
/// subdiagonal (device memory), bitwise those of band_to_tridiagonal. Asynchronous on `stream`
/// (a cudaStream_t; nullptr = the default stream); counters are allocated and reset on the
/// stream by every call. b up to 256 where the warp's blocks fit in shared memory (b <= 64 for
/// every precision on an H200). Throws UsageError / DimensionError on bad arguments,
/// DeviceError on CUDA errors.
/// dV2/dtau2 (device memory, optional, both or neither): the chase's reflectors kept for the
/// eigenvectors in band_to_tridiagonal's layout (householder/two_stage.hpp: level k of sweep i
/// in column i of dV2 from row i+1+kb, ldv2 >= n, only rows > i of column i written; its tau
/// at dtau2[k + i * ldt2], ldt2 >= chase_levels(n, b)), bitwise the CPU's.
template <class T>
void band_to_tridiagonal_cuda(index_t n, index_t b, T* dAB, index_t ldab, real_t<T>* d_dev,
                              real_t<T>* e_dev, void* stream = nullptr, T* dV2 = nullptr,
                              index_t ldv2 = 0, T* dtau2 = nullptr, index_t ldt2 = 0);

}  // namespace eigsolve
