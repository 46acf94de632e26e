// The summary of a kernel trace (EIGSOLVE_GPU_TRACE, bench/gpu/kernel_trace.cu): pure host code,
// tested without a GPU (tests/bench/test_trace_summary.cpp).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace eigsolve {
namespace gpu_bench {

struct KernelInterval {
  std::uint64_t start = 0, end = 0;  ///< ns
  int name = 0;                      ///< index into the names given to summarize_trace
  std::uint32_t stream = 0;          ///< CUPTI's stream id
  std::uint64_t submitted = 0;       ///< ns, when the launch reached the GPU; 0: not known
};

struct TraceRow {
  std::string name;
  long launches = 0;
  double total_s = 0;
  double idle_before_s = 0;  ///< GPU idle time that ended with this kernel's launches
};

/// One gap on a stream: the stream's previous kernel had ended, its next one had not started.
struct GapRow {
  double at_s = 0;     ///< its start, from the trace's first kernel start
  double len_s = 0;    ///< its length
  double late_s = -1;  ///< of it, host late (the next launch had not reached the GPU); -1: unknown
  std::string before, after;  ///< the kernels that end and begin it
};

/// One stream's kernels: on a stream they run one after the other, so span - busy is the time the
/// stream's next kernel was not running although the previous one had ended (host waits, launch
/// latency, or no room on the SMs for it).
struct StreamRow {
  std::uint32_t stream = 0;
  long launches = 0;
  double span_s = 0;  ///< its first start to its last end
  double busy_s = 0;  ///< the union of its kernels' intervals
  double gaps_s = 0;  ///< span - busy
  /// With the launch times known for every kernel on it (CUPTI latency timestamps), the gaps
  /// split into host_late_s (a kernel reached the GPU after the one before it had ended) and
  /// gpu_wait_s (it had reached the GPU but started later than the end of the one before it:
  /// no room on the SMs, or the front end busy).
  bool split_known = false;
  double host_late_s = 0, gpu_wait_s = 0;
  std::string top;              ///< the kernel with the largest total on it
  double from_s = 0, to_s = 0;  ///< its first start and last end, from the trace's first start
  std::vector<GapRow> gaps;     ///< its largest gaps (at most kMaxGaps), largest first
};

/// How many of each stream's gaps summarize_trace keeps.
constexpr std::size_t kMaxGaps = 5;

struct TraceSummary {
  std::size_t kernels = 0;
  double span_s = 0;               ///< first start to last end
  double busy_s = 0;               ///< the union of the intervals: some kernel running
  double idle_s = 0;               ///< span - busy; the sum of every row's idle_before_s
  std::vector<TraceRow> rows;      ///< by total time, largest first (ties: by name)
  std::vector<StreamRow> streams;  ///< by busy time, largest first (ties: by stream id)
};

/// Intervals in any order; each idle gap (no kernel running) is charged to the kernel whose start
/// ends it.
TraceSummary summarize_trace(std::vector<KernelInterval> v, const std::vector<std::string>& names);

/// The summary under `title`, at most max_rows rows.
void print_trace_summary(std::FILE* out, const char* title, const TraceSummary& s,
                         std::size_t max_rows);

}  // namespace gpu_bench
}  // namespace eigsolve
