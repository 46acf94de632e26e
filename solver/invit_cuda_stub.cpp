// CPU-only builds: the device Phase A of the inverse iteration says that the backend is not
// compiled.
#include "core/errors.hpp"
#include "solver/invit_cuda.hpp"

namespace eigsolve {

template <class R>
void invit_phase_a_cuda(index_t, const R*, const R*, index_t, const R*, const invit::Params<R>&,
                        index_t, R*, index_t) {
  throw NotCompiled("cuda");
}

template <class R>
bool invit_cuda(index_t, const R*, const R*, index_t, const R*, const index_t*, const index_t*,
                index_t, const invit::Params<R>&, index_t, R*, index_t, index_t*, R*,
                const InvitDeviceHooks*) {
  throw NotCompiled("cuda");
}

#define EIGSOLVE_INSTANTIATE_INVIT_STUB(R)                                                    \
  template void invit_phase_a_cuda<R>(index_t, const R*, const R*, index_t, const R*,         \
                                      const invit::Params<R>&, index_t, R*, index_t);         \
  template bool invit_cuda<R>(index_t, const R*, const R*, index_t, const R*, const index_t*, \
                              const index_t*, index_t, const invit::Params<R>&, index_t, R*,  \
                              index_t, index_t*, R*, const InvitDeviceHooks*);
EIGSOLVE_FOR_EACH_REAL(EIGSOLVE_INSTANTIATE_INVIT_STUB)
#undef EIGSOLVE_INSTANTIATE_INVIT_STUB

}  // namespace eigsolve
