// Blocked Householder tridiagonalization A = Q T Q^H (LAPACK ?sytrd/?hetrd, uplo = 'L').
#pragma once

#include <functional>

#include "core/context.hpp"
#include "core/precision.hpp"

namespace eigsolve {

struct TridiagOptions {
  int nb = 32;  ///< panel width (latrd); results are bitwise independent of it? see docs
  /// Whether A must hold the reflectors on exit (false: only d and e are wanted, e.g. no
  /// eigenvectors; with device panels the reflectors then stay on the device and A holds
  /// only the unblocked tail's part).
  bool reflectors = true;
  /// Called now and then with (columns done, n); may be empty.
  std::function<void(index_t, index_t)> progress;
};

/// Where the trailing matrix lives when it is not in A (the CUDA backend, householder/cuda/):
/// the driver keeps each panel on the host, runs every other step of the canonical order there,
/// and hands the SYMV of the panel-start trailing matrix and the rank-2k update to the device.
/// The device steps are bitwise the CPU ones, so the result is too.
template <class T>
class TridiagDevice {
 public:
  virtual ~TridiagDevice() = default;
  /// Host A(j0:n, j0:j0+nb) := the device's current columns (the panel at its start).
  virtual void fetch_panel(index_t j0, index_t nb, T* A, index_t lda) = 0;
  /// w[0..m) := A(g0:n, g0:n) v, the canonical SYMV of the device's panel-start matrix (m = n-g0).
  virtual void symv(index_t g0, index_t m, const T* v, T* w) = 0;
  /// Device A(s:n, s:n) -= V W^H + W V^H (lower triangle, canonical chains; complex diagonal
  /// made real); V, W: host m x kb (leading dimensions ldv, ldw).
  virtual void update(index_t s, index_t m, index_t kb, const T* V, index_t ldv, const T* W,
                      index_t ldw) = 0;
  /// Host A(j0:n, j0:n) (lower triangle) := the device's, before the unblocked tail.
  virtual void fetch_tail(index_t j0, T* A, index_t lda) = 0;

  /// Whether the device runs whole panels itself (device_panel below) instead of the host's
  /// panel with fetch_panel/symv/update.
  virtual bool device_panels() const { return false; }
  /// The panel at j0 and its trailing update, entirely on the device, in the canonical order.
  virtual void device_panel(index_t /*j0*/, index_t /*nb*/) {}
  /// After the last device panel: host A(j0:n, j0:n) (lower) and d, e, tau [0, j0) := the
  /// device's; with `reflectors` also A(:, 0:j0) (lower: the panels' reflectors).
  virtual void fetch_panels(index_t /*j0*/, T* /*A*/, index_t /*lda*/, real_t<T>* /*d*/,
                            real_t<T>* /*e*/, T* /*tau*/, bool /*reflectors*/) {}
};

/// Reduces the Hermitian matrix held in the lower triangle of A (order n, lda >= n) to real
/// symmetric tridiagonal form T = Q^H A Q. On exit d[0..n) is the diagonal of T, e[0..n-1) its
/// subdiagonal, and the strict lower triangle of A with tau[0..n-1) holds the reflectors
/// exactly as LAPACK ?sytrd/?hetrd('L') stores them (so ?ormtr/?unmtr can apply Q).
/// Canonical order: docs/canonical-tridiagonalization.md.
/// With `dev`, the trailing matrix is the device's (A need only hold the lower triangle's
/// panels as they are fetched; on exit A holds the reflectors as without `dev`).
template <class T>
void tridiagonalize(const Context& ctx, index_t n, T* A, index_t lda, real_t<T>* d, real_t<T>* e,
                    T* tau, const TridiagOptions& opt = {}, TridiagDevice<T>* dev = nullptr);

}  // namespace eigsolve
