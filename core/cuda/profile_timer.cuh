// EIGSOLVE_GPU_PROFILE=1: device time of a stretch of launches, from events recorded around
// them (one synchronization at stop). Off, or on any CUDA failure, it records nothing and
// stop() returns a negative value; it never throws and leaves no CUDA error behind.
#pragma once

#include <cuda_runtime.h>

#include <cstdlib>

namespace eigsolve {

class ProfileTimer {
 public:
  ProfileTimer() {
    const char* pf = std::getenv("EIGSOLVE_GPU_PROFILE");
    on_ = pf && pf[0] == '1';
    if (on_ && (cudaEventCreate(&a_) != cudaSuccess || cudaEventCreate(&b_) != cudaSuccess)) {
      cudaGetLastError();
      on_ = false;
    }
  }
  ~ProfileTimer() {
    if (a_) cudaEventDestroy(a_);
    if (b_) cudaEventDestroy(b_);
  }
  ProfileTimer(const ProfileTimer&) = delete;
  ProfileTimer& operator=(const ProfileTimer&) = delete;
  void start(cudaStream_t st = 0) {
    if (on_) cudaEventRecord(a_, st);
  }
  /// Seconds since start (waits for the launches on st), or -1 when off or on failure.
  double stop(cudaStream_t st = 0) {
    if (!on_) return -1;
    cudaEventRecord(b_, st);
    float ms = 0.0f;
    const bool ok =
        cudaEventSynchronize(b_) == cudaSuccess && cudaEventElapsedTime(&ms, a_, b_) == cudaSuccess;
    cudaGetLastError();
    return ok ? ms * 1e-3 : -1;
  }

 private:
  bool on_ = false;
  cudaEvent_t a_ = nullptr, b_ = nullptr;
};

}  // namespace eigsolve
