// Both stages of the two-stage reduction (docs/canonical-two-stage.md): reduce_to_band, the
// band copied into band storage, band_to_tridiagonal; with `refl` both stages' reflectors kept for
// the eigenvectors (stage 1's below the band of A, tau1, V2 and tau2).
#include "householder/two_stage.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "core/parallel.hpp"

namespace eigsolve {

template <class T>
void tridiagonalize_two_stage(const Context& ctx, index_t n, index_t b, T* A, index_t lda,
                              real_t<T>* d, real_t<T>* e, TwoStageReflectors<T>* refl) {
  if (n < 0) throw DimensionError("tridiagonalize_two_stage: n = " + std::to_string(n) + " < 0");
  if (b < 1) throw UsageError("two-stage reduction: band width " + std::to_string(b) + " < 1");
  if (lda < (n > 1 ? n : 1)) throw DimensionError("tridiagonalize_two_stage: lda < n");
  if (refl != nullptr) {
    refl->b = b;
    refl->ldv2 = std::max<index_t>(n, 1);
    refl->ldt2 = std::max<index_t>(chase_levels(n, b), 1);
    refl->tau1.assign(static_cast<std::size_t>(n), T(0));
    // n x n: 2 GB for z at n = 16384, so its pages are first touched by every thread.
    assign_zeros_parallel(refl->V2, static_cast<std::size_t>(refl->ldv2) * std::size_t(n),
                          ctx.num_threads());
    refl->tau2.assign(static_cast<std::size_t>(refl->ldt2) * static_cast<std::size_t>(n), T(0));
  }
  if (n == 0) return;
  std::vector<T> own_tau1;
  if (refl == nullptr) own_tau1.assign(static_cast<std::size_t>(n), T(0));
  T* tau1 = refl != nullptr ? refl->tau1.data() : own_tau1.data();
  reduce_to_band(ctx, n, b, A, lda, tau1);
  // Band storage for the chase: B(r, c) at AB[(r - c) + c * ldab], 0 <= r - c <= b; the rows
  // below are the bulge's room (band_to_tridiagonal zeroes them).
  const index_t ldab = 2 * b + 1;
  std::vector<T> AB(static_cast<std::size_t>(ldab) * static_cast<std::size_t>(n), T(0));
  for (index_t c = 0; c < n; ++c)
    for (index_t r = c; r <= c + b && r < n; ++r)
      AB[static_cast<std::size_t>((r - c) + c * ldab)] = A[r + c * lda];
  if (refl != nullptr)
    band_to_tridiagonal(ctx, n, b, AB.data(), ldab, d, e, refl->V2.data(), refl->ldv2,
                        refl->tau2.data(), refl->ldt2);
  else
    band_to_tridiagonal(ctx, n, b, AB.data(), ldab, d, e);
}

#define EIGSOLVE_INSTANTIATE_TWO_STAGE(T)                                                  \
  template void tridiagonalize_two_stage<T>(const Context&, index_t, index_t, T*, index_t, \
                                            real_t<T>*, real_t<T>*, TwoStageReflectors<T>*);
EIGSOLVE_FOR_EACH_SCALAR(EIGSOLVE_INSTANTIATE_TWO_STAGE)
#undef EIGSOLVE_INSTANTIATE_TWO_STAGE

}  // namespace eigsolve
