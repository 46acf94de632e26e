// dmma_chain_verified() for host code (core/cuda/dmma.cuh: the FP64 tensor-core multiply-add
// as a canonical fma chain, and its self-check).
#pragma once

namespace eigsolve {
namespace dmma {

/// Whether this process's current GPU computes DMMA (mma.sync.m8n8k4.f64) as the fma chain over
/// its four k in order (checked once per device on the first call, a host synchronisation on a
/// stream of its own; then cached). False below sm_80 and with EIGSOLVE_GPU_DMMA=0; the kernels
/// that could use the tensor cores then run their CUDA-core form (the same bits).
bool dmma_chain_verified();

}  // namespace dmma
}  // namespace eigsolve
