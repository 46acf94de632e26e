// Z := Q1 Q2 Z, the back-transformation through both stages of the two-stage reduction
// (docs/canonical-two-stage.md, "Eigenvectors"): Q2 (householder/two_stage_vectors.cpp), then
// Q1 as the one-stage canonical back-transformation moved down b-1 rows. Declared in
// householder/two_stage.hpp; defined here, in eigsolve_solver, because it calls
// apply_q_canonical (solver/ links householder/, not the other way round).
#include <string>

#include "core/errors.hpp"
#include "householder/two_stage.hpp"
#include "solver/back_transform.hpp"

namespace eigsolve {

template <class T>
void apply_q_two_stage(const Context& ctx, index_t n, const T* A, index_t lda,
                       const TwoStageReflectors<T>& refl, index_t m, T* Z, index_t ldz) {
  if (n < 0 || m < 0)
    throw DimensionError("apply_q_two_stage: n = " + std::to_string(n) +
                         ", m = " + std::to_string(m));
  if (n == 0 || m == 0) return;
  const index_t b = refl.b;
  if (b < 1) throw UsageError("apply_q_two_stage: band width " + std::to_string(b) + " < 1");
  if (lda < n || ldz < n) throw DimensionError("apply_q_two_stage: lda or ldz < n");
  const auto need = [](std::size_t have, index_t want, const char* what) {
    if (have < static_cast<std::size_t>(want))
      throw DimensionError(std::string("apply_q_two_stage: ") + what + " has " +
                           std::to_string(have) + " elements, needs " + std::to_string(want));
  };
  need(refl.tau1.size(), n, "tau1");
  if (n >= 2) {
    need(refl.V2.size(), refl.ldv2 * (n - 1) + n, "V2");
    need(refl.tau2.size(), refl.ldt2 * (n - 2) + chase_levels(n, b), "tau2");
  }
  apply_q2_canonical(ctx, n, b, refl.V2.data(), refl.ldv2, refl.tau2.data(), refl.ldt2, m, Z, ldz);
  // Stage 1: reflector j's unit in row j+b = (j) + 1 + (b-1): the one-stage format b-1 rows down.
  const index_t n1 = n - b + 1;
  if (n1 > 1) apply_q_canonical(ctx, n1, A + (b - 1), lda, refl.tau1.data(), m, Z + (b - 1), ldz);
}

#define EIGSOLVE_INSTANTIATE_Q_TWO_STAGE(T)                                      \
  template void apply_q_two_stage<T>(const Context&, index_t, const T*, index_t, \
                                     const TwoStageReflectors<T>&, index_t, T*, index_t);
EIGSOLVE_FOR_EACH_SCALAR(EIGSOLVE_INSTANTIATE_Q_TWO_STAGE)
#undef EIGSOLVE_INSTANTIATE_Q_TWO_STAGE

}  // namespace eigsolve
