// CUDA builds: device discovery for the Context and the CLI.
#include <cuda_runtime.h>

#include <string>

#include "core/context.hpp"
#include "core/errors.hpp"

namespace eigsolve {

bool cuda_compiled() {
  return true;
}

int cuda_device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no device" status
    return 0;
  }
  return n;
}

std::string cuda_device_description(int i) {
  cudaDeviceProp p{};
  cudaError_t st = cudaGetDeviceProperties(&p, i);
  if (st != cudaSuccess)
    throw DeviceError(std::string("cudaGetDeviceProperties: ") + cudaGetErrorString(st));
  return std::string(p.name) + " (sm_" + std::to_string(p.major) + std::to_string(p.minor) + ", " +
         std::to_string(p.multiProcessorCount) + " SMs, " + std::to_string(p.totalGlobalMem >> 20) +
         " MiB)";
}

}  // namespace eigsolve
