// Random test scalars for every precision (shared by the kernel test suites).
#pragma once

#include <random>
#include <type_traits>

#include "core/precision.hpp"

namespace eigsolve::test_util {

/// Uniform in [-1, 1) per component; dd values get a random low word too.
template <class T>
T random_scalar(std::mt19937_64& g) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  if constexpr (std::is_same_v<T, dd_real>) {
    double h = u(g);
    return dd_real::from_sum(h, h * 0x1p-60 * u(g));
  } else if constexpr (is_complex_v<T>) {
    using R = real_t<T>;
    return T(R(u(g)), R(u(g)));
  } else {
    return T(u(g));
  }
}

}  // namespace eigsolve::test_util
