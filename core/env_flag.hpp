// On/off switches read from the environment (the GPU code's EIGSOLVE_GPU_* knobs: none of them
// changes a result bit).
#pragma once

#include <cstdlib>

namespace eigsolve {

/// The variable `name` as a switch: unset or empty gives dflt, "0" gives false, any other value
/// true.
inline bool env_flag(const char* name, bool dflt = false) {
  const char* v = std::getenv(name);
  if (!v || !*v) return dflt;
  return !(v[0] == '0' && v[1] == '\0');
}

}  // namespace eigsolve
