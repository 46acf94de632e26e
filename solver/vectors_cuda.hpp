// The eigenvectors of a `--device cuda` solve with the data resident on the device (backend-
// neutral header: no CUDA includes). The bits are those of the host route (inverse_iteration into
// host memory, then apply_q_canonical_cuda); only where the data lives changes:
//
//   device: reflectors (the tridiagonalization's matrix, the host's tail put back)
//   Z_T := inverse iteration on (d, e, w)             (phases A and B on the device; when its
//                                                       working set does not fit: on the host,
//                                                       then uploaded)
//   Z := T(Z_T) (complex: imaginary parts 0)  -->  Z := Q Z (canonical blocked order)
//   host:   Z  <-- downloaded group by group through pinned chunks as the back-transformation
//                  finishes them (its pages first touched on a host thread while the device
//                  works); `landed` runs on each group once it is in z
//
// In a CPU-only build it throws NotCompiled("cuda").
#pragma once

#include <functional>
#include <vector>

#include "core/context.hpp"
#include "core/precision.hpp"
#include "householder/two_stage_cuda.hpp"

namespace eigsolve {

/// Where the time of eigenvectors_cuda went (seconds, host clock).
struct VectorsDeviceTimes {
  /// back_transform: what is left of it once the inverse iteration has returned (the columns
  /// [0, early_columns) were handed to it while phase B still ran).
  double inverse_iteration = 0, back_transform = 0, download = 0;
  bool invit_on_device = false;
  index_t early_columns = 0;
};

/// z := the eigenvectors (n x m, ld n, host; resized here) of the reduced matrix for the m
/// ascending eigenvalues w of T = (d, e) with indices k0 .. k0+m-1, back-transformed by the
/// reflectors dA (device, ldda; ?sytrd('L') storage) and tau (host, n-1). Not sign-normalized
/// (the caller's normalize_signs, which may run in `landed`). Throws DeviceError when the device
/// memory needed (named with the bytes available) is not there, or on a CUDA failure.
/// landed (optional): called with [c0, c1) once columns c0 .. c1-1 are final in z (z.data() no
/// longer changes then), on one host thread, group after group in ascending order, while later
/// groups are still on the device; what it throws comes out of eigenvectors_cuda.
/// two_stage (optional): the reflectors of the two-stage reduction on the device; then Z :=
/// Q1 Q2 Z (docs/canonical-two-stage.md) instead, and dA, ldda, tau are not used.
template <class T>
void eigenvectors_cuda(const Context& ctx, index_t n, const real_t<T>* d, const real_t<T>* e,
                       index_t m, const real_t<T>* w, index_t k0, const T* dA, index_t ldda,
                       const T* tau, std::vector<T>& z, VectorsDeviceTimes* times = nullptr,
                       const std::function<void(index_t, index_t)>* landed = nullptr,
                       const TwoStageDeviceReflectors<T>* two_stage = nullptr);

/// Z := Q1 Q2 Z for host Z (n x m, ldz >= n) with the two-stage reflectors on the device: Z
/// uploaded, apply_q2_canonical_device, the one-stage back-transformation moved down b-1 rows,
/// Z downloaded. Bitwise the CPU's apply_q_two_stage. Throws DeviceError when the memory needed
/// (named) is not there or on a CUDA failure.
template <class T>
void apply_q_two_stage_cuda(const TwoStageDeviceReflectors<T>& r, index_t m, T* Z, index_t ldz);

}  // namespace eigsolve
