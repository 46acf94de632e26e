// Device bisection (solver/bisection_cuda.hpp) == host bisection bitwise, for float, double and
// dd: random, Laplacian, Wilkinson, zero and repeated-diagonal tridiagonals, full and subsets,
// in every device mode (EIGSOLVE_GPU_BISECT = 0 one thread per eigenvalue, 1 and 2 speculative
// multisection over 3 / 7 lanes, 3 speculative in one thread, 4 and 5 the lanes packed across
// a block's warps) with and without the shared top levels (EIGSOLVE_GPU_BISECT_TOP), and modes
// 1, 2 with 1 and 4 warps per block (EIGSOLVE_GPU_BISECT_WARPS).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/arith.hpp"
#include "core/context.hpp"
#include "core/precision.hpp"
#include "solver/bisection.hpp"
#include "solver/bisection_cuda.hpp"
#include "tests/gpu/gpu_guard.hpp"

using namespace eigsolve;

namespace {

template <class R>
void check(const std::vector<R>& d, const std::vector<R>& e, index_t il, index_t iu,
           const char* what) {
  const index_t n = static_cast<index_t>(d.size());
  const std::size_t cnt = static_cast<std::size_t>(iu - il + 1);
  std::vector<R> w1(cnt ? cnt : 1), w2(cnt ? cnt : 1);
  Context ctx;
  ctx.threads = 2;
  bisection_eigenvalues(ctx, n, d.data(), e.data(), il, iu, w1.data());
  // (mode, top levels, warps per block): "" is the default top (min(bit length of n, 16)) and
  // the default warps (4).
  struct Mode {
    const char *mode, *top, *warps;
  };
  const Mode modes[] = {{"0", "", ""},  {"1", "", ""},  {"1", "0", ""}, {"1", "3", ""},
                        {"1", "", "1"}, {"2", "", ""},  {"2", "0", ""}, {"2", "", "1"},
                        {"3", "", ""},  {"3", "0", ""}, {"4", "", ""},  {"4", "0", ""},
                        {"4", "3", ""}, {"5", "", ""},  {"5", "0", ""}};
  for (const auto& [mode, top, warps] : modes) {
    setenv("EIGSOLVE_GPU_BISECT", mode, 1);
    setenv("EIGSOLVE_GPU_BISECT_TOP", top, 1);
    setenv("EIGSOLVE_GPU_BISECT_WARPS", warps, 1);
    std::fill(w2.begin(), w2.end(), R(-7));
    bisection_eigenvalues_cuda(n, d.data(), e.data(), il, iu, w2.data());
    EXPECT_EQ(std::memcmp(w1.data(), w2.data(), cnt * sizeof(R)), 0)
        << ScalarTraits<R>::name << " " << what << " n=" << n << " [" << il << ", " << iu
        << "] mode " << mode << " top '" << top << "' warps '" << warps << "'";
  }
  unsetenv("EIGSOLVE_GPU_BISECT");
  unsetenv("EIGSOLVE_GPU_BISECT_TOP");
  unsetenv("EIGSOLVE_GPU_BISECT_WARPS");
}

template <class R>
class GpuBisection : public ::testing::Test {};
using Reals = ::testing::Types<float, double, dd_real>;
TYPED_TEST_SUITE(GpuBisection, Reals);

TYPED_TEST(GpuBisection, BitwiseEqualToHost) {
  EIGSOLVE_REQUIRE_DEVICE();
  using R = TypeParam;
  std::mt19937_64 g(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  // Sizes off the block sizes (40 eigenvalues per block in mode 1, 16 in mode 2, 128 in 0, 3,
  // 32 in 4, 5; 10 and 4 in modes 1, 2 with one warp per block).
  for (index_t n : {1, 2, 3, 31, 41, 100, 129, 1000}) {
    std::vector<R> d(n), e(n > 1 ? n - 1 : 1, R(0));
    for (auto& v : d)
      v = R(u(g));
    for (index_t i = 0; i + 1 < n; ++i)
      e[i] = R(u(g));
    check(d, e, 0, n - 1, "random");
    if (n > 3) check(d, e, n / 3, n / 2, "random subset");
    if (n > 50) {
      check(d, e, 7, 7, "random single");
      check(d, e, n - 41, n - 1, "random top subset");
    }
  }
  {  // Glued Wilkinson W21+ x 4, small couplings: tight pairs.
    std::vector<R> d, e;
    for (int b = 0; b < 4; ++b) {
      for (index_t i = 0; i < 21; ++i) {
        d.push_back(R(double(i > 10 ? i - 10 : 10 - i)));
        e.push_back(R(1));
      }
      e.back() = R(std::is_same_v<R, float> ? 1e-4 : 1e-8);
    }
    e.pop_back();
    check(d, e, 0, index_t(d.size()) - 1, "glued wilkinson");
  }
  {  // All-equal diagonal, tiny e: one tight cluster, converged inside the top levels.
    const index_t n = 77;
    std::vector<R> d(n, R(1)), e(n - 1, R(std::is_same_v<R, float> ? 1e-30 : 1e-200));
    check(d, e, 0, n - 1, "equal diagonal tiny e");
  }
  {  // Huge and tiny scales.
    const bool f = std::is_same_v<R, float>, q = std::is_same_v<R, dd_real>;
    const index_t n = 60;
    std::vector<R> dh(n), eh(n - 1), dt(n), et(n - 1);
    for (index_t i = 0; i < n; ++i) {
      const double a = u(g), b = u(g);
      dh[i] = scale2(R(a), f ? 120 : (q ? 900 : 1015));
      dt[i] = scale2(R(a), f ? -120 : (q ? -900 : -1000));
      if (i + 1 < n) {
        eh[i] = scale2(R(b), f ? 60 : (q ? 450 : 500));
        et[i] = scale2(R(b), f ? -120 : (q ? -900 : -1000));
      }
    }
    check(dh, eh, 0, n - 1, "huge");
    check(dt, et, 0, n - 1, "tiny");
  }
  {
    const index_t n = 500;
    std::vector<R> d(n, R(2)), e(n - 1, R(-1));
    check(d, e, 0, n - 1, "laplace1d");
  }
  {
    const index_t n = 21;  // Wilkinson W21+
    std::vector<R> d(n), e(n - 1, R(1));
    for (index_t i = 0; i < n; ++i)
      d[i] = R(double(i > 10 ? i - 10 : 10 - i));
    check(d, e, 0, n - 1, "wilkinson");
  }
  {
    const index_t n = 50;
    std::vector<R> d(n, R(0)), e(n - 1, R(0));
    check(d, e, 0, n - 1, "zero");
    for (index_t i = 0; i < n; ++i)
      d[i] = R(double(i % 3));
    check(d, e, 0, n - 1, "repeated diagonal");
  }
}

}  // namespace
