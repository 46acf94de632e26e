#include "core/context.hpp"

#include <thread>

namespace eigsolve {

int Context::num_threads() const {
  if (threads > 0) return threads;
  unsigned hw = std::thread::hardware_concurrency();
  return hw > 0 ? static_cast<int>(hw) : 1;
}

const char* backend_name(Backend b) {
  return b == Backend::cuda ? "cuda" : "cpu";
}

}  // namespace eigsolve
