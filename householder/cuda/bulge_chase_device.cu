// Stage 2 of the two-stage reduction on the device (householder/bulge_chase_cuda.hpp): the
// canonical bulge chase of docs/canonical-two-stage.md, bitwise householder/bulge_chase.cpp.
//
//   zero_bulge_kernel     rows b+1 .. ldab-1 of the band := 0 (the CPU does the same first)
//   chase_kernel          persistent; one warp per sweep, sweeps drawn in order:
//     warp: i = atomicAdd(&next, 1); while i < n-1:
//             level 0 (task A), levels 1, 2, ... (tasks B, C): bulge_warp::sweep
//             (householder/cuda/bulge_chase_warp.hpp, which states the dependency rule):
//             part 1 of level k (task B) once progress[i-1] >= 2k+3, part 2 (task C) once
//             >= 2k+4 (lane 0 polls with ld.acquire, then __syncwarp); a part's blocks are
//             copied from the band (L2, ld.global.cg) into the warp's shared memory, computed
//             there, written back (st.global.cg), then __syncwarp, lane 0's fence.acq_rel and
//             progress[i] := 2k+1 / 2k+2 (kDone after the last level)
//   EIGSOLVE_GPU_BULGE_SPLIT=0: one progress step per level (level k after >= 2k+4; slower);
//   EIGSOLVE_GPU_BULGE_REG=0: the shared-memory phases instead of the register path (the
//   default for s, d, c with b <= 32 and the split schedule: bulge_warp::sweep_reg, a block's
//   rows in the lanes' registers, no lane-0 phase; slower for z and dd, so =1 there forces it);
//   EIGSOLVE_GPU_BULGE_WARPS=w: w warps in flight (default: half the first sweep's levels + 32).
//   EIGSOLVE_GPU_BULGE_FULL=0: the register path's full levels (block orders both 32) with
//   runtime orders like the others (default 1: compile-time orders there, no per-element tests).
//   EIGSOLVE_GPU_BULGE_PAD=0: a sweep's last level (fewer than 32 rows) by the runtime-order code
//   (default 1: the full level's code on a block padded with +0 rows, bulge_warp::sweep_reg).
//   EIGSOLVE_GPU_BULGE_EARLY=0: task C waits before it reads its block (default 1 for s, d: the
//   register path reads all of it but the diagonal element sweep i-1 still writes, then waits
//   for that; 0 for c, where it was slower).
//   EIGSOLVE_GPU_BULGE_ACQ=0: lane 0 polls with relaxed loads and then fences (fence.acq_rel)
//   instead of polling with acquiring loads (default 1; session 34).
//   EIGSOLVE_GPU_BULGE_GROUP=0: every warp draws its own next sweep and every hand-off is at gpu
//   scope; =1: a thread block draws its warps' count of consecutive sweeps at once; =2: as 1,
//   and the hand-offs between the block's own warps (sweep i-1 to i within the group) fence and
//   flag at CTA scope; the block's last sweep publishes at gpu scope. EIGSOLVE_GPU_BULGE_WPB=1..4:
//   warps per block. Default: GROUP=2 in blocks of 2 warps (pairs of consecutive sweeps) for
//   every precision. H200 (sessions 34-36): pairs are faster at every order measured (d 16384
//   249 -> 245 ms, s 207 -> 201, c 424 -> 394, z 671 -> 664, dd 1228 -> 1218; groups of 4
//   lose at 16384: their compute steps slow down, not understood).
//   Every setting gives the same bits. With dV2/dtau2 (eigenvectors) each level also stores
//   its reflector there (bulge_warp::KeepRefl: the v the warp holds, one tau), a kernel of its
//   own (template Keep), so the chase without them is unchanged.
//   extract_kernel        d[i] = real(B(i,i)), e[i] = real(B(i+1,i))
//
// No deadlock whatever the scheduler: a warp only waits for the sweep drawn just before its
// own, and that draw was made by a warp that is running (resident) and itself only waits for
// earlier draws. The counters count levels, never data: NaN or Inf in the band cannot keep a
// warp waiting. They are allocated and zeroed on the stream by every call.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/cuda/l2_access.cuh"
#include "core/cuda/sync_flags.cuh"
#include "core/errors.hpp"
#include "householder/bulge_chase_cuda.hpp"
#include "householder/cuda/bulge_chase_warp.hpp"

namespace eigsolve {
namespace {

void ck(cudaError_t st, const char* what) {
  if (st != cudaSuccess) {
    cudaGetLastError();
    throw DeviceError(std::string("band_to_tridiagonal_cuda: ") + what + ": " +
                      cudaGetErrorString(st));
  }
}

// Band elements go through L2 only (ldcg/stcg, core/cuda/l2_access.cuh): never a stale L1 line.

/// Stamp codes of the instrumented kernel (EIGSOLVE_GPU_BULGE_STAMPS): the low 4 bits the event,
/// the rest the progress value of a wait or publish (0 for the others).
enum StampEvent : int {
  kStampEach = 1,        ///< after a phase's barrier
  kStampPolled = 2,      ///< wait: the poll saw its value (before the fence)
  kStampWaited = 3,      ///< wait: returned (after the fence and the barrier)
  kStampPublishing = 4,  ///< publish: after the barrier, before the fence
  kStampPublished = 5,   ///< publish: after the fence and the flag's store
  kStampSweep = 6,       ///< the sweep drawn (before level 0); its value: the SM's id
};

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/// bulge_warp::sweep's executor on the device: one warp, __syncwarp between phases. Prof: lane 0
/// also writes (code, clock64, globaltimer) after every phase, wait and publish of the sweeps in
/// the stamp window (a diagnostic build of the kernel only; Prof = false is the kernel as it is).
template <class T, bool Prof = false>
struct DevExec {
  int lane;
  int* prog;  ///< prog[i]: levels of sweep i finished (bulge_warp::kDone: all)
  bool full;  ///< sweep_reg: full levels with compile-time block orders (EIGSOLVE_GPU_BULGE_FULL)
  bool pad;   ///< sweep_reg: a sweep's last level as a padded full level (EIGSOLVE_GPU_BULGE_PAD)
  bool early;  ///< sweep_reg: task C's block read before its wait (EIGSOLVE_GPU_BULGE_EARLY)
  bool acq;    ///< wait: lane 0 polls with acquiring loads, no fence (EIGSOLVE_GPU_BULGE_ACQ)
  bool cta_in = false;   ///< this sweep's wait: sweep i-1 runs in this thread block (CTA scope)
  bool cta_out = false;  ///< this sweep's publish: sweep i+1 runs in this thread block
  long long* stamps = nullptr;  ///< Prof: this sweep's row (nullptr: outside the window)
  int cap = 0;                  ///< Prof: stamps per row
  mutable int ns = 0;           ///< Prof: stamps written in this row
  __device__ __forceinline__ void stamp(long long code) const {
#if defined(__CUDA_ARCH__)
    if constexpr (Prof) {
      if (lane == 0 && stamps != nullptr && ns < cap) {
        long long* q = stamps + 3 * std::size_t(ns);
        q[0] = code;
        q[1] = clock64();
        q[2] = static_cast<long long>(global_ns());
      }
      ++ns;
    }
#endif
  }
  /// A wait's or publish's stamp: the event and its progress value c.
  __device__ __forceinline__ void stamp(StampEvent ev, int c) const {
    stamp(ev | (static_cast<long long>(c) << 4));
  }
  __host__ __device__ __forceinline__ bool full_levels() const { return full; }
  __host__ __device__ __forceinline__ bool pad_last() const { return pad; }
  __host__ __device__ __forceinline__ bool early_c() const { return early; }
  template <class F>
  __host__ __device__ __forceinline__ void each(F f) const {
#if defined(__CUDA_ARCH__)
    f(lane);
    __syncwarp();
    stamp(kStampEach);
#endif
  }
  template <class F>
  __host__ __device__ __forceinline__ void one(F f) const {
#if defined(__CUDA_ARCH__)
    if (lane == 0) f();
    __syncwarp();
    stamp(kStampEach);
#endif
  }
  __host__ __device__ __forceinline__ T load(const T* p) const {
#if defined(__CUDA_ARCH__)
    return ldcg(p);
#else
    return *p;
#endif
  }
  __host__ __device__ __forceinline__ void store(T* p, const T& v) const {
#if defined(__CUDA_ARCH__)
    stcg(p, v);
#else
    *p = v;
#endif
  }
  /// Returns once sweep i-1 has published progress >= c: lane 0 polls with acquiring loads
  /// (acq; otherwise relaxed loads and then an acquiring fence), then the warp's barrier orders
  /// every lane's later loads after it.
  __host__ __device__ __forceinline__ void wait(index_t i, int c) const {
#if defined(__CUDA_ARCH__)
    if (i > 0) {
      if (lane == 0) {
        const int* f = prog + (i - 1);
        if (cta_in) {
          if (acq) {
            while (ld_acquire_cta(f) < c) {
            }
            stamp(kStampPolled, c);
          } else {
            while (ld_relaxed_cta(f) < c) {
            }
            stamp(kStampPolled, c);
            fence_acq_rel_cta();
          }
        } else if (acq) {
          while (ld_acquire(f) < c) {
          }
          stamp(kStampPolled, c);
        } else {
          while (ld_relaxed(f) < c) {
          }
          stamp(kStampPolled, c);
          fence_acq_rel();
        }
      }
      __syncwarp();
    }
    stamp(kStampWaited, c);
#endif
  }
  /// Every lane's stores are ordered before prog[i] = c: the warp's barrier, then lane 0's
  /// releasing fence (cumulative over what the barrier ordered before it) and store. CTA scope
  /// where sweep i+1 runs in this thread block (cta_out); the gpu-scope fence of the block's last
  /// sweep is cumulative over what it acquired from the block's other warps, so sweeps in other
  /// blocks see their stores too.
  __host__ __device__ __forceinline__ void publish(index_t i, int c) const {
#if defined(__CUDA_ARCH__)
    __syncwarp();
    stamp(kStampPublishing, c);
    if (lane == 0) {
      if (cta_out) {
        fence_acq_rel_cta();
        st_relaxed_cta(prog + i, c);
      } else {
        fence_acq_rel();
        st_relaxed(prog + i, c);
      }
    }
    stamp(kStampPublished, c);
#endif
  }
};

/// sweep_reg's rf on the device: every lane its own thread's registers.
template <class T>
struct ThreadRegs {
  bulge_warp::LaneRegs<T, 32>* r;
  __device__ __forceinline__ bulge_warp::LaneRegs<T, 32>& operator()(int) const { return *r; }
};

constexpr int kMaxWarpsPerBlock = 4;
constexpr std::size_t kSlotBytes = 16;  ///< the block's draw (EIGSOLVE_GPU_BULGE_GROUP > 0)

/// Bytes of one warp's shared memory for blocks of order up to bb.
__host__ __device__ constexpr std::size_t align16(std::size_t x) {
  return (x + 15) / 16 * 16;
}
template <class T>
std::size_t warp_bytes(int bb) {
  const std::size_t P = std::size_t(bb) + 1;
  return align16(sizeof(bulge_warp::Scalars<T>)) +
         2 * align16(bulge_warp::kLanes * sizeof(real_t<T>)) +
         align16((2 * std::size_t(bb) * P + 4 * std::size_t(bb)) * sizeof(T));
}

/// The stamp window of the instrumented kernel: sweeps s0 .. s0+count-1, cap stamps each.
struct StampWindow {
  long long* buf = nullptr;
  int s0 = 0, count = 0, cap = 0;
};

/// Reg: the register path (bulge_warp::sweep_reg<32>, blocks of order <= 32, Split only).
/// Keep: every level's reflector also stored to keep.V2 / keep.tau2 (eigenvectors); without it
/// the kernel is the one it was (keep is not read). Prof: the stamps build
/// (EIGSOLVE_GPU_BULGE_STAMPS).
template <bool Split, bool Reg, bool Keep, class T, bool Prof = false>
__global__ void __launch_bounds__(kMaxWarpsPerBlock * 32)
    chase_kernel(index_t n, index_t b, int bb, T* AB, index_t ldab, int* ctr, int wbytes,
                 bulge_warp::KeepRefl<T> keep, bool full, bool pad, bool early, bool acq, int group,
                 StampWindow sw) {
  using R = real_t<T>;
  extern __shared__ __align__(16) unsigned char smem[];
  const int lane = int(threadIdx.x & 31), wid = int(threadIdx.x >> 5);
  unsigned char* base = smem + std::size_t(wid) * std::size_t(wbytes);
  bulge_warp::Work<T> W;
  W.s = reinterpret_cast<bulge_warp::Scalars<T>*>(base);
  base += align16(sizeof(bulge_warp::Scalars<T>));
  W.part = reinterpret_cast<R*>(base);
  base += align16(bulge_warp::kLanes * sizeof(R));
  W.part2 = reinterpret_cast<R*>(base);
  base += align16(bulge_warp::kLanes * sizeof(R));
  const int P = bb + 1;
  W.P = P;
  W.C = reinterpret_cast<T*>(base);
  W.D = W.C + bb * P;
  W.x = W.D + bb * P;
  W.v = W.x + bb;
  W.w = W.v + bb;
  W.y = W.w + bb;
  DevExec<T, Prof> X{lane, ctr + 1, full, pad, early, acq};
  [[maybe_unused]] bulge_warp::LaneRegs<T, 32> regs;
  // group > 0: the block draws wpb consecutive sweeps at a time (its slot after the warps' shared
  // memory), warp w runs sweep g wpb + w; group 2: the hand-offs between them at CTA scope
  const int wpb = int(blockDim.x >> 5);
  int* slot = reinterpret_cast<int*>(smem + std::size_t(wpb) * std::size_t(wbytes));
  for (;;) {
    int i = 0;
    if (group > 0) {
      __syncthreads();  // every warp has read the slot's last group
      if (threadIdx.x == 0) *slot = atomicAdd(ctr, 1);
      __syncthreads();
      const index_t g0 = index_t(*slot) * wpb;
      if (g0 >= n - 1) break;  // the same for the whole block
      i = int(g0) + wid;
      X.cta_in = group == 2 && wid > 0;
      X.cta_out = group == 2 && wid + 1 < wpb;
      if (index_t(i) >= n - 1) continue;  // past the last sweep: wait for the block's next draw
    } else {
      if (lane == 0) i = atomicAdd(ctr, 1);
      i = __shfl_sync(0xffffffffu, i, 0);
      if (index_t(i) >= n - 1) break;
    }
    if constexpr (Prof) {
      const bool in = i >= sw.s0 && i < sw.s0 + sw.count;
      X.stamps = in ? sw.buf + 3 * std::size_t(i - sw.s0) * std::size_t(sw.cap) : nullptr;
      X.cap = sw.cap;
      X.ns = 0;
      unsigned smid;
      asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
      X.stamp(kStampSweep, int(smid));  // the SM that runs the sweep
    }
    if constexpr (Reg)
      bulge_warp::sweep_reg<32, T, DevExec<T, Prof>, ThreadRegs<T>, Keep>(
          X, W, ThreadRegs<T>{&regs}, n, b, AB, ldab, index_t(i), keep);
    else
      bulge_warp::sweep<Split, T, DevExec<T, Prof>, Keep>(X, W, n, b, AB, ldab, index_t(i), keep);
  }
}

template <class T>
__global__ void zero_bulge_kernel(index_t n, index_t b, T* AB, index_t ldab) {
  const index_t rows = ldab - (b + 1);
  const index_t total = rows * n;
  for (index_t q = index_t(blockIdx.x) * blockDim.x + threadIdx.x; q < total;
       q += index_t(gridDim.x) * blockDim.x) {
    const index_t c = q / rows, r = b + 1 + q % rows;
    AB[r + c * ldab] = T(0);
  }
}

template <class T>
__global__ void extract_kernel(index_t n, const T* AB, index_t ldab, real_t<T>* d, real_t<T>* e) {
  const index_t i = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) d[i] = real_part(AB[i * ldab]);
  if (i + 1 < n) e[i] = real_part(AB[1 + i * ldab]);
}

/// Downloads the stamp window (synchronises the stream) and writes it as text: a header, then
/// one line per stamp: sweep, index in the sweep, code, clock64, globaltimer (ns).
template <class T>
void write_stamps(StampWindow sw, std::size_t sbytes, cudaStream_t st, const std::string& path,
                  index_t n, index_t b, int blocks, int wpb) {
  std::vector<long long> h(sbytes / sizeof(long long));
  ck(cudaMemcpyAsync(h.data(), sw.buf, sbytes, cudaMemcpyDeviceToHost, st), "stamps download");
  ck(cudaStreamSynchronize(st), "stamps sync");
  ck(cudaFree(sw.buf), "cudaFree");
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) throw OutputError(path, "cannot open for writing (EIGSOLVE_GPU_BULGE_STAMPS_OUT)");
  std::fprintf(f, "# chase stamps %s n=%lld b=%lld blocks=%d warps_per_block=%d s0=%d count=%d\n",
               ScalarTraits<T>::name, static_cast<long long>(n), static_cast<long long>(b), blocks,
               wpb, sw.s0, sw.count);
  std::fprintf(f, "sweep,idx,code,clock,ns\n");
  for (int s = 0; s < sw.count; ++s)
    for (int j = 0; j < sw.cap; ++j) {
      const long long* q = h.data() + 3 * (std::size_t(s) * std::size_t(sw.cap) + std::size_t(j));
      if (q[0] == 0) break;
      std::fprintf(f, "%d,%d,%lld,%lld,%lld\n", sw.s0 + s, j, q[0], q[1], q[2]);
    }
  const bool bad = std::ferror(f) != 0;
  if (std::fclose(f) != 0 || bad) throw OutputError(path, "write failed");
}

}  // namespace

template <class T>
void band_to_tridiagonal_cuda(index_t n, index_t b, T* dAB, index_t ldab, real_t<T>* d_dev,
                              real_t<T>* e_dev, void* stream, T* dV2, index_t ldv2, T* dtau2,
                              index_t ldt2) {
  if (n < 0) throw DimensionError("band_to_tridiagonal_cuda: n = " + std::to_string(n) + " < 0");
  if (b < 1) throw UsageError("band_to_tridiagonal_cuda: band width " + std::to_string(b) + " < 1");
  if (ldab < 2 * b)
    throw DimensionError("band_to_tridiagonal_cuda: ldab = " + std::to_string(ldab) +
                         " < 2b = " + std::to_string(2 * b));
  if ((dV2 == nullptr) != (dtau2 == nullptr))
    throw UsageError("band_to_tridiagonal_cuda: V2 and tau2 must be given together");
  const bool keep = dV2 != nullptr;
  if (keep && ldv2 < n)
    throw DimensionError("band_to_tridiagonal_cuda: ldv2 = " + std::to_string(ldv2) +
                         " < n = " + std::to_string(n));
  if (keep && ldt2 < chase_levels(n, b))
    throw DimensionError("band_to_tridiagonal_cuda: ldt2 = " + std::to_string(ldt2) +
                         " < chase_levels = " + std::to_string(chase_levels(n, b)));
  if (n == 0) return;
  cudaStream_t st = static_cast<cudaStream_t>(stream);
  if (ldab > b + 1) {
    const index_t total = (ldab - b - 1) * n;
    const int blocks = int(std::min<index_t>((total + 255) / 256, 4096));
    zero_bulge_kernel<T><<<blocks, 256, 0, st>>>(n, b, dAB, ldab);
    ck(cudaGetLastError(), "zero_bulge_kernel");
  }
  if (n >= 2) {
    // Blocks are at most min(b, n-1) square: the shared memory is sized for that.
    const int bb = int(std::min<index_t>(b, n - 1));
    if (bb > 256)
      throw UsageError("band_to_tridiagonal_cuda: band width " + std::to_string(b) +
                       " > 256 (the device chase's limit)");
    int dev = 0, sms = 0, optin = 0;
    ck(cudaGetDevice(&dev), "cudaGetDevice");
    ck(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), "attribute");
    ck(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev), "attribute");
    const std::size_t wb = warp_bytes<T>(bb);
    if (wb + kSlotBytes > std::size_t(optin))
      throw UsageError("band_to_tridiagonal_cuda: band width " + std::to_string(b) + " needs " +
                       std::to_string(wb) + " bytes of shared memory per warp, the device has " +
                       std::to_string(optin));
    // warps per block the shared memory holds (>= 1 by the check above)
    const std::size_t fit = (std::size_t(optin) - kSlotBytes) / wb;
    // EIGSOLVE_GPU_BULGE_GROUP: 0 every warp draws its next sweep (the counter's order) and
    // every hand-off is at gpu scope; 1 a thread block draws wpb consecutive sweeps at once, warp
    // w runs the w-th; 2 as 1 with the hand-offs between a block's own warps at CTA scope (no
    // wait for L2: the publish's fence 800 -> 160 cycles). Same waits, same bits. Default: 2 in
    // blocks of 2 warps. On the H200 (bench/NOTES.md sessions 34-36) groups of 4 lose for d and
    // s at 16384 (d 250 -> 266 ms), pairs win at every size (d 4096 57.7 -> 55.7 ms, 8192 118.3
    // -> 112.6, 16384 249.2 -> 246.3; s 16384 207.3 -> 201.4; c 16384 424 -> 394, z 671 -> 664,
    // dd 1228 -> 1218).
    int group = 2;
    if (const char* s = std::getenv("EIGSOLVE_GPU_BULGE_GROUP")) {
      group = std::atoi(s);
      if (group < 0 || group > 2)
        throw UsageError(std::string("EIGSOLVE_GPU_BULGE_GROUP='") + s + "': expected 0, 1 or 2");
    }
    // EIGSOLVE_GPU_BULGE_WPB=1..4: warps per block (at most what the shared memory allows; by
    // default 2). The same warps in smaller blocks spread over more SMs
    // (at d 16384, 72 blocks of 4 warps use 72 of the H200's 132 SMs: no faster in blocks of 1 or
    // 2 alone, session 35). Which warp runs which sweep does not change a chain: same bits.
    int wpb = int(std::min<std::size_t>(2, fit));
    if (const char* s = std::getenv("EIGSOLVE_GPU_BULGE_WPB")) {
      const int w = std::atoi(s);
      if (w < 1 || w > kMaxWarpsPerBlock)
        throw UsageError(std::string("EIGSOLVE_GPU_BULGE_WPB='") + s + "': expected 1 .. " +
                         std::to_string(kMaxWarpsPerBlock));
      wpb = int(std::min<std::size_t>(std::size_t(w), fit));
    }
    const std::size_t smem = wb * std::size_t(wpb) + kSlotBytes;
    // EIGSOLVE_GPU_BULGE_SPLIT=0: one progress step per level instead of one per part (same
    // bits; the split lets sweep i's task B run while sweep i-1 does its task C)
    bool split = true;
    if (const char* s = std::getenv("EIGSOLVE_GPU_BULGE_SPLIT")) split = std::atoi(s) != 0;
    // EIGSOLVE_GPU_BULGE_REG=0: the shared-memory phases (bulge_warp::sweep) instead of the
    // register path (bulge_warp::sweep_reg, b <= 32 with the split schedule); same bits. The
    // register path is the default for the 4- and 8-byte scalars only: on the H200 (session 15,
    // r2) it took d 16384 from 635 to 470 ms, s 630 to 453, but z 674 to 718 and dd 1233 to
    // 2961 ms (255 registers and spills there); EIGSOLVE_GPU_BULGE_REG=1 forces it.
    bool reg = sizeof(T) <= 8;
    if (const char* s = std::getenv("EIGSOLVE_GPU_BULGE_REG")) reg = std::atoi(s) != 0;
    reg = reg && split && bb <= 32;
    // EIGSOLVE_GPU_BULGE_FULL=0: the register path's full levels (both block orders 32) with the
    // runtime orders too (session 19's A/B; same operations, same bits)
    bool full = true;
    if (const char* s = std::getenv("EIGSOLVE_GPU_BULGE_FULL")) full = std::atoi(s) != 0;
    // EIGSOLVE_GPU_BULGE_PAD=0: a sweep's last level (fewer than b rows) by the runtime-order
    // code as before session 32, instead of the full level's code on a block padded with +0 rows
    // (bulge_warp::sweep_reg; same bits)
    bool pad = true;
    if (const char* s = std::getenv("EIGSOLVE_GPU_BULGE_PAD")) pad = std::atoi(s) != 0;
    // EIGSOLVE_GPU_BULGE_EARLY=0: task C waits for sweep i-1 before reading its block, as before
    // session 32 (=1: it reads all but the one element sweep i-1 still writes first;
    // bulge_warp::sweep_reg's task_c; same bits). Default 1 for s and d (the chase at 16384 on
    // the H200: d 272 -> 258 ms, s 227 -> 214 ms), 0 for c (417 -> 424 ms with it: slower).
    bool early = !is_complex_v<T>;
    if (const char* s = std::getenv("EIGSOLVE_GPU_BULGE_EARLY")) early = std::atoi(s) != 0;
    // EIGSOLVE_GPU_BULGE_ACQ=0: a wait polls with relaxed loads, then fences (fence.acq_rel.gpu),
    // as before session 34; 1: the poll's loads acquire (ld.acquire.gpu), no fence. The order of
    // the waits and publishes is the same, so are the bits.
    bool acq = true;
    if (const char* s = std::getenv("EIGSOLVE_GPU_BULGE_ACQ")) acq = std::atoi(s) != 0;
    auto kern = keep ? (reg     ? chase_kernel<true, true, true, T>
                        : split ? chase_kernel<true, false, true, T>
                                : chase_kernel<false, false, true, T>)
                     : (reg     ? chase_kernel<true, true, false, T>
                        : split ? chase_kernel<true, false, false, T>
                                : chase_kernel<false, false, false, T>);
    // EIGSOLVE_GPU_BULGE_STAMPS=s0,count (with EIGSOLVE_GPU_BULGE_STAMPS_OUT=file): a diagnostic
    // build of the register path's kernel that stamps every phase, wait and publish of sweeps
    // s0 .. s0+count-1 (clock64 and globaltimer) and writes them to the file after the call
    // (scripts/chase_stamps.py reads it). Same operations, same bits; the call synchronises.
    StampWindow sw;
    std::string stamps_out;
    if (const char* s = std::getenv("EIGSOLVE_GPU_BULGE_STAMPS")) {
      long s0 = -1, cnt = -1;
      if (std::sscanf(s, "%ld,%ld", &s0, &cnt) != 2 || s0 < 0 || cnt < 1 || cnt > 4096)
        throw UsageError(std::string("EIGSOLVE_GPU_BULGE_STAMPS='") + s +
                         "': expected s0,count (count 1 .. 4096)");
      const char* o = std::getenv("EIGSOLVE_GPU_BULGE_STAMPS_OUT");
      if (o == nullptr || *o == '\0')
        throw UsageError("EIGSOLVE_GPU_BULGE_STAMPS needs EIGSOLVE_GPU_BULGE_STAMPS_OUT=file");
      if (!reg || keep || sizeof(T) > 8)
        throw UsageError(
            "EIGSOLVE_GPU_BULGE_STAMPS: only the register path without kept reflectors (s, d, c "
            "eigenvalues, b <= 32)");
      stamps_out = o;
      sw.s0 = int(s0);
      sw.count = int(cnt);
      sw.cap = int(16 * (chase_levels(n, b) + 1) + 2);
    }
    const bool prof = !stamps_out.empty();
    if constexpr (sizeof(T) <= 8) {
      if (prof) kern = chase_kernel<true, true, false, T, true>;
    }
    ck(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)),
       "cudaFuncSetAttribute");
    int per_sm = 0;
    ck(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kern, wpb * 32, smem), "occupancy");
    if (per_sm < 1) throw DeviceError("band_to_tridiagonal_cuda: the chase kernel cannot run");
    // Sweeps that can run at once: sweep i trails sweep i-1 by two levels, so about half the
    // first sweep's levels, plus a margin. EIGSOLVE_GPU_BULGE_WARPS overrides (same bits).
    const index_t levels = (n - 2) / b + 1;
    index_t want = levels / 2 + 32;
    if (const char* s = std::getenv("EIGSOLVE_GPU_BULGE_WARPS"))
      if (std::atoi(s) > 0) want = std::atoi(s);
    want = std::min<index_t>(want, n - 1);
    const index_t resident = index_t(per_sm) * sms * wpb;
    want = std::min(want, resident);
    const int blocks = int((want + wpb - 1) / wpb);
    int* ctr = nullptr;
    const std::size_t cbytes = std::size_t(n + 1) * sizeof(int);
    ck(cudaMallocAsync(reinterpret_cast<void**>(&ctr), cbytes, st), "cudaMallocAsync");
    ck(cudaMemsetAsync(ctr, 0, cbytes, st), "cudaMemsetAsync");
    const std::size_t sbytes = std::size_t(sw.count) * std::size_t(sw.cap) * 3 * sizeof(long long);
    if (prof) {
      ck(cudaMallocAsync(reinterpret_cast<void**>(&sw.buf), sbytes, st), "cudaMallocAsync");
      ck(cudaMemsetAsync(sw.buf, 0, sbytes, st), "cudaMemsetAsync");
    }
    kern<<<blocks, wpb * 32, smem, st>>>(n, b, bb, dAB, ldab, ctr, int(wb),
                                         bulge_warp::KeepRefl<T>{dV2, ldv2, dtau2, ldt2}, full, pad,
                                         early, acq, group, sw);
    ck(cudaGetLastError(), "chase_kernel");
    ck(cudaFreeAsync(ctr, st), "cudaFreeAsync");
    if (prof) write_stamps<T>(sw, sbytes, st, stamps_out, n, b, blocks, wpb);
  }
  extract_kernel<T><<<int((n + 255) / 256), 256, 0, st>>>(n, dAB, ldab, d_dev, e_dev);
  ck(cudaGetLastError(), "extract_kernel");
}

#define EIGSOLVE_INSTANTIATE_BULGE_CUDA(T)                                                         \
  template void band_to_tridiagonal_cuda<T>(index_t, index_t, T*, index_t, real_t<T>*, real_t<T>*, \
                                            void*, T*, index_t, T*, index_t);
EIGSOLVE_FOR_EACH_SCALAR(EIGSOLVE_INSTANTIATE_BULGE_CUDA)
#undef EIGSOLVE_INSTANTIATE_BULGE_CUDA

}  // namespace eigsolve
