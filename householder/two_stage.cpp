// Both stages of the two-stage reduction (docs/canonical-two-stage.md): reduce_to_band, the
// band copied into band storage, band_to_tridiagonal.
#include "householder/two_stage.hpp"

#include <string>
#include <vector>

#include "core/errors.hpp"

namespace eigsolve {

template <class T>
void tridiagonalize_two_stage(const Context& ctx, index_t n, index_t b, T* A, index_t lda,
                              real_t<T>* d, real_t<T>* e) {
  if (n < 0) throw DimensionError("tridiagonalize_two_stage: n = " + std::to_string(n) + " < 0");
  if (b < 1) throw UsageError("two-stage reduction: band width " + std::to_string(b) + " < 1");
  if (lda < (n > 1 ? n : 1)) throw DimensionError("tridiagonalize_two_stage: lda < n");
  if (n == 0) return;
  std::vector<T> tau1(static_cast<std::size_t>(n), T(0));
  reduce_to_band(ctx, n, b, A, lda, tau1.data());
  // Band storage for the chase: B(r, c) at AB[(r - c) + c * ldab], 0 <= r - c <= b; the rows
  // below are the bulge's room (band_to_tridiagonal zeroes them).
  const index_t ldab = 2 * b + 1;
  std::vector<T> AB(static_cast<std::size_t>(ldab) * static_cast<std::size_t>(n), T(0));
  for (index_t c = 0; c < n; ++c)
    for (index_t r = c; r <= c + b && r < n; ++r)
      AB[static_cast<std::size_t>((r - c) + c * ldab)] = A[r + c * lda];
  band_to_tridiagonal(ctx, n, b, AB.data(), ldab, d, e);
}

#define EIGSOLVE_INSTANTIATE_TWO_STAGE(T)                                                  \
  template void tridiagonalize_two_stage<T>(const Context&, index_t, index_t, T*, index_t, \
                                            real_t<T>*, real_t<T>*);
EIGSOLVE_FOR_EACH_SCALAR(EIGSOLVE_INSTANTIATE_TWO_STAGE)
#undef EIGSOLVE_INSTANTIATE_TWO_STAGE

}  // namespace eigsolve
