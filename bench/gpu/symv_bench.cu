// GPU SYMV measurements: ours against cuBLAS ?symv/?hemv in the same process.
//
//   inputs: k copies of an n x n matrix (lower triangle read; random in [-1, 1) per component,
//           dd with a random low word), k * bytes >= 256 MiB so that calls rotate through more
//           than the 60 MB L2; timing: CUDA events around each call after a warm-up, median;
//   distinct: `runs` calls on copy 0 (beta = 0), results compared bitwise on the host;
//   bitwise_cpu: copy 0's result against symv_reference (all host threads);
//   settling: after each size's buffers are allocated and filled, copies of the matrix are
//           rewritten on the device for >= 100 ms before anything is timed (session 58: a 4 GB
//           buffer allocated right after a freed one of the same size ran the first ~10 ms of
//           SYMV calls 13 % slower, the same kernel a few calls later at full speed: the
//           driver's work on the freed memory, not ours).
//   tune order (session 68): `tune symv` times each configuration's calls back to back, after 2
//           untimed ones, as bench does. Its round-robin order of sessions 21-67 (call r of every
//           configuration, then call r+1) timed some configurations 5-18 % faster than bench and
//           the pipeline run them, others not (H100, s 6144 twopass-t2-m32-w-cs-e8 28.9 us
//           against 34.3; at 4096-8192, not at 16384 and up): the time of a call depends on the
//           configuration before it. Configuration by configuration agrees with bench within
//           1-5 % and its picks ran 2-4 % faster in bench (bench/NOTES.md, session 68).
//           EIGSOLVE_SYMV_TUNE_ORDER=round-robin brings the old order back;
//           EIGSOLVE_SYMV_BENCH_MIN_COPIES=K rotates through at least K matrix copies (a copy of
//           256 MiB or more is otherwise the only one; 2 did not close the gap above).
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench/gpu/gpu_bench.hpp"
#include "core/context.hpp"
#include "core/errors.hpp"
#include "symv/reference.hpp"

namespace eigsolve {
namespace {

void ck(cudaError_t st, const char* what) {
  if (st != cudaSuccess) {
    if (st == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      throw OutOfMemory(what, 0);
    }
    throw DeviceError(std::string(what) + ": " + cudaGetErrorString(st));
  }
}
void ckb(cublasStatus_t st, const char* what) {
  if (st != CUBLAS_STATUS_SUCCESS)
    throw DeviceError(std::string(what) + ": cuBLAS status " + std::to_string(int(st)));
}

template <class T>
struct Dev {
  T* p = nullptr;
  explicit Dev(std::size_t n) {
    ck(cudaMalloc(&p, std::max<std::size_t>(1, n) * sizeof(T)), "cudaMalloc");
  }
  ~Dev() { cudaFree(p); }
  Dev(const Dev&) = delete;
  Dev& operator=(const Dev&) = delete;
};

__device__ __forceinline__ double hash_unit(std::uint64_t i, std::uint64_t seed) {
  std::uint64_t z = i * 0x9E3779B97F4A7C15ull + seed;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return double(z >> 11) * 0x1p-52 - 1.0;  // [-1, 1)
}

template <class T>
__global__ void fill_random(T* a, std::size_t count, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const double u = hash_unit(2 * i, seed), v = hash_unit(2 * i + 1, seed);
    if constexpr (std::is_same<T, dd_real>::value)
      a[i] = dd_real::from_sum(u, u * 0x1p-60 * v);
    else if constexpr (is_complex_v<T>)
      a[i] = T(real_t<T>(u), real_t<T>(v));
    else
      a[i] = T(u);
  }
}

template <class T>
void fill(T* a, std::size_t count, std::uint64_t seed) {
  fill_random<T><<<1024, 256>>>(a, count, seed);
  ck(cudaGetLastError(), "fill_random");
}

// cuBLAS bindings (s/d/c/z); dd has none.
inline cublasStatus_t vendor_symv(cublasHandle_t h, int n, const float* al, const float* A, int lda,
                                  const float* x, const float* be, float* y) {
  return cublasSsymv(h, CUBLAS_FILL_MODE_LOWER, n, al, A, lda, x, 1, be, y, 1);
}
inline cublasStatus_t vendor_symv(cublasHandle_t h, int n, const double* al, const double* A,
                                  int lda, const double* x, const double* be, double* y) {
  return cublasDsymv(h, CUBLAS_FILL_MODE_LOWER, n, al, A, lda, x, 1, be, y, 1);
}
inline cublasStatus_t vendor_symv(cublasHandle_t h, int n, const cfloat* al, const cfloat* A,
                                  int lda, const cfloat* x, const cfloat* be, cfloat* y) {
  auto c = [](const cfloat* p) { return reinterpret_cast<const cuComplex*>(p); };
  return cublasChemv(h, CUBLAS_FILL_MODE_LOWER, n, c(al), c(A), lda, c(x), 1, c(be),
                     reinterpret_cast<cuComplex*>(y), 1);
}
inline cublasStatus_t vendor_symv(cublasHandle_t h, int n, const cdouble* al, const cdouble* A,
                                  int lda, const cdouble* x, const cdouble* be, cdouble* y) {
  auto c = [](const cdouble* p) { return reinterpret_cast<const cuDoubleComplex*>(p); };
  return cublasZhemv(h, CUBLAS_FILL_MODE_LOWER, n, c(al), c(A), lda, c(x), 1, c(be),
                     reinterpret_cast<cuDoubleComplex*>(y), 1);
}

struct Events {
  cudaEvent_t a, b;
  Events() {
    ck(cudaEventCreate(&a), "cudaEventCreate");
    ck(cudaEventCreate(&b), "cudaEventCreate");
  }
  ~Events() {
    cudaEventDestroy(a);
    cudaEventDestroy(b);
  }
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

/// Device timing (the default, `--timing device`): before each timed call a one-thread kernel
/// holds the stream until the host has enqueued the start event, the call and the stop event, so
/// that the events time the device's work alone, as nvbench's blocking kernel does. Host timing
/// (`--timing host`, every figure before session 64): the start event runs on an idle stream at
/// once and the interval also holds the host's enqueueing of the call's first kernel (a few us,
/// a large part of a 20 us call at n = 4096; cuBLAS pays it too).
///
///   device:  [hold ......... released]  [a] [call's kernels] [b]      host: a, call, b, release
///   host:    [a] (host enqueues the first kernel) [call's kernels] [b]
///
/// Under a profiler that serialises each launch (Nsight Compute) a held stream never drains:
/// the hold gives up after 10 s with an error, so profile with --timing host.
bool g_device_timing = true;

/// Spins until flag[0] (host memory, mapped) is set; gives up after limit_ns and sets flag[1].
__global__ void hold_stream(const volatile int* flag, int* expired, unsigned long long limit_ns) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  while (flag[0] == 0) {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    if (t - t0 > limit_ns) {
      *expired = 1;
      return;
    }
  }
}

/// The host flag that hold_stream waits for (pinned, mapped), allocated on first use.
struct StreamHold {
  volatile int* h = nullptr;
  int* d = nullptr;
  StreamHold() {
    void* p = nullptr;
    ck(cudaHostAlloc(&p, 2 * sizeof(int), cudaHostAllocMapped), "cudaHostAlloc");
    h = static_cast<volatile int*>(p);
    void* dp = nullptr;
    ck(cudaHostGetDevicePointer(&dp, p, 0), "cudaHostGetDevicePointer");
    d = static_cast<int*>(dp);
  }
  ~StreamHold() { cudaFreeHost(const_cast<int*>(h)); }
  StreamHold(const StreamHold&) = delete;
  StreamHold& operator=(const StreamHold&) = delete;
  void arm() {
    h[0] = 0;
    h[1] = 0;
    hold_stream<<<1, 1>>>(d, d + 1, 10000000000ull);  // 10 s
    ck(cudaGetLastError(), "hold_stream");
  }
  void release() {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    h[0] = 1;
  }
  /// After the stream has drained: whether the hold ended by its time limit, not by release().
  void check() const {
    if (h[1] != 0)
      throw DeviceError("bench timing: the stream was held for 10 s without being released");
  }
};

StreamHold& stream_hold() {
  static StreamHold hold;
  return hold;
}

/// Event-timed call: the ms between events a and b around call() on the default stream, the
/// stream held while they are enqueued under device timing (g_device_timing).
template <class Call>
double timed_ms(Events& ev, Call&& call) {
  StreamHold* hold = g_device_timing ? &stream_hold() : nullptr;
  if (hold) hold->arm();
  try {
    ck(cudaEventRecord(ev.a), "cudaEventRecord");
    call();
    ck(cudaEventRecord(ev.b), "cudaEventRecord");
  } catch (...) {
    if (hold) hold->release();
    cudaDeviceSynchronize();
    throw;
  }
  if (hold) hold->release();
  ck(cudaEventSynchronize(ev.b), "cudaEventSynchronize");
  if (hold) hold->check();
  float t = 0;
  ck(cudaEventElapsedTime(&t, ev.a, ev.b), "cudaEventElapsedTime");
  return t;
}

/// Median ms of `runs` event-timed calls of call(k), k = 0 .. runs-1.
template <class Call>
double median_ms(Events& ev, int runs, Call&& call) {
  std::vector<double> ms;
  for (int k = 0; k < runs; ++k)
    ms.push_back(timed_ms(ev, [&] { call(k); }));
  return median(ms);
}

/// EIGSOLVE_SYMV_BENCH_MIN_COPIES (file header): at least this many matrix copies (1 to 8).
std::size_t min_copies() {
  const char* e = std::getenv("EIGSOLVE_SYMV_BENCH_MIN_COPIES");
  if (!e || !*e) return 1;
  char* end = nullptr;
  const long k = std::strtol(e, &end, 10);
  if (*end != '\0' || k < 1 || k > 8)
    throw UsageError("EIGSOLVE_SYMV_BENCH_MIN_COPIES must be an integer from 1 to 8, not '" +
                     std::string(e) + "'");
  return std::size_t(k);
}

/// EIGSOLVE_SYMV_TUNE_ORDER (file header): true for unset or "blocks" (the default since session
/// 68), false for "round-robin".
bool tune_in_blocks() {
  const char* e = std::getenv("EIGSOLVE_SYMV_TUNE_ORDER");
  if (!e || !*e || std::string(e) == "blocks") return true;
  if (std::string(e) == "round-robin") return false;
  throw UsageError("EIGSOLVE_SYMV_TUNE_ORDER must be 'round-robin' or 'blocks', not '" +
                   std::string(e) + "'");
}

/// A set of rotating matrix copies, x, y, and our workspace.
template <class T>
struct Inputs {
  index_t n;
  index_t ld;  ///< leading dimension: n + the bench's --lda-pad
  int copies;
  Dev<T> A, x, y;
  std::size_t wsb;
  Dev<unsigned char> ws;
  Inputs(index_t n_, std::size_t min_bytes, index_t pad = 0)
      : n(n_),
        ld(n_ + pad),
        copies(int(std::min<std::size_t>(
            64,
            std::max<std::size_t>(
                min_copies(), (min_bytes + std::size_t(ld * n_) * sizeof(T) - 1) /
                                  std::max<std::size_t>(1, std::size_t(ld * n_) * sizeof(T)))))),
        A(std::size_t(ld * n_) * copies),
        x(std::size_t(n_)),
        y(std::size_t(n_)),
        wsb(symv_workspace_bytes<T>(n_)),
        ws(wsb) {
    fill(x.p, std::size_t(n), 12);
    symv_workspace_init(ws.p, wsb, nullptr);
    // The matrix copies, written again (the same seed: the same values) until 100 ms have
    // passed, so that the device's memory traffic runs through any transient the allocation
    // left behind before the first timed call (file header).
    const auto t0 = std::chrono::steady_clock::now();
    do {
      fill(A.p, std::size_t(ld * n) * copies, 11);
      ck(cudaDeviceSynchronize(), "fill");
    } while (std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(100));
  }
  const T* mat(int c) const { return A.p + std::size_t(ld * n) * std::size_t(c); }
};

template <class T>
std::vector<T> to_host(const T* d, std::size_t count) {
  std::vector<T> h(count);
  ck(cudaMemcpy(h.data(), d, count * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy");
  return h;
}

template <class T, class Call>
SymvImplResult measure(Inputs<T>& in, int runs, const std::vector<T>* cpu, Call&& call) {
  SymvImplResult r;
  r.runs = runs;
  Events ev;
  for (int w = 0; w < 3; ++w)
    call(in.mat(w % in.copies));
  ck(cudaDeviceSynchronize(), "warm-up");
  r.ms = median_ms(ev, runs, [&](int k) { call(in.mat((k + 1) % in.copies)); });
  // Distinct results on copy 0 (beta = 0: y is only written).
  std::vector<std::vector<T>> seen;
  for (int k = 0; k < runs; ++k) {
    call(in.mat(0));
    ck(cudaDeviceSynchronize(), "run");
    std::vector<T> out = to_host(in.y.p, std::size_t(in.n));
    bool known = false;
    for (const auto& s : seen)
      known = known || std::memcmp(s.data(), out.data(), out.size() * sizeof(T)) == 0;
    if (!known) seen.push_back(std::move(out));
  }
  r.distinct = int(seen.size());
  if (cpu) r.bitwise_cpu = std::memcmp(cpu->data(), seen[0].data(), cpu->size() * sizeof(T)) == 0;
  return r;
}

template <class T>
std::vector<SymvImplResult> bench_size(index_t n, int runs, bool check_cpu,
                                       const std::vector<std::pair<std::string, SymvConfig>>& ours,
                                       bool vendor, index_t pad) {
  Inputs<T> in(n, std::size_t(256) << 20, pad);
  const index_t ld = in.ld;
  const T one(1), zero(0);
  std::vector<T> cpu;
  if (check_cpu) {
    const std::vector<T> A = to_host(in.mat(0), std::size_t(ld * n));
    const std::vector<T> x = to_host(in.x.p, std::size_t(n));
    cpu.assign(std::size_t(n), T(0));
    Context ctx;
    ctx.threads = 0;
    symv_reference<T>(ctx, n, one, A.data(), ld, x.data(), zero, cpu.data());
  }
  std::vector<SymvImplResult> out;
  for (const auto& named : ours) {
    const SymvConfig& cfg = named.second;
    SymvImplResult r = measure<T>(in, runs, check_cpu ? &cpu : nullptr, [&](const T* A) {
      symv_gpu<T>(cfg, n, one, A, ld, in.x.p, 1, zero, in.y.p, 1, in.ws.p, in.wsb, nullptr);
    });
    r.impl = named.first;
    r.config = cfg.name();
    out.push_back(r);
  }
  if constexpr (has_vendor_lapack_v<T>) {
    if (vendor) {
      cublasHandle_t h;
      ckb(cublasCreate(&h), "cublasCreate");
      for (bool atomics : {false, true}) {
        ckb(cublasSetAtomicsMode(h, atomics ? CUBLAS_ATOMICS_ALLOWED : CUBLAS_ATOMICS_NOT_ALLOWED),
            "cublasSetAtomicsMode");
        SymvImplResult r = measure<T>(in, runs, nullptr, [&](const T* A) {
          ckb(vendor_symv(h, int(n), &one, A, int(ld), in.x.p, &zero, in.y.p), "cublas symv");
        });
        r.impl = atomics ? "cublas-atomics" : "cublas";
        out.push_back(r);
      }
      cublasDestroy(h);
    }
  }
  return out;
}

template <class T>
double sweep(index_t n, const std::string& impl, int samples, int runs, index_t pad) {
  Inputs<T> in(n, 0, pad);
  const index_t ld = in.ld;
  const T one(1), zero(0);
  cublasHandle_t h = nullptr;
  if (impl == "cublas") {
    if constexpr (!has_vendor_lapack_v<T>) throw UsageError("no cuBLAS SYMV for dd");
    ckb(cublasCreate(&h), "cublasCreate");
  }
  Events ev;
  // An odd step: the sampled trailing matrices start at every alignment, as the
  // tridiagonalization's do (d, c: every other column off a 16-byte line; s: 3 of 4).
  const index_t step = std::max<index_t>(1, n / samples) | 1;
  double total = 0;
  for (index_t k = n; k >= 1; k -= step) {
    const index_t g = n - k;
    const T* A = in.mat(0) + g + ld * g;
    const SymvConfig cfg = symv_select<T>(k, ld);
    auto call = [&] {
      if (h) {
        if constexpr (has_vendor_lapack_v<T>)
          ckb(vendor_symv(h, int(k), &one, A, int(ld), in.x.p, &zero, in.y.p), "cublas symv");
      } else {
        symv_gpu<T>(cfg, k, one, A, ld, in.x.p, 1, zero, in.y.p, 1, in.ws.p, in.wsb, nullptr);
      }
    };
    call();
    total += median_ms(ev, runs, [&](int) { call(); }) * double(std::min<index_t>(step, k));
  }
  if (h) cublasDestroy(h);
  return total;
}

/// The median ms of `runs` timed calls of each configuration; each configuration is called once
/// untimed first. By default (file header: tune order) a configuration's calls are timed back to
/// back after 2 more untimed ones, as bench's measure() does and as the tridiagonalization calls
/// one configuration column after column. EIGSOLVE_SYMV_TUNE_ORDER=round-robin: call r of every
/// configuration, then call r+1, ... (sessions 21-67: meant to spread a transient of the GPU over
/// all configurations, it made a call's time depend on the configuration before it).
template <class T>
std::vector<double> tune_size(index_t n, const std::vector<SymvConfig>& configs, int runs) {
  Inputs<T> in(n, std::size_t(256) << 20);
  const T one(1), zero(0);
  Events ev;
  auto call = [&](const SymvConfig& cfg, const T* A) {
    symv_gpu<T>(cfg, n, one, A, n, in.x.p, 1, zero, in.y.p, 1, in.ws.p, in.wsb, nullptr);
  };
  for (const SymvConfig& cfg : configs)
    call(cfg, in.mat(0));
  std::vector<double> out(configs.size());
  int k = 0;
  auto next = [&] { return in.mat(++k % in.copies); };  // the calls rotate over the copies
  if (tune_in_blocks()) {
    // As bench's measure(): each configuration's calls back to back, after 2 untimed ones.
    for (std::size_t c = 0; c < configs.size(); ++c) {
      for (int w = 0; w < 2; ++w)
        call(configs[c], next());
      out[c] = median_ms(ev, runs, [&](int) { call(configs[c], next()); });
    }
  } else {
    std::vector<std::vector<double>> ms(configs.size());
    for (int r = 0; r < runs; ++r)
      for (std::size_t c = 0; c < configs.size(); ++c)
        ms[c].push_back(timed_ms(ev, [&] { call(configs[c], next()); }));
    for (std::size_t c = 0; c < configs.size(); ++c)
      out[c] = median(ms[c]);
  }
  return out;
}

}  // namespace

void set_symv_bench_device_timing(bool on) {
  g_device_timing = on;
}

std::string symv_tune_method() {
  std::string m = tune_in_blocks()
                      ? "taken configuration by configuration: 2 untimed calls, then its timed "
                        "calls back to back"
                      : "taken round-robin over the configurations: "
                        "EIGSOLVE_SYMV_TUNE_ORDER=round-robin";
  if (min_copies() > 1)
    m += ", at least " + std::to_string(min_copies()) +
         " matrix copies (EIGSOLVE_SYMV_BENCH_MIN_COPIES)";
  return m;
}

std::string gpu_description() {
  if (cuda_device_count() == 0) throw DeviceError("no CUDA device is visible");
  int dev = 0;
  ck(cudaGetDevice(&dev), "cudaGetDevice");
  return cuda_device_description(dev);
}

std::vector<SymvImplResult> bench_symv_size(
    Precision p, index_t n, int runs, bool check_cpu,
    const std::vector<std::pair<std::string, SymvConfig>>& ours, bool vendor, index_t lda_pad) {
  return dispatch(p, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return bench_size<T>(n, runs, check_cpu, ours, vendor, lda_pad);
  });
}

double sweep_symv(Precision p, index_t n, const std::string& impl, int samples, int runs,
                  index_t lda_pad) {
  return dispatch(p, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return sweep<T>(n, impl, samples, runs, lda_pad);
  });
}

std::vector<double> tune_symv_size(Precision p, index_t n, const std::vector<SymvConfig>& configs,
                                   int runs) {
  return dispatch(p, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return tune_size<T>(n, configs, runs);
  });
}

}  // namespace eigsolve
