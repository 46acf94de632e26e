// The two-stage reduction on the device (docs/canonical-two-stage.md): the matrix resident on
// the GPU, stage 1 (panel QR, T, the canonical SYMM, the small products, the canonical rank-2k)
// and stage 2 (the bulge chase) there, d and e back to the host. Bitwise the CPU's
// tridiagonalize_two_stage. Backend-neutral header (no CUDA includes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/precision.hpp"
#include "householder/two_stage.hpp"

namespace eigsolve {

/// Device bytes the two-stage reduction of order n with half-width b needs.
/// With keep_reflectors (eigenvectors), V2 (n x n) and tau2 are counted too.
template <class T>
std::uint64_t two_stage_device_bytes(index_t n, index_t b, bool keep_reflectors = false);

/// Both stages' reflectors on the device after TwoStageCuda::run with keep_reflectors (owned by
/// the TwoStageCuda object): stage 1's below the band of dA (ldda >= n) with dtau1[0 .. n),
/// stage 2's in dV2 (ldv2 >= n) and dtau2 (ldt2 >= chase_levels(n, b)), the layout of
/// householder/two_stage.hpp's band_to_tridiagonal.
template <class T>
struct TwoStageDeviceReflectors {
  index_t n = 0, b = 0;
  const T* dA = nullptr;
  index_t ldda = 0;
  const T* dtau1 = nullptr;
  const T* dV2 = nullptr;
  index_t ldv2 = 0;
  const T* dtau2 = nullptr;
  index_t ldt2 = 0;
};

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
  /// After run() of an object made with keep_reflectors: where the reflectors are (device
  /// pointers valid while this object lives). Throws UsageError otherwise.
  virtual TwoStageDeviceReflectors<T> reflectors() const = 0;
  /// After run() with keep_reflectors: A (host, lda) := the device's matrix (stage 1's band and
  /// reflectors) and refl := b, tau1, V2, tau2 as tridiagonalize_two_stage gives them (tests).
  virtual void reflectors_to_host(T* A, index_t lda, TwoStageReflectors<T>& refl) = 0;
};

/// Copies the lower triangle of A (order n, lda; host memory, or device memory when
/// `device_input`) to the current CUDA device. Throws DeviceError when there is no device or
/// the bytes needed (named, with those available) do not fit; NotCompiled in CPU-only builds.
template <class T>
std::unique_ptr<TwoStageCuda<T>> make_two_stage_cuda(index_t n, index_t b, const T* A, index_t lda,
                                                     bool device_input,
                                                     TwoStageDeviceTimes* times = nullptr,
                                                     bool keep_reflectors = false);

/// Tests only: stage 1's panel QR (docs/canonical-two-stage.md, step 1) of the m x b panel P
/// (host, lda >= m; m, b >= 1) on the device, launched as the reduction launches it with
/// EIGSOLVE_GPU_QR1 = mode (1: panel_qr_kernel; 2: panel_qr_rf_kernel where it applies, else
/// panel_qr_kernel; the environment is not read). Afterwards P and tau[0 .. min(b, m)) hold what
/// the spec leaves: P(i, i) = beta_i (form_v_kernel's rule), v_i below it, the later columns
/// updated. DeviceError without a device; not in CPU-only builds.
template <class T>
void panel_qr_cuda_for_test(index_t m, index_t b, T* P, index_t lda, T* tau, int mode);

/// Z := Q2 Z on the device (householder/cuda/two_stage_vectors_device.cu), bitwise the CPU's
/// apply_q2_canonical: nc columns of dZ (n rows, lddz >= n), the reflectors dV2/dtau2 as
/// TwoStageDeviceReflectors holds them; asynchronous on the cudaStream_t `stream` (nullptr: the
/// legacy default stream); no allocation, no host synchronisation. Its task ticket and progress
/// flags are a static buffer of the device: two calls must not run at the same time on one
/// device (calls in order on one stream are fine). A column's bits do not depend on nc.
/// dVp: nullptr, or the packed V tiles of these reflectors (pack_q2_device, q2_packed_bytes > 0):
/// the same bits, coalesced loads (used on the fast path, b = 32, with one column per lane).
template <class T>
void apply_q2_canonical_device(index_t n, index_t b, const T* dV2, index_t ldv2, const T* dtau2,
                               index_t ldt2, index_t nc, T* dZ, index_t lddz, void* stream,
                               const T* dVp = nullptr);

/// Bytes of the packed V tiles apply_q2_canonical_device can read for order n and band width b
/// (householder/cuda/two_stage_vectors_warp.hpp, packed_value): about n^2 / 2 elements where
/// the fast path applies (b = 32; double, complex double, dd), else 0 -- also 0 under
/// EIGSOLVE_GPU_Q2_PACK=0 or EIGSOLVE_GPU_Q2_GENERIC=1.
template <class T>
std::size_t q2_packed_bytes(index_t n, index_t b);

/// dVp (q2_packed_bytes(n, b) bytes, device) := the packed V tiles of dV2 / dtau2 (the layout of
/// apply_q2_canonical_device's arguments); asynchronous on `stream`; nothing when the size is 0.
template <class T>
void pack_q2_device(index_t n, index_t b, const T* dV2, index_t ldv2, const T* dtau2, index_t ldt2,
                    T* dVp, void* stream);

}  // namespace eigsolve
