// Device queries and workspace set-up shared by every SYMV instantiation.
#include <cuda_runtime.h>

#include <string>

#include "core/errors.hpp"
#include "symv/cuda/symv_launch.cuh"

namespace eigsolve {
namespace symv_cuda {

int sm_count() {
  constexpr int kMaxDevices = 64;
  static int cached[kMaxDevices] = {};
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= kMaxDevices)
    throw DeviceError("symv_gpu: no current CUDA device");
  if (cached[dev] == 0) {
    int sms = 0;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
        sms <= 0)
      throw DeviceError("symv_gpu: cannot read the multiprocessor count");
    cached[dev] = sms;
  }
  return cached[dev];
}

int cc_major() {
  constexpr int kMaxDevices = 64;
  static int cached[kMaxDevices] = {};
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= kMaxDevices)
    throw DeviceError("symv_gpu: no current CUDA device");
  if (cached[dev] == 0) {
    int major = 0;
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
        major <= 0)
      throw DeviceError("symv_gpu: cannot read the compute capability");
    cached[dev] = major;
  }
  return cached[dev];
}

}  // namespace symv_cuda

void symv_workspace_init(void* workspace, std::size_t bytes, void* stream) {
  const cudaError_t st = cudaMemsetAsync(workspace, 0, bytes, static_cast<cudaStream_t>(stream));
  if (st != cudaSuccess)
    throw DeviceError(std::string("symv_workspace_init: ") + cudaGetErrorString(st));
}

}  // namespace eigsolve
