// The FP64 tensor-core multiply-add (mma.sync.m8n8k4.f64, "DMMA") as a canonical fma chain.
//
// Session 51 measured (bench/gpu/probes/dmma_order.cu, H100) that every output element of one
// DMMA equals the chain of four IEEE fmas in k order,
//
//     d_ij = fma(a_i3, b_3j, fma(a_i2, b_2j, fma(a_i1, b_1j, fma(a_i0, b_0j, c_ij))))
//
// bit for bit on 51.2 million random elements of four exponent ranges (the exact sum rounded
// once, the reverse chain and a pairwise sum each differ on 14-53 % of them), and on 3.2
// million with special values mixed in (signed zeros, subnormals, infinities, NaN; NaN
// payloads aside). A chain of DMMAs over k = 0, 4, 8, ...
// is then the canonical chain z = madd(a_k, b_k, z) for k ascending, the order the CPU runs:
// tensor cores can replace CUDA-core fma chains without changing a bit. This is a measured
// property of the hardware, not a documented one, so it is checked again on the GPU at hand
// before first use (dmma_chain_verified(): a self-check kernel against explicit fmas, special
// values included); where it fails the CUDA-core kernels run (the same bits either way).
// Used by: the double back-transformation's steps 1 and 3 (EIGSOLVE_GPU_BT_DMMA=1, opt-in).
//
// Fragments (thread lane = 4 g + t, g = lane / 4, t = lane % 4) of D(8x8) = C + A(8x4) B(4x8):
//     a = A[g][t],  b = B[t][g],  c/d = {C[g][2t], C[g][2t+1]}.
#pragma once

#include <cuda_runtime.h>

#include "core/cuda/dmma_verified.hpp"

namespace eigsolve {
namespace dmma {

/// d = c + a b on the warp's fragments (sm_80 and later; the caller checks dmma_chain_verified).
__device__ __forceinline__ void mma(double& d0, double& d1, double a, double b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
               : "+d"(d0), "+d"(d1)
               : "d"(a), "d"(b));
#else
  (void)d0, (void)d1, (void)a, (void)b;
  __trap();
#endif
}

}  // namespace dmma
}  // namespace eigsolve
