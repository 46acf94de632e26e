// CPU-only builds: the CUDA tridiagonalization says that the backend is not compiled.
#include "core/errors.hpp"
#include "householder/tridiag_cuda.hpp"

namespace eigsolve {

template <class T>
std::uint64_t tridiag_device_bytes(index_t, int) {
  throw NotCompiled("cuda");
}
template <class T>
std::unique_ptr<CudaTridiagDevice<T>> make_cuda_tridiag(index_t, const T*, index_t, int,
                                                        TridiagDeviceTimes*, bool) {
  throw NotCompiled("cuda");
}
template <class T>
std::unique_ptr<CudaTridiagDevice<T>> make_cuda_tridiag_device(index_t, const T*, index_t, int,
                                                               TridiagDeviceTimes*) {
  throw NotCompiled("cuda");
}

#define EIGSOLVE_INSTANTIATE_STUB(T)                                          \
  template std::uint64_t tridiag_device_bytes<T>(index_t, int);               \
  template std::unique_ptr<CudaTridiagDevice<T>> make_cuda_tridiag<T>(        \
      index_t, const T*, index_t, int, TridiagDeviceTimes*, bool);            \
  template std::unique_ptr<CudaTridiagDevice<T>> make_cuda_tridiag_device<T>( \
      index_t, const T*, index_t, int, TridiagDeviceTimes*);
EIGSOLVE_FOR_EACH_SCALAR(EIGSOLVE_INSTANTIATE_STUB)
#undef EIGSOLVE_INSTANTIATE_STUB

}  // namespace eigsolve
