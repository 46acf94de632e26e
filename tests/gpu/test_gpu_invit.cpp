// The canonical inverse iteration on the device (solver/invit_cuda.hpp): the whole
// inverse_iteration with a cuda context equals the CPU's bitwise, for float, double and dd, on
// random, glued-Wilkinson and degenerate tridiagonals (the last exercise Phase B's fallback),
// for all eigenvalues and for a subset; phase B on the device (EIGSOLVE_GPU_INVIT_B=1) with the
// single-CTA sequential kernel (EIGSOLVE_GPU_INVIT_CLUSTER=0; y_j in shared memory and,
// EIGSOLVE_GPU_INVIT_YGLOBAL=1, in global memory), with the thread-block-cluster kernel forced
// for every n (EIGSOLVE_GPU_INVIT_CLUSTER=1: clusters of 8; LargeRandom also 2 and 16; float
// and double only, dd has no cluster kernel; EIGSOLVE_GPU_INVIT_B3=0: the plain cluster kernel),
// the cluster kernel's B3 form (the default since session 10, EIGSOLVE_GPU_INVIT_B3=1: two
// columns in flight; clusters of 8 forced, LargeRandom also 16),
// and on the host (EIGSOLVE_GPU_INVIT_B=0).
// LargeRandom: hundreds of clusters, the largest of several blocks of 32 (n not a multiple of 64;
// above 8192 rows the sequential kernel's second register slot). FinishedColumnsReported: one
// cluster of more than 16 blocks, the finished-columns reports of InvitDeviceHooks.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <random>
#include <thread>
#include <vector>

#include "core/context.hpp"
#include "core/precision.hpp"
#include "solver/bisection.hpp"
#include "solver/inverse_iteration.hpp"
#include "tests/gpu/gpu_guard.hpp"

using namespace eigsolve;

namespace {

template <class R>
void check(const std::vector<R>& d, const std::vector<R>& e, index_t il, index_t iu,
           const char* what, bool global_y = false, bool sizes = false) {
  const index_t n = static_cast<index_t>(d.size()), m = iu - il + 1;
  // The host's cores (2 to 16): the bits do not depend on the thread count, and the CPU reference
  // and the host's phase B are host work (float LargeRandom took ~105 s on 2 threads, session 46;
  // how much of it was host time is not measured).
  const int threads = std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 2, 16);
  Context cpu, gpu;
  cpu.threads = threads;
  gpu.threads = threads;
  gpu.backend = Backend::cuda;
  std::vector<R> w(static_cast<std::size_t>(m));
  bisection_eigenvalues(cpu, n, d.data(), e.data(), il, iu, w.data());
  std::vector<R> z1(static_cast<std::size_t>(n * m)), z2(z1.size());
  const index_t f1 =
      inverse_iteration_counted(cpu, n, d.data(), e.data(), m, w.data(), il, z1.data(), n);
  // Phase B on the device: one CTA per cluster of eigenvalues (y_j in shared memory; in global
  // memory), thread block clusters of 8 (2, 16), the B3 form on clusters of 8 (16); and on the
  // host.
  struct Mode {
    const char *b, *yglobal, *cluster, *b3;
  };
  const Mode modes[] = {{"1", "0", "0", "0"},  {"1", "1", "0", "0"},  {"1", "0", "1", "0"},
                        {"1", "0", "2", "0"},  {"1", "0", "16", "0"}, {"1", "0", "1", "1"},
                        {"1", "0", "16", "1"}, {"0", "0", "0", "0"}};
  for (const Mode& md : modes) {
    if (md.yglobal[0] == '1' && !global_y) continue;
    if ((md.cluster[0] == '2' || md.cluster[1] == '6') && !sizes) continue;
    if (md.cluster[0] != '0' && sizeof(R) > 8) continue;  // dd: the single-CTA kernel only
    setenv("EIGSOLVE_GPU_INVIT_B", md.b, 1);
    setenv("EIGSOLVE_GPU_INVIT_YGLOBAL", md.yglobal, 1);
    setenv("EIGSOLVE_GPU_INVIT_CLUSTER", md.cluster, 1);
    setenv("EIGSOLVE_GPU_INVIT_B3", md.b3, 1);
    const std::string b = std::string(md.b) + (md.yglobal[0] == '1' ? ", y global" : "") +
                          ", clusters " + md.cluster + (md.b3[0] == '1' ? ", B3" : "");
    std::fill(z2.begin(), z2.end(), R(0));
    const index_t f2 =
        inverse_iteration_counted(gpu, n, d.data(), e.data(), m, w.data(), il, z2.data(), n);
    EXPECT_EQ(f1, f2) << what << ": fallbacks";
    EXPECT_EQ(std::memcmp(z1.data(), z2.data(), z1.size() * sizeof(R)), 0)
        << ScalarTraits<R>::name << " " << what << " n=" << n << " [" << il << ", " << iu
        << "] phase B on the device: " << b;
  }
  unsetenv("EIGSOLVE_GPU_INVIT_B");
  unsetenv("EIGSOLVE_GPU_INVIT_YGLOBAL");
  unsetenv("EIGSOLVE_GPU_INVIT_CLUSTER");
  unsetenv("EIGSOLVE_GPU_INVIT_B3");
  if (std::string(what) == "1000-fold") {
    EXPECT_GT(f1, 0) << "the fallback was not exercised";
  }
}

template <class R>
class GpuInvit : public ::testing::Test {};
using Reals = ::testing::Types<float, double, dd_real>;
TYPED_TEST_SUITE(GpuInvit, Reals);

TYPED_TEST(GpuInvit, BitwiseEqualToHost) {
  EIGSOLVE_REQUIRE_DEVICE();
  using R = TypeParam;
  std::mt19937_64 g(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (index_t n : {2, 3, 65, 700}) {
    std::vector<R> d(n), e(n - 1);
    for (auto& v : d)
      v = R(u(g));
    for (auto& v : e)
      v = R(u(g));
    check(d, e, 0, n - 1, "random");
    if (n > 3) check(d, e, n / 3, n / 2, "random subset");
  }
  {  // 12 copies of Wilkinson W21+ glued by 1e-10: clusters of 12
    const index_t k = 21, c = 12, n = k * c;
    std::vector<R> d(n), e(n - 1, R(1));
    for (index_t b = 0; b < c; ++b)
      for (index_t i = 0; i < k; ++i)
        d[b * k + i] = R(double(i < 10 ? 10 - i : i - 10));
    for (index_t b = 1; b < c; ++b)
      e[b * k - 1] = R(1e-10);
    check(d, e, 0, n - 1, "glued Wilkinson");
  }
  {  // 200 copies of one 2 x 2 block: two 200-fold eigenvalues (Phase B fallbacks)
    const index_t n = 400;
    std::vector<R> d(n), e(n - 1, R(0));
    for (index_t b = 0; b < n / 2; ++b) {
      d[2 * b] = R(1);
      d[2 * b + 1] = R(3);
      e[2 * b] = R(1);
    }
    check(d, e, 0, n - 1, "degenerate");
  }
  {  // T = I (n = 1000): one 1000-fold eigenvalue, the last vectors of Phase B fall back
    const index_t n = 1000;
    std::vector<R> d(n, R(1)), e(n - 1, R(0));
    check(d, e, 0, n - 1, "1000-fold", true);
  }
  {  // 20 copies of W21+ glued by 1e-10: clusters of 20 and 40 (blocks of 32, fallbacks)
    const index_t k = 21, c = 20, n = k * c;
    std::vector<R> d(n), e(n - 1, R(1));
    for (index_t b = 0; b < c; ++b)
      for (index_t i = 0; i < k; ++i)
        d[b * k + i] = R(double(i < 10 ? 10 - i : i - 10));
    for (index_t b = 1; b < c; ++b)
      e[b * k - 1] = R(1e-10);
    check(d, e, 0, n - 1, "glued Wilkinson 20", true);
  }
  {  // 300 copies of [2 1 0; 1 2 1; 0 1 2]: three 300-fold eigenvalues (windows of up to 299,
     // fallbacks inside later blocks of a cluster: rounds resume mid-block)
    const index_t copies = 300, n = 3 * copies;
    std::vector<R> d(n, R(2)), e(n - 1, R(1));
    for (index_t b = 1; b < copies; ++b)
      e[3 * b - 1] = R(0);
    check(d, e, 0, n - 1, "repeated 3x3", true);
  }
}

TYPED_TEST(GpuInvit, LargeRandom) {
  EIGSOLVE_REQUIRE_DEVICE();
  using R = TypeParam;
  std::mt19937_64 g(12);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  // n = 3001, 4000: ~230-360 clusters (the eigenvalues of a random tridiagonal do not repel), the
  // largest 56-172 vectors (2-6 blocks of 32; seeds 12 and 13 computed on the host), n % 64 != 0.
  // 9000 (float, double): two slots per thread in the sequential kernel, partial last slot;
  // clusters: 2 chunks per thread at clusters of 2 (9000: 141 tiles, 71 per CTA, 568 chunks).
  std::vector<index_t> sizes{3001, 4000};
  if (sizeof(R) <= 8) sizes.push_back(9000);
  for (const index_t n : sizes) {
    std::vector<R> d(n), e(n - 1);
    for (auto& v : d)
      v = R(u(g));
    for (auto& v : e)
      v = R(u(g));
    check(d, e, 0, n - 1, "large random", n == 3001, true);
    if (n == 4000) check(d, e, 1000, 2999, "large random subset");
  }
}

/// InvitDeviceHooks (what the back-transformation's overlap with phase B relies on): when phase B
/// reports columns [0, F) finished, they already hold the CPU's bits, and the final Z is the
/// CPU's too; F increases. Phase B on a non-blocking stream of high priority. Cases: one big
/// cluster (many reports), and 100 well separated eigenvalues before a 1000-fold one (a report at
/// the first check, then fallbacks: no report after them).
template <class R>
void check_ready(const std::vector<R>& d, const std::vector<R>& e, const char* what,
                 bool fallbacks) {  // fallbacks: the case must have some (else: any number)
  const index_t n = static_cast<index_t>(d.size()), m = n;
  Context cpu, gpu;
  cpu.threads = gpu.threads = 2;
  gpu.backend = Backend::cuda;
  std::vector<R> w(static_cast<std::size_t>(m)), z1(static_cast<std::size_t>(n * m));
  bisection_eigenvalues(cpu, n, d.data(), e.data(), 0, n - 1, w.data());
  const index_t f1 =
      inverse_iteration_counted(cpu, n, d.data(), e.data(), m, w.data(), 0, z1.data(), n);
  if (fallbacks) {
    EXPECT_GT(f1, 0) << what << ": the fallback was not exercised";
  }
  R* dz = nullptr;
  ASSERT_EQ(cudaMalloc(&dz, z1.size() * sizeof(R)), cudaSuccess);
  int lo_pri = 0, hi_pri = 0;
  cudaDeviceGetStreamPriorityRange(&lo_pri, &hi_pri);
  cudaStream_t st = nullptr;
  ASSERT_EQ(cudaStreamCreateWithPriority(&st, cudaStreamNonBlocking, hi_pri), cudaSuccess);
  InvitDeviceHooks hooks;
  hooks.stream = st;
  index_t last = 0;
  int calls = 0;
  std::vector<R> col;
  hooks.ready = [&](index_t f) {
    ++calls;
    EXPECT_GT(f, last) << what;
    EXPECT_LE(f, m) << what;
    last = f;
    col.resize(static_cast<std::size_t>(f * n));
    ASSERT_EQ(cudaMemcpy(col.data(), dz, col.size() * sizeof(R), cudaMemcpyDeviceToHost),
              cudaSuccess);
    EXPECT_EQ(std::memcmp(col.data(), z1.data(), col.size() * sizeof(R)), 0)
        << what << ": columns [0, " << f << ") reported final differ from the CPU's";
  };
  index_t f2 = -1;
  const bool on =
      inverse_iteration_device(gpu, n, d.data(), e.data(), m, w.data(), 0, dz, &f2, &hooks);
  EXPECT_TRUE(on) << what;
  EXPECT_EQ(f1, f2) << what << ": fallbacks";
  std::vector<R> z2(z1.size());
  EXPECT_EQ(cudaMemcpy(z2.data(), dz, z2.size() * sizeof(R), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(std::memcmp(z1.data(), z2.data(), z1.size() * sizeof(R)), 0) << what << ": Z";
  EXPECT_GT(calls, 0) << what << ": phase B reported no finished columns";
  cudaStreamDestroy(st);
  cudaFree(dz);
}

TYPED_TEST(GpuInvit, FinishedColumnsReported) {
  EIGSOLVE_REQUIRE_DEVICE();
  using R = TypeParam;
  std::mt19937_64 g(13);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  {  // tridiag(1, d, 1), |d| <= 1e-3: eigenvalues near 2 cos(k pi / (n + 1)), every gap below
     // ortol (4001) or the first ~30 % of them (dd, 2600): a cluster of more than 16 blocks of
     // 32, so phase B reports at its checks. (Random d and e give many small clusters: their
     // eigenvalues do not repel.)
    const index_t n = sizeof(R) > 8 ? 2600 : 4001;
    std::vector<R> d(n), e(n - 1, R(1));
    for (auto& v : d)
      v = R(1e-3 * u(g));
    check_ready(d, e, "tridiag(1, d, 1)", false);
  }
  {  // -1000, -990, ..., -10 (decoupled), then T = I of order 1000: 100 clusters of one, then a
     // 1000-fold eigenvalue whose last vectors fall back
    const index_t k = 100, n = k + 1000;
    std::vector<R> d(n, R(1)), e(n - 1, R(0));
    for (index_t i = 0; i < k; ++i)
      d[i] = R(double(-1000 + 10 * i));
    check_ready(d, e, "separated then 1000-fold", true);
  }
}

}  // namespace
