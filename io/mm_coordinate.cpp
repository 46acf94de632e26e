// Matrix Market coordinate bodies into a dense n x n matrix: tokenizing and converting (in
// parallel blocks for large bodies), then applying the entries in file order (duplicates
// summed, both triangles compared, count checked).
//
//   body ──scan (per block, parallel)──▶ (i, j, value) entries ──put (file order)──▶ A
//                                                                   │ general: find_asymmetry
//                                                                   │ symmetric: merge_triangles
//                                                                   ▼
//                                                          mirror_lower (upper = conj(lower))
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstdint>
#include <exception>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "io/mm_body.hpp"
#include "io/mm_header.hpp"

namespace eigsolve {
namespace io_detail {

namespace {

class Bits {
 public:
  explicit Bits(index_t n) {
    try {
      w_.assign(static_cast<std::size_t>((n + 63) / 64), 0);
    } catch (const std::bad_alloc&) {
      throw OutOfMemory("reading a coordinate file (entry bitmap)",
                        static_cast<std::uint64_t>((n + 63) / 64) * 8);
    }
  }
  bool test(index_t k) const { return (w_[static_cast<std::size_t>(k >> 6)] >> (k & 63)) & 1u; }
  void set(index_t k) { w_[static_cast<std::size_t>(k >> 6)] |= std::uint64_t(1) << (k & 63); }
  /// The first set bit in [k, end), or end.
  index_t next(index_t k, index_t end) const {
    while (k < end) {
      const std::uint64_t w = w_[static_cast<std::size_t>(k >> 6)] >> (k & 63);
      if (w != 0) return std::min(end, k + __builtin_ctzll(w));
      k = (k | 63) + 1;
    }
    return end;
  }

 private:
  std::vector<std::uint64_t> w_;
};

// Coordinate bodies are tokenized and converted in chunks of whole lines, in parallel when
// the body is large: each chunk turns its lines into (i, j, value, line) entries and stops at
// its first error. The entries are then applied serially in file order with the duplicate,
// triangle and count checks; reaching a chunk with an error, its entries (all before the
// failing line) are applied and then the error is raised. The first error in file order is
// thus reported with the serial reader's message and line, whatever the thread count.
template <class T>
class CoordinateReader : public BodyReader<T> {
 public:
  using BodyReader<T>::BodyReader;
  using BodyReader<T>::buf_;
  using BodyReader<T>::h_;
  using BodyReader<T>::n_;
  using BodyReader<T>::fail;
  using BodyReader<T>::nvals_;

  /// Reads the body into a (zeroed, n x n); returns the number of entries summed into an
  /// earlier entry of the same (i, j) and triangle. `zeroed`: the values that underflowed.
  index_t run(HostMatrix<T>& a, Underflows& zeroed) {
    const index_t n = n_, nnz = h_.info.entries;
    const bool general = h_.info.symmetry == "general";
    const bool herm = h_.info.symmetry == "hermitian";
    // seen: which positions hold an entry. Symmetric/Hermitian files keep an upper-triangle
    // entry (i < j) at its own position until the end (both triangles are compared once their
    // duplicates are summed); up_first marks lower positions whose upper entry came first.
    Bits seen(n * n), up_first(general ? 0 : n * n);
    T* A = a.ptr();
    index_t count = 0, summed = 0;
    const char* extra = nullptr;
    // Stores entry (i, j) = v (0-based, range-checked), summing repeated entries in file order;
    // line() gives the start of its line (only called for an error message).
    auto put = [&](auto&& line, index_t i, index_t j, const T& v) {
      auto at = [&] {
        DataLine l;
        l.begin = line();
        return l;
      };
      if (!general) {
        if (i == j && !(imag_part(v) == R(0))) this->check_real_diagonal(at(), i, v);
        if (this->csym_ && !(imag_part(v) == R(0))) this->check_complex_symmetric(at(), i, j, v);
      }
      const index_t pos = i + j * n;
      if (seen.test(pos)) {
        const T sum = A[pos] + v;
        if (!is_finite(sum)) this->sum_overflows(at(), i, j, A[pos], v);
        A[pos] = sum;
        ++summed;
      } else {
        seen.set(pos);
        A[pos] = v;
        if (!general && i < j && !seen.test(j + i * n)) up_first.set(j + i * n);
      }
      ++count;
    };
    const char* const body = h_.body;
    const char* const end = buf_.end();
    const std::size_t bytes = static_cast<std::size_t>(end - body);
    int nt = 1;
    if (bytes >= coordinate_parallel_bytes()) {
      nt = std::max(1, std::min<int>(omp_get_max_threads(), kMaxChunks));
    }
    if (nt == 1) {
      extra = scan(
          body, end,
          [&](const char* lb, index_t i, index_t j, const T& v) {
            put([lb] { return lb; }, i, j, v);
          },
          [&] { return count == nnz; }, nullptr, zeroed);
    } else {
      // Blocks of about coordinate_block_bytes(), taken in file order by whichever thread is
      // free: it parses its block into its own buffer (reused, so its pages stay warm), waits
      // for the block's turn, applies it, and takes the next block. Applying one block thus
      // overlaps with parsing the next ones, and the entries are still applied in file order.
      const std::size_t block = std::max<std::size_t>(coordinate_block_bytes(), 1);
      const std::size_t nblocks =
          std::max<std::size_t>(static_cast<std::size_t>(nt), (bytes + block - 1) / block);
      const std::vector<const char*> cut = chunk_cuts(body, end, static_cast<int>(nblocks));
      std::atomic<std::size_t> next{0}, turn{0};
      std::atomic<bool> stop{false};
      std::exception_ptr failure;  // written by the thread holding the turn only
#pragma omp parallel num_threads(nt)
      {
        std::vector<Entry> out;
        Underflows out_zeroed;  // of the block
        for (;;) {
          const std::size_t b = next.fetch_add(1);
          if (b >= nblocks || stop.load()) break;
          const char* const cb = cut[b];
          const char* const ce = cut[b + 1];
          const char* cur = nullptr;
          const char* err_line = nullptr;
          std::exception_ptr err;
          try {
            out.clear();
            out_zeroed = Underflows();
            // Expected entries of the block, at most one per 4 bytes ("1 1\n").
            const double len = static_cast<double>(ce - cb);
            const double guess = static_cast<double>(nnz) * len /
                                     static_cast<double>(std::max<std::size_t>(bytes, 1)) * 1.05 +
                                 16;
            out.reserve(static_cast<std::size_t>(std::min(std::max(guess, 0.0), len / 4 + 1)));
            scan(
                cb, ce,
                [&out](const char*, index_t i, index_t j, const T& v) {
                  out.push_back(
                      Entry{static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j), v});
                },
                [] { return false; }, &cur, out_zeroed);
          } catch (const std::bad_alloc&) {
            err = std::make_exception_ptr(
                OutOfMemory("reading a coordinate file (parsed entries)",
                            static_cast<std::uint64_t>(out.capacity()) * 2 * sizeof(Entry)));
          } catch (...) {
            err = std::current_exception();
            err_line = cur;
          }
          while (turn.load(std::memory_order_acquire) != b && !stop.load())
            std::this_thread::yield();
          if (stop.load()) break;
          try {
            for (std::size_t k = 0; k < out.size(); ++k) {
              // Entry k is the k-th data line of the block.
              auto line = [&] { return nth_data_line(cb, k); };
              if (count == nnz) {
                extra = line();
                break;
              }
              put(line, out[k].i, out[k].j, out[k].v);
            }
            zeroed.merge(out_zeroed);  // in file order: this block holds the turn
            if (extra == nullptr && err) {
              if (err_line && count == nnz) {
                extra = err_line;  // the serial reader stops at the count before parsing
              } else {
                failure = err;
              }
            }
          } catch (...) {
            failure = std::current_exception();
          }
          if (failure || extra) stop.store(true);
          turn.store(b + 1, std::memory_order_release);
        }
      }
      if (failure) std::rethrow_exception(failure);
    }
    this->check_count(count, nnz, extra);
    if (general) {
      Asymmetry s = find_asymmetry(a);
      if (s.found) this->asymmetric(a, s, locate(s.i, s.j));
    } else {
      merge_triangles(a, seen, up_first, herm);
    }
    mirror_lower(a);
    return summed;
  }

 private:
  using R = real_t<T>;
  static constexpr int kMaxChunks = 64;

  // A parsed entry, 0-based (n < 2^32: the dense n x n matrix exists).
  struct Entry {
    std::uint32_t i;
    std::uint32_t j;
    T v;
  };

  // Symmetric/Hermitian files: each upper entry (i < j), its duplicates summed, becomes the
  // lower entry (j, i) (Hermitian: conjugated) where that has none; where the file stores both
  // triangles they must agree exactly, and the one that came first in the file is kept (the
  // two can differ only in the sign of a zero).
  void merge_triangles(HostMatrix<T>& a, const Bits& seen, const Bits& up_first, bool herm) const {
    const index_t n = n_;
    T* A = a.ptr();
    for (index_t j = 1; j < n; ++j) {
      for (index_t u = seen.next(j * n, j * n + j); u < j * n + j;
           u = seen.next(u + 1, j * n + j)) {
        const index_t i = u - j * n;  // upper (i, j)
        const index_t l = j + i * n;  // lower (j, i)
        const T m = herm ? conj(A[u]) : A[u];
        if (seen.test(l)) {
          if (!(A[l] == m)) this->triangles_disagree(locate(i, j), j, i, A[l], m, herm);
          if (up_first.test(l)) A[l] = m;
        } else {
          A[l] = m;
        }
      }
    }
  }

  // The start of the k-th (0-based) data line from b (b starts a line).
  const char* nth_data_line(const char* b, std::size_t k) const {
    std::size_t c = 0;
    const char* found = b;
    for_each_data_line(b, buf_.end(), [&](const DataLine& l) {
      found = l.begin;
      return c++ < k;
    });
    return found;
  }

  // Tokenizes and converts the data lines of [p, e) (whole lines), calling
  // put(line_begin, i, j, value) with 0-based range-checked indices. Before each data line
  // full() is asked whether the announced count is reached: then that line is "extra data"
  // and its start is returned (nullptr otherwise). When cur is given, *cur is the start of
  // the line being parsed by the general path (the line of an exception). Values that
  // underflowed are noted in `zeroed`.
  template <class Put, class Full>
  const char* scan(const char* p, const char* const e, Put&& put, Full&& full, const char** cur,
                   Underflows& zeroed) const {
    const index_t n = n_;
    const int expect = 2 + nvals_;
    const char* extra = nullptr;
    auto general_line = [&](const DataLine& l) {
      if (cur) *cur = l.begin;
      if (full()) {
        extra = l.begin;
        return false;
      }
      if (l.ntok != expect) this->bad_token_count(l, expect, "row column", "");
      index_t i = this->index(l, l.tok[0], "row") - 1;
      index_t j = this->index(l, l.tok[1], "column") - 1;
      int z = 0;
      const T v = this->value(l, 2, z);
      if (z != 0) zeroed.note(l.begin, i, j, z);
      put(l.begin, i, j, v);
      return false;  // one line at a time
    };
    using R = real_t<T>;
    constexpr bool kFast = !std::is_same<R, dd_real>::value;
    const bool fast = kFast && this->field_ == Field::kReal;
    while (p < e && extra == nullptr) {
      // Fast path: "i j value" with plain numbers and in-range indices; anything else
      // (comments, blank lines, signs, errors) goes through general_line.
      if (fast && !full()) {
        std::int64_t i = 0, j = 0;
        auto r1 = std::from_chars(p, e, i);
        const char* q = r1.ptr;
        if (r1.ec == std::errc() && is_hspace(*q) && i >= 1 && i <= n) {
          while (is_hspace(*q))
            ++q;
          auto r2 = std::from_chars(q, e, j);
          q = r2.ptr;
          if (r2.ec == std::errc() && is_hspace(*q) && j >= 1 && j <= n) {
            while (is_hspace(*q))
              ++q;
            R x{};
            if constexpr (kFast) {
              const char* const vb = q;
              auto r3 = std::from_chars(q, e, x);
              q = r3.ptr;
              if (r3.ec == std::errc() && is_finite(x)) {
                while (is_hspace(*q))
                  ++q;
                if (*q == '\n') {
                  if (x == R(0) && has_nonzero_digit(vb, r3.ptr)) zeroed.note(p, i - 1, j - 1, 1);
                  put(p, i - 1, j - 1, T(x));
                  p = q + 1;
                  continue;
                }
              }
            }
          }
        }
      }
      p = for_each_data_line(p, e, general_line);
    }
    return extra;
  }

 private:
  // The last entry line that names (i, j) or (j, i) (0-based), for error messages.
  const char* locate(index_t i, index_t j) const {
    const char* found = h_.body;
    for_each_data_line(h_.body, buf_.end(), [&](const DataLine& l) {
      std::int64_t r = 0, c = 0;
      if (l.ntok >= 2 && parse_int64(l.tok[0].b, l.tok[0].e, r) == NumStatus::kOk &&
          parse_int64(l.tok[1].b, l.tok[1].e, c) == NumStatus::kOk) {
        if ((r - 1 == i && c - 1 == j) || (r - 1 == j && c - 1 == i)) found = l.begin;
      }
      return true;
    });
    return found;
  }
};

}  // namespace

std::size_t& coordinate_parallel_bytes() {
  static std::size_t bytes = std::size_t(16) << 20;
  return bytes;
}

std::size_t& coordinate_block_bytes() {
  static std::size_t bytes = std::size_t(4) << 20;
  return bytes;
}

template <class T>
index_t read_coordinate_body(const TextBuffer& buf, const MMHeader& h, HostMatrix<T>& a,
                             Underflows& zeroed) {
  return CoordinateReader<T>(buf, h).run(a, zeroed);
}

#define EIGSOLVE_IO_INST(T)                                                                    \
  template index_t read_coordinate_body<T>(const TextBuffer&, const MMHeader&, HostMatrix<T>&, \
                                           Underflows&);
EIGSOLVE_FOR_EACH_SCALAR(EIGSOLVE_IO_INST)
#undef EIGSOLVE_IO_INST

}  // namespace io_detail
}  // namespace eigsolve
