// Device queries and workspace set-up shared by every SYMV instantiation.
#include <cuda_runtime.h>

#include <string>

#include "core/errors.hpp"
#include "symv/cuda/symv_launch.cuh"

namespace eigsolve {
namespace symv_cuda {

namespace {
constexpr int kMaxDevices = 64;

/// Attribute attr of the current device, cached per device in cache; what names it in the error.
int cached_attribute(cudaDeviceAttr attr, int (&cache)[kMaxDevices], const char* what) {
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= kMaxDevices)
    throw DeviceError("symv_gpu: no current CUDA device");
  if (cache[dev] == 0) {
    int v = 0;
    if (cudaDeviceGetAttribute(&v, attr, dev) != cudaSuccess || v <= 0)
      throw DeviceError(std::string("symv_gpu: cannot read the ") + what);
    cache[dev] = v;
  }
  return cache[dev];
}
}  // namespace

int sm_count() {
  static int cached[kMaxDevices] = {};
  return cached_attribute(cudaDevAttrMultiProcessorCount, cached, "multiprocessor count");
}

int cc_major() {
  static int cached[kMaxDevices] = {};
  return cached_attribute(cudaDevAttrComputeCapabilityMajor, cached, "compute capability");
}

}  // namespace symv_cuda

void symv_workspace_init(void* workspace, std::size_t bytes, void* stream) {
  const cudaError_t st = cudaMemsetAsync(workspace, 0, bytes, static_cast<cudaStream_t>(stream));
  if (st != cudaSuccess)
    throw DeviceError(std::string("symv_workspace_init: ") + cudaGetErrorString(st));
}

}  // namespace eigsolve
