// CPU-only builds: the CUDA SYMV entry points exist and say that the backend is not compiled.
#include "core/errors.hpp"
#include "symv/symv_gpu.hpp"

namespace eigsolve {

SymvConfig symv_default_config() {
  return SymvConfig{};
}
SymvConfig symv_select_for(const std::string&, index_t, int, bool) {
  return symv_default_config();
}
template <class T>
SymvConfig symv_select(index_t) {
  throw NotCompiled("cuda");
}
template <class T>
SymvConfig symv_select(index_t, index_t) {
  throw NotCompiled("cuda");
}
template <class T>
std::size_t symv_workspace_bytes(index_t) {
  throw NotCompiled("cuda");
}
void symv_workspace_init(void*, std::size_t, void*) {
  throw NotCompiled("cuda");
}
template <class T>
void symv_gpu(const SymvConfig&, index_t, T, const T*, index_t, const T*, index_t, T, T*, index_t,
              void*, std::size_t, void*, const SymvRunOptions&) {
  throw NotCompiled("cuda");
}

#define EIGSOLVE_INSTANTIATE_STUB(T)                                                             \
  template SymvConfig symv_select<T>(index_t);                                                   \
  template SymvConfig symv_select<T>(index_t, index_t);                                          \
  template std::size_t symv_workspace_bytes<T>(index_t);                                         \
  template void symv_gpu<T>(const SymvConfig&, index_t, T, const T*, index_t, const T*, index_t, \
                            T, T*, index_t, void*, std::size_t, void*, const SymvRunOptions&);
EIGSOLVE_FOR_EACH_SCALAR(EIGSOLVE_INSTANTIATE_STUB)
#undef EIGSOLVE_INSTANTIATE_STUB

}  // namespace eigsolve
