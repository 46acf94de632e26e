// CPU-only builds: the device-resident eigenvectors say that the backend is not compiled.
#include "core/errors.hpp"
#include "solver/vectors_cuda.hpp"

namespace eigsolve {

template <class T>
void eigenvectors_cuda(const Context&, index_t, const real_t<T>*, const real_t<T>*, index_t,
                       const real_t<T>*, index_t, const T*, index_t, const T*, std::vector<T>&,
                       VectorsDeviceTimes*, const std::function<void(index_t, index_t)>*,
                       const TwoStageDeviceReflectors<T>*) {
  throw NotCompiled("cuda");
}

template <class T>
void apply_q_two_stage_cuda(const TwoStageDeviceReflectors<T>&, index_t, T*, index_t) {
  throw NotCompiled("cuda");
}

#define EIGSOLVE_INSTANTIATE_VECTORS_STUB(T)                                                  \
  template void eigenvectors_cuda<T>(                                                         \
      const Context&, index_t, const real_t<T>*, const real_t<T>*, index_t, const real_t<T>*, \
      index_t, const T*, index_t, const T*, std::vector<T>&, VectorsDeviceTimes*,             \
      const std::function<void(index_t, index_t)>*, const TwoStageDeviceReflectors<T>*);      \
  template void apply_q_two_stage_cuda<T>(const TwoStageDeviceReflectors<T>&, index_t, T*, index_t);
EIGSOLVE_FOR_EACH_SCALAR(EIGSOLVE_INSTANTIATE_VECTORS_STUB)
#undef EIGSOLVE_INSTANTIATE_VECTORS_STUB

}  // namespace eigsolve
