// `eigsolve bench eig`: our whole eigenvalue solve on the GPU (eigensolve with the CUDA backend)
// against cuSOLVER ?syevd / ?heevd on the same matrix in the same process.
//
//   matrix: random Hermitian, entries uniform in [-1, 1) (host, mt19937_64), the same for both;
//   cuSOLVER: matrix copied to the device once per run (not timed), ?syevd timed with events
//             (its workspace query and allocation outside the timed region);
//   ours:     eigensolve_device on the matrix already on the device, timed on the host clock
//             (results copied home included); once more from host memory (eigensolve, upload
//             included: what the CLI pays) as seconds_host_input;
//   distinct: eigenvalue arrays compared bitwise over the runs; bitwise_cpu: ours against the
//             CPU backend where it is affordable.
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "bench/gpu/gpu_bench.hpp"
#include "bench/gpu/kernel_trace.hpp"
#include "core/context.hpp"
#include "core/errors.hpp"
#include "solver/eigensolve.hpp"

namespace eigsolve {
namespace {

void ck(cudaError_t st, const char* what) {
  if (st != cudaSuccess) throw DeviceError(std::string(what) + ": " + cudaGetErrorString(st));
}
void cks(cusolverStatus_t st, const char* what) {
  if (st != CUSOLVER_STATUS_SUCCESS)
    throw DeviceError(std::string(what) + ": cuSOLVER status " + std::to_string(int(st)));
}

// cuSOLVER bindings (s/d/c/z).
cusolverStatus_t evd_buffer(cusolverDnHandle_t h, cusolverEigMode_t j, int n, float* A, float* w,
                            int* lw) {
  return cusolverDnSsyevd_bufferSize(h, j, CUBLAS_FILL_MODE_LOWER, n, A, n, w, lw);
}
cusolverStatus_t evd_buffer(cusolverDnHandle_t h, cusolverEigMode_t j, int n, double* A, double* w,
                            int* lw) {
  return cusolverDnDsyevd_bufferSize(h, j, CUBLAS_FILL_MODE_LOWER, n, A, n, w, lw);
}
cusolverStatus_t evd_buffer(cusolverDnHandle_t h, cusolverEigMode_t j, int n, cfloat* A, float* w,
                            int* lw) {
  return cusolverDnCheevd_bufferSize(h, j, CUBLAS_FILL_MODE_LOWER, n,
                                     reinterpret_cast<cuComplex*>(A), n, w, lw);
}
cusolverStatus_t evd_buffer(cusolverDnHandle_t h, cusolverEigMode_t j, int n, cdouble* A, double* w,
                            int* lw) {
  return cusolverDnZheevd_bufferSize(h, j, CUBLAS_FILL_MODE_LOWER, n,
                                     reinterpret_cast<cuDoubleComplex*>(A), n, w, lw);
}
cusolverStatus_t evd(cusolverDnHandle_t h, cusolverEigMode_t j, int n, float* A, float* w,
                     float* work, int lw, int* info) {
  return cusolverDnSsyevd(h, j, CUBLAS_FILL_MODE_LOWER, n, A, n, w, work, lw, info);
}
cusolverStatus_t evd(cusolverDnHandle_t h, cusolverEigMode_t j, int n, double* A, double* w,
                     double* work, int lw, int* info) {
  return cusolverDnDsyevd(h, j, CUBLAS_FILL_MODE_LOWER, n, A, n, w, work, lw, info);
}
cusolverStatus_t evd(cusolverDnHandle_t h, cusolverEigMode_t j, int n, cfloat* A, float* w,
                     cfloat* work, int lw, int* info) {
  return cusolverDnCheevd(h, j, CUBLAS_FILL_MODE_LOWER, n, reinterpret_cast<cuComplex*>(A), n, w,
                          reinterpret_cast<cuComplex*>(work), lw, info);
}
cusolverStatus_t evd(cusolverDnHandle_t h, cusolverEigMode_t j, int n, cdouble* A, double* w,
                     cdouble* work, int lw, int* info) {
  return cusolverDnZheevd(h, j, CUBLAS_FILL_MODE_LOWER, n, reinterpret_cast<cuDoubleComplex*>(A), n,
                          w, reinterpret_cast<cuDoubleComplex*>(work), lw, info);
}

/// A 64-bit hash of the bytes of z (eigenvectors: distinct results over the runs without
/// keeping every run's n x n matrix); two different z colliding is what it cannot rule out.
template <class T>
std::uint64_t hash_words(const std::vector<T>& z) {
  const auto* p = reinterpret_cast<const unsigned char*>(z.data());
  const std::size_t bytes = z.size() * sizeof(T);
  std::uint64_t h = 0x9e3779b97f4a7c15ull ^ bytes;
  std::size_t k = 0;
  for (; k + 8 <= bytes; k += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + k, 8);
    h = (h ^ w) * 0x100000001b3ull;
    h ^= h >> 29;
  }
  for (; k < bytes; ++k)
    h = (h ^ p[k]) * 0x100000001b3ull;
  return h;
}

template <class V>
int count_distinct(const std::vector<V>& runs) {
  std::vector<const V*> seen;
  for (const auto& r : runs) {
    bool known = false;
    for (const V* s : seen)
      known = known || (s->size() == r.size() &&
                        std::memcmp(s->data(), r.data(), r.size() * sizeof(r[0])) == 0);
    if (!known) seen.push_back(&r);
  }
  return int(seen.size());
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

template <class T>
struct CudaType;
template <>
struct CudaType<float> {
  static constexpr cudaDataType v = CUDA_R_32F;
};
template <>
struct CudaType<double> {
  static constexpr cudaDataType v = CUDA_R_64F;
};
template <>
struct CudaType<cfloat> {
  static constexpr cudaDataType v = CUDA_C_32F;
};
template <>
struct CudaType<cdouble> {
  static constexpr cudaDataType v = CUDA_C_64F;
};

/// auto: the 64-bit API above n = 16384 (where the reference timings used it), legacy below.
bool use_x_api(const std::string& api, index_t n) {
  if (api == "x") return true;
  if (api == "legacy") return false;
  return n > 16384;
}

template <class T>
std::vector<EigImplResult> bench_eig(index_t n, int runs, bool vectors, bool check_cpu,
                                     bool host_input, const std::string& api, Reduction reduction,
                                     int band) {
  using R = real_t<T>;
  HostMatrix<T> A0(n);
  std::mt19937_64 g(2026);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (index_t j = 0; j < n; ++j)
    for (index_t i = j; i < n; ++i) {
      T v;
      if constexpr (std::is_same<T, dd_real>::value)
        v = dd_real(u(g));
      else if constexpr (is_complex_v<T>)
        v = T(R(u(g)), i == j ? R(0) : R(u(g)));
      else
        v = T(u(g));
      A0(i, j) = v;
      A0(j, i) = conj(v);
    }
  std::vector<EigImplResult> out;
  SolveOptions opt;
  opt.vectors = vectors;
  opt.reduction = reduction;
  opt.band = band;
  // Ours, from the matrix already on the device (as cuSOLVER is timed), host clock around the
  // whole solve: device copy, pre-scaling check, tridiagonalization, bisection, results home.
  {
    Context ctx;
    ctx.backend = Backend::cuda;
    T* dA = nullptr;
    ck(cudaMalloc(&dA, sizeof(T) * std::size_t(n) * std::size_t(n)), "cudaMalloc");
    ck(cudaMemcpy(dA, A0.ptr(), sizeof(T) * std::size_t(n) * std::size_t(n),
                  cudaMemcpyHostToDevice),
       "A");
    std::vector<std::vector<R>> ws;
    std::vector<T> z0;              // with vectors: the first run's eigenvectors (the CPU check)
    std::vector<std::uint64_t> zh;  // with vectors: each run's hash_words(z)
    std::vector<double> secs;
    const bool trace = gpu_bench::trace_requested();
    for (int r = 0; r < runs + 1; ++r) {
      if (trace && r == runs) gpu_bench::trace_begin();  // EIGSOLVE_GPU_TRACE=1: the last run
      const auto t0 = std::chrono::steady_clock::now();
      auto res = eigensolve_device(ctx, n, static_cast<const T*>(dA), n, opt);
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (trace && r == runs) {
        const std::string title = std::string(ScalarTraits<T>::name) + " n = " + std::to_string(n) +
                                  (vectors ? " vectors" : "");
        gpu_bench::trace_end_and_report(stderr, title.c_str());
      }
      if (r > 0) secs.push_back(s);  // the first run is the warm-up
      if (r == runs)  // where the time of the last run went (stderr: the table stays as it was)
        std::fprintf(
            stderr,
            "eigsolve %s n = %lld%s%s: %.3f s = tridiagonalize %.3f (device %.3f) + eigenvalues%s "
            "of T %.3f + back-transform %.3f + other %.3f\n",
            ScalarTraits<T>::name, (long long)n, vectors ? " vectors" : "",
            resolve_reduction(reduction, n, ScalarTraits<T>::precision, vectors) ==
                    Reduction::two_stage
                ? " two-stage"
                : "",
            s, res.times.tridiagonalize, res.times.gpu_panels, vectors ? " and vectors" : "",
            res.times.tridiag_eigen, res.times.back_transform,
            s - res.times.tridiagonalize - res.times.tridiag_eigen - res.times.back_transform);
      if (vectors) {  // the eigenvectors' bits are part of a run's result
        zh.push_back(hash_words(res.z));
        if (r == 0) z0 = std::move(res.z);
      }
      ws.push_back(std::move(res.w));
    }
    cudaFree(dA);
    EigImplResult e;
    e.impl = "eigsolve";
    e.seconds = median(secs);
    e.runs = runs;
    e.distinct = count_distinct(ws);
    if (vectors) {  // distinct (w, z) pairs: w's classes split further by z's hash
      std::vector<std::pair<int, std::uint64_t>> seen;
      for (std::size_t r = 0; r < ws.size(); ++r) {
        int cls = 0;
        while (ws[cls].size() != ws[r].size() ||
               std::memcmp(ws[cls].data(), ws[r].data(), ws[r].size() * sizeof(R)) != 0)
          ++cls;  // the first run with the same eigenvalues
        if (std::find(seen.begin(), seen.end(), std::make_pair(cls, zh[r])) == seen.end())
          seen.emplace_back(cls, zh[r]);
      }
      e.distinct = int(seen.size());
    }
    for (const R& x : ws[0])
      e.w0.push_back(to_double(x));
    if (host_input) {  // once from host memory (eigensolve, upload included): what the CLI pays
      HostMatrix<T> A = A0;
      const auto t0 = std::chrono::steady_clock::now();
      auto res = eigensolve(ctx, A, opt);
      e.seconds_host_input =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      e.host_input_same =
          res.w.size() == ws[0].size() &&
          std::memcmp(res.w.data(), ws[0].data(), res.w.size() * sizeof(R)) == 0 &&
          (!vectors || (res.z.size() == z0.size() &&
                        std::memcmp(res.z.data(), z0.data(), z0.size() * sizeof(T)) == 0));
    }
    if (check_cpu) {
      Context cpu;
      HostMatrix<T> A = A0;
      auto res = eigensolve(cpu, A, opt);
      e.bitwise_cpu =
          res.w.size() == ws[0].size() &&
          std::memcmp(res.w.data(), ws[0].data(), res.w.size() * sizeof(R)) == 0 &&
          (!vectors || (res.z.size() == z0.size() &&
                        std::memcmp(res.z.data(), z0.data(), z0.size() * sizeof(T)) == 0));
    }
    out.push_back(e);
  }
  if constexpr (has_vendor_lapack_v<T>) {
    if (api == "none") {  // ours only (--cusolver-api none): experiments between our own paths
      out[0].w0.clear();
      return out;
    }
    cusolverDnHandle_t h;
    cks(cusolverDnCreate(&h), "cusolverDnCreate");
    const cusolverEigMode_t jobz = vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
    const bool x_api = use_x_api(api, n);
    T* dA = nullptr;
    R* dw = nullptr;
    void* work = nullptr;
    std::vector<unsigned char> hwork;
    int* info = nullptr;
    ck(cudaMalloc(&dA, sizeof(T) * std::size_t(n) * std::size_t(n)), "cudaMalloc");
    ck(cudaMalloc(&dw, sizeof(R) * std::size_t(n)), "cudaMalloc");
    ck(cudaMalloc(&info, sizeof(int)), "cudaMalloc");
    cusolverDnParams_t params = nullptr;
    std::size_t dbytes = 0, hbytes = 0;
    int lw = 0;
    if (x_api) {
      // The 64-bit API in its deterministic mode (as the reference timings were taken).
      cks(cusolverDnSetDeterministicMode(h, CUSOLVER_DETERMINISTIC_RESULTS), "deterministic");
      cks(cusolverDnCreateParams(&params), "cusolverDnCreateParams");
      cks(cusolverDnXsyevd_bufferSize(h, params, jobz, CUBLAS_FILL_MODE_LOWER, n, CudaType<T>::v,
                                      dA, n, CudaType<R>::v, dw, CudaType<T>::v, &dbytes, &hbytes),
          "Xsyevd_bufferSize");
      hwork.resize(std::max<std::size_t>(hbytes, 1));
    } else {
      cks(evd_buffer(h, jobz, int(n), dA, dw, &lw), "syevd_bufferSize");
      dbytes = sizeof(T) * std::size_t(std::max(lw, 1));
    }
    ck(cudaMalloc(&work, std::max<std::size_t>(dbytes, 1)), "cudaMalloc");
    cudaEvent_t a, b;
    ck(cudaEventCreate(&a), "cudaEventCreate");
    ck(cudaEventCreate(&b), "cudaEventCreate");
    std::vector<std::vector<R>> ws;
    std::vector<double> secs;
    for (int r = 0; r < runs + 1; ++r) {
      ck(cudaMemcpy(dA, A0.ptr(), sizeof(T) * std::size_t(n) * std::size_t(n),
                    cudaMemcpyHostToDevice),
         "A");
      ck(cudaEventRecord(a), "cudaEventRecord");
      if (x_api)
        cks(cusolverDnXsyevd(h, params, jobz, CUBLAS_FILL_MODE_LOWER, n, CudaType<T>::v, dA, n,
                             CudaType<R>::v, dw, CudaType<T>::v, work, dbytes, hwork.data(), hbytes,
                             info),
            "Xsyevd");
      else
        cks(evd(h, jobz, int(n), dA, dw, static_cast<T*>(work), lw, info), "syevd");
      ck(cudaEventRecord(b), "cudaEventRecord");
      ck(cudaEventSynchronize(b), "syevd");
      float ms = 0;
      ck(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
      int hinfo = 0;
      ck(cudaMemcpy(&hinfo, info, sizeof(int), cudaMemcpyDeviceToHost), "info");
      if (hinfo != 0) throw DeviceError("cuSOLVER syevd info = " + std::to_string(hinfo));
      std::vector<R> w(static_cast<std::size_t>(n));
      ck(cudaMemcpy(w.data(), dw, sizeof(R) * std::size_t(n), cudaMemcpyDeviceToHost), "w");
      if (r > 0) secs.push_back(ms * 1e-3);
      ws.push_back(std::move(w));
    }
    EigImplResult e;
    e.impl = "cusolver";
    e.api = x_api ? "Xsyevd" : "legacy";
    e.seconds = median(secs);
    e.runs = runs;
    e.distinct = count_distinct(ws);
    // Ours against cuSOLVER: max |w_ours - w_cusolver| / max |w_cusolver| (a sanity check
    // where the CPU run is unaffordable; both are backward stable, so this is O(n u)).
    if (!out.empty() && out[0].w0.size() == ws[0].size()) {
      double mx = 0, scale = 0;
      for (std::size_t k = 0; k < ws[0].size(); ++k) {
        const double c = to_double(ws[0][k]);
        mx = std::max(mx, std::abs(to_double(out[0].w0[k]) - c));
        scale = std::max(scale, std::abs(c));
      }
      out[0].rel_diff_vendor = scale > 0 ? mx / scale : mx;
    }
    out.push_back(e);
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    if (params) cusolverDnDestroyParams(params);
    cudaFree(dA);
    cudaFree(dw);
    cudaFree(work);
    cudaFree(info);
    cusolverDnDestroy(h);
  }
  for (auto& r : out)
    r.w0.clear();
  return out;
}

}  // namespace

std::vector<EigImplResult> bench_eig_size(Precision p, index_t n, int runs, bool vectors,
                                          bool check_cpu, bool host_input,
                                          const std::string& cusolver_api, Reduction reduction,
                                          int band) {
  if (cusolver_api != "auto" && cusolver_api != "x" && cusolver_api != "legacy" &&
      cusolver_api != "none")
    throw UsageError("--cusolver-api must be auto, x, legacy or none (got '" + cusolver_api + "')");
  return dispatch(p, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return bench_eig<T>(n, runs, vectors, check_cpu, host_input, cusolver_api, reduction, band);
  });
}

}  // namespace eigsolve
