// CPU-only builds: the device residuals say that the backend is not compiled.
#include "app/residuals_cuda.hpp"
#include "core/errors.hpp"

namespace eigsolve {

template <class T>
Residuals compute_residuals_cuda(const HostMatrix<T>&, const SolveResult<T>&, double) {
  throw NotCompiled("cuda");
}

#define EIGSOLVE_INSTANTIATE_RESID_STUB(T) \
  template Residuals compute_residuals_cuda<T>(const HostMatrix<T>&, const SolveResult<T>&, double);
EIGSOLVE_FOR_EACH_SCALAR(EIGSOLVE_INSTANTIATE_RESID_STUB)
#undef EIGSOLVE_INSTANTIATE_RESID_STUB

}  // namespace eigsolve
