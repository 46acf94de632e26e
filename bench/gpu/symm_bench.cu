// bench_symm: the canonical SYMM / HEMM of stage 1 (symv/symm_gpu.hpp) against cuBLAS
// ?symm / ?hemm (side left, lower) in the same process.
//
//   bench_symm [--sizes 2048,4096,8192,16384] [--k 32] [--prec s,d,c,z,dd] [--runs 5]
//              [--all-configs]
//
// Per precision and size: ms (CUDA events, median of --runs after one warm-up), GFLOP/s
// (2 m^2 k real-equivalent flops; complex 8 m^2 k; dd counted as 2 m^2 k dd operations), the
// same for cuBLAS (dd: none), the ratio cuBLAS ms / ours, and for m <= 4096 whether X equals
// symv_reference column by column bitwise (NaN-free random data). --all-configs also times every
// kernel configuration.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/context.hpp"
#include "core/precision.hpp"
#include "symv/reference.hpp"
#include "symv/symm_gpu.hpp"

using namespace eigsolve;

namespace {

#define CK(x)                                                                                 \
  do {                                                                                        \
    const cudaError_t e_ = (x);                                                               \
    if (e_ != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(2);                                                                           \
    }                                                                                         \
  } while (0)
#define CB(x)                                                                         \
  do {                                                                                \
    const cublasStatus_t s_ = (x);                                                    \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                \
      std::fprintf(stderr, "%s:%d %s: status %d\n", __FILE__, __LINE__, #x, int(s_)); \
      std::exit(2);                                                                   \
    }                                                                                 \
  } while (0)

__device__ __forceinline__ double hash_unit(unsigned long long i, unsigned long long salt) {
  unsigned long long z = i * 0x9E3779B97F4A7C15ull + salt;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return double(z >> 11) * (2.0 / 9007199254740992.0) - 1.0;  // [-1, 1)
}

/// Fills n elements with pseudo-random values in [-1, 1) per component (dd: lo tiny).
template <class T>
__global__ void fill_random(T* p, std::size_t n, unsigned long long salt) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const double a = hash_unit(2 * i, salt), b = hash_unit(2 * i + 1, salt);
    if constexpr (std::is_same_v<T, float>)
      p[i] = float(a);
    else if constexpr (std::is_same_v<T, double>)
      p[i] = a;
    else if constexpr (std::is_same_v<T, Complex<float>>)
      p[i] = Complex<float>(float(a), float(b));
    else if constexpr (std::is_same_v<T, Complex<double>>)
      p[i] = Complex<double>(a, b);
    else
      p[i] = dd_real::from_sum(a, b * 0x1p-60);
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

template <class F>
double time_ms(int runs, F&& f) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  f();  // warm-up
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<double> t;
  for (int r = 0; r < runs; ++r) {
    CK(cudaEventRecord(a));
    f();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    CK(cudaGetLastError());
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  return median(t);
}

template <class T>
bool cublas_symm(cublasHandle_t h, index_t m, index_t k, const T* A, const T* V, T* C) {
  const int mi = int(m), ki = int(k);
  if constexpr (std::is_same_v<T, float>) {
    const float one = 1, zero = 0;
    CB(cublasSsymm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, mi, ki, &one, A, mi, V, mi, &zero,
                   C, mi));
  } else if constexpr (std::is_same_v<T, double>) {
    const double one = 1, zero = 0;
    CB(cublasDsymm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, mi, ki, &one, A, mi, V, mi, &zero,
                   C, mi));
  } else if constexpr (std::is_same_v<T, Complex<float>>) {
    const cuComplex one{1, 0}, zero{0, 0};
    CB(cublasChemm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, mi, ki, &one,
                   reinterpret_cast<const cuComplex*>(A), mi, reinterpret_cast<const cuComplex*>(V),
                   mi, &zero, reinterpret_cast<cuComplex*>(C), mi));
  } else if constexpr (std::is_same_v<T, Complex<double>>) {
    const cuDoubleComplex one{1, 0}, zero{0, 0};
    CB(cublasZhemm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, mi, ki, &one,
                   reinterpret_cast<const cuDoubleComplex*>(A), mi,
                   reinterpret_cast<const cuDoubleComplex*>(V), mi, &zero,
                   reinterpret_cast<cuDoubleComplex*>(C), mi));
  } else {
    return false;
  }
  return true;
}

template <class T>
void bench(const char* p, const std::vector<index_t>& sizes, index_t k, int runs, bool all,
           cublasHandle_t h) {
  const double cf = is_complex_v<T> ? 8.0 : 2.0;
  for (index_t m : sizes) {
    const std::size_t na = std::size_t(m) * m, nv = std::size_t(m) * k;
    T *A = nullptr, *V = nullptr, *X = nullptr, *C = nullptr;
    if (cudaMalloc(&A, na * sizeof(T)) != cudaSuccess) {
      std::printf("%-3s m=%-6lld out of device memory\n", p, (long long)m);
      cudaGetLastError();
      continue;
    }
    CK(cudaMalloc(&V, nv * sizeof(T)));
    CK(cudaMalloc(&X, nv * sizeof(T)));
    CK(cudaMalloc(&C, nv * sizeof(T)));
    fill_random<<<1024, 256>>>(A, na, 12345ull + m);
    fill_random<<<256, 256>>>(V, nv, 777ull + m);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    const double flops = cf * double(m) * double(m) * double(k);
    const int sel = symm_select<T>(m, k);
    const double ms =
        time_ms(runs, [&] { symm_canonical_gpu<T>(m, k, A, m, V, m, X, m, nullptr); });
    double cms = 0;
    const bool has_cublas = cublas_symm<T>(h, m, k, A, V, C);
    if (has_cublas) cms = time_ms(runs, [&] { cublas_symm<T>(h, m, k, A, V, C); });
    std::string bit = "-";
    if (m <= 4096) {
      std::vector<T> hA(na), hV(nv), hX(nv), ref(nv);
      CK(cudaMemcpy(hA.data(), A, na * sizeof(T), cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(hV.data(), V, nv * sizeof(T), cudaMemcpyDeviceToHost));
      symm_canonical_gpu<T>(m, k, A, m, V, m, X, m, nullptr);
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(hX.data(), X, nv * sizeof(T), cudaMemcpyDeviceToHost));
      Context ctx;
      ctx.threads = std::max(1, int(std::thread::hardware_concurrency()));
      for (index_t q = 0; q < k; ++q)
        symv_reference<T>(ctx, m, T(1), hA.data(), m, hV.data() + m * q, T(0), ref.data() + m * q);
      bit = std::memcmp(hX.data(), ref.data(), nv * sizeof(T)) == 0 ? "yes" : "NO";
    }
    std::printf("%-3s m=%-6lld k=%-3lld ours %9.3f ms %9.1f GFLOP/s [%s]", p, (long long)m,
                (long long)k, ms, flops / ms * 1e-6, symm_config_name<T>(sel).c_str());
    if (has_cublas)
      std::printf("  cublas %9.3f ms %9.1f GFLOP/s  ratio %5.2f", cms, flops / cms * 1e-6,
                  cms / ms);
    else
      std::printf("  cublas      n/a");
    std::printf("  bitwise-vs-CPU %s\n", bit.c_str());
    if (all)
      for (int c = 0; c < symm_config_count<T>(); ++c) {
        const double t =
            time_ms(runs, [&] { symm_canonical_gpu<T>(m, k, A, m, V, m, X, m, nullptr, c); });
        std::printf("      config %d %-22s %9.3f ms %9.1f GFLOP/s\n", c,
                    symm_config_name<T>(c).c_str(), t, flops / t * 1e-6);
      }
    std::fflush(stdout);
    CK(cudaFree(A));
    CK(cudaFree(V));
    CK(cudaFree(X));
    CK(cudaFree(C));
  }
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string t;
  while (std::getline(ss, t, ','))
    if (!t.empty()) out.push_back(t);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<index_t> sizes = {2048, 4096, 8192, 16384};
  std::vector<std::string> precs = {"s", "d", "c", "z", "dd"};
  index_t k = 32;
  int runs = 5;
  bool all = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(1);
      }
      return argv[++i];
    };
    if (a == "--sizes") {
      sizes.clear();
      for (const auto& s : split(next()))
        sizes.push_back(std::atoll(s.c_str()));
    } else if (a == "--k") {
      k = std::atoll(next().c_str());
    } else if (a == "--prec") {
      precs = split(next());
    } else if (a == "--runs") {
      runs = std::max(1, std::atoi(next().c_str()));
    } else if (a == "--all-configs") {
      all = true;
    } else {
      std::fprintf(stderr,
                   "usage: bench_symm [--sizes 2048,4096,8192,16384] [--k 32] [--prec s,d,c,z,dd] "
                   "[--runs 5] [--all-configs]\n");
      return 1;
    }
  }
  if (k < 1 || k > kSymmMaxK) {
    std::fprintf(stderr, "--k must be in 1..%lld\n", (long long)kSymmMaxK);
    return 1;
  }
  int ndev = 0;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
    std::fprintf(stderr, "bench_symm: no CUDA device\n");
    return 1;
  }
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, %d SMs; k = %lld, runs = %d (median)\n", prop.name,
              prop.multiProcessorCount, (long long)k, runs);
  cublasHandle_t h;
  CB(cublasCreate(&h));
  for (const auto& p : precs) {
    if (p == "s")
      bench<float>("s", sizes, k, runs, all, h);
    else if (p == "d")
      bench<double>("d", sizes, k, runs, all, h);
    else if (p == "c")
      bench<Complex<float>>("c", sizes, k, runs, all, h);
    else if (p == "z")
      bench<Complex<double>>("z", sizes, k, runs, all, h);
    else if (p == "dd")
      bench<dd_real>("dd", sizes, k, runs, all, h);
    else
      std::fprintf(stderr, "unknown precision %s\n", p.c_str());
  }
  cublasDestroy(h);
  return 0;
}
