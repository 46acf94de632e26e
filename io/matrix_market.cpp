// Matrix Market reader: the header, then a coordinate body (io/mm_coordinate.cpp) or an array
// body (here) into a dense n x n matrix.
//
//   TextBuffer ──parse_mm_header──▶ MMHeader ──coordinate / array body──▶ HostMatrix<T>
//                                                   │ general: find_asymmetry (exact)
//                                                   ▼
//                                        mirror_lower (upper = conj(lower))
//
// Line numbers are computed lazily (only for error messages) by counting '\n' up to the
// failing byte, so the hot loop touches each byte once.
#include <omp.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "io/mm_body.hpp"
#include "io/mm_header.hpp"

namespace eigsolve {
namespace io_detail {

namespace {

// Array bodies are parsed in chunks of whole lines, in parallel when the body is large:
//   pass 1 counts the data lines of each chunk, a prefix sum gives each chunk its first
//   value index, pass 2 parses every chunk into its fixed positions. Each chunk keeps its
//   first error; the error of the earliest chunk is reported, which is the first error in
//   the file, so neither the matrix nor the message depends on the thread count.
template <class T>
class ArrayReader : public BodyReader<T> {
 public:
  using BodyReader<T>::BodyReader;
  using BodyReader<T>::buf_;
  using BodyReader<T>::h_;
  using BodyReader<T>::n_;
  using BodyReader<T>::nvals_;

  /// Reads the body into a; returns the values that underflowed.
  Underflows run(HostMatrix<T>& a) {
    const index_t n = n_;
    general_ = h_.info.symmetry == "general";
    const index_t expected = general_ ? n * n : n * (n + 1) / 2;
    const char* body = h_.body;
    const char* end = buf_.end();
    const std::size_t bytes = static_cast<std::size_t>(end - body);
    int nchunks = 1;
    if (bytes >= array_parallel_bytes()) {
      nchunks = std::max(1, std::min<int>(omp_get_max_threads(), kMaxChunks));
    }
    const std::vector<const char*> cut = chunk_cuts(body, end, nchunks);
    std::vector<index_t> first(static_cast<std::size_t>(nchunks) + 1, 0);
    if (nchunks > 1) {
#pragma omp parallel for num_threads(nchunks) schedule(static, 1)
      for (int c = 0; c < nchunks; ++c) {
        first[static_cast<std::size_t>(c) + 1] =
            count_lines(cut[static_cast<std::size_t>(c)], cut[static_cast<std::size_t>(c) + 1]);
      }
      for (int c = 0; c < nchunks; ++c)
        first[c + 1] += first[c];
    }
    std::vector<std::exception_ptr> err(static_cast<std::size_t>(nchunks));
    std::vector<index_t> parsed(static_cast<std::size_t>(nchunks), 0);
    std::vector<Underflows> zeroed(static_cast<std::size_t>(nchunks));
    T* A = a.ptr();
#pragma omp parallel for num_threads(nchunks) schedule(static, 1) if (nchunks > 1)
    for (int c = 0; c < nchunks; ++c) {
      const std::size_t u = static_cast<std::size_t>(c);
      try {
        parsed[u] = parse_chunk(cut[u], cut[u + 1], first[u], expected, A, zeroed[u]);
      } catch (...) {
        err[u] = std::current_exception();
      }
    }
    for (auto& e : err)
      if (e) std::rethrow_exception(e);
    index_t count = 0;
    for (index_t p : parsed)
      count += p;
    this->check_count(count, expected, nullptr);
    if (general_) {
      Asymmetry s = find_asymmetry(a);
      if (s.found) {
        // Column-major order: (j, i) comes after (i, j) when i > j; report the later one.
        const index_t k = s.j + s.i * n;
        this->asymmetric(a, s, nth_line(k));
      }
    }
    mirror_lower(a);
    Underflows all;
    for (const Underflows& z : zeroed)
      all.merge(z);
    return all;
  }

 private:
  static constexpr int kMaxChunks = 64;

  static index_t count_lines(const char* p, const char* end) {
    index_t c = 0;
    for_each_data_line(p, end, [&](const DataLine&) {
      ++c;
      return true;
    });
    return c;
  }

  // (i, j) of value number k in the file order (column-major; lower triangle if symmetric).
  void position(index_t k, index_t& i, index_t& j) const {
    const index_t n = n_;
    if (general_) {
      j = n > 0 ? k / n : 0;
      i = k - j * n;
      return;
    }
    // Column j starts at s(j) = j*n - j*(j-1)/2: the largest j with s(j) <= k.
    index_t lo = 0, hi = n;
    while (hi - lo > 1) {
      const index_t mid = (lo + hi) / 2;
      if (mid * n - mid * (mid - 1) / 2 <= k) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    j = lo;
    i = j + (k - (j * n - j * (j - 1) / 2));
  }

  index_t parse_chunk(const char* b, const char* e, index_t k0, index_t expected, T* A,
                      Underflows& zeroed) const {
    using R = real_t<T>;
    const index_t n = n_;
    index_t i = 0, j = 0, k = k0;
    if (k0 < expected) position(k0, i, j);
    auto store = [&](const T& v) {
      A[i + j * n] = v;
      ++k;
      if (++i == n) {
        ++j;
        i = general_ ? 0 : j;
      }
    };
    auto general_line = [&](const DataLine& l) {
      // "extra data" (a later chunk may start past the end: k0 > expected)
      if (k >= expected) this->check_count(expected, expected, l.begin);
      if (l.ntok != nvals_) this->bad_token_count(l, nvals_, "", " (one value per line)");
      int z = 0;
      T v = this->value(l, 0, z);
      if (z != 0) zeroed.note(l.begin, i, j, z);
      if (!general_) {
        if (i == j) this->check_real_diagonal(l, i, v);
        this->check_complex_symmetric(l, i, j, v);
      }
      store(v);
      return false;  // one line at a time
    };
    // Fast path: a line that is exactly one plain real number (the dense case); anything
    // else (blank, comment, several tokens, '+', 'D' exponents, errors) takes general_line.
    constexpr bool kFast = !std::is_same<R, dd_real>::value;
    const bool fast = kFast && this->field_ == Field::kReal;
    const char* p = b;
    while (p < e) {
      if (fast && k < expected) {
        // from_chars stops at the first byte that is not part of the number; the line must
        // end right there (optionally after a '\r').
        R x{};
        if constexpr (kFast) {
          auto r = std::from_chars(p, e, x);
          const char* q = r.ptr;
          if (*q == '\r') ++q;
          if (r.ec == std::errc() && q < e && *q == '\n' && is_finite(x)) {
            if (x == R(0) && has_nonzero_digit(p, r.ptr)) zeroed.note(p, i, j, 1);
            store(T(x));
            p = q + 1;
            continue;
          }
        }
      }
      p = for_each_data_line(p, e, general_line);
    }
    return k - k0;
  }

  const char* nth_line(index_t k) const {
    index_t c = 0;
    const char* found = h_.body;
    for_each_data_line(h_.body, buf_.end(), [&](const DataLine& l) {
      if (c++ == k) {
        found = l.begin;
        return false;
      }
      return true;
    });
    return found;
  }

  bool general_ = false;
};

}  // namespace

std::size_t& array_parallel_bytes() {
  static std::size_t bytes = std::size_t(16) << 20;
  return bytes;
}

template <class T>
HostMatrix<T> read_matrix_market(const TextBuffer& buf, MatrixFileInfo* info) {
  MMHeader h = parse_mm_header(buf, true);
  if (info) *info = h.info;
  if (h.info.field == "complex" && !is_complex_v<T>) {
    throw InputError(buf.path(), h.banner_line,
                     "the matrix is complex (field 'complex'); read it in a complex precision: "
                     "use --precision c or z");
  }
  if (h.info.format == "array") {
    // Every value takes at least one byte: a size line that announces more values than the
    // rest of the file has bytes is rejected before the matrix is allocated.
    const index_t n = h.info.rows;
    const index_t values = h.info.symmetry == "general" ? n * n : n * (n + 1) / 2;
    const index_t bytes = std::max<index_t>(0, buf.content_end() - h.body);
    if (values > bytes) {
      throw InputError(buf.path(), h.size_line,
                       "the size line announces a " + std::to_string(n) + " x " +
                           std::to_string(n) + " array (" + count_of(values, "value", "values") +
                           ") but only " + count_of(bytes, "byte follows", "bytes follow") +
                           " it: the file cannot hold them (a wrong size line or "
                           "a truncated file)");
    }
  }
  if (h.info.format == "coordinate" && h.info.entries > 0) {
    // Likewise every entry line takes at least the 4 bytes of "i j\n" (the last one 3): a
    // size line that announces more entries is rejected before the matrix is allocated. (The
    // bound is that of pattern files in every field, so that a file a few entries short still
    // gets the truncation message, which names how many entries it has.)
    const index_t per = 4;
    const index_t bytes = std::max<index_t>(0, buf.content_end() - h.body);
    if (h.info.entries > (bytes + 1) / per) {
      throw InputError(buf.path(), h.size_line,
                       "the size line announces " + count_of(h.info.entries, "entry", "entries") +
                           " but only " + count_of(bytes, "byte follows", "bytes follow") +
                           " it: the file cannot hold them (a wrong size line or "
                           "a truncated file)");
    }
  }
  HostMatrix<T> a = allocate_matrix<T>(buf.path(), h.size_line, h.info.rows);
  if (h.info.format == "coordinate") {
    Underflows zeroed;
    const index_t summed = read_coordinate_body<T>(buf, h, a, zeroed);
    if (info) info->duplicates = summed;
    zeroed.report(buf, info);
  } else {
    ArrayReader<T>(buf, h).run(a).report(buf, info);
  }
  return a;
}

#define EIGSOLVE_IO_INST(T) \
  template HostMatrix<T> read_matrix_market<T>(const TextBuffer&, MatrixFileInfo*);
EIGSOLVE_FOR_EACH_SCALAR(EIGSOLVE_IO_INST)
#undef EIGSOLVE_IO_INST

}  // namespace io_detail
}  // namespace eigsolve