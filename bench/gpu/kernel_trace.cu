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
#include "bench/gpu/trace_summary.hpp"
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
  CUptiResult (*latency)(uint8_t) = nullptr;  ///< optional: launch (queued/submitted) times
};

Cupti& cupti() {
  static Cupti c;
  return c;
}

struct Interval {
  std::uint64_t start, end;
  const char* name;  ///< CUPTI's string, shared by every record of the kernel
  std::uint32_t stream;
  std::uint64_t submitted;
};

std::mutex g_mu;
std::vector<Interval> g_recs;

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
    g_recs.push_back(
        {k->start, k->end, k->name, k->streamId, k->submitted ? k->submitted : k->queued});
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
    c.latency = reinterpret_cast<CUptiResult (*)(uint8_t)>(
        dlsym(lib, "cuptiActivityEnableLatencyTimestamps"));
    c.lib = lib;
    if (c.latency) c.latency(1);  // without it the per-stream split shows "-"
    ok(c.register_callbacks(buffer_requested, buffer_completed), "register callbacks");
  }
  {
    std::lock_guard<std::mutex> lock(g_mu);
    g_recs.clear();
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
  std::vector<Interval> raw;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    raw.swap(g_recs);
  }
  std::map<const char*, int> ids;  // CUPTI's name strings -> indices into names
  std::vector<std::string> names;
  std::vector<KernelInterval> v;
  v.reserve(raw.size());
  for (const Interval& x : raw) {
    auto it = ids.find(x.name);
    if (it == ids.end()) {
      it = ids.emplace(x.name, int(names.size())).first;
      names.push_back(demangled(x.name));
    }
    v.push_back({x.start, x.end, it->second, x.stream, x.submitted});
  }
  print_trace_summary(out, title, summarize_trace(std::move(v), names), 30);
}

}  // namespace gpu_bench
}  // namespace eigsolve
