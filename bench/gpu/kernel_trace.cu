// EIGSOLVE_GPU_TRACE=1 (bench/gpu/kernel_trace.hpp): CUPTI activity records of every kernel,
// loaded with dlopen so that nothing links against CUPTI. Nsight Systems is not installed on the
// machine the GPU numbers come from, and EIGSOLVE_GPU_PROFILE serialises the steps; this gives the
// unserialised per-kernel split.
#include <cuda_runtime.h>
#include <cupti_activity.h>
#include <cxxabi.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "bench/gpu/kernel_trace.hpp"
#include "core/errors.hpp"

namespace eigsolve {
namespace gpu_bench {
namespace {

struct Cupti {
  void* lib = nullptr;
  CUptiResult (*register_callbacks)(CUpti_BuffersCallbackRequestFunc,
                                    CUpti_BuffersCallbackCompleteFunc) = nullptr;
  CUptiResult (*enable)(CUpti_ActivityKind) = nullptr;
  CUptiResult (*disable)(CUpti_ActivityKind) = nullptr;
  CUptiResult (*flush_all)(uint32_t) = nullptr;
  CUptiResult (*next_record)(uint8_t*, size_t, CUpti_Activity**) = nullptr;
};

Cupti& cupti() {
  static Cupti c;
  return c;
}

struct Interval {
  std::uint64_t start, end;
  const char* name;  ///< CUPTI's string, shared by every record of the kernel
};

std::mutex g_mu;
std::vector<Interval> g_recs;
std::size_t g_dropped = 0;

void CUPTIAPI buffer_requested(uint8_t** buf, size_t* size, size_t* max_records) {
  constexpr size_t kBytes = size_t(8) << 20;
  *buf = static_cast<uint8_t*>(std::aligned_alloc(8, kBytes));
  *size = *buf ? kBytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buf, size_t, size_t valid) {
  std::lock_guard<std::mutex> lock(g_mu);
  CUpti_Activity* r = nullptr;
  while (valid > 0 && cupti().next_record(buf, valid, &r) == CUPTI_SUCCESS) {
    if (r->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) continue;
    const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(r);
    g_recs.push_back({k->start, k->end, k->name});
  }
  std::free(buf);
}

template <class F>
void sym(void* lib, const char* name, F& f) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  if (!f) throw DeviceError(std::string("EIGSOLVE_GPU_TRACE: libcupti has no ") + name);
}

void ok(CUptiResult r, const char* what) {
  if (r != CUPTI_SUCCESS)
    throw DeviceError(std::string("EIGSOLVE_GPU_TRACE: ") + what + ": CUPTI error " +
                      std::to_string(int(r)));
}

std::string demangled(const char* name) {
  if (!name) return "?";
  int st = 0;
  char* d = abi::__cxa_demangle(name, nullptr, nullptr, &st);
  std::string s = (st == 0 && d) ? d : name;
  std::free(d);
  // the namespaces say nothing here
  for (const char* ns : {"eigsolve::", "symv_cuda::", "tridiag_cuda::", "panel_fused::"}) {
    for (std::size_t p; (p = s.find(ns)) != std::string::npos;)
      s.erase(p, std::strlen(ns));
  }
  if (s.size() > 100) s = s.substr(0, 97) + "...";
  return s;
}

}  // namespace

bool trace_requested() {
  const char* e = std::getenv("EIGSOLVE_GPU_TRACE");
  return e && e[0] == '1' && e[1] == '\0';
}

void trace_begin() {
  Cupti& c = cupti();
  if (!c.lib) {
    void* lib = dlopen("libcupti.so.13", RTLD_NOW | RTLD_LOCAL);
    if (!lib) lib = dlopen("libcupti.so", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
      throw DeviceError(std::string("EIGSOLVE_GPU_TRACE: cannot load CUPTI (libcupti.so.13): ") +
                        dlerror());
    sym(lib, "cuptiActivityRegisterCallbacks", c.register_callbacks);
    sym(lib, "cuptiActivityEnable", c.enable);
    sym(lib, "cuptiActivityDisable", c.disable);
    sym(lib, "cuptiActivityFlushAll", c.flush_all);
    sym(lib, "cuptiActivityGetNextRecord", c.next_record);
    c.lib = lib;
    ok(c.register_callbacks(buffer_requested, buffer_completed), "register callbacks");
  }
  {
    std::lock_guard<std::mutex> lock(g_mu);
    g_recs.clear();
    g_dropped = 0;
  }
  cudaDeviceSynchronize();
  ok(c.enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "enable kernel records");
}

void trace_end_and_report(std::FILE* out, const char* title) {
  Cupti& c = cupti();
  if (!c.lib) return;
  cudaDeviceSynchronize();
  ok(c.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "flush");
  ok(c.disable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "disable kernel records");
  std::vector<Interval> v;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    v.swap(g_recs);
  }
  if (v.empty()) {
    std::fprintf(out, "eigsolve trace %s: no kernel records\n", title);
    return;
  }
  std::sort(v.begin(), v.end(),
            [](const Interval& a, const Interval& b) { return a.start < b.start; });
  std::uint64_t span_end = 0, busy = 0, cur_s = v[0].start, cur_e = v[0].start;
  for (const Interval& x : v) {
    span_end = std::max(span_end, x.end);
    if (x.start > cur_e) {
      busy += cur_e - cur_s;
      cur_s = x.start;
      cur_e = x.end;
    } else {
      cur_e = std::max(cur_e, x.end);
    }
  }
  busy += cur_e - cur_s;
  const double span = double(span_end - v[0].start);
  struct Agg {
    long count = 0;
    double ns = 0;
    double idle_before = 0;  ///< GPU idle time that ended with this kernel's start
  };
  std::map<std::string, Agg> by;
  std::map<const char*, std::string> names;
  std::uint64_t reach = v[0].start;  // the latest end so far
  for (const Interval& x : v) {
    auto it = names.find(x.name);
    if (it == names.end()) it = names.emplace(x.name, demangled(x.name)).first;
    Agg& a = by[it->second];
    ++a.count;
    a.ns += double(x.end - x.start);
    if (x.start > reach) a.idle_before += double(x.start - reach);
    reach = std::max(reach, x.end);
  }
  std::vector<std::pair<std::string, Agg>> rows(by.begin(), by.end());
  std::sort(rows.begin(), rows.end(),
            [](const auto& a, const auto& b) { return a.second.ns > b.second.ns; });
  std::fprintf(out,
               "eigsolve trace %s: %zu kernels, span %.4f s, some kernel running %.4f s, idle "
               "%.4f s\n",
               title, v.size(), span * 1e-9, double(busy) * 1e-9, (span - double(busy)) * 1e-9);
  std::fprintf(out, "  %9s %10s %9s %6s %12s  kernel\n", "launches", "total s", "mean us", "span%",
               "idle before s");
  for (std::size_t i = 0; i < rows.size() && i < 30; ++i) {
    const Agg& a = rows[i].second;
    std::fprintf(out, "  %9ld %10.4f %9.2f %6.1f %12.4f  %s\n", a.count, a.ns * 1e-9,
                 a.ns * 1e-3 / double(a.count), 100.0 * a.ns / span, a.idle_before * 1e-9,
                 rows[i].first.c_str());
  }
}

}  // namespace gpu_bench
}  // namespace eigsolve
