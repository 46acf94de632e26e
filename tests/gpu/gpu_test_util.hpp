// Shared helpers of the GPU test suites: device buffers, NaN scalars, NaN-tolerant bitwise
// equality (CPU and GPU NaN payloads differ; every other bit must agree).
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "core/precision.hpp"
#include "tests/common/random_scalar.hpp"

#define CUDA_OK(x) ASSERT_EQ((x), cudaSuccess) << #x

namespace eigsolve::test_util {

/// A device array of n elements (nullptr when the allocation failed).
template <class T>
struct DevBuf {
  T* p = nullptr;
  std::size_t count = 0;
  explicit DevBuf(std::size_t n) : count(n) {
    if (n && cudaMalloc(&p, n * sizeof(T)) != cudaSuccess) p = nullptr;
  }
  ~DevBuf() { cudaFree(p); }
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
  void put(const std::vector<T>& h) {
    ASSERT_EQ(cudaMemcpy(p, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  }
  std::vector<T> get() const {
    std::vector<T> h(count);
    if (count) cudaMemcpy(h.data(), p, count * sizeof(T), cudaMemcpyDeviceToHost);
    return h;
  }
};

/// A quiet NaN in every component.
template <class T>
T nan_scalar() {
  const double q = std::numeric_limits<double>::quiet_NaN();
  if constexpr (std::is_same_v<T, dd_real>)
    return dd_real(q, q);
  else
    return make_scalar<T>(real_t<T>(q), real_t<T>(q));
}

/// Bitwise equality, except that any NaN equals any NaN.
template <class T>
bool same_bits(const T& a, const T& b) {
  using P = std::conditional_t<std::is_same_v<real_t<T>, float>, float, double>;
  constexpr int parts = sizeof(T) / sizeof(P);
  P pa[parts], pb[parts];
  std::memcpy(pa, &a, sizeof(T));
  std::memcpy(pb, &b, sizeof(T));
  for (int i = 0; i < parts; ++i) {
    if (std::isnan(pa[i]) && std::isnan(pb[i])) continue;
    if (std::memcmp(&pa[i], &pb[i], sizeof(P)) != 0) return false;
  }
  return true;
}

/// alpha/beta test values: kind 1 one, 2 zero, 3 minus one, otherwise random.
template <class T>
T special(int kind, std::mt19937_64& g) {
  switch (kind) {
    case 1:
      return T(1);
    case 2:
      return T(0);
    case 3:
      return T(-1);
    default:
      return random_scalar<T>(g);
  }
}

}  // namespace eigsolve::test_util
