// The eigenvectors of a `--device cuda` solve with the data resident on the device (backend-
// neutral header: no CUDA includes). The bits are those of the host route (inverse_iteration into
// host memory, then apply_q_canonical_cuda); only where the data lives changes:
//
//   device: reflectors (the tridiagonalization's matrix, the host's tail put back)
//   Z_T := inverse iteration on (d, e, w)             (phases A and B on the device; when its
//                                                       working set does not fit: on the host,
//                                                       then uploaded)
//   Z := T(Z_T) (complex: imaginary parts 0)  -->  Z := Q Z (canonical blocked order)
//   host:   Z  <-- one download through pinned chunks (its pages first touched on a host thread
//                  while the device works)
//
// In a CPU-only build it throws NotCompiled("cuda").
#pragma once

#include <vector>

#include "core/context.hpp"
#include "core/precision.hpp"

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
/// (the caller's normalize_signs). Throws DeviceError when the device memory needed (named with
/// the bytes available) is not there, or on a CUDA failure.
template <class T>
void eigenvectors_cuda(const Context& ctx, index_t n, const real_t<T>* d, const real_t<T>* e,
                       index_t m, const real_t<T>* w, index_t k0, const T* dA, index_t ldda,
                       const T* tau, std::vector<T>& z, VectorsDeviceTimes* times = nullptr);

}  // namespace eigsolve
