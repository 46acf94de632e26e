// hh_detail::max_abs1 (the reflector's scaling exponent): the vector lanes of float / double
// give the value of the literal scalar loop, NaNs and signed zeros included.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "householder/larfg.hpp"

namespace eigsolve {
namespace {

template <class R>
R literal_max_abs(index_t n, const R* x) {
  R m = R(0);
  for (index_t i = 0; i < n; ++i)
    if (std::abs(x[i]) > m) m = std::abs(x[i]);
  return m;
}

template <class R>
void check_max_abs1() {
  std::mt19937_64 g(91);
  std::uniform_real_distribution<double> u(-1e3, 1e3);
  std::uniform_int_distribution<int> pick(0, 9);
  for (index_t n = 0; n <= 140; ++n)
    for (int rep = 0; rep < 4; ++rep) {
      std::vector<R> x(static_cast<size_t>(n));
      for (auto& a : x) {
        const int k = pick(g);
        a = k == 0   ? std::numeric_limits<R>::quiet_NaN()
            : k == 1 ? R(-0.0)
            : k == 2 ? -std::numeric_limits<R>::denorm_min()
                     : R(u(g));
      }
      const R got = hh_detail::max_abs1(n, x.data());
      const R want = literal_max_abs(n, x.data());
      EXPECT_EQ(std::memcmp(&got, &want, sizeof(R)), 0) << "n = " << n << " rep = " << rep;
    }
}

TEST(Larfg, MaxAbs1MatchesTheLiteralLoopFloat) {
  check_max_abs1<float>();
}
TEST(Larfg, MaxAbs1MatchesTheLiteralLoopDouble) {
  check_max_abs1<double>();
}

}  // namespace
}  // namespace eigsolve
