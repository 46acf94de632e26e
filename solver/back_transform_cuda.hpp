// The canonical back-transformation Z := Q Z on a CUDA device (backend-neutral header: no CUDA
// includes). Bitwise the CPU's apply_q_canonical (solver/back_transform.hpp,
// docs/canonical-backtransform.md) for s, d, c, z and dd.
//
//   once:      T_b for every block b (G = V^H V by the step-1 kernels, then the recurrence)
//   per column panel of Z (width chosen from n, m; a panel's columns are independent):
//     for b = B-1 .. 0:
//       step 1   tile partials  P(t, j, c) = tree of 8 chunk chains of conj(V) . Z, 64-row tiles
//       sum      w_cj = P(0) + P(1) + ... (ascending tiles);  ny_cj = -(chain_q T_cq w_qj)
//       step 3   z_rj = madd(v_rc, ny_cj, z_rj) for c = 0 .. k-1
//
// In a CPU-only build every entry point throws NotCompiled("cuda").
#pragma once

#include <cstddef>

#include "core/precision.hpp"

namespace eigsolve {

/// Bytes of device workspace apply_q_canonical_device needs for Z of n x m (0 when there is
/// nothing to do: n <= 1 or m <= 0).
template <class T>
std::size_t apply_q_device_workspace_bytes(index_t n, index_t m);
/// More workspace (>= apply_q_device_workspace_bytes: plus every block's packed reflectors,
/// ~n^2/2 elements) with which the reflectors are packed once, by apply_q_device_prepare,
/// instead of again for every columns call. A call uses that form when its work_bytes are at
/// least this; the same bits either way. With EIGSOLVE_GPU_BT_PACK_ONCE=0 the reflectors are
/// packed every time and this is apply_q_device_workspace_bytes (nothing allocated for them).
template <class T>
std::size_t apply_q_device_workspace_bytes_pack_once(index_t n, index_t m);

/// Z := Q Z in the canonical blocked order, on the device, asynchronously on the cudaStream_t
/// `stream` (nullptr: the legacy default stream). dA (ldda >= n), dtau (n-1) and dZ (lddz >= n)
/// are device pointers, A holding the reflectors of ?sytrd/?hetrd('L') storage in its strict
/// lower triangle (only that part is read). `work` is caller-owned device memory of at least
/// apply_q_device_workspace_bytes<T>(n, m) bytes (16-byte aligned, e.g. from cudaMalloc); its
/// contents on entry do not matter. Nothing is allocated; the bits of Z are those of the CPU's
/// apply_q_canonical. Throws DimensionError on bad sizes or a short workspace, DeviceError
/// when a launch fails.
template <class T>
void apply_q_canonical_device(index_t n, const T* dA, index_t ldda, const T* dtau, index_t m, T* dZ,
                              index_t lddz, void* work, std::size_t work_bytes, void* stream);

/// apply_q_canonical_device in two parts, for a caller that transforms Z's columns as they
/// become ready (solver/cuda/vectors_device.cu, during the inverse iteration): prepare computes
/// the T factors into `work` (sized for n x m, as above) once; each columns call then applies Q
/// to nc <= m columns at dZ with them. A column's bits do not depend on the call that transforms
/// it: apply_q_canonical_device is prepare, then columns(m). Calls on one stream, in order; the
/// workspace is shared, so calls must not run concurrently.
template <class T>
void apply_q_device_prepare(index_t n, const T* dA, index_t ldda, const T* dtau, index_t m,
                            void* work, std::size_t work_bytes, void* stream);
template <class T>
void apply_q_device_columns(index_t n, const T* dA, index_t ldda, index_t m, index_t nc, T* dZ,
                            index_t lddz, void* work, std::size_t work_bytes, void* stream);

/// Host-pointer convenience form of apply_q_canonical_device: uploads A (n x n, lda >= n), tau
/// and Z (n x m, ldz >= n) to the current device, runs it and downloads Z. Throws DeviceError
/// when no device is visible, when the device memory needed (named with the bytes available)
/// does not fit, or on any CUDA failure. n <= 1 or m <= 0: nothing to do (no device needed).
template <class T>
void apply_q_canonical_cuda(index_t n, const T* A, index_t lda, const T* tau, index_t m, T* Z,
                            index_t ldz);

/// --back-transform cusolver: Z := Q Z by cuSOLVER's ?ormtr / ?unmtr('L', 'L', 'N') on the
/// current device, from host A (lda >= n; the reflectors in its strict lower triangle), tau and
/// Z (n x m, ldz >= n), uploaded and downloaded here. Not canonical: cuSOLVER chooses the order
/// of the operations (the bits may differ between GPUs and library versions), as LAPACK's
/// ?ormtr does on the CPU. s, d, c, z (T = float, double, Complex<float>, Complex<double>).
/// Throws DeviceError when no device is visible, the device memory (named in bytes) does not
/// fit or cuSOLVER fails, DimensionError for orders past 32 bits.
template <class T>
void ormtr_cusolver(index_t n, index_t m, const T* A, index_t lda, const T* tau, T* Z, index_t ldz);

}  // namespace eigsolve
