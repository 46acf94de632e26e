// The two-stage reduction on the device (docs/canonical-two-stage.md): the matrix resident on
// the GPU, stage 1 (panel QR, T, the canonical SYMM, the small products, the canonical rank-2k)
// and stage 2 (the bulge chase) there, d and e back to the host. Bitwise the CPU's
// tridiagonalize_two_stage. Backend-neutral header (no CUDA includes).
#pragma once

#include <cstdint>
#include <memory>

#include "core/precision.hpp"

namespace eigsolve {

/// Device bytes the two-stage reduction of order n with half-width b needs.
template <class T>
std::uint64_t two_stage_device_bytes(index_t n, index_t b);

struct TwoStageDeviceTimes {
  double upload = 0;  ///< the matrix to the device (host input) or its device copy
  double stage1 = 0;  ///< full -> band (CUDA events)
  double stage2 = 0;  ///< band -> tridiagonal (CUDA events)
};

template <class T>
class TwoStageCuda {
 public:
  virtual ~TwoStageCuda() = default;
  /// max over the lower triangle of to_double(abs1(a)), NaN ignored (the host's scale rule).
  virtual double lower_absmax() = 0;
  /// a := scale2(a, k) over the lower triangle (exact; the host's scale_lower).
  virtual void scale_lower(int k) = 0;
  /// Both stages; d[0 .. n) and e[0 .. n-1) (host) as tridiagonalize_two_stage gives them.
  virtual void run(index_t b, real_t<T>* d, real_t<T>* e) = 0;
  /// Stage 1 only, then A (host, lda) := the device's matrix: what reduce_to_band leaves in A
  /// (the band and the reflectors below it; tests).
  virtual void stage1(index_t b, T* A, index_t lda) = 0;
};

/// Copies the lower triangle of A (order n, lda; host memory, or device memory when
/// `device_input`) to the current CUDA device. Throws DeviceError when there is no device or
/// the bytes needed (named, with those available) do not fit; NotCompiled in CPU-only builds.
template <class T>
std::unique_ptr<TwoStageCuda<T>> make_two_stage_cuda(index_t n, index_t b, const T* A, index_t lda,
                                                     bool device_input,
                                                     TwoStageDeviceTimes* times = nullptr);

}  // namespace eigsolve
