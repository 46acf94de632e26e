// Shared pieces of the Matrix Market body readers: value parsing per field and the error
// messages. Internal.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "io/io_detail.hpp"
#include "io/mm_header.hpp"

namespace eigsolve {
namespace io_detail {

// Boundaries of nchunks chunks of [body, end) of about equal size, each just after a '\n'
// (the body itself starts a line); cut[0] = body, cut[nchunks] = end.
inline std::vector<const char*> chunk_cuts(const char* body, const char* end, int nchunks) {
  const std::size_t bytes = static_cast<std::size_t>(end - body);
  std::vector<const char*> cut(static_cast<std::size_t>(nchunks) + 1);
  cut[0] = body;
  cut[static_cast<std::size_t>(nchunks)] = end;
  for (int c = 1; c < nchunks; ++c) {
    const char* p = body + bytes * static_cast<std::size_t>(c) / static_cast<std::size_t>(nchunks);
    p = std::max(p, cut[static_cast<std::size_t>(c) - 1]);
    while (p < end && p[-1] != '\n')
      ++p;
    cut[static_cast<std::size_t>(c)] = p;
  }
  return cut;
}

/// Reads a coordinate body (io/mm_coordinate.cpp) into a (zeroed, n x n): validated, repeated
/// entries summed in file order, mirrored. Returns the number of entries summed; `zeroed`
/// gets the values that underflowed to zero.
template <class T>
index_t read_coordinate_body(const TextBuffer& buf, const MMHeader& h, HostMatrix<T>& a,
                             Underflows& zeroed);

enum class Field { kReal, kInteger, kPattern, kComplex };

inline Field field_of(const std::string& f) {
  if (f == "integer") return Field::kInteger;
  if (f == "pattern") return Field::kPattern;
  if (f == "complex") return Field::kComplex;
  return Field::kReal;
}

template <class T>
class BodyReader {
 public:
  using R = real_t<T>;
  BodyReader(const TextBuffer& buf, const MMHeader& h)
      : buf_(buf),
        h_(h),
        n_(h.info.rows),
        field_(field_of(h.info.field)),
        nvals_(field_ == Field::kPattern   ? 0
               : field_ == Field::kComplex ? 2
                                           : 1),
        csym_(field_ == Field::kComplex && h.info.symmetry == "symmetric") {}

 protected:
  [[noreturn]] void fail(const char* pos, const std::string& msg) const {
    throw InputError(buf_.path(), buf_.line_of(pos), msg);
  }

  /// A 1-based index in [1, n].
  index_t index(const DataLine& l, const Token& t, const char* what) const {
    std::int64_t v = 0;
    NumStatus s = parse_int64(t.b, t.e, v);
    if (s != NumStatus::kOk) {
      fail(l.begin,
           std::string("bad ") + what + " index " + quote(t.view()) + " (expected an integer)");
    }
    if (v < 1 || v > n_) {
      fail(l.begin, std::string(what) + " index " + std::to_string(v) + " is out of range 1.." +
                        std::to_string(n_) + " (indices are 1-based)");
    }
    return v;
  }

  /// The value of token t; a nonzero token that became zero adds 1 to `zeroed`.
  R real_value(const DataLine& l, const Token& t, int& zeroed) const {
    R x;
    if (field_ == Field::kInteger) {
      std::int64_t k = 0;
      NumStatus s = parse_int64(t.b, t.e, k);
      if (s != NumStatus::kOk) {
        fail(l.begin, s == NumStatus::kOverflow
                          ? "integer value " + quote(t.view()) + " does not fit in 64 bits"
                          : "value " + quote(t.view()) + " is not an integer (field 'integer')");
      }
      return int_to_real<R>(k);
    }
    NumStatus s = parse_real<R>(t.b, t.e, x);
    if (s != NumStatus::kOk) {
      if (s == NumStatus::kOverflow) {
        fail(l.begin, "value " + quote(t.view()) + " overflows " + real_type_name<R>() +
                          " (the chosen precision)");
      }
      fail(l.begin, number_error(s, t.view(), "value"));
    }
    if (x == R(0) && has_nonzero_digit(t.b, t.e)) ++zeroed;
    return x;
  }

  /// The value of a data line starting at token `first` (pattern: 1); `zeroed` counts its
  /// nonzero parts that became zero (underflow).
  T value(const DataLine& l, int first, int& zeroed) const {
    if (field_ == Field::kPattern) return T(R(1));
    R re = real_value(l, l.tok[first], zeroed);
    if (field_ == Field::kComplex) {
      R im = real_value(l, l.tok[first + 1], zeroed);
      return make_scalar<T>(re, im);
    }
    return T(re);
  }

  [[noreturn]] void bad_token_count(const DataLine& l, int expect, const char* lead,
                                    const char* tail) const {
    std::string what = lead;
    if (nvals_ > 0) {
      if (!what.empty()) what += " ";
      what += nvals_ == 2 ? "real imaginary" : "value";
    }
    fail(l.begin, "entry line has " + std::to_string(l.ntok) + " field" + (l.ntok == 1 ? "" : "s") +
                      ", expected " + std::to_string(expect) + " ('" + what + "' for a " +
                      h_.info.field + " " + h_.info.format + " file)" + tail);
  }

  void check_real_diagonal(const DataLine& l, index_t i, const T& v) const {
    if (!(imag_part(v) == R(0))) {
      fail(l.begin, "diagonal entry (" + std::to_string(i + 1) + ", " + std::to_string(i + 1) +
                        ") = " + describe_value(v) +
                        " is not real: a Hermitian matrix has a real diagonal");
    }
  }

  /// A complex `symmetric` file (A = A^T, not A^H) is Hermitian only when it is real.
  void check_complex_symmetric(const DataLine& l, index_t i, index_t j, const T& v) const {
    if (csym_ && !(imag_part(v) == R(0))) {
      fail(l.begin, "entry (" + std::to_string(i + 1) + ", " + std::to_string(j + 1) +
                        ") = " + describe_value(v) +
                        " has a nonzero imaginary part in a 'complex symmetric' file: a complex "
                        "symmetric matrix (A = A^T) is not Hermitian; eigsolve needs 'hermitian'");
    }
  }

  [[noreturn]] void sum_overflows(const DataLine& l, index_t i, index_t j, const T& old,
                                  const T& v) const {
    fail(l.begin, "duplicate entry (" + std::to_string(i + 1) + ", " + std::to_string(j + 1) +
                      "): the sum of " + describe_value(old) + " (the entries before) and " +
                      describe_value(v) + " overflows " + real_type_name<R>() +
                      " (the chosen precision)");
  }

  /// (i, j) lower with value `low`; the upper entry (j, i) maps to `up_mapped` (conj'ed).
  [[noreturn]] void triangles_disagree(const char* where, index_t i, index_t j, const T& low,
                                       const T& up_mapped, bool herm) const {
    fail(where, std::string("the matrix is not ") + (herm ? "Hermitian" : "symmetric") +
                    ": the file stores both triangles and A(" + std::to_string(j + 1) + ", " +
                    std::to_string(i + 1) +
                    ") = " + describe_value(herm ? conj(up_mapped) : up_mapped) + " but A(" +
                    std::to_string(i + 1) + ", " + std::to_string(j + 1) +
                    ") = " + describe_value(low));
  }

  void check_count(index_t count, index_t expected, const char* extra) const {
    if (extra) {
      fail(extra, "extra data after the last entry (the size line, line " +
                      std::to_string(h_.size_line) + ", announces " +
                      (h_.info.format == "array" ? count_of(expected, "value", "values")
                                                 : count_of(expected, "entry", "entries")) +
                      ")");
    }
    if (count < expected) {
      throw InputError(buf_.path(), buf_.last_content_line(),
                       "the file ends after " + std::to_string(count) + " of the " +
                           (h_.info.format == "array" ? count_of(expected, "value", "values")
                                                      : count_of(expected, "entry", "entries")) +
                           " announced by the size line (line " + std::to_string(h_.size_line) +
                           "): truncated file?");
    }
  }

  [[noreturn]] void asymmetric(const HostMatrix<T>& a, const Asymmetry& s,
                               const char* where) const {
    if (s.i == s.j) {
      fail(where, "diagonal entry (" + std::to_string(s.i + 1) + ", " + std::to_string(s.i + 1) +
                      ") = " + describe_value(a(s.i, s.i)) +
                      " is not real: a Hermitian matrix has a real diagonal");
    }
    const bool cplx = is_complex_v<T>;
    fail(where, std::string("the matrix is not ") + (cplx ? "Hermitian" : "symmetric") + ": A(" +
                    std::to_string(s.i + 1) + ", " + std::to_string(s.j + 1) +
                    ") = " + describe_value(a(s.i, s.j)) + " but A(" + std::to_string(s.j + 1) +
                    ", " + std::to_string(s.i + 1) + ") = " + describe_value(a(s.j, s.i)) +
                    " (a 'general' file is accepted only when it is exactly " +
                    (cplx ? "Hermitian" : "symmetric") + "; a missing entry counts as 0)");
  }

  const TextBuffer& buf_;
  const MMHeader& h_;
  const index_t n_;
  const Field field_;
  const int nvals_;
  const bool csym_;
};

}  // namespace io_detail
}  // namespace eigsolve
