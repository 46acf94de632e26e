#include "bench/gpu/trace_summary.hpp"

#include <algorithm>
#include <map>

namespace eigsolve {
namespace gpu_bench {

namespace {

/// The union of intervals added in order of their starts.
struct IntervalUnion {
  bool any = false;
  std::uint64_t first = 0, cs = 0, ce = 0, done = 0;  // ce: the latest end so far
  /// Adds [b, e); returns the gap since the latest end before it (0: none).
  std::uint64_t add(std::uint64_t b, std::uint64_t e) {
    if (!any) {
      any = true;
      first = cs = b;
      ce = e;
      return 0;
    }
    if (b <= ce) {
      ce = std::max(ce, e);
      return 0;
    }
    done += ce - cs;
    const std::uint64_t gap = b - ce;
    cs = b;
    ce = e;
    return gap;
  }
  std::uint64_t busy() const { return done + (ce - cs); }
  std::uint64_t span() const { return ce - first; }
};

}  // namespace

TraceSummary summarize_trace(std::vector<KernelInterval> v, const std::vector<std::string>& names) {
  TraceSummary s;
  s.kernels = v.size();
  if (v.empty()) return s;
  std::sort(v.begin(), v.end(), [](const KernelInterval& a, const KernelInterval& b) {
    return a.start < b.start || (a.start == b.start && a.end < b.end);
  });
  struct PerStream {
    long n = 0;
    IntervalUnion u;
    std::uint64_t late = 0, wait = 0;
    bool known = true;
    std::map<int, std::uint64_t> by_name;
    int last = -1;  // the name of the kernel with the latest end so far
    std::uint64_t last_end = 0;
    struct Gap {
      std::uint64_t at, len, late;
      bool known;
      int before, after;
    };
    std::vector<Gap> gaps;  // the largest kMaxGaps, largest first (ties: the earlier)
  };
  std::map<int, TraceRow> by;
  std::map<std::uint32_t, PerStream> st;
  IntervalUnion all;
  for (const KernelInterval& x : v) {
    TraceRow& r = by[x.name];
    ++r.launches;
    r.total_s += double(x.end - x.start) * 1e-9;
    r.idle_before_s += double(all.add(x.start, x.end)) * 1e-9;
    PerStream& a = st[x.stream];
    ++a.n;
    a.known = a.known && x.submitted != 0;
    a.by_name[x.name] += x.end - x.start;
    if (const std::uint64_t gap = a.u.add(x.start, x.end)) {
      // the gap [x.start - gap, x.start): late until the launch reached the GPU, waiting after
      const std::uint64_t prev = x.start - gap;
      const std::uint64_t sub = std::min(std::max(x.submitted, prev), x.start);
      a.late += sub - prev;
      a.wait += x.start - sub;
      const PerStream::Gap g{prev, gap, sub - prev, x.submitted != 0, a.last, x.name};
      auto pos = std::find_if(a.gaps.begin(), a.gaps.end(),
                              [&](const PerStream::Gap& o) { return g.len > o.len; });
      if (std::size_t(pos - a.gaps.begin()) < kMaxGaps) {
        a.gaps.insert(pos, g);
        if (a.gaps.size() > kMaxGaps) a.gaps.pop_back();
      }
    }
    if (a.last < 0 || x.end >= a.last_end) {
      a.last = x.name;
      a.last_end = x.end;
    }
  }
  const std::uint64_t t0 = v.front().start;
  auto name_of = [&](int id) {
    return id >= 0 && std::size_t(id) < names.size() ? names[std::size_t(id)] : std::string("?");
  };
  for (const auto& [id, a] : st) {
    StreamRow r;
    r.stream = id;
    r.launches = a.n;
    r.span_s = double(a.u.span()) * 1e-9;
    r.busy_s = double(a.u.busy()) * 1e-9;
    r.gaps_s = double(a.u.span() - a.u.busy()) * 1e-9;
    r.split_known = a.known;
    if (a.known) {
      r.host_late_s = double(a.late) * 1e-9;
      r.gpu_wait_s = double(a.wait) * 1e-9;
    }
    int top = -1;
    std::uint64_t best = 0;
    for (const auto& [nm, t] : a.by_name)
      if (top < 0 || t > best) top = nm, best = t;
    r.top = top >= 0 && std::size_t(top) < names.size() ? names[std::size_t(top)] : "?";
    r.from_s = double(a.u.first - t0) * 1e-9;
    r.to_s = double(a.u.ce - t0) * 1e-9;
    for (const PerStream::Gap& g : a.gaps)
      r.gaps.push_back({double(g.at - t0) * 1e-9, double(g.len) * 1e-9,
                        g.known && a.known ? double(g.late) * 1e-9 : -1.0, name_of(g.before),
                        name_of(g.after)});
    s.streams.push_back(std::move(r));
  }
  std::sort(s.streams.begin(), s.streams.end(), [](const StreamRow& a, const StreamRow& b) {
    return a.busy_s > b.busy_s || (a.busy_s == b.busy_s && a.stream < b.stream);
  });
  s.span_s = double(all.span()) * 1e-9;
  s.busy_s = double(all.busy()) * 1e-9;
  s.idle_s = s.span_s - s.busy_s;
  for (auto& [id, r] : by) {
    r.name = id >= 0 && std::size_t(id) < names.size() ? names[std::size_t(id)] : "?";
    s.rows.push_back(std::move(r));
  }
  std::sort(s.rows.begin(), s.rows.end(), [](const TraceRow& a, const TraceRow& b) {
    return a.total_s > b.total_s || (a.total_s == b.total_s && a.name < b.name);
  });
  return s;
}

namespace {
/// A kernel's name without "void " and "(anonymous namespace)::", for the gap lines.
std::string short_name(std::string s) {
  for (const std::string cut : {"void ", "(anonymous namespace)::"})
    if (s.compare(0, cut.size(), cut) == 0) s.erase(0, cut.size());
  return s;
}
}  // namespace

void print_trace_summary(std::FILE* out, const char* title, const TraceSummary& s,
                         std::size_t max_rows) {
  if (s.kernels == 0) {
    std::fprintf(out, "eigsolve trace %s: no kernel records\n", title);
    return;
  }
  std::fprintf(out,
               "eigsolve trace %s: %zu kernels, span %.4f s, some kernel running %.4f s, idle "
               "%.4f s\n",
               title, s.kernels, s.span_s, s.busy_s, s.idle_s);
  std::fprintf(out, "  %9s %10s %9s %6s %12s  kernel\n", "launches", "total s", "mean us", "span%",
               "idle before s");
  for (std::size_t i = 0; i < s.rows.size() && i < max_rows; ++i) {
    const TraceRow& r = s.rows[i];
    std::fprintf(out, "  %9ld %10.4f %9.2f %6.1f %12.4f  %s\n", r.launches, r.total_s,
                 r.total_s * 1e6 / double(r.launches),
                 s.span_s > 0 ? 100.0 * r.total_s / s.span_s : 0.0, r.idle_before_s,
                 r.name.c_str());
  }
  std::fprintf(
      out, "  per stream (span - busy = gaps: host waits, launch latency, no room on the SMs)\n");
  std::fprintf(out, "  %9s %9s %10s %10s %10s %11s %10s %8s %8s  largest kernel\n", "stream",
               "launches", "span s", "busy s", "gaps s", "host late s", "GPU wait s", "from s",
               "to s");
  for (std::size_t i = 0; i < s.streams.size() && i < 8; ++i) {
    const StreamRow& r = s.streams[i];
    char late[32] = "-", wait[32] = "-";
    if (r.split_known) {
      std::snprintf(late, sizeof late, "%.4f", r.host_late_s);
      std::snprintf(wait, sizeof wait, "%.4f", r.gpu_wait_s);
    }
    std::fprintf(out, "  %9u %9ld %10.4f %10.4f %10.4f %11s %10s %8.4f %8.4f  %s\n", r.stream,
                 r.launches, r.span_s, r.busy_s, r.gaps_s, late, wait, r.from_s, r.to_s,
                 r.top.c_str());
  }
  // The largest gaps of the three busiest streams: where a stream on the critical path waited.
  for (std::size_t i = 0; i < s.streams.size() && i < 3; ++i) {
    const StreamRow& r = s.streams[i];
    for (const GapRow& g : r.gaps) {
      char late[48] = "";
      if (g.late_s >= 0) std::snprintf(late, sizeof late, " (host late %.4f s)", g.late_s);
      std::fprintf(out, "  stream %u gap at %.4f s: %.4f s%s after %.70s, before %.70s\n", r.stream,
                   g.at_s, g.len_s, late, short_name(g.before).c_str(),
                   short_name(g.after).c_str());
    }
  }
}

}  // namespace gpu_bench
}  // namespace eigsolve
