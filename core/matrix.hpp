// Dense column-major storage on the host.
#pragma once

#include <cstddef>
#include <vector>

#include "core/huge_pages.hpp"
#include "core/precision.hpp"

namespace eigsolve {

/// An n x n column-major matrix (lda = n). Readers fill the lower triangle (i >= j); the
/// strict upper triangle is unspecified unless a routine says otherwise.
template <class T>
struct HostMatrix {
  index_t n = 0;
  std::vector<T> data;

  HostMatrix() = default;
  explicit HostMatrix(index_t n_) : n(n_) {
    const auto size = static_cast<std::size_t>(n_ * n_);
    reserve_huge(data, size);  // the zeros below fault 2 MiB pages where the kernel grants them
    data.assign(size, T(0));
  }
  HostMatrix(const HostMatrix& o) : n(o.n) { copy_from(o); }
  HostMatrix& operator=(const HostMatrix& o) {
    if (this != &o) {
      n = o.n;
      copy_from(o);
    }
    return *this;
  }
  HostMatrix(HostMatrix&&) noexcept = default;
  HostMatrix& operator=(HostMatrix&&) noexcept = default;
  index_t ld() const { return n; }
  T& operator()(index_t i, index_t j) { return data[static_cast<std::size_t>(i + j * n)]; }
  const T& operator()(index_t i, index_t j) const {
    return data[static_cast<std::size_t>(i + j * n)];
  }
  T* ptr() { return data.data(); }
  const T* ptr() const { return data.data(); }

 private:
  void copy_from(const HostMatrix& o) {
    reserve_huge(data, o.data.size());
    data.assign(o.data.begin(), o.data.end());
  }
};

}  // namespace eigsolve
