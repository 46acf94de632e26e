// CPU-only builds: the device bulge chase says that the backend is not compiled.
#include "core/errors.hpp"
#include "householder/bulge_chase_cuda.hpp"

namespace eigsolve {

template <class T>
void band_to_tridiagonal_cuda(index_t, index_t, T*, index_t, real_t<T>*, real_t<T>*, void*, T*,
                              index_t, T*, index_t) {
  throw NotCompiled("cuda");
}

#define EIGSOLVE_INSTANTIATE_STUB(T)                                                               \
  template void band_to_tridiagonal_cuda<T>(index_t, index_t, T*, index_t, real_t<T>*, real_t<T>*, \
                                            void*, T*, index_t, T*, index_t);
EIGSOLVE_FOR_EACH_SCALAR(EIGSOLVE_INSTANTIATE_STUB)
#undef EIGSOLVE_INSTANTIATE_STUB

}  // namespace eigsolve
