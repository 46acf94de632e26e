// Asynchronous global -> shared copies (cp.async, sm_80+), shared by the panel QR
// (householder/cuda/panel_qr_rf.cuh) and stage 2's back-transformation
// (householder/cuda/two_stage_vectors_device.cu). The caller makes sure the source is final
// before the copy is issued (after its acquire), as for any weak load.
#pragma once

namespace eigsolve {

/// One element of B bytes global -> shared, asynchronously: 4 and 8 bytes through L1 (.ca), 16
/// bytes L2 only (.cg).
template <int B>
__device__ __forceinline__ void cp_async_elem(void* smem, const void* gmem) {
  const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  if constexpr (B == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(d), "l"(gmem) : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(d), "l"(gmem), "n"(B)
                 : "memory");
}

/// This thread's async copies done.
__device__ __forceinline__ void cp_async_wait_all() {
  asm volatile("cp.async.wait_all;\n" ::: "memory");
}

}  // namespace eigsolve
