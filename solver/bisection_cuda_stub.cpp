// CPU-only builds: the device bisection says that the backend is not compiled.
#include "core/errors.hpp"
#include "solver/bisection_cuda.hpp"

namespace eigsolve {

template <class R>
void bisection_eigenvalues_cuda(index_t, const R*, const R*, index_t, index_t, R*) {
  throw NotCompiled("cuda");
}

#define EIGSOLVE_INSTANTIATE_BISECT_STUB(R) \
  template void bisection_eigenvalues_cuda<R>(index_t, const R*, const R*, index_t, index_t, R*);
EIGSOLVE_FOR_EACH_REAL(EIGSOLVE_INSTANTIATE_BISECT_STUB)
#undef EIGSOLVE_INSTANTIATE_BISECT_STUB

}  // namespace eigsolve
