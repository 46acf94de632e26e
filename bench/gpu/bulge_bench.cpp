// bench_bulge: the device bulge chase (householder/bulge_chase_cuda.hpp) on a random Hermitian
// band, timed with CUDA events (one warm-up, then the median of --runs), bitwise against the
// CPU's band_to_tridiagonal for n <= 4096, and the number of distinct (d, e) over the runs.
//
//   bench_bulge [--sizes 4096,16384] [--b 32] [--prec s,d,z,dd] [--runs 3]
//
// One line per case: precision, n, b, median ms (min, max), cpu=yes/no/skip, distinct=k.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/context.hpp"
#include "core/precision.hpp"
#include "householder/bulge_chase_cuda.hpp"
#include "householder/two_stage.hpp"

using namespace eigsolve;

namespace {

void ck(cudaError_t st, const char* what) {
  if (st != cudaSuccess) {
    std::fprintf(stderr, "bench_bulge: %s: %s\n", what, cudaGetErrorString(st));
    std::exit(2);
  }
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

template <class T>
T rnd(std::mt19937_64& g) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  if constexpr (std::is_same<T, dd_real>::value) {
    const double h = u(g);
    return dd_real::from_sum(h, h * 0x1p-60 * u(g));
  } else if constexpr (is_complex_v<T>) {
    using R = real_t<T>;
    return T(R(u(g)), R(u(g)));
  } else {
    return T(u(g));
  }
}

template <class T>
void run_case(index_t n, index_t b, int runs) {
  using R = real_t<T>;
  const index_t ldab = 2 * b + 1;
  std::vector<T> AB(static_cast<size_t>(ldab * n), T(0));
  std::mt19937_64 g(12345 + std::uint64_t(n) * 31 + std::uint64_t(b));
  for (index_t c = 0; c < n; ++c)
    for (index_t k = 0; k <= b && c + k < n; ++k) {
      const T a = rnd<T>(g);
      AB[static_cast<size_t>(k + c * ldab)] = k == 0 ? T(real_part(a)) : a;
    }
  T* dAB = nullptr;
  T* dSrc = nullptr;
  R *dd = nullptr, *de = nullptr;
  const size_t bytes = AB.size() * sizeof(T);
  ck(cudaMalloc(&dAB, bytes), "cudaMalloc");
  ck(cudaMalloc(&dSrc, bytes), "cudaMalloc");
  ck(cudaMalloc(&dd, size_t(n) * sizeof(R)), "cudaMalloc");
  ck(cudaMalloc(&de, size_t(std::max<index_t>(n - 1, 1)) * sizeof(R)), "cudaMalloc");
  ck(cudaMemcpy(dSrc, AB.data(), bytes, cudaMemcpyHostToDevice), "upload");
  cudaStream_t st;
  ck(cudaStreamCreate(&st), "stream");
  cudaEvent_t e0, e1;
  ck(cudaEventCreate(&e0), "event");
  ck(cudaEventCreate(&e1), "event");
  std::vector<double> ms;
  std::set<std::vector<unsigned char>> distinct;
  std::vector<R> hd(static_cast<size_t>(n)), he(static_cast<size_t>(std::max<index_t>(n - 1, 0)));
  for (int r = 0; r <= runs; ++r) {  // r = 0: warm-up
    ck(cudaMemcpyAsync(dAB, dSrc, bytes, cudaMemcpyDeviceToDevice, st), "copy");
    ck(cudaEventRecord(e0, st), "record");
    band_to_tridiagonal_cuda<T>(n, b, dAB, ldab, dd, de, st);
    ck(cudaEventRecord(e1, st), "record");
    ck(cudaStreamSynchronize(st), "sync");
    float t = 0;
    ck(cudaEventElapsedTime(&t, e0, e1), "elapsed");
    ck(cudaMemcpy(hd.data(), dd, hd.size() * sizeof(R), cudaMemcpyDeviceToHost), "download");
    if (n > 1)
      ck(cudaMemcpy(he.data(), de, he.size() * sizeof(R), cudaMemcpyDeviceToHost), "download");
    std::vector<unsigned char> key((hd.size() + he.size()) * sizeof(R));
    std::memcpy(key.data(), hd.data(), hd.size() * sizeof(R));
    if (!he.empty())
      std::memcpy(key.data() + hd.size() * sizeof(R), he.data(), he.size() * sizeof(R));
    distinct.insert(key);
    if (r > 0) ms.push_back(t);
  }
  std::vector<double> sorted = ms;
  std::sort(sorted.begin(), sorted.end());
  const double med = sorted.empty() ? 0 : sorted[sorted.size() / 2];
  std::string cpu = "skip";
  double cpu_ms = 0;
  if (n <= 4096) {
    std::vector<R> cd(static_cast<size_t>(n)), ce(static_cast<size_t>(std::max<index_t>(n - 1, 0)));
    std::vector<T> ABc = AB;
    Context ctx;
    const auto t0 = std::chrono::steady_clock::now();
    band_to_tridiagonal(ctx, n, b, ABc.data(), ldab, cd.data(), ce.data());
    cpu_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const bool same = std::memcmp(cd.data(), hd.data(), cd.size() * sizeof(R)) == 0 &&
                      (ce.empty() || std::memcmp(ce.data(), he.data(), ce.size() * sizeof(R)) == 0);
    cpu = same ? "yes" : "no";
  }
  std::printf("bulge %-2s n=%-6ld b=%-3ld device %9.3f ms (min %.3f, max %.3f)  cpu-bitwise=%s",
              ScalarTraits<T>::name, long(n), long(b), med, sorted.empty() ? 0 : sorted.front(),
              sorted.empty() ? 0 : sorted.back(), cpu.c_str());
  if (cpu != "skip") std::printf(" (cpu %.1f ms)", cpu_ms);
  std::printf("  distinct=%zu/%d\n", distinct.size(), runs + 1);
  std::fflush(stdout);
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  cudaStreamDestroy(st);
  cudaFree(dAB);
  cudaFree(dSrc);
  cudaFree(dd);
  cudaFree(de);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> sizes{"4096", "16384"}, precs{"s", "d", "z", "dd"};
  index_t b = 32;
  int runs = 3;
  for (int a = 1; a < argc; ++a) {
    const std::string k = argv[a];
    auto val = [&]() -> std::string {
      if (a + 1 >= argc) {
        std::fprintf(stderr, "bench_bulge: %s needs a value\n", k.c_str());
        std::exit(1);
      }
      return argv[++a];
    };
    if (k == "--sizes")
      sizes = split(val());
    else if (k == "--b")
      b = std::atol(val().c_str());
    else if (k == "--prec")
      precs = split(val());
    else if (k == "--runs")
      runs = std::max(1, std::atoi(val().c_str()));
    else {
      std::fprintf(stderr,
                   "usage: bench_bulge [--sizes 4096,16384] [--b 32] [--prec s,d,z,dd] "
                   "[--runs 3]\n");
      return k == "--help" || k == "-h" ? 0 : 1;
    }
  }
  if (cuda_device_count() == 0) {
    std::fprintf(stderr, "bench_bulge: no CUDA device\n");
    return 2;
  }
  for (const auto& p : precs)
    for (const auto& s : sizes) {
      const index_t n = std::atol(s.c_str());
      dispatch(parse_precision(p), [&](auto tag) {
        using T = typename decltype(tag)::type;
        run_case<T>(n, b, runs);
      });
    }
  return 0;
}
