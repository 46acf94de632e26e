// The kernel trace's summary (bench/gpu/trace_summary.cpp, behind EIGSOLVE_GPU_TRACE): span, busy
// time as the union of overlapping intervals, idle gaps charged to the kernel that ends them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bench/gpu/trace_summary.hpp"

using namespace eigsolve::gpu_bench;

TEST(TraceSummary, UnionGapsAndRows) {
  // ns:   a [0,100)   b [50,150) (overlaps a)   gap 150..200   a [200,260)   gap 260..300
  //       c [300,400) and b [310,320) inside c: given out of order
  const std::vector<std::string> names = {"a", "b", "c"};
  std::vector<KernelInterval> v = {
      {300, 400, 2}, {0, 100, 0}, {200, 260, 0}, {50, 150, 1}, {310, 320, 1}};
  const TraceSummary s = summarize_trace(v, names);
  EXPECT_EQ(s.kernels, 5u);
  EXPECT_DOUBLE_EQ(s.span_s, 400e-9);
  EXPECT_DOUBLE_EQ(s.busy_s, (150 + 60 + 100) * 1e-9);
  EXPECT_DOUBLE_EQ(s.idle_s, (50 + 40) * 1e-9);
  ASSERT_EQ(s.rows.size(), 3u);
  // totals: a 160, b 110, c 100 (ns)
  EXPECT_EQ(s.rows[0].name, "a");
  EXPECT_EQ(s.rows[0].launches, 2);
  EXPECT_DOUBLE_EQ(s.rows[0].total_s, 160e-9);
  EXPECT_DOUBLE_EQ(s.rows[0].idle_before_s, 50e-9);  // the gap 150..200 ends with a's start
  EXPECT_EQ(s.rows[1].name, "b");
  EXPECT_DOUBLE_EQ(s.rows[1].total_s, 110e-9);
  EXPECT_DOUBLE_EQ(s.rows[1].idle_before_s, 0.0);  // both of b's starts fall while others run
  EXPECT_EQ(s.rows[2].name, "c");
  EXPECT_DOUBLE_EQ(s.rows[2].idle_before_s, 40e-9);
  double idle = 0;
  for (const TraceRow& r : s.rows)
    idle += r.idle_before_s;
  EXPECT_DOUBLE_EQ(idle, s.idle_s);
}

TEST(TraceSummary, PerStreamGaps) {
  // stream 7: [0,100) [150,200) [200,260): span 260, busy 210, gaps 50 (k0 100 ns, k1 110 ns)
  // stream 3: [20,400): one kernel, no gaps; the busiest stream comes first
  const std::vector<std::string> names = {"k0", "k1", "k2"};
  const TraceSummary s =
      summarize_trace({{150, 200, 1, 7}, {0, 100, 0, 7}, {20, 400, 2, 3}, {200, 260, 1, 7}}, names);
  ASSERT_EQ(s.streams.size(), 2u);
  EXPECT_EQ(s.streams[0].stream, 3u);
  EXPECT_EQ(s.streams[0].launches, 1);
  EXPECT_DOUBLE_EQ(s.streams[0].gaps_s, 0.0);
  EXPECT_EQ(s.streams[0].top, "k2");
  EXPECT_EQ(s.streams[1].stream, 7u);
  EXPECT_EQ(s.streams[1].launches, 3);
  EXPECT_DOUBLE_EQ(s.streams[1].span_s, 260e-9);
  EXPECT_DOUBLE_EQ(s.streams[1].busy_s, 210e-9);
  EXPECT_DOUBLE_EQ(s.streams[1].gaps_s, 50e-9);
  EXPECT_EQ(s.streams[1].top, "k1");
  EXPECT_FALSE(s.streams[1].split_known);  // no launch times given
  // where each stream runs, from the first start (0): stream 3 20..400, stream 7 0..260
  EXPECT_DOUBLE_EQ(s.streams[0].from_s, 20e-9);
  EXPECT_DOUBLE_EQ(s.streams[0].to_s, 400e-9);
  EXPECT_DOUBLE_EQ(s.streams[1].from_s, 0.0);
  EXPECT_DOUBLE_EQ(s.streams[1].to_s, 260e-9);
  EXPECT_TRUE(s.streams[0].gaps.empty());
  ASSERT_EQ(s.streams[1].gaps.size(), 1u);
  const GapRow& g = s.streams[1].gaps[0];
  EXPECT_DOUBLE_EQ(g.at_s, 100e-9);
  EXPECT_DOUBLE_EQ(g.len_s, 50e-9);
  EXPECT_DOUBLE_EQ(g.late_s, -1.0);  // unknown
  EXPECT_EQ(g.before, "k0");
  EXPECT_EQ(g.after, "k1");
}

TEST(TraceSummary, LargestGapsKeptInOrder) {
  // one stream, 8 kernels of 10 ns with gaps 5, 30, 10, 30, 1, 20, 2 after them: 7 gaps, the 5
  // largest kept, largest first (two of 30: the earlier first)
  const std::vector<std::uint64_t> gap = {5, 30, 10, 30, 1, 20, 2};
  std::vector<KernelInterval> v;
  std::uint64_t t = 1000;
  for (int k = 0; k < 8; ++k) {
    v.push_back({t, t + 10, k, 9});
    t += 10 + (k < 7 ? gap[std::size_t(k)] : 0);
  }
  std::vector<std::string> names;
  for (int k = 0; k < 8; ++k)
    names.push_back("k" + std::to_string(k));
  const TraceSummary s = summarize_trace(v, names);
  ASSERT_EQ(s.streams.size(), 1u);
  const std::vector<GapRow>& g = s.streams[0].gaps;
  ASSERT_EQ(g.size(), kMaxGaps);
  const double want_len[] = {30, 30, 20, 10, 5};
  const char* want_before[] = {"k1", "k3", "k5", "k2", "k0"};
  for (std::size_t i = 0; i < kMaxGaps; ++i) {
    EXPECT_DOUBLE_EQ(g[i].len_s, want_len[i] * 1e-9) << i;
    EXPECT_EQ(g[i].before, want_before[i]) << i;
  }
  EXPECT_EQ(g[0].after, "k2");
  EXPECT_DOUBLE_EQ(g[0].at_s, (10 + 5 + 10) * 1e-9);  // k1 ends 25 ns after k0 starts
  EXPECT_DOUBLE_EQ(s.streams[0].from_s, 0.0);
}

TEST(TraceSummary, GapsSplitIntoHostLateAndGpuWait) {
  // one stream: [0,100); the next reached the GPU at 130 and started at 170 (30 late, 40 waiting);
  // [170,200); the next reached it at 150 (early) and started at 260 (60 waiting); [260,300)
  const TraceSummary s =
      summarize_trace({{0, 100, 0, 5, 1}, {170, 200, 0, 5, 130}, {260, 300, 0, 5, 150}}, {"k"});
  ASSERT_EQ(s.streams.size(), 1u);
  const StreamRow& r = s.streams[0];
  EXPECT_TRUE(r.split_known);
  EXPECT_DOUBLE_EQ(r.gaps_s, 130e-9);
  EXPECT_DOUBLE_EQ(r.host_late_s, 30e-9);
  EXPECT_DOUBLE_EQ(r.gpu_wait_s, 100e-9);
  EXPECT_DOUBLE_EQ(r.host_late_s + r.gpu_wait_s, r.gaps_s);
  ASSERT_EQ(r.gaps.size(), 2u);  // 70 ns (30 late), then 60 ns (0 late: the launch was early)
  EXPECT_DOUBLE_EQ(r.gaps[0].len_s, 70e-9);
  EXPECT_DOUBLE_EQ(r.gaps[0].late_s, 30e-9);
  EXPECT_DOUBLE_EQ(r.gaps[1].len_s, 60e-9);
  EXPECT_DOUBLE_EQ(r.gaps[1].late_s, 0.0);
}

TEST(TraceSummary, EmptyAndSingle) {
  EXPECT_EQ(summarize_trace({}, {}).kernels, 0u);
  const TraceSummary s = summarize_trace({{10, 30, 0}}, {"k"});
  EXPECT_DOUBLE_EQ(s.span_s, 20e-9);
  EXPECT_DOUBLE_EQ(s.busy_s, 20e-9);
  EXPECT_DOUBLE_EQ(s.idle_s, 0.0);
  ASSERT_EQ(s.rows.size(), 1u);
  EXPECT_EQ(s.rows[0].launches, 1);
}
