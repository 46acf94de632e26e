// CPU-only builds: the GPU measurements exist and say that the backend is not compiled.
#include "bench/gpu/gpu_bench.hpp"
#include "core/errors.hpp"

namespace eigsolve {

void set_symv_bench_device_timing(bool) {}
std::string symv_tune_method() {
  throw NotCompiled("cuda");
}

std::string gpu_description() {
  throw NotCompiled("cuda");
}
std::vector<SymvImplResult> bench_symv_size(Precision, index_t, int, bool,
                                            const std::vector<std::pair<std::string, SymvConfig>>&,
                                            bool, index_t) {
  throw NotCompiled("cuda");
}
double sweep_symv(Precision, index_t, const std::string&, int, int, index_t) {
  throw NotCompiled("cuda");
}
std::vector<double> tune_symv_size(Precision, index_t, const std::vector<SymvConfig>&, int) {
  throw NotCompiled("cuda");
}

std::vector<EigImplResult> bench_eig_size(Precision, index_t, int, bool, bool, bool,
                                          const std::string&, Reduction, int) {
  throw NotCompiled("cuda");
}

}  // namespace eigsolve
