// CPU-only builds: the CUDA entry points exist and say that the backend is not compiled.
#include "core/context.hpp"
#include "core/errors.hpp"

namespace eigsolve {

bool cuda_compiled() {
  return false;
}
int cuda_device_count() {
  return 0;
}
std::string cuda_device_description(int) {
  throw NotCompiled("cuda");
}

}  // namespace eigsolve
