// The C API's backend in a CPU-only build: no handle can be made and every call that passed its
// argument checks is "not compiled" (the front end returns that status before calling these).
#include "capi/capi_backend.hpp"
#include "core/errors.hpp"

namespace eigsolve {
namespace capi {

namespace {
[[noreturn]] void not_compiled() {
  throw CapiFailure{EIGSOLVE_STATUS_NOT_COMPILED, NotCompiled("cuda").what()};
}
}  // namespace

bool cuda_compiled() {
  return false;
}
eigsolve_context* create_handle() {
  not_compiled();
}
void destroy_handle(eigsolve_context*) {}
bool valid_handle(const eigsolve_context*) {
  return false;
}
void set_stream(eigsolve_context*, void*) {
  not_compiled();
}
void* get_stream(const eigsolve_context*) {
  not_compiled();
}
bool device_accessible(eigsolve_context*, const void*) {
  not_compiled();
}
template <class T>
void symv(eigsolve_context*, bool, index_t, T, const T*, index_t, const T*, index_t, T, T*,
          index_t) {
  not_compiled();
}
template <class T>
void scale(eigsolve_context*, index_t, T, T*, index_t) {
  not_compiled();
}

#define EIGSOLVE_CAPI_STUB(T)                                                                      \
  template void symv<T>(eigsolve_context*, bool, index_t, T, const T*, index_t, const T*, index_t, \
                        T, T*, index_t);                                                           \
  template void scale<T>(eigsolve_context*, index_t, T, T*, index_t);
EIGSOLVE_FOR_EACH_SCALAR(EIGSOLVE_CAPI_STUB)
#undef EIGSOLVE_CAPI_STUB

}  // namespace capi
}  // namespace eigsolve
