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
  HostMatrix(const HostMatrix& o) : n(o.n) { data = huge_copy(o.data); }
  HostMatrix& operator=(const HostMatrix& o) {  // strong guarantee: a failed copy changes nothing
    if (this != &o) {
      std::vector<T> d = huge_copy(o.data);
      data.swap(d);
      n = o.n;
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
  static std::vector<T> huge_copy(const std::vector<T>& from) {
    std::vector<T> d;
    reserve_huge(d, from.size());
    d.assign(from.begin(), from.end());
    return d;
  }
};

}  // namespace eigsolve
