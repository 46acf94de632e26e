// Z := Q2 Z on the device (householder/two_stage_cuda.hpp, apply_q2_canonical_device), bitwise
// the CPU's apply_q2_canonical (docs/canonical-two-stage.md, "Z := Q2 Z"). The per-lane code is
// householder/cuda/two_stage_vectors_warp.hpp (emulated on the host by the tests).
//
//   q2_kernel   persistent warps; each draws tasks (group j of G sweeps, slab of 32 columns)
//               by an atomic ticket in the order j S + slab and runs the group's levels on its
//               slab (fast path: b = 32, G = 32, the window in registers and the warp's shared
//               carry; generic path: any b, the window in shared memory, G as large as fits):
//
//        warp:  t = atomicAdd(ticket); (j, slab) = (t / S, t % S)
//               [slot j mod R free: group j-R finished]
//               level k = 0 .. L(j)-1:  wait flag(j-1) >= (j-1, min(k+1, L(j-1)))
//                                       rows in (ld.global.cg), V tile, G reflectors, rows out
//                                       (st.global.cg); flag(j) := (j, k+1) (release)
//
// A warp only waits for tasks drawn before its own (by warps that are running), so there is no
// deadlock whatever the number of warps or the scheduler. The ticket and the flags are a static
// device buffer (g_q2_sync) zeroed on the stream by every call: no allocation, no host
// synchronisation -- and no two calls may run at the same time on one device (calls on one
// stream, as the back-transformation makes them, are fine).
//
// Knobs (none changes a bit): EIGSOLVE_GPU_Q2_WARPS=w (warps in flight; default: as many as are
// resident at once), EIGSOLVE_GPU_Q2_COLS=2 (fast path: two columns per lane, slabs of 64
// columns, for scalars of at most 8 bytes; default 1: slower in session 17),
// EIGSOLVE_GPU_Q2_GENERIC=1 (the generic path for b = 32 too),
// EIGSOLVE_GPU_Q2_GROUP=G (the generic path's sweeps per group), EIGSOLVE_GPU_Q2_PACK=0 (no
// packed V tiles: q2_packed_bytes is 0, the fast path reads V2 and tau2 as they are),
// EIGSOLVE_GPU_Q2_IL=1 / 0 (fast path, one column per lane: each reflector's update interleaved
// with the next one's dot, q2_warp::fast_compute_il; the default for complex double only),
// EIGSOLVE_GPU_Q2_ASYNC=0 (double: the rows and the V tile through registers, 236 registers and
// 8 warps per SM, instead of by cp.async with no registers holding loads in flight, 168
// registers and 12 warps per SM; the async form is the default since session 29: Q2 -6 % in the
// pipeline, bench/NOTES.md).
//
//   q2_pack_kernel  (d, z, dd; pack_q2_device, once per back-transformation) copies each
//               level's V tile into one contiguous tile (q2_warp::packed_value) so that the
//               fast path's V loads are coalesced
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "core/cuda/cp_async.cuh"
#include "core/cuda/l2_access.cuh"
#include "core/cuda/sync_flags.cuh"
#include "core/env_flag.hpp"
#include "core/errors.hpp"
#include "householder/cuda/two_stage_vectors_warp.hpp"
#include "householder/two_stage_cuda.hpp"

namespace eigsolve {
namespace {

using q2_warp::Args;
using q2_warp::Geo;

void ck(cudaError_t st, const char* what) {
  if (st != cudaSuccess) {
    cudaGetLastError();
    throw DeviceError(std::string("apply_q2_canonical_device: ") + what + ": " +
                      cudaGetErrorString(st));
  }
}

/// Warps per thread block: one (warps share nothing; the finest granularity for occupancy).
constexpr int kWarpsPerBlock = 1;
constexpr index_t kSyncWords = 1 + 65536;  ///< the ticket, then the flags

/// The ticket (word 0) and the progress flags of the running call (one call at a time).
__device__ unsigned long long g_q2_sync[kSyncWords];

// Z rows go through L2 only (ldcg/stcg, core/cuda/l2_access.cuh): another warp, maybe on another
// SM, wrote them under a flag.
// ---- V2 and tau2: read-only for the whole kernel
__device__ __forceinline__ float ldro(const float* p) {
  return __ldg(p);
}
__device__ __forceinline__ double ldro(const double* p) {
  return __ldg(p);
}
template <class R>
__device__ __forceinline__ Complex<R> ldro(const Complex<R>* p) {
  const R* q = reinterpret_cast<const R*>(p);
  return Complex<R>(__ldg(q), __ldg(q + 1));
}
__device__ __forceinline__ dd_real ldro(const dd_real* p) {
  const double* q = reinterpret_cast<const double*>(p);
  return dd_real(__ldg(q), __ldg(q + 1));
}

/// The warp's executor of two_stage_vectors_warp.hpp: phases separated by __syncwarp, Z through
/// L2, flags with release/acquire (lane 0 polls with acquiring loads, or polls and fences, then
/// the warp's barrier). Host-device like bulge_chase_device.cu's DevExec (the per-lane code is
/// __host__ __device__); only the device branch ever runs.
template <class T>
struct Q2Exec {
  int lane;
  unsigned long long* flags;
  bool acq;  ///< wait: lane 0 polls with acquiring loads, no fence (EIGSOLVE_GPU_Q2_ACQ)
  template <class F>
  __host__ __device__ __forceinline__ void each(F f) const {
#if defined(__CUDA_ARCH__)
    f(lane);
    __syncwarp();
#endif
  }
  __host__ __device__ __forceinline__ T ldz(const T* p) const {
#if defined(__CUDA_ARCH__)
    return ldcg(p);
#else
    return *p;
#endif
  }
  __host__ __device__ __forceinline__ void stz(T* p, const T& v) const {
#if defined(__CUDA_ARCH__)
    stcg(p, v);
#else
    *p = v;
#endif
  }
  __host__ __device__ __forceinline__ T ldv(const T* p) const {
#if defined(__CUDA_ARCH__)
    return ldro(p);
#else
    return *p;
#endif
  }
  /// Async copies dst[c] := src[c ld] (c < cols), zero for cols <= c < 32 (their src is not
  /// read: the copy's source size is 0 and its address src itself), to shared memory: 4- and
  /// 8-byte elements through L1 (.ca: the lines a level reads come after its acquire -- the
  /// fence or the acquiring load, either of which invalidates L1 -- so they are L2's current ones),
  /// 16-byte ones through L2 only. One shared base, immediate offsets, the global address stepped
  /// by ld (session 24: the generic form spent ~17 integer instructions per copy).
  __host__ __device__ __forceinline__ void cprow(T* dst, const T* src, index_t ld, int cols) const {
#if defined(__CUDA_ARCH__)
    static_assert(sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16, "cp.async sizes");
    constexpr int B = int(sizeof(T));
    const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
    const unsigned long long s0 = static_cast<unsigned long long>(__cvta_generic_to_global(src));
    const unsigned long long step = static_cast<unsigned long long>(ld) * B;
    unsigned long long s = s0;
#pragma unroll
    for (int c = 0; c < 32; ++c) {
      const bool ok = c < cols;
      const unsigned long long sc = ok ? s : s0;
      if constexpr (B == 16)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(d + unsigned(c * B)),
                     "l"(sc), "r"(ok ? B : 0)
                     : "memory");
      else
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;" ::"r"(d + unsigned(c * B)),
                     "l"(sc), "n"(B), "r"(ok ? B : 0)
                     : "memory");
      s += step;
    }
#else
    for (int c = 0; c < 32; ++c)
      dst[c] = c < cols ? src[c * ld] : T(0);
#endif
  }
  /// Async copy of 16 bytes (both 16-byte aligned) of the read-only packed V tiles, L2 only.
  __host__ __device__ __forceinline__ void cp16(T* dst, const T* src) const {
#if defined(__CUDA_ARCH__)
    cp_async_elem<16>(dst, src);
#else
    (void)dst;
    (void)src;
#endif
  }
  /// This thread's async copies done.
  __host__ __device__ __forceinline__ void cpwait() const {
#if defined(__CUDA_ARCH__)
    cp_async_wait_all();
#endif
  }
  __host__ __device__ __forceinline__ void wait(index_t idx, std::uint64_t target) const {
#if defined(__CUDA_ARCH__)
    if (lane == 0) {
      const unsigned long long* f = flags + idx;
      if (acq) {
        while (ld_acquire(f) < target)
          __nanosleep(64);
      } else {
        while (ld_relaxed(f) < target)
          __nanosleep(64);
        fence_acq_rel();
      }
    }
    __syncwarp();
#else
    (void)idx;
    (void)target;
#endif
  }
  __host__ __device__ __forceinline__ void publish(index_t idx, std::uint64_t v) const {
#if defined(__CUDA_ARCH__)
    __syncwarp();
    if (lane == 0) {
      fence_acq_rel();
      st_relaxed(flags + idx, v);
    }
#else
    (void)idx;
    (void)v;
#endif
  }
};

/// The fast path's rf: every lane its own thread's registers.
template <class T, int C>
struct ThreadY {
  q2_warp::LaneY<T, C>* y;
  __device__ __forceinline__ q2_warp::LaneY<T, C>& operator()(int) const { return *y; }
};

/// The scalars with the async-load kernel (fast path, packed V tiles, one column per lane), and
/// the warps per SM it is compiled for.
template <class T>
constexpr bool kAsyncQ2 = std::is_same<T, double>::value;
constexpr int kAsyncWarps = 12;

/// Fast: b = 32, G = 32, C columns per lane (welems = q2_warp::fast_elems<T>(C)); else the
/// generic path (C = 1). AsyncW > 0: the rows and the packed V tile by async copies
/// (fast_task's Async), compiled for AsyncW warps per SM (__launch_bounds__' minimum blocks of
/// one warp; 9-12 give ptxas a third of an SM partition's registers: 168). (A register cap through
/// __launch_bounds__ -- 168 for double, 12 warps per SM -- was slower than ptxas' 198 registers in
/// session 17: 1.24 against 0.98 s.)
template <class T, bool Fast, int C, bool Packed = false, bool IL = false, int AsyncW = 0>
__global__ void __launch_bounds__(kWarpsPerBlock * 32, AsyncW > 0 ? AsyncW : 1)
    q2_kernel(Geo g, Args<T> a, int welems, unsigned long long* sync, bool acq) {
  extern __shared__ __align__(16) unsigned char smem_q2[];
  const int lane = int(threadIdx.x & 31), wid = int(threadIdx.x >> 5);
  T* sm = reinterpret_cast<T*>(smem_q2) + std::size_t(wid) * std::size_t(welems);
  const Q2Exec<T> X{lane, sync + 1, acq};
  [[maybe_unused]] q2_warp::LaneY<T, C> Y;
  const unsigned long long tasks =
      static_cast<unsigned long long>(g.S) * static_cast<unsigned long long>(g.NG);
  for (;;) {
    unsigned long long t = 0;
    if (lane == 0) t = atomicAdd(sync, 1ull);
    t = __shfl_sync(0xffffffffu, t, 0);
    if (t >= tasks) break;
    const index_t j = index_t(t / static_cast<unsigned long long>(g.S));
    const index_t slab = index_t(t % static_cast<unsigned long long>(g.S));
    if constexpr (Fast)
      q2_warp::fast_task<T, C, Packed, IL, (AsyncW > 0)>(X, ThreadY<T, C>{&Y}, sm, g, a, j, slab);
    else
      q2_warp::generic_task<T>(X, sm, g, a, j, slab);
  }
}

/// The packed V tiles (q2_warp::packed_value): block = tile, (j, k) from the tile's index
/// (t = j (j+1)/2 + k, k <= j).
template <class T>
__global__ void q2_pack_kernel(Geo g, const T* V2, index_t ldv2, const T* tau2, index_t ldt2,
                               T* Vp) {
  const index_t t = index_t(blockIdx.x);
  index_t j = index_t((sqrt(8.0 * double(t) + 1.0) - 1.0) / 2.0);
  while (j * (j + 1) / 2 > t)
    --j;
  while ((j + 1) * (j + 2) / 2 <= t)
    ++j;
  const index_t k = t - j * (j + 1) / 2;
  T* out = Vp + t * q2_warp::kTileElems;
  for (int e = int(threadIdx.x); e < q2_warp::kTileElems; e += int(blockDim.x))
    out[e] = q2_warp::packed_value(g, V2, ldv2, tau2, ldt2, j, k, e);
}

/// The fast path's geometry for order n (b = G = 32).
Geo fast_geo(index_t n) {
  Geo g;
  g.n = n;
  g.b = q2_warp::kNB;
  g.G = q2_warp::kGF;
  g.NG = (n - 1 + g.G - 1) / g.G;
  return g;
}

index_t env_int(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? index_t(std::atoll(v)) : 0;
}

std::size_t round16(std::size_t bytes) {
  return (bytes + 15) / 16 * 16;
}

}  // namespace

template <class T>
std::size_t q2_packed_bytes(index_t n, index_t b) {
  if constexpr (q2_warp::VLoad<T, 1>::kLegacy) {
    return 0;  // float and complex float: their V tile loads are contiguous already
  } else {
    if (b != q2_warp::kNB || n <= 1) return 0;
    if (const char* e = std::getenv("EIGSOLVE_GPU_Q2_PACK"); e && e[0] == '0' && e[1] == '\0')
      return 0;
    if (env_flag("EIGSOLVE_GPU_Q2_GENERIC")) return 0;
    const Geo g = fast_geo(n);
    return std::size_t(q2_warp::packed_tiles(g.NG)) * std::size_t(q2_warp::kTileElems) * sizeof(T);
  }
}

template <class T>
void pack_q2_device(index_t n, index_t b, const T* dV2, index_t ldv2, const T* dtau2, index_t ldt2,
                    T* dVp, void* stream) {
  const std::size_t bytes = q2_packed_bytes<T>(n, b);
  if (bytes == 0) return;
  if (ldv2 < n || ldt2 < chase_levels(n, b) || dV2 == nullptr || dtau2 == nullptr || dVp == nullptr)
    throw UsageError("pack_q2_device: bad arguments");
  const Geo g = fast_geo(n);
  const index_t tiles = q2_warp::packed_tiles(g.NG);
  if (tiles > index_t(0x7fffffff)) throw UsageError("pack_q2_device: too many tiles");
  q2_pack_kernel<T><<<unsigned(tiles), 256, 0, static_cast<cudaStream_t>(stream)>>>(
      g, dV2, ldv2, dtau2, ldt2, dVp);
  ck(cudaGetLastError(), "q2_pack_kernel");
}

template <class T>
void apply_q2_canonical_device(index_t n, index_t b, const T* dV2, index_t ldv2, const T* dtau2,
                               index_t ldt2, index_t nc, T* dZ, index_t lddz, void* stream,
                               const T* dVp) {
  const std::string me = "apply_q2_canonical_device: ";
  if (n < 0) throw DimensionError(me + "n = " + std::to_string(n) + " < 0");
  if (b < 1) throw UsageError(me + "band width " + std::to_string(b) + " < 1");
  if (nc < 0) throw DimensionError(me + "nc = " + std::to_string(nc) + " < 0");
  if (n <= 1 || nc == 0) return;
  if (ldv2 < n) throw DimensionError(me + "ldv2 = " + std::to_string(ldv2) + " < n");
  if (ldt2 < chase_levels(n, b))
    throw DimensionError(me + "ldt2 = " + std::to_string(ldt2) +
                         " < chase_levels = " + std::to_string(chase_levels(n, b)));
  if (lddz < n) throw DimensionError(me + "lddz = " + std::to_string(lddz) + " < n");
  if (dV2 == nullptr || dtau2 == nullptr || dZ == nullptr)
    throw UsageError(me + "null device pointer");
  cudaStream_t st = static_cast<cudaStream_t>(stream);
  int dev = 0, sms = 0, optin = 0;
  ck(cudaGetDevice(&dev), "cudaGetDevice");
  ck(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), "attribute");
  ck(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev), "attribute");

  Geo g;
  g.n = n;
  g.b = b;
  g.nc = nc;
  const bool fast = b == q2_warp::kNB && !env_flag("EIGSOLVE_GPU_Q2_GENERIC");
  // columns per lane on the fast path: 1, or EIGSOLVE_GPU_Q2_COLS=2 where T allows (slower in
  // session 17: fewer warps per SM, each with two chains)
  int cols = 1;
  if (fast && env_int("EIGSOLVE_GPU_Q2_COLS") >= 2) cols = q2_warp::fast_max_cols<T>();
  std::size_t wbytes = 0;
  int welems = 0;
  if (fast) {
    g.G = q2_warp::kGF;
    welems = q2_warp::fast_elems<T>(cols);
    wbytes = round16(std::size_t(welems) * sizeof(T));
    static_assert(q2_warp::fast_elems<T>(1) * sizeof(T) % 16 == 0 &&
                      q2_warp::fast_elems<T>(2) * sizeof(T) % 16 == 0,
                  "warp regions stay 16-byte aligned");
  } else {
    // the largest G <= 32 (or EIGSOLVE_GPU_Q2_GROUP) whose window and V tile fit one warp
    index_t G = env_int("EIGSOLVE_GPU_Q2_GROUP");
    if (G < 1) {
      G = 32;
      while (G > 1 &&
             round16(std::size_t(q2_warp::generic_elems(b, G)) * sizeof(T)) > std::size_t(optin))
        G /= 2;
    }
    g.G = G;
    const std::size_t per = round16(std::size_t(q2_warp::generic_elems(b, G)) * sizeof(T));
    welems = int(per / sizeof(T));
    wbytes = per;
  }
  if (wbytes > std::size_t(optin))
    throw UsageError(me + "band width " + std::to_string(b) + " needs " + std::to_string(wbytes) +
                     " bytes of shared memory per warp, the device has " + std::to_string(optin));
  const int wpb = int(std::min<std::size_t>(kWarpsPerBlock, std::size_t(optin) / wbytes));
  const std::size_t smem = wbytes * std::size_t(wpb);
  void (*kern)(Geo, Args<T>, int, unsigned long long*, bool) = q2_kernel<T, false, 1>;
  // the packed V tiles where the caller has them (q2_packed_bytes > 0: the fast path, one column
  // per lane)
  bool packed = false;
  if (fast) {
    if constexpr (q2_warp::fast_max_cols<T>() >= 2)
      kern = cols == 2 ? q2_kernel<T, true, 2> : q2_kernel<T, true, 1>;
    else
      kern = q2_kernel<T, true, 1>;
    if constexpr (!q2_warp::VLoad<T, 1>::kLegacy) {
      if (dVp != nullptr && cols == 1 && q2_packed_bytes<T>(n, b) > 0) {
        kern = q2_kernel<T, true, 1, true>;
        packed = true;
      }
    }
    // The update interleaved with the next dot (q2_warp::fast_compute_il, one column per lane):
    // the default for complex double (Q2 -3-5 % on the H200, session 22), not for double (+3 %);
    // EIGSOLVE_GPU_Q2_IL=1 / 0 turns it on / off for every precision. Same bits either way.
    const char* il_env = std::getenv("EIGSOLVE_GPU_Q2_IL");
    const bool il = il_env && (il_env[0] == '0' || il_env[0] == '1')
                        ? il_env[0] == '1'
                        : std::is_same<T, Complex<double>>::value;
    if (cols == 1 && il) {
      kern = q2_kernel<T, true, 1, false, true>;
      if constexpr (!q2_warp::VLoad<T, 1>::kLegacy)
        if (packed) kern = q2_kernel<T, true, 1, true, true>;
    }
    // The rows and the packed V tile by async copies (no registers in flight: more warps per
    // SM), double with the packed tiles 16-byte aligned (same bits either way).
    if constexpr (kAsyncQ2<T>) {
      // The async-load kernel (d, packed tiles 16-byte aligned, one column per lane, not
      // interleaved), capped at 168 registers for 12 warps per SM: the default since session 29
      // (H200, bench/NOTES.md: Q2 -6 % in the pipeline at n = 16384; session 24, before the
      // per-task addressing of session 28, -3.7 % alone and nothing end to end).
      // EIGSOLVE_GPU_Q2_ASYNC=0 loads through registers (236 registers, 8 warps). Same bits.
      if (env_flag("EIGSOLVE_GPU_Q2_ASYNC", true) && packed && !il &&
          reinterpret_cast<std::uintptr_t>(dVp) % 16 == 0)
        kern = q2_kernel<T, true, 1, true, false, kAsyncWarps>;
    }
  }
  ck(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)),
     "cudaFuncSetAttribute");
  int per_sm = 0;
  ck(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kern, wpb * 32, smem), "occupancy");
  if (per_sm < 1) throw DeviceError(me + "the kernel cannot run (resources)");

  g.NG = (n - 1 + g.G - 1) / g.G;
  const index_t slab_cols = index_t(q2_warp::kLanes) * cols;
  g.S = (nc + slab_cols - 1) / slab_cols;
  const index_t tasks = g.S * g.NG;
  // Warps in flight: as many as are resident at once (EIGSOLVE_GPU_Q2_WARPS overrides; any
  // number is deadlock-free and gives the same bits).
  index_t warps = index_t(per_sm) * sms * wpb;
  if (const index_t w = env_int("EIGSOLVE_GPU_Q2_WARPS"); w > 0) warps = w;
  warps = std::max<index_t>(1, std::min(warps, tasks));
  const index_t blocks = (warps + wpb - 1) / wpb;
  // flag slots per slab: about the groups of one slab in flight at once, plus one
  const index_t flags_max = kSyncWords - 1;
  if (g.S > flags_max) throw UsageError(me + "too many columns (" + std::to_string(nc) + ")");
  g.R = std::min<index_t>(g.NG, (blocks * wpb + g.S - 1) / g.S + 1);
  g.R = std::max<index_t>(1, std::min(g.R, flags_max / g.S));

  unsigned long long* sync = nullptr;
  ck(cudaGetSymbolAddress(reinterpret_cast<void**>(&sync), g_q2_sync), "cudaGetSymbolAddress");
  ck(cudaMemsetAsync(sync, 0, std::size_t(1 + g.S * g.R) * sizeof(unsigned long long), st),
     "cudaMemsetAsync");
  Args<T> a;
  a.V2 = dV2;
  a.ldv2 = ldv2;
  a.tau2 = dtau2;
  a.ldt2 = ldt2;
  a.Z = dZ;
  a.ldz = lddz;
  a.Vp = packed ? dVp : nullptr;
  // EIGSOLVE_GPU_Q2_ACQ=0: a wait polls with relaxed loads, then fences (fence.acq_rel.gpu), as
  // before session 34; default 1: the poll's loads acquire (ld.acquire.gpu), no fence. The same
  // order of waits and publishes, the same bits.
  const bool acq = env_flag("EIGSOLVE_GPU_Q2_ACQ", true);
  kern<<<unsigned(blocks), unsigned(wpb * 32), smem, st>>>(g, a, welems, sync, acq);
  ck(cudaGetLastError(), "q2_kernel");
}

#define EIGSOLVE_INSTANTIATE_Q2_CUDA(T)                                                       \
  template void apply_q2_canonical_device<T>(index_t, index_t, const T*, index_t, const T*,   \
                                             index_t, index_t, T*, index_t, void*, const T*); \
  template std::size_t q2_packed_bytes<T>(index_t, index_t);                                  \
  template void pack_q2_device<T>(index_t, index_t, const T*, index_t, const T*, index_t, T*, \
                                  void*);
EIGSOLVE_FOR_EACH_SCALAR(EIGSOLVE_INSTANTIATE_Q2_CUDA)
#undef EIGSOLVE_INSTANTIATE_Q2_CUDA

}  // namespace eigsolve
