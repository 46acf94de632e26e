// CPU-only builds: the CUDA SYMM entry points exist and say that the backend is not compiled.
#include "core/errors.hpp"
#include "symv/symm_gpu.hpp"

namespace eigsolve {

template <class T>
int symm_config_count() {
  throw NotCompiled("cuda");
}
template <class T>
std::string symm_config_name(int) {
  throw NotCompiled("cuda");
}
template <class T>
int symm_select(index_t, index_t) {
  throw NotCompiled("cuda");
}
template <class T>
void symm_canonical_gpu(index_t, index_t, const T*, index_t, const T*, index_t, T*, index_t, void*,
                        int) {
  throw NotCompiled("cuda");
}

#define EIGSOLVE_INSTANTIATE_SYMM_STUB(T)                                                         \
  template int symm_config_count<T>();                                                            \
  template std::string symm_config_name<T>(int);                                                  \
  template int symm_select<T>(index_t, index_t);                                                  \
  template void symm_canonical_gpu<T>(index_t, index_t, const T*, index_t, const T*, index_t, T*, \
                                      index_t, void*, int);
EIGSOLVE_FOR_EACH_SCALAR(EIGSOLVE_INSTANTIATE_SYMM_STUB)
#undef EIGSOLVE_INSTANTIATE_SYMM_STUB

}  // namespace eigsolve
