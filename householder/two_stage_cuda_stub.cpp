// CPU-only builds: the device two-stage reduction says that the backend is not compiled.
#include "core/errors.hpp"
#include "householder/two_stage_cuda.hpp"

namespace eigsolve {

template <class T>
std::uint64_t two_stage_device_bytes(index_t, index_t, bool) {
  throw NotCompiled("cuda");
}
template <class T>
std::unique_ptr<TwoStageCuda<T>> make_two_stage_cuda(index_t, index_t, const T*, index_t, bool,
                                                     TwoStageDeviceTimes*, bool) {
  throw NotCompiled("cuda");
}

#define EIGSOLVE_INSTANTIATE_STUB(T)                                        \
  template std::uint64_t two_stage_device_bytes<T>(index_t, index_t, bool); \
  template std::unique_ptr<TwoStageCuda<T>> make_two_stage_cuda<T>(         \
      index_t, index_t, const T*, index_t, bool, TwoStageDeviceTimes*, bool);
EIGSOLVE_FOR_EACH_SCALAR(EIGSOLVE_INSTANTIATE_STUB)
#undef EIGSOLVE_INSTANTIATE_STUB

}  // namespace eigsolve
