// Probe (session 59): how fast can the lower triangle be *read* in the access patterns of the
// SYMV kernels, with no arithmetic, no shared memory and no partials? The read-only ceiling of
// gpu.md (cuBLAS dgemv, 4540 GB/s) streams whole columns; our kernels read 64 x 64 tiles in the
// canonical column-major tile order. If a pattern's bare reads are far from the ceiling, no
// kernel built on that pattern can close the gap, whatever its arithmetic does.
//
//   pattern   what one 64-thread group reads per work item (a persistent grid of blocks of 4
//             groups strides over the items in column-major order, as symv_tiles does)
//   plain     an H x 64 slab (H = 64: one tile); thread (a, k) reads rows a*H/8 .. of columns
//             8k .. 8k+7, H/8 * EB contiguous bytes per column (symv_tiles' mapping at H = 64),
//             CB columns' loads in flight before they are consumed
//   coal      the same slab as 16-byte units in column-major order, consecutive threads on
//             consecutive units (the xs kernels' coalesced warp loads), UB units in flight
//   column    no slabs: a warp streams one whole column of the triangle at a time (gemv-like)
//   dense     the whole n x n matrix as one stream (the machine's read ceiling)
//
// Every pattern reads the 8 x 8 blocks on or below the diagonal (plain with H > 64 a few more
// above it); GB/s counts n^2/2 elements of EB bytes, as bench symv does (dense: its n^2).
// Each load is ld.global.cs (evict-first, as the tuned kernels' cs loads); the words are XORed
// into one register per thread, stored at the end so that no load is dead.
//
// build: the target tile_read (EIGSOLVE_BUILD_BENCH=ON, CUDA), or
//   nvcc -O3 -arch=sm_90 -o tile_read tile_read.cu
// usage: tile_read [n=16384] [runs=9] [pattern filter substring]; prints one line per case,
// the median of `runs` event-timed calls after two untimed ones. Exit 0 (a measurement), 1 on
// a CUDA error.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

#define CK(x)                                                                                      \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) {                                                                       \
      std::fprintf(stderr, "tile_read: %s: %s (line %d)\n", #x, cudaGetErrorString(e_), __LINE__); \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

constexpr int kGroups = 4;  // groups of 64 threads per block (the tuned s, d kernels' t4)

__device__ __forceinline__ unsigned fold(const uint4& v) {
  return v.x ^ v.y ^ v.z ^ v.w;
}

/// plain: thread (a, k) of a group reads rows a*R .. a*R+R-1 (R = H/8) of columns 8k .. 8k+7
/// of its item's slab, CB columns at a time.
template <int EB, int H, int CB, int MinB>
__global__ void __launch_bounds__(64 * kGroups, MinB)
    plain_kernel(const char* A, std::size_t ldb, int n, const int2* items, int nitems,
                 unsigned* sink) {
  constexpr int R = H / 8, U = R * EB / 16;  // rows per thread, 16-byte units per column
  static_assert(U >= 1 && 8 % CB == 0, "shape");
  const int grp = threadIdx.x >> 6, t = threadIdx.x & 63, a = t & 7, k = t >> 3;
  unsigned acc = 0;
  for (int base = blockIdx.x * kGroups; base < nitems; base += gridDim.x * kGroups) {
    const int it = base + grp;
    if (it >= nitems) break;
    const int2 rc = items[it];
    const int row = rc.x + a * R, col = rc.y + 8 * k;
    if (row >= n) continue;
    if ((row + R - 1) / 8 < col / 8) continue;  // above the diagonal's blocks
    const char* p = A + std::size_t(col) * ldb + std::size_t(row) * EB;
#pragma unroll
    for (int c0 = 0; c0 < 8; c0 += CB) {
      uint4 v[CB][U];
#pragma unroll
      for (int c = 0; c < CB; ++c)
#pragma unroll
        for (int u = 0; u < U; ++u)
          v[c][u] = __ldcs(reinterpret_cast<const uint4*>(p + std::size_t(c0 + c) * ldb) + u);
#pragma unroll
      for (int c = 0; c < CB; ++c)
#pragma unroll
        for (int u = 0; u < U; ++u)
          acc ^= fold(v[c][u]);
    }
  }
  sink[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

/// coal: the slab's 16-byte units in column-major order, unit t + 64 j for thread t, UB at a
/// time; a unit whose 8-row block lies above its column's block is skipped.
template <int EB, int H, int UB, int MinB>
__global__ void __launch_bounds__(64 * kGroups, MinB)
    coal_kernel(const char* A, std::size_t ldb, int n, const int2* items, int nitems,
                unsigned* sink) {
  constexpr int PC = H * EB / 16, UT = PC;  // units per column; per thread (64 columns / 64)
  static_assert(UT % UB == 0, "shape");
  constexpr int RU = 16 / EB;  // rows per unit
  const int grp = threadIdx.x >> 6, t = threadIdx.x & 63;
  unsigned acc = 0;
  for (int base = blockIdx.x * kGroups; base < nitems; base += gridDim.x * kGroups) {
    const int it = base + grp;
    if (it >= nitems) break;
    const int2 rc = items[it];
#pragma unroll
    for (int j0 = 0; j0 < UT; j0 += UB) {
      uint4 v[UB];
#pragma unroll
      for (int j = 0; j < UB; ++j) {
        const int u = t + 64 * (j0 + j), col = rc.y + u / PC, row = rc.x + (u % PC) * RU;
        const bool ok = row < n && row / 8 >= col / 8;
        v[j] = ok ? __ldcs(reinterpret_cast<const uint4*>(A + std::size_t(col) * ldb +
                                                          std::size_t(row) * EB))
                  : make_uint4(0, 0, 0, 0);
      }
#pragma unroll
      for (int j = 0; j < UB; ++j)
        acc ^= fold(v[j]);
    }
  }
  sink[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

/// column: warp w streams column j (j = w, w + warps, ...) from row 8 floor(j/8) to n, UB units
/// per lane in flight.
template <int EB, int UB, int MinB>
__global__ void __launch_bounds__(64 * kGroups, MinB)
    column_kernel(const char* A, std::size_t ldb, int n, unsigned* sink) {
  const int lane = threadIdx.x & 31;
  const int warps = gridDim.x * blockDim.x / 32;
  unsigned acc = 0;
  for (int j = (blockIdx.x * blockDim.x + threadIdx.x) / 32; j < n; j += warps) {
    const int r0 = j & ~7;
    const uint4* p =
        reinterpret_cast<const uint4*>(A + std::size_t(j) * ldb + std::size_t(r0) * EB);
    const int units = (n - r0) * EB / 16;
    for (int u0 = 0; u0 < units; u0 += 32 * UB) {
      uint4 v[UB];
#pragma unroll
      for (int q = 0; q < UB; ++q) {
        const int u = u0 + q * 32 + lane;
        v[q] = u < units ? __ldcs(p + u) : make_uint4(0, 0, 0, 0);
      }
#pragma unroll
      for (int q = 0; q < UB; ++q)
        acc ^= fold(v[q]);
    }
  }
  sink[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

/// dense: all of A (n columns of ldb bytes) as one stream of 16-byte units, UB per thread.
template <int UB, int MinB>
__global__ void __launch_bounds__(64 * kGroups, MinB)
    dense_kernel(const uint4* A, std::size_t units, unsigned* sink) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  unsigned acc = 0;
  for (std::size_t u0 = std::size_t(blockIdx.x) * blockDim.x * UB + threadIdx.x; u0 < units;
       u0 += stride * UB) {
    uint4 v[UB];
#pragma unroll
    for (int q = 0; q < UB; ++q) {
      const std::size_t u = u0 + std::size_t(q) * blockDim.x;
      v[q] = u < units ? __ldcs(A + u) : make_uint4(0, 0, 0, 0);
    }
#pragma unroll
    for (int q = 0; q < UB; ++q)
      acc ^= fold(v[q]);
  }
  sink[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

__global__ void fill_kernel(unsigned* p, std::size_t words) {
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < words;
       i += std::size_t(gridDim.x) * blockDim.x) {
    std::uint64_t z = i * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z ^= z >> 27;
    // a finite float / double bit pattern either way: clear the exponent's top bit
    p[i] = unsigned(z) & 0xBFFFFFFFu;
  }
}

/// The slabs of H rows below the diagonal, column panel by column panel (the canonical
/// column-major order of tile_order.cuh at H = 64): (first row, first column).
std::vector<int2> slab_items(int n, int H) {
  std::vector<int2> v;
  for (int J = 0; J * 64 < n; ++J)
    for (int r = J * 64; r < n; r += H)
      v.push_back(make_int2(r, J * 64));
  return v;
}

struct Case {
  std::string name;
  int eb;
  const void* kern;                     // for the occupancy query
  std::function<void(int blocks)> run;  // one call with `blocks` blocks
  bool dense = false;
};

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 16384;
  const int runs = argc > 2 ? std::atoi(argv[2]) : 9;
  const std::string filter = argc > 3 ? argv[3] : "";
  if (n < 64 || n % 64 != 0 || runs < 1) {
    std::fprintf(stderr,
                 "tile_read: usage: tile_read [n: a multiple of 64] [runs >= 1] [filter]\n");
    return 2;
  }
  int dev = 0, sms = 0;
  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, dev));
  std::printf("gpu %s, %d SMs, n = %d, %d runs each (median), GB/s over n^2/2 elements\n",
              prop.name, sms, n, runs);

  // One buffer for the largest element size; the smaller ones use its first bytes (lda = n).
  const std::size_t bytes = std::size_t(n) * n * 16;
  char* A = nullptr;
  CK(cudaMalloc(&A, bytes));
  fill_kernel<<<4 * sms, 256>>>(reinterpret_cast<unsigned*>(A), bytes / 4);
  CK(cudaGetLastError());
  unsigned* sink = nullptr;
  CK(cudaMalloc(&sink, std::size_t(64) * sms * 2048 * sizeof(unsigned)));
  std::vector<int2*> item_bufs;
  auto items_of = [&](int H, int& count) {
    const std::vector<int2> h = slab_items(n, H);
    int2* d = nullptr;
    CK(cudaMalloc(&d, h.size() * sizeof(int2)));
    CK(cudaMemcpy(d, h.data(), h.size() * sizeof(int2), cudaMemcpyHostToDevice));
    item_bufs.push_back(d);
    count = int(h.size());
    return d;
  };

  std::vector<Case> cases;
  // MB: the kernel's launch bound's blocks per SM (0: none). ptxas sizes the registers, and with
  // them how many of a thread's loads are in flight, by it: plain<16, 64, 4> is 32 registers
  // without a bound and 128 with 2 blocks per SM.
#define PLAIN(EB, H, CB, MB)                                                                  \
  {                                                                                           \
    int cnt = 0;                                                                              \
    const int2* it = items_of(H, cnt);                                                        \
    cases.push_back({"plain eb" #EB " H" #H " cb" #CB " lb" #MB, EB,                          \
                     reinterpret_cast<const void*>(plain_kernel<EB, H, CB, MB>), [=](int b) { \
                       plain_kernel<EB, H, CB, MB>                                            \
                           <<<b, 64 * kGroups>>>(A, std::size_t(n) * EB, n, it, cnt, sink);   \
                     }});                                                                     \
  }
#define COAL(EB, H, UB, MB)                                                                  \
  {                                                                                          \
    int cnt = 0;                                                                             \
    const int2* it = items_of(H, cnt);                                                       \
    cases.push_back({"coal eb" #EB " H" #H " ub" #UB " lb" #MB, EB,                          \
                     reinterpret_cast<const void*>(coal_kernel<EB, H, UB, MB>), [=](int b) { \
                       coal_kernel<EB, H, UB, MB>                                            \
                           <<<b, 64 * kGroups>>>(A, std::size_t(n) * EB, n, it, cnt, sink);  \
                     }});                                                                    \
  }
#define COLUMN(EB, UB, MB)                                                                \
  cases.push_back({"column eb" #EB " ub" #UB " lb" #MB, EB,                               \
                   reinterpret_cast<const void*>(column_kernel<EB, UB, MB>), [=](int b) { \
                     column_kernel<EB, UB, MB>                                            \
                         <<<b, 64 * kGroups>>>(A, std::size_t(n) * EB, n, sink);          \
                   }})
#define DENSE(EB, UB, MB)                                                                        \
  cases.push_back({"dense eb" #EB " ub" #UB " lb" #MB, EB,                                       \
                   reinterpret_cast<const void*>(dense_kernel<UB, MB>),                          \
                   [=](int b) {                                                                  \
                     dense_kernel<UB, MB><<<b, 64 * kGroups>>>(                                  \
                         reinterpret_cast<const uint4*>(A), std::size_t(n) * n * EB / 16, sink); \
                   },                                                                            \
                   true})

  // 4-byte elements (s): symv_tiles reads 32 bytes per column and thread (H = 64)
  PLAIN(4, 64, 2, 0);
  PLAIN(4, 64, 8, 0);
  PLAIN(4, 64, 4, 4);
  PLAIN(4, 64, 8, 4);
  PLAIN(4, 64, 8, 2);
  PLAIN(4, 128, 4, 0);
  PLAIN(4, 128, 4, 4);
  PLAIN(4, 128, 4, 2);
  PLAIN(4, 256, 2, 4);
  COAL(4, 64, 4, 0);
  COAL(4, 64, 16, 4);
  COAL(4, 128, 8, 4);
  COLUMN(4, 8, 0);
  COLUMN(4, 8, 4);
  DENSE(4, 4, 0);
  DENSE(4, 8, 4);
  // 8-byte elements (d, c)
  PLAIN(8, 64, 2, 0);
  PLAIN(8, 64, 8, 0);
  PLAIN(8, 64, 4, 4);
  PLAIN(8, 64, 8, 2);
  PLAIN(8, 64, 4, 3);
  PLAIN(8, 128, 2, 4);
  PLAIN(8, 128, 4, 2);
  COAL(8, 64, 8, 0);
  COAL(8, 64, 16, 4);
  COAL(8, 128, 16, 4);
  COLUMN(8, 8, 0);
  COLUMN(8, 8, 4);
  // 16-byte elements (z, dd)
  PLAIN(16, 64, 1, 0);
  PLAIN(16, 64, 4, 0);
  PLAIN(16, 64, 2, 4);
  PLAIN(16, 64, 4, 2);
  COAL(16, 64, 8, 0);
  COAL(16, 64, 8, 4);
  COAL(16, 64, 16, 4);
  COAL(16, 64, 32, 2);
  COAL(16, 128, 16, 4);
  COLUMN(16, 8, 0);
  COLUMN(16, 8, 4);
  DENSE(16, 8, 4);

  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  CK(cudaDeviceSynchronize());
  for (const Case& c : cases) {
    if (!filter.empty() && c.name.find(filter) == std::string::npos) continue;
    int occ = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, c.kern, 64 * kGroups, 0));
    for (int per_sm : {occ, std::max(1, occ / 2)}) {
      const int blocks = per_sm * sms;
      for (int w = 0; w < 2; ++w)
        c.run(blocks);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      std::vector<float> ms;
      for (int r = 0; r < runs; ++r) {
        CK(cudaEventRecord(e0));
        c.run(blocks);
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float t = 0;
        CK(cudaEventElapsedTime(&t, e0, e1));
        ms.push_back(t);
      }
      std::sort(ms.begin(), ms.end());
      const double med = ms[ms.size() / 2];
      const double elems = c.dense ? double(n) * n : double(n) * n / 2;
      std::printf("%-24s blocks/SM %2d  ms %8.4f  GB/s %7.0f  (min %.4f max %.4f)\n",
                  c.name.c_str(), per_sm, med, elems * c.eb / (med * 1e6), ms.front(), ms.back());
      std::fflush(stdout);
      if (per_sm == 1) break;
    }
  }
  for (int2* p : item_bufs)
    cudaFree(p);
  cudaFree(sink);
  cudaFree(A);
  return 0;
}
