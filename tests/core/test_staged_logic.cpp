// core/cuda/staged_copy.cuh's chunking on any machine: compiled against tests/core/mock_cuda
// (host memory for the device, synchronous copies), so CI without a GPU checks which chunk size
// a Stager picks, when it allocates its second pinned chunk, and that every byte lands where it
// should (h2d of several pieces, d2h, padding between columns untouched) for chunks smaller and
// larger than a column and than the whole copy. tests/gpu/test_gpu_staged.cu runs the same
// kinds of copies on a device.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "core/cuda/staged_copy.cuh"

namespace {

using eigsolve::staged::Stager;

struct Result {
  std::size_t chunk;
  int buffers;
  int allocs;  ///< cudaHostAlloc calls by this Stager
};

/// Host columns (ld width + 40) -> "device" (ld width + 8) -> host (ld width + 24), the upload
/// through the Stager (or a plain copy when !stage_up), the download through it.
Result round_trip(std::size_t width, std::size_t cols, std::size_t hint, bool stage_up = true) {
  const std::size_t hld = width + 40, dld = width + 8, hld2 = width + 24;
  std::vector<unsigned char> src(hld * cols), dev(dld * cols, 0x11), dst(hld2 * cols, 0xAB);
  std::uint32_t x = 12345;
  for (auto& c : src) {
    x = x * 1664525u + 1013904223u;
    c = static_cast<unsigned char>(x >> 24);
  }
  const int a0 = mock_cuda::host_allocs;
  Result r{};
  {
    Stager sg(2, hint);
    if (stage_up)
      sg.h2d(dev.data(), dld, src.data(), hld, width, cols);
    else
      cudaMemcpy2D(dev.data(), dld, src.data(), hld, width, cols, cudaMemcpyHostToDevice);
    sg.d2h(dst.data(), hld2, dev.data(), dld, width, cols);
    r.chunk = sg.chunk_bytes();
    r.buffers = sg.buffers_allocated();
  }
  r.allocs = mock_cuda::host_allocs - a0;
  for (std::size_t j = 0; j < cols; ++j) {
    for (std::size_t i = 0; i < width; ++i) {
      EXPECT_EQ(dev[j * dld + i], src[j * hld + i]) << "upload: column " << j << " byte " << i;
      EXPECT_EQ(dst[j * hld2 + i], src[j * hld + i]) << "download: column " << j << " byte " << i;
      if (dst[j * hld2 + i] != src[j * hld + i]) return r;
    }
    for (std::size_t i = width; i < dld; ++i)
      EXPECT_EQ(dev[j * dld + i], 0x11) << "device padding of column " << j;
    for (std::size_t i = width; i < hld2; ++i)
      EXPECT_EQ(dst[j * hld2 + i], 0xAB) << "host padding of column " << j;
  }
  return r;
}

class StagedLogic : public ::testing::Test {
 protected:
  void SetUp() override { unsetenv("EIGSOLVE_GPU_STAGED_CHUNK"); }
  void TearDown() override { unsetenv("EIGSOLVE_GPU_STAGED_CHUNK"); }
};

TEST_F(StagedLogic, OneChunkOfTheCopysSizeWhenItFits) {
  Result r = round_trip(1024, 128, 1024 * 128);  // d, n = 128: 128 KiB
  EXPECT_EQ(r.chunk, std::size_t(128) << 10);
  EXPECT_EQ(r.buffers, 1);
  EXPECT_EQ(r.allocs, 1);
  r = round_trip(1000, 3, 3000);  // rounded up to 4 KiB
  EXPECT_EQ(r.chunk, 4096u);
  EXPECT_EQ(r.buffers, 1);
}

TEST_F(StagedLogic, TwoFixedChunksForLargeCopiesAndWithoutAHint) {
  Result r = round_trip(std::size_t(1) << 20, 40, std::size_t(40) << 20);
  EXPECT_EQ(r.chunk, std::size_t(32) << 20);
  EXPECT_EQ(r.buffers, 2);
  EXPECT_EQ(r.allocs, 2);
  r = round_trip(4096, 10, 0);  // no hint: as before session 48
  EXPECT_EQ(r.chunk, std::size_t(32) << 20);
  EXPECT_EQ(r.buffers, 2);
}

TEST_F(StagedLogic, AHintBelowTheCopyAllocatesTheSecondChunkWhenNeeded) {
  // 150000 bytes through 12 KiB chunks (4 columns each): the second chunk appears in the upload,
  // or in a download alone
  for (bool up : {true, false}) {
    const Result r = round_trip(3000, 50, 10000, up);
    EXPECT_EQ(r.chunk, 12288u);
    EXPECT_EQ(r.buffers, 2) << up;
    EXPECT_EQ(r.allocs, 2) << up;
  }
  // a column wider than the chunk: plain copies, one chunk only
  const Result r = round_trip(20000, 5, 10000);
  EXPECT_EQ(r.chunk, 12288u);
  EXPECT_EQ(r.buffers, 1);
}

TEST_F(StagedLogic, TheEnvironmentSetsTheChunkExactly) {
  setenv("EIGSOLVE_GPU_STAGED_CHUNK", "5000", 1);
  Result r = round_trip(1024, 64, 1024 * 64);  // 4 columns per chunk, 16 chunks
  EXPECT_EQ(r.chunk, 5000u);
  EXPECT_EQ(r.buffers, 2);
  setenv("EIGSOLVE_GPU_STAGED_CHUNK", "33554432", 1);  // the old size, for A/B runs
  r = round_trip(1024, 16, 1024 * 16);
  EXPECT_EQ(r.chunk, std::size_t(32) << 20);
  EXPECT_EQ(r.buffers, 1);
  setenv("EIGSOLVE_GPU_STAGED_CHUNK", "100", 1);  // at least 4096
  r = round_trip(1024, 16, 1024 * 16);
  EXPECT_EQ(r.chunk, 4096u);
}

TEST_F(StagedLogic, PiecesPackedIntoChunks) {
  // the back-transformation's upload: several rectangles in one h2d, chunks switching mid-piece
  std::vector<unsigned char> a(5000), b(7000), c(64), da(5000, 0), db(7000, 0), dc(64, 0);
  for (std::size_t i = 0; i < a.size(); ++i)
    a[i] = static_cast<unsigned char>(i * 3);
  for (std::size_t i = 0; i < b.size(); ++i)
    b[i] = static_cast<unsigned char>(i * 5 + 1);
  for (std::size_t i = 0; i < c.size(); ++i)
    c[i] = static_cast<unsigned char>(i + 7);
  const Stager::Piece p[3] = {{da.data(), 500, a.data(), 500, 500, 10},
                              {dc.data(), 8, c.data(), 8, 8, 0},  // empty: skipped
                              {db.data(), 700, b.data(), 700, 700, 10}};
  Stager sg(1, 4000);
  sg.h2d(p, 3);
  EXPECT_EQ(sg.chunk_bytes(), 4096u);
  EXPECT_EQ(sg.buffers_allocated(), 2);
  EXPECT_EQ(da, a);
  EXPECT_EQ(db, b);
  EXPECT_EQ(dc, std::vector<unsigned char>(64, 0));
}

}  // namespace
