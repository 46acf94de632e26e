// Host <-> device copies of column-major blocks through pinned staging chunks.
//
// cudaMemcpy2D from or to pageable host memory runs at ~8 GB/s on the H200 host (the driver
// copies through its own small pinned buffer on one thread). Here host threads copy a chunk of
// columns into one of two pinned buffers while the DMA of the other chunk runs:
//
//   h2d:  host cols [c0, c1) --threads--> pinned[b] --cudaMemcpy2DAsync--> device
//         (before pinned[b] is refilled, its previous DMA's event is waited for)
//   d2h:  device --DMA--> pinned[b] (the next chunk's DMA is queued before) --threads--> host
//
// Copies only: the bytes are the same whatever the path. EIGSOLVE_GPU_STAGED=0 falls back to
// plain cudaMemcpy2D (the A/B switch).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "core/errors.hpp"
#include "core/parallel.hpp"

namespace eigsolve {
namespace staged {

inline void ck(cudaError_t st, const char* what) {
  if (st != cudaSuccess) throw DeviceError(std::string(what) + ": " + cudaGetErrorString(st));
}

inline bool enabled() {
  const char* s = std::getenv("EIGSOLVE_GPU_STAGED");
  return !(s && s[0] == '0' && s[1] == '\0');
}

class Stager {
 public:
  /// Bytes per pinned chunk: 32 MiB, no more than `bytes` (> 0: the most this Stager will copy in
  /// all, rounded up to 4 KiB), or exactly EIGSOLVE_GPU_STAGED_CHUNK (>= 4096; tests use small
  /// ones so that many chunks and both buffers are exercised, 33554432 restores the fixed size).
  /// cudaHostAlloc pins the pages as it allocates, and every Stager used to pin two 32 MiB chunks
  /// whatever the copy (suspected for ~35 ms of host time in d with vectors at n = 128, bench/
  /// NOTES.md sessions 47-48), so the chunks follow the copy. Both chunks are allocated here when
  /// the copy needs two (bytes > the chunk, or not given: as before, so that no allocation, which
  /// holds the driver's lock, falls inside a copy that other threads' launches wait behind); a copy
  /// that fits one chunk gets one, and the second is allocated if a copy needs it after all. A
  /// `bytes` below what is copied costs more, smaller DMAs, never other bytes. Host threads for the
  /// pinned <-> pageable copies: `threads`, or (0) as many as the host has, at most 16.
  explicit Stager(int threads = 0, std::size_t bytes = 0) {
    if (const char* c = std::getenv("EIGSOLVE_GPU_STAGED_CHUNK"))
      chunk_ = std::max<std::size_t>(4096, std::strtoull(c, nullptr, 10));
    else if (bytes > 0)
      chunk_ = std::min(chunk_, (bytes + 4095) / 4096 * 4096);
    threads_ =
        threads > 0
            ? threads
            : std::max(1, std::min(16, static_cast<int>(std::thread::hardware_concurrency())));
    for (int b = 0; b < 2; ++b)
      ck(cudaEventCreateWithFlags(&ev_[b], cudaEventDisableTiming), "cudaEventCreate");
    ck(cudaStreamCreateWithFlags(&st_, cudaStreamNonBlocking), "cudaStreamCreate");
    buffer(0);
    if (bytes == 0 || bytes > chunk_) buffer(1);
  }
  ~Stager() {
    cudaStreamSynchronize(st_);
    for (int b = 0; b < 2; ++b) {
      if (buf_[b]) cudaFreeHost(buf_[b]);
      cudaEventDestroy(ev_[b]);
    }
    cudaStreamDestroy(st_);
  }
  Stager(const Stager&) = delete;
  Stager& operator=(const Stager&) = delete;

  /// Bytes per pinned chunk, and how many chunks have been allocated so far (1 or 2).
  std::size_t chunk_bytes() const { return chunk_; }
  int buffers_allocated() const { return (buf_[0] != nullptr) + (buf_[1] != nullptr); }

  /// One rectangle of a host -> device copy: `cols` columns of `width` bytes.
  struct Piece {
    void* dst;
    std::size_t dpitch;
    const void* src;
    std::size_t spitch, width, cols;
  };

  /// dst (device, pitch dpitch bytes) := src (host, spitch) for `cols` columns of `width` bytes.
  void h2d(void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width,
           std::size_t cols) {
    const Piece p{dst, dpitch, src, spitch, width, cols};
    h2d(&p, 1);
  }

  /// The pieces in order, packed into the chunks (a chunk's DMAs run while the next is filled).
  void h2d(const Piece* pcs, std::size_t np) {
    int b = 0;
    std::size_t off = 0;
    bool used[2] = {false, false};
    for (std::size_t k = 0; k < np; ++k) {
      const Piece& q = pcs[k];
      if (q.width == 0 || q.cols == 0) continue;
      if (q.width > chunk_) {
        ck(cudaStreamSynchronize(st_), "staged upload");
        ck(cudaMemcpy2D(q.dst, q.dpitch, q.src, q.spitch, q.width, q.cols, cudaMemcpyHostToDevice),
           "upload");
        continue;
      }
      const std::size_t per = chunk_ / q.width;
      for (std::size_t c0 = 0; c0 < q.cols; c0 += per) {
        const std::size_t nc = std::min(per, q.cols - c0), bytes = nc * q.width;
        if (off + bytes > chunk_) {  // this chunk is full: its DMAs go, the other one is filled
          ck(cudaEventRecord(ev_[b], st_), "cudaEventRecord");
          used[b] = true;
          b ^= 1;
          off = 0;
          if (used[b]) ck(cudaEventSynchronize(ev_[b]), "staging event");
        }
        char* p = static_cast<char*>(buffer(b)) + off;
        const char* s = static_cast<const char*>(q.src) + c0 * q.spitch;
        parallel_for(std::int64_t(nc), threads_, 16, [&](std::int64_t jb, std::int64_t je) {
          for (std::int64_t j = jb; j < je; ++j)
            std::memcpy(p + std::size_t(j) * q.width, s + std::size_t(j) * q.spitch, q.width);
        });
        ck(cudaMemcpy2DAsync(static_cast<char*>(q.dst) + c0 * q.dpitch, q.dpitch, p, q.width,
                             q.width, nc, cudaMemcpyHostToDevice, st_),
           "staged upload");
        off += bytes;
      }
    }
    ck(cudaStreamSynchronize(st_), "staged upload");
  }

  /// dst (host, dpitch) := src (device, spitch) for `cols` columns of `width` bytes.
  void d2h(void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width,
           std::size_t cols) {
    if (width == 0 || cols == 0) return;
    if (width > chunk_) {
      ck(cudaMemcpy2D(dst, dpitch, src, spitch, width, cols, cudaMemcpyDeviceToHost), "download");
      return;
    }
    const std::size_t per = chunk_ / width;
    auto issue = [&](std::size_t c0, int b) {
      const std::size_t nc = std::min(per, cols - c0);
      ck(cudaMemcpy2DAsync(buffer(b), width, static_cast<const char*>(src) + c0 * spitch, spitch,
                           width, nc, cudaMemcpyDeviceToHost, st_),
         "staged download");
      ck(cudaEventRecord(ev_[b], st_), "cudaEventRecord");
    };
    issue(0, 0);
    int b = 0;
    for (std::size_t c0 = 0; c0 < cols; c0 += per, b ^= 1) {
      if (c0 + per < cols) issue(c0 + per, b ^ 1);
      ck(cudaEventSynchronize(ev_[b]), "staging event");
      const std::size_t nc = std::min(per, cols - c0);
      const char* p = static_cast<const char*>(buf_[b]);
      char* d = static_cast<char*>(dst) + c0 * dpitch;
      parallel_for(std::int64_t(nc), threads_, 16, [&](std::int64_t jb, std::int64_t je) {
        for (std::int64_t j = jb; j < je; ++j)
          std::memcpy(d + std::size_t(j) * dpitch, p + std::size_t(j) * width, width);
      });
    }
  }

 private:
  /// Pinned chunk b, allocated on first use.
  void* buffer(int b) {
    if (!buf_[b])
      ck(cudaHostAlloc(&buf_[b], chunk_, cudaHostAllocDefault), "cudaHostAlloc staging");
    return buf_[b];
  }
  void* buf_[2] = {nullptr, nullptr};
  cudaEvent_t ev_[2] = {};
  cudaStream_t st_ = nullptr;
  int threads_ = 1;
  std::size_t chunk_ = std::size_t(32) << 20;
};

}  // namespace staged
}  // namespace eigsolve
