// Device bisection (solver/bisection_cuda.hpp) == host bisection bitwise, for float, double and
// dd: random, Laplacian, Wilkinson, zero and repeated-diagonal tridiagonals, full and subsets.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

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
  bisection_eigenvalues_cuda(n, d.data(), e.data(), il, iu, w2.data());
  EXPECT_EQ(std::memcmp(w1.data(), w2.data(), cnt * sizeof(R)), 0)
      << ScalarTraits<R>::name << " " << what << " n=" << n << " [" << il << ", " << iu << "]";
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
  for (index_t n : {1, 2, 3, 100, 1000}) {
    std::vector<R> d(n), e(n > 1 ? n - 1 : 1, R(0));
    for (auto& v : d)
      v = R(u(g));
    for (index_t i = 0; i + 1 < n; ++i)
      e[i] = R(u(g));
    check(d, e, 0, n - 1, "random");
    if (n > 3) check(d, e, n / 3, n / 2, "random subset");
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
