// CPU-only builds: the device Z := Q2 Z says that the backend is not compiled.
#include "core/errors.hpp"
#include "householder/two_stage_cuda.hpp"

namespace eigsolve {

template <class T>
void apply_q2_canonical_device(index_t, index_t, const T*, index_t, const T*, index_t, index_t, T*,
                               index_t, void*, const T*) {
  throw NotCompiled("cuda");
}

template <class T>
std::size_t q2_packed_bytes(index_t, index_t) {
  return 0;
}

template <class T>
void pack_q2_device(index_t, index_t, const T*, index_t, const T*, index_t, T*, void*) {
  throw NotCompiled("cuda");
}

#define EIGSOLVE_INSTANTIATE_STUB(T)                                                          \
  template void apply_q2_canonical_device<T>(index_t, index_t, const T*, index_t, const T*,   \
                                             index_t, index_t, T*, index_t, void*, const T*); \
  template std::size_t q2_packed_bytes<T>(index_t, index_t);                                  \
  template void pack_q2_device<T>(index_t, index_t, const T*, index_t, const T*, index_t, T*, \
                                  void*);
EIGSOLVE_FOR_EACH_SCALAR(EIGSOLVE_INSTANTIATE_STUB)
#undef EIGSOLVE_INSTANTIATE_STUB

}  // namespace eigsolve
