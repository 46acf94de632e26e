// The exchange of the tile partials between the CTAs of a cluster (solver/cuda/invit_cluster.cuh),
// two forms:
//
//   barrier (default):  generic stores into the other CTAs' shared memory (mapa), then
//                       barrier.cluster.arrive (release) + wait (acquire): a round trip over
//                       the whole cluster per dot.
//   tx (EIGSOLVE_GPU_INVIT_CLUSTER_TX=1, opt-in, as fast as bar on the H200): st.async of each
//                       partial into the destination CTA with complete_tx on that CTA's mbarrier
//                       of the buffer; every CTA arms its own mbarrier with the bytes it expects
//                       (ntiles partials) and waits on it (acquire, cluster scope): one way.
//
// Reuse of a buffer in the tx form needs no barrier: a CTA can write dot k + 2's partials only
// after it has every CTA's partials of dot k + 1, and each CTA produces those after its chain of
// dot k (the last read of the buffer); so a destination's mbarrier phase for dot k has completed
// before any complete_tx of dot k + 2 reaches it (an early complete_tx only drives the
// transaction count of the current phase negative until the owner's expect_tx).
#pragma once

#include <cstdint>

namespace eigsolve {
namespace invit_dev {

__device__ __forceinline__ std::uint32_t smem_u32(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

/// The address of the same shared-memory location in CTA `rank` of the cluster.
__device__ __forceinline__ std::uint32_t mapa_u32(std::uint32_t a, std::uint32_t rank) {
  std::uint32_t r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(rank));
  return r;
}

__device__ __forceinline__ void mbar_init(std::uint32_t mb, std::uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(mb), "r"(count) : "memory");
}

/// Makes the mbarrier initializations visible to the cluster (before a cluster barrier).
__device__ __forceinline__ void mbar_init_fence() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

/// One arrival on the local mbarrier, expecting `bytes` more of transactions in this phase.
__device__ __forceinline__ void mbar_arrive_expect(std::uint32_t mb, std::uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(mb), "r"(bytes)
               : "memory");
}

/// Waits until the phase of parity `parity` of the local mbarrier has completed; acquire at
/// cluster scope (the partials stored by st.async from the other CTAs are visible).
__device__ __forceinline__ void mbar_wait(std::uint32_t mb, std::uint32_t parity) {
  std::uint32_t done = 0;
  do {
    asm volatile(
        "{\n\t.reg .pred p;\n\t"
        "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n\t"
        "selp.u32 %0, 1, 0, p;\n\t}"
        : "=r"(done)
        : "r"(mb), "r"(parity)
        : "memory");
  } while (!done);
}

/// *ra = v in another CTA (ra, mb: shared::cluster addresses), complete_tx of sizeof(v) bytes on
/// that CTA's mbarrier mb.
__device__ __forceinline__ void st_async(std::uint32_t ra, double v, std::uint32_t mb) {
  asm volatile(
      "st.async.shared::cluster.mbarrier::complete_tx::bytes.b64 [%0], %1, [%2];" ::"r"(ra),
      "l"(__double_as_longlong(v)), "r"(mb)
      : "memory");
}
__device__ __forceinline__ void st_async(std::uint32_t ra, float v, std::uint32_t mb) {
  asm volatile(
      "st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];" ::"r"(ra),
      "r"(__float_as_uint(v)), "r"(mb)
      : "memory");
}

__device__ __forceinline__ void cluster_barrier() {
  __cluster_barrier_arrive();  // barrier.cluster.arrive (.release)
  __cluster_barrier_wait();    // barrier.cluster.wait (.acquire)
}

}  // namespace invit_dev
}  // namespace eigsolve
