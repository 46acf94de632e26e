// CPU-only builds: the device back-transformation says that the backend is not compiled.
#include "core/errors.hpp"
#include "solver/back_transform_cuda.hpp"

namespace eigsolve {

template <class T>
std::size_t apply_q_device_workspace_bytes(index_t, index_t) {
  throw NotCompiled("cuda");
}
template <class T>
void apply_q_canonical_device(index_t, const T*, index_t, const T*, index_t, T*, index_t, void*,
                              std::size_t, void*) {
  throw NotCompiled("cuda");
}
template <class T>
std::size_t apply_q_device_workspace_bytes_pack_once(index_t, index_t) {
  throw NotCompiled("cuda");
}
template <class T>
void apply_q_device_prepare(index_t, const T*, index_t, const T*, index_t, void*, std::size_t,
                            void*) {
  throw NotCompiled("cuda");
}
template <class T>
void apply_q_device_columns(index_t, const T*, index_t, index_t, index_t, T*, index_t, void*,
                            std::size_t, void*) {
  throw NotCompiled("cuda");
}
template <class T>
void apply_q_canonical_cuda(index_t, const T*, index_t, const T*, index_t, T*, index_t) {
  throw NotCompiled("cuda");
}

template <class T>
void ormtr_cusolver(index_t, index_t, const T*, index_t, const T*, T*, index_t) {
  throw NotCompiled("cuda");
}
template void ormtr_cusolver<float>(index_t, index_t, const float*, index_t, const float*, float*,
                                    index_t);
template void ormtr_cusolver<double>(index_t, index_t, const double*, index_t, const double*,
                                     double*, index_t);
template void ormtr_cusolver<Complex<float>>(index_t, index_t, const Complex<float>*, index_t,
                                             const Complex<float>*, Complex<float>*, index_t);
template void ormtr_cusolver<Complex<double>>(index_t, index_t, const Complex<double>*, index_t,
                                              const Complex<double>*, Complex<double>*, index_t);

#define EIGSOLVE_INSTANTIATE_BACK_STUB(T)                                                       \
  template std::size_t apply_q_device_workspace_bytes<T>(index_t, index_t);                     \
  template std::size_t apply_q_device_workspace_bytes_pack_once<T>(index_t, index_t);           \
  template void apply_q_canonical_device<T>(index_t, const T*, index_t, const T*, index_t, T*,  \
                                            index_t, void*, std::size_t, void*);                \
  template void apply_q_device_prepare<T>(index_t, const T*, index_t, const T*, index_t, void*, \
                                          std::size_t, void*);                                  \
  template void apply_q_device_columns<T>(index_t, const T*, index_t, index_t, index_t, T*,     \
                                          index_t, void*, std::size_t, void*);                  \
  template void apply_q_canonical_cuda<T>(index_t, const T*, index_t, const T*, index_t, T*,    \
                                          index_t);
EIGSOLVE_FOR_EACH_SCALAR(EIGSOLVE_INSTANTIATE_BACK_STUB)
#undef EIGSOLVE_INSTANTIATE_BACK_STUB

}  // namespace eigsolve
