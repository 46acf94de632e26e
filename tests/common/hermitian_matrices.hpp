// Full Hermitian test matrices (both triangles, column-major n x n) shared by the householder
// test suites: random ones and exact-spectrum Hadamard ones.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "core/precision.hpp"
#include "tests/common/random_scalar.hpp"

namespace eigsolve::test_util {

/// Full Hermitian matrix (both triangles) from a random lower triangle.
template <class T>
std::vector<T> random_hermitian(index_t n, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::vector<T> F(static_cast<size_t>(n * n));
  for (index_t j = 0; j < n; ++j)
    for (index_t i = j; i < n; ++i) {
      T a = random_scalar<T>(g);
      if (i == j) a = T(real_part(a));
      F[i + n * j] = a;
      F[j + n * i] = conj(a);
    }
  return F;
}

/// A = S H diag(lambda) H^T S^H / n with the Sylvester Hadamard H and S = diag(i^k) (complex).
template <class T>
std::vector<T> hadamard_matrix(index_t n, const std::vector<double>& lambda) {
  auto h = [](index_t i, index_t j) { return __builtin_popcountll(i & j) % 2 ? -1.0 : 1.0; };
  std::vector<T> F(static_cast<size_t>(n * n));
  for (index_t j = 0; j < n; ++j)
    for (index_t i = 0; i < n; ++i) {
      double s = 0;
      for (index_t k = 0; k < n; ++k)
        s += h(i, k) * lambda[k] * h(j, k);
      using R = real_t<T>;
      T a = T(R(s / double(n)));  // exact: integer sum / power of two
      if constexpr (is_complex_v<T>) {
        // i^i * a * conj(i^j) = i^(i - j) a
        const int r = static_cast<int>(((i - j) % 4 + 4) % 4);
        const R z(0);
        const T ph[4] = {T(R(1), z), T(z, R(1)), T(R(-1), z), T(z, R(-1))};
        a = ph[r] * a;
      }
      F[i + n * j] = a;
    }
  return F;
}

}  // namespace eigsolve::test_util
