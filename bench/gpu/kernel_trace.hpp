// EIGSOLVE_GPU_TRACE=1: where the GPU time of a solve goes, kernels unserialised (`bench eig`).
#pragma once

#include <cstdio>

namespace eigsolve {
namespace gpu_bench {

/// EIGSOLVE_GPU_TRACE is set to 1.
bool trace_requested();

/// Starts recording every kernel's start and end (CUPTI activity records, concurrent kernels:
/// nothing is serialised). CUPTI is loaded at run time (libcupti.so.13, else libcupti.so), so the
/// binaries do not depend on it; where it cannot be loaded this throws DeviceError.
void trace_begin();

/// Waits for the device, stops recording and prints to `out` a summary under `title`: the span
/// from the first kernel's start to the last one's end, the time some kernel ran (the union of
/// the intervals) and the idle rest, then per kernel (demangled name, cut at 100 characters):
/// launches, total and mean time, share of the span, and the idle time that ended with its
/// launches (the gaps the GPU waited before it: launch latency, dependencies, host waits); the
/// 30 largest totals.
void trace_end_and_report(std::FILE* out, const char* title);

}  // namespace gpu_bench
}  // namespace eigsolve
