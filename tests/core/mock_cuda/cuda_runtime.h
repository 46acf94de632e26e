// A host-only stand-in for the few CUDA runtime calls core/cuda/staged_copy.cuh makes, so that
// its chunking logic (tests/core/test_staged_logic.cpp) runs on every machine, CI included:
// "device" memory is host memory, copies are synchronous memcpy, streams and events do nothing.
// Pinned allocations are counted and filled with a pattern; a copy through a null buffer aborts.
#pragma once

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>

using cudaError_t = int;
using cudaEvent_t = void*;
using cudaStream_t = void*;
enum : int {
  cudaSuccess = 0,
  cudaHostAllocDefault = 0,
  cudaEventDisableTiming = 0,
  cudaStreamNonBlocking = 0
};
enum cudaMemcpyKind { cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost };

namespace mock_cuda {
inline int host_allocs = 0;  ///< cudaHostAlloc calls so far
}  // namespace mock_cuda

inline const char* cudaGetErrorString(cudaError_t) {
  return "mock error";
}
inline cudaError_t cudaHostAlloc(void** p, std::size_t bytes, int) {
  *p = std::malloc(bytes);
  if (!*p) return 2;
  std::memset(*p, 0xCD, bytes);
  ++mock_cuda::host_allocs;
  return cudaSuccess;
}
inline cudaError_t cudaFreeHost(void* p) {
  std::free(p);
  return cudaSuccess;
}
inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, int) {
  *e = reinterpret_cast<void*>(1);
  return cudaSuccess;
}
inline cudaError_t cudaEventDestroy(cudaEvent_t) {
  return cudaSuccess;
}
inline cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t) {
  return cudaSuccess;
}
inline cudaError_t cudaEventSynchronize(cudaEvent_t) {
  return cudaSuccess;
}
inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, int) {
  *s = reinterpret_cast<void*>(1);
  return cudaSuccess;
}
inline cudaError_t cudaStreamDestroy(cudaStream_t) {
  return cudaSuccess;
}
inline cudaError_t cudaStreamSynchronize(cudaStream_t) {
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy2D(void* dst, std::size_t dpitch, const void* src, std::size_t spitch,
                                std::size_t width, std::size_t height, cudaMemcpyKind) {
  if (!dst || !src) {
    std::fprintf(stderr, "mock cudaMemcpy2D: null pointer\n");
    std::abort();
  }
  for (std::size_t j = 0; j < height; ++j)
    std::memcpy(static_cast<char*>(dst) + j * dpitch, static_cast<const char*>(src) + j * spitch,
                width);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy2DAsync(void* dst, std::size_t dpitch, const void* src,
                                     std::size_t spitch, std::size_t width, std::size_t height,
                                     cudaMemcpyKind kind, cudaStream_t) {
  return cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
}
