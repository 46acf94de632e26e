// Dense column-major storage on the host.
#pragma once

#include <cstddef>
#include <vector>

#include "core/precision.hpp"

namespace eigsolve {

/// An n x n column-major matrix (lda = n). Readers fill the lower triangle (i >= j); the
/// strict upper triangle is unspecified unless a routine says otherwise.
template <class T>
struct HostMatrix {
  index_t n = 0;
  std::vector<T> data;

  HostMatrix() = default;
  explicit HostMatrix(index_t n_) : n(n_), data(static_cast<std::size_t>(n_ * n_), T(0)) {}
  index_t ld() const { return n; }
  T& operator()(index_t i, index_t j) { return data[static_cast<std::size_t>(i + j * n)]; }
  const T& operator()(index_t i, index_t j) const {
    return data[static_cast<std::size_t>(i + j * n)];
  }
  T* ptr() { return data.data(); }
  const T* ptr() const { return data.data(); }
};

}  // namespace eigsolve
