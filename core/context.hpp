// The execution context: which backend runs the kernels and with how many CPU threads.
#pragma once

#include <string>

namespace eigsolve {

enum class Backend { cpu, cuda };

struct Context {
  Backend backend = Backend::cpu;
  /// CPU threads for the reference kernels (results never depend on it). 0 = all hardware
  /// threads.
  int threads = 0;
  /// The number of threads to actually use (threads, or the hardware count when 0).
  int num_threads() const;
};

const char* backend_name(Backend b);

/// Whether this build contains the CUDA backend.
bool cuda_compiled();
/// Number of usable CUDA devices (0 when none or when the build has no CUDA).
int cuda_device_count();
/// A one-line description of CUDA device `i` (name, SMs, memory); throws NotCompiled/DeviceError.
std::string cuda_device_description(int i);

}  // namespace eigsolve
