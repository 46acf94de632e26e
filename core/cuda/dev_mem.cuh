// A device allocation freed on every path (the library's host-side drivers of device kernels).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "core/errors.hpp"

namespace eigsolve {

struct DevMem {
  void* p = nullptr;
  DevMem() = default;
  DevMem(const DevMem&) = delete;
  DevMem& operator=(const DevMem&) = delete;
  ~DevMem() { cudaFree(p); }
  /// cudaMalloc of `bytes` (at least 1); DeviceError naming `what` on failure.
  void alloc(std::size_t bytes, const char* what) {
    const cudaError_t st = cudaMalloc(&p, bytes ? bytes : 1);
    if (st != cudaSuccess) throw DeviceError(std::string(what) + ": " + cudaGetErrorString(st));
  }
  /// Frees now (before the end of the scope).
  void reset() {
    cudaFree(p);
    p = nullptr;
  }
};

}  // namespace eigsolve
