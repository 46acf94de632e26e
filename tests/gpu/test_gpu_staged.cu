// core/cuda/staged_copy.cuh: the pinned chunks follow the size of the copy (a small copy no
// longer pins two 32 MiB chunks), the second chunk is allocated only when a copy needs it, and
// the bytes that arrive are the bytes sent whatever the chunking.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "core/cuda/staged_copy.cuh"
#include "gpu_guard.hpp"

namespace {

using eigsolve::staged::Stager;

void ck(cudaError_t st) {
  ASSERT_EQ(st, cudaSuccess) << cudaGetErrorString(st);
}

/// Host columns (ld hld bytes) -> device (ld dld) -> other host columns (ld hld + 24), through
/// one Stager built with the hint (the upload by cudaMemcpy2D instead when !stage_up: the
/// download alone through it); returns the Stager's chunk and buffer count in *chunk/*bufs.
void round_trip(std::size_t width, std::size_t cols, std::size_t hint, std::size_t* chunk,
                int* bufs, bool stage_up = true) {
  const std::size_t hld = width + 40, dld = width + 8, hld2 = width + 24;
  std::vector<unsigned char> src(hld * cols), dst(hld2 * cols, 0xAB);
  std::uint32_t x = 12345;
  for (auto& c : src) {
    x = x * 1664525u + 1013904223u;
    c = static_cast<unsigned char>(x >> 24);
  }
  void* d = nullptr;
  ck(cudaMalloc(&d, dld * cols));
  {
    Stager sg(2, hint);
    if (stage_up)
      sg.h2d(d, dld, src.data(), hld, width, cols);
    else
      ck(cudaMemcpy2D(d, dld, src.data(), hld, width, cols, cudaMemcpyHostToDevice));
    sg.d2h(dst.data(), hld2, d, dld, width, cols);
    *chunk = sg.chunk_bytes();
    *bufs = sg.buffers_allocated();
  }
  ck(cudaFree(d));
  for (std::size_t j = 0; j < cols; ++j) {
    for (std::size_t i = 0; i < width; ++i)
      ASSERT_EQ(dst[j * hld2 + i], src[j * hld + i]) << "column " << j << " byte " << i;
    for (std::size_t i = width; i < hld2; ++i)
      ASSERT_EQ(dst[j * hld2 + i], 0xAB) << "padding of column " << j << " was written";
  }
}

TEST(GpuStaged, ChunksFollowTheCopySize) {
  EIGSOLVE_REQUIRE_DEVICE();
  unsetenv("EIGSOLVE_GPU_STAGED_CHUNK");
  std::size_t chunk = 0;
  int bufs = 0;
  // n = 128 doubles, 128 columns: 128 KiB in one chunk of that size, one buffer.
  round_trip(1024, 128, 1024 * 128, &chunk, &bufs);
  EXPECT_EQ(chunk, std::size_t(128) << 10);
  EXPECT_EQ(bufs, 1);
  // Not a multiple of 4 KiB: rounded up.
  round_trip(1000, 3, 3000, &chunk, &bufs);
  EXPECT_EQ(chunk, std::size_t(4096));
  EXPECT_EQ(bufs, 1);
  // Larger than 32 MiB: the fixed 32 MiB chunks, both used.
  round_trip(std::size_t(1) << 20, 40, std::size_t(40) << 20, &chunk, &bufs);
  EXPECT_EQ(chunk, std::size_t(32) << 20);
  EXPECT_EQ(bufs, 2);
  // No hint: 32 MiB, both buffers at once (as before session 48).
  round_trip(4096, 10, 0, &chunk, &bufs);
  EXPECT_EQ(chunk, std::size_t(32) << 20);
  EXPECT_EQ(bufs, 2);
}

TEST(GpuStaged, AHintBelowTheCopyOnlyCostsMoreChunks) {
  EIGSOLVE_REQUIRE_DEVICE();
  unsetenv("EIGSOLVE_GPU_STAGED_CHUNK");
  std::size_t chunk = 0;
  int bufs = 0;
  // 150000 bytes through 12 KiB chunks: one buffer at first, the second when the copy needs it
  // (in the upload, then in a download alone)
  round_trip(3000, 50, 10000, &chunk, &bufs);
  EXPECT_EQ(chunk, std::size_t(12288));
  EXPECT_EQ(bufs, 2);
  round_trip(3000, 50, 10000, &chunk, &bufs, false);
  EXPECT_EQ(chunk, std::size_t(12288));
  EXPECT_EQ(bufs, 2);
  round_trip(20000, 5, 10000, &chunk, &bufs);  // a column wider than the chunk: the plain copy
  EXPECT_EQ(chunk, std::size_t(12288));
}

TEST(GpuStaged, TheEnvironmentSetsTheChunkExactly) {
  EIGSOLVE_REQUIRE_DEVICE();
  setenv("EIGSOLVE_GPU_STAGED_CHUNK", "33554432", 1);
  std::size_t chunk = 0;
  int bufs = 0;
  round_trip(1024, 16, 1024 * 16, &chunk, &bufs);
  EXPECT_EQ(chunk, std::size_t(32) << 20);
  setenv("EIGSOLVE_GPU_STAGED_CHUNK", "5000", 1);
  round_trip(1024, 64, 1024 * 64, &chunk, &bufs);
  EXPECT_EQ(chunk, std::size_t(5000));
  EXPECT_EQ(bufs, 2);
  unsetenv("EIGSOLVE_GPU_STAGED_CHUNK");
}

}  // namespace
