// The CUDA backend of the tridiagonalization (backend-neutral header: no CUDA includes).
//
//   host (canonical CPU code)                 device (matrix resident)
//   ------------------------                  -------------------------------------------
//   fetch panel columns j0..j0+nb  <-------   A(j0:n, j0:j0+nb)          (once per panel)
//   per column g: column update, reflector
//     v  ---------------------------------->  w = A(g+1:n, g+1:n) v      (symv_gpu, canonical)
//     w  <----------------------------------
//     V/W corrections
//   V, W (m x nb) ------------------------->  A(s:n, s:n) -= V W^H + W V^H (canonical chains)
//   fetch the unblocked tail      <-------   A(j0:n, j0:n)              (once)
//
// Both device steps give the CPU's bits, so d, e, tau and the reflectors equal the CPU backend's.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "core/precision.hpp"
#include "householder/tridiagonalize.hpp"

namespace eigsolve {

/// Device bytes a tridiagonalization of order n with panel width nb needs (matrix, SYMV
/// workspace, V and W).
template <class T>
std::uint64_t tridiag_device_bytes(index_t n, int nb);

/// Where the device time went (seconds, measured with events on the device's stream).
struct TridiagDeviceTimes {
  double upload = 0, symv = 0, update = 0, transfers = 0;
  double panels = 0;  ///< device panels: every kernel of every panel and update (CUDA events)
};

/// The device side with the pipeline's exact pre-scaling done on the device's copy (so the host
/// never scans the matrix).
template <class T>
class CudaTridiagDevice : public TridiagDevice<T> {
 public:
  /// max over the lower triangle of to_double(abs1(a)), NaN ignored (the host's scale rule).
  virtual double lower_absmax() = 0;
  /// a := scale2(a, k) over the lower triangle (exact; the host's scale_lower).
  virtual void scale_lower(int k) = 0;
  /// After tridiagonalize(): the device's matrix completed to hold every reflector (?sytrd('L')
  /// storage in its strict lower triangle) by uploading what only the host has, host A's
  /// unblocked tail (with host panels: all of A). Returns the device pointer; *ldd its leading
  /// dimension. Valid while this object lives.
  virtual const T* device_reflectors(const T* A, index_t lda, index_t* ldd) = 0;
};

/// Uploads the lower triangle of A (host, order n, lda) to the current CUDA device and returns
/// the device side of tridiagonalize(). device_panels: the whole panels run on the device
/// (device_panel: column update, reflector, SYMV, corrections as kernels, no host round trip
/// per column); otherwise the host runs the panel and the device only the SYMV and the update.
/// Both give the CPU's bits. Throws DeviceError when there is no device, or when the bytes
/// needed (named in the message with the bytes available) do not fit.
template <class T>
std::unique_ptr<CudaTridiagDevice<T>> make_cuda_tridiag(index_t n, const T* A, index_t lda, int nb,
                                                        TridiagDeviceTimes* times = nullptr,
                                                        bool device_panels = true);

/// As make_cuda_tridiag with device panels, from the lower triangle of dA (order n, ldda) in
/// the current device's memory; dA is copied (device to device), not modified.
template <class T>
std::unique_ptr<CudaTridiagDevice<T>> make_cuda_tridiag_device(index_t n, const T* dA, index_t ldda,
                                                               int nb,
                                                               TridiagDeviceTimes* times = nullptr);

}  // namespace eigsolve
