// Checks shared by every reader: exact symmetry of full matrices, mirroring, allocation.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <new>

#include <omp.h>
#include <sys/sysinfo.h>

#include "core/parallel.hpp"
#include "io/io_detail.hpp"

namespace eigsolve {
namespace io_detail {

namespace {
constexpr index_t kTile = 64;  // cache blocking of the transposed accesses

template <class T>
bool has_imag(const T& v) {
  if constexpr (is_complex_v<T>) {
    return !(v.im == real_t<T>(0));
  } else {
    (void)v;
    return false;
  }
}
}  // namespace

template <class T>
Asymmetry find_asymmetry(const HostMatrix<T>& a) {
  const index_t n = a.n;
  Asymmetry r;
  // Fixed traversal order (tiles by columns, then rows), so the reported pair is
  // deterministic. Within the diagonal tile only i > j is compared.
  for (index_t jb = 0; jb < n; jb += kTile) {
    const index_t je = std::min(n, jb + kTile);
    for (index_t j = jb; j < je; ++j) {
      if (has_imag(a(j, j))) {
        r = {true, j, j};
        return r;
      }
    }
    for (index_t ib = jb; ib < n; ib += kTile) {
      const index_t ie = std::min(n, ib + kTile);
      for (index_t j = jb; j < je; ++j) {
        for (index_t i = std::max(ib, j + 1); i < ie; ++i) {
          if (!(a(i, j) == conj(a(j, i)))) {
            r = {true, i, j};
            return r;
          }
        }
      }
    }
  }
  return r;
}

template <class T>
void mirror_lower(HostMatrix<T>& a) {
  const index_t n = a.n;
  for (index_t j = 0; j < n; ++j)
    a(j, j) = T(real_part(a(j, j)));
  // Row tile ib writes columns ib..ie-1 of the upper triangle: tiles are independent copies,
  // so any thread count gives the same bits.
  const index_t ntiles = (n + kTile - 1) / kTile;
  const int threads = n >= 1024 ? omp_get_max_threads() : 1;
  parallel_for(ntiles, threads, 4, [&](index_t tb, index_t te) {
    for (index_t t = tb; t < te; ++t) {
      const index_t ib = t * kTile, ie = std::min(n, ib + kTile);
      for (index_t jb = 0; jb <= ib; jb += kTile) {
        const index_t je = std::min(n, jb + kTile);
        for (index_t i = ib; i < ie; ++i) {
          for (index_t j = jb; j < std::min(je, i); ++j)
            a(j, i) = conj(a(i, j));
        }
      }
    }
  });
}

std::uint64_t& matrix_memory_limit() {
  static std::uint64_t limit = [] {
    struct sysinfo si {};
    if (::sysinfo(&si) != 0 || si.totalram == 0) return ~std::uint64_t(0);
    return (static_cast<std::uint64_t>(si.totalram) + si.totalswap) * si.mem_unit;
  }();
  return limit;
}

template <class T>
HostMatrix<T> allocate_matrix(const std::string& path, std::int64_t line, index_t n) {
  const index_t max_n = static_cast<index_t>(
      std::sqrt(static_cast<double>(std::numeric_limits<index_t>::max() / sizeof(T))) - 1);
  if (n < 0 || n > max_n) {
    throw InputError(path, line, "matrix size " + std::to_string(n) + " is too large");
  }
  const std::uint64_t bytes =
      static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(n) * sizeof(T);
  if (bytes > matrix_memory_limit()) {  // would not fit: say so instead of paging to death
    throw OutOfMemory("reading " + path + " (a dense " + std::to_string(n) + " x " +
                          std::to_string(n) + " matrix; this machine has " +
                          std::to_string(matrix_memory_limit()) + " bytes of memory and swap)",
                      bytes);
  }
  try {
    return HostMatrix<T>(n);
  } catch (const std::bad_alloc&) {
    throw OutOfMemory(
        "reading " + path + " (dense " + std::to_string(n) + " x " + std::to_string(n) + " matrix)",
        static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(n) * sizeof(T));
  } catch (const std::length_error&) {
    throw OutOfMemory("reading " + path,
                      static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(n) * sizeof(T));
  }
}

template <class T>
std::string describe_value(const T& v) {
  auto one = [](const real_t<T>& x) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", to_double(x));
    return std::string(buf);
  };
  if constexpr (is_complex_v<T>) {
    return "(" + one(v.re) + ", " + one(v.im) + ")";
  } else {
    return one(v);
  }
}

#define EIGSOLVE_IO_INST(T)                                                             \
  template Asymmetry find_asymmetry<T>(const HostMatrix<T>&);                           \
  template void mirror_lower<T>(HostMatrix<T>&);                                        \
  template HostMatrix<T> allocate_matrix<T>(const std::string&, std::int64_t, index_t); \
  template std::string describe_value<T>(const T&);
EIGSOLVE_FOR_EACH_SCALAR(EIGSOLVE_IO_INST)
#undef EIGSOLVE_IO_INST

}  // namespace io_detail
}  // namespace eigsolve
