// NumPy .npy files: header parsing (versions 1.0, 2.0, 3.0), reading 2-D square float32/64
// and complex64/128 arrays in C or Fortran order, and the header of the writer.
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "io/io_detail.hpp"

namespace eigsolve {
namespace io_detail {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicLen = 6;
constexpr const char* kSupported = "'<f4', '<f8', '<c8', '<c16'";

struct NpyHeader {
  std::string descr;
  bool fortran = false;
  std::vector<std::int64_t> shape;
  std::size_t data_offset = 0;
};

std::uint32_t le32(const unsigned char* p) {
  return std::uint32_t(p[0]) | (std::uint32_t(p[1]) << 8) | (std::uint32_t(p[2]) << 16) |
         (std::uint32_t(p[3]) << 24);
}

// A tiny parser for the Python dict literal of the header.
class DictParser {
 public:
  DictParser(const std::string& path, const char* b, const char* e) : path_(path), p_(b), e_(e) {}

  NpyHeader parse() {
    NpyHeader h;
    bool have_descr = false, have_order = false, have_shape = false;
    ws();
    expect('{');
    for (;;) {
      ws();
      if (peek() == '}') break;
      std::string key = str();
      ws();
      expect(':');
      ws();
      if (key == "descr") {
        h.descr = str();
        have_descr = true;
      } else if (key == "fortran_order") {
        h.fortran = boolean();
        have_order = true;
      } else if (key == "shape") {
        h.shape = tuple();
        have_shape = true;
      } else {
        fail("unexpected key " + quote(key) + " in the .npy header");
      }
      ws();
      if (peek() == ',') {
        ++p_;
      } else if (peek() != '}') {
        fail("malformed .npy header: expected ',' or '}' after the value of '" + key + "'");
      }
    }
    ++p_;
    ws();
    if (p_ != e_) fail("malformed .npy header: unexpected text after the closing '}'");
    if (!have_descr || !have_order || !have_shape) {
      fail("the .npy header lacks 'descr', 'fortran_order' or 'shape'");
    }
    return h;
  }

 private:
  [[noreturn]] void fail(const std::string& msg) const { throw InputError(path_, 0, msg); }
  char peek() const { return p_ < e_ ? *p_ : '\0'; }
  void ws() {
    while (p_ < e_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r'))
      ++p_;
  }
  void expect(char c) {
    if (peek() != c) fail(std::string("malformed .npy header: expected '") + c + "'");
    ++p_;
  }
  std::string str() {
    char q = peek();
    if (q != '\'' && q != '"') fail("malformed .npy header: expected a quoted string");
    ++p_;
    const char* b = p_;
    while (p_ < e_ && *p_ != q)
      ++p_;
    if (p_ == e_) fail("malformed .npy header: unterminated string");
    std::string s(b, p_);
    ++p_;
    return s;
  }
  bool boolean() {
    if (e_ - p_ >= 4 && std::memcmp(p_, "True", 4) == 0) {
      p_ += 4;
      return true;
    }
    if (e_ - p_ >= 5 && std::memcmp(p_, "False", 5) == 0) {
      p_ += 5;
      return false;
    }
    fail("malformed .npy header: fortran_order must be True or False");
  }
  std::vector<std::int64_t> tuple() {
    std::vector<std::int64_t> v;
    expect('(');
    for (;;) {
      ws();
      if (peek() == ')') break;
      const char* b = p_;
      while (p_ < e_ && *p_ >= '0' && *p_ <= '9')
        ++p_;
      std::int64_t x = 0;
      if (b == p_ || (*b == '0' && p_ - b > 1) || parse_int64(b, p_, x) != NumStatus::kOk) {
        fail("malformed .npy header: bad shape");  // (a Python int has no leading zeros)
      }
      v.push_back(x);
      ws();
      if (peek() == ',') {
        ++p_;
      } else if (peek() != ')') {
        fail("malformed .npy header: bad shape");
      }
    }
    ++p_;
    return v;
  }

  const std::string& path_;
  const char* p_;
  const char* e_;
};

NpyHeader parse_npy_header(const std::string& path, const char* b, std::size_t size) {
  if (size < 10 || !has_npy_magic(b, size)) {
    throw InputError(path, 0, "truncated .npy header");
  }
  const auto* u = reinterpret_cast<const unsigned char*>(b);
  const int major = u[6], minor = u[7];
  std::size_t hlen = 0, off = 0;
  if (major == 1) {
    hlen = std::size_t(u[8]) | (std::size_t(u[9]) << 8);
    off = 10;
  } else if (major == 2 || major == 3) {
    if (size < 12) throw InputError(path, 0, "truncated .npy header");
    hlen = le32(u + 8);
    off = 12;
  } else {
    throw InputError(path, 0,
                     "unsupported .npy format version " + std::to_string(major) + "." +
                         std::to_string(minor) + " (supported: 1.0, 2.0, 3.0)");
  }
  if (off + hlen > size) throw InputError(path, 0, "truncated .npy header");
  NpyHeader h = DictParser(path, b + off, b + off + hlen).parse();
  h.data_offset = off + hlen;
  return h;
}

struct Dtype {
  bool complex = false;
  std::size_t part = 8;  // bytes per real part
};

Dtype check_dtype(const std::string& path, const NpyHeader& h) {
  const std::string& d = h.descr;
  if (d == "<f4") return {false, 4};
  if (d == "<f8") return {false, 8};
  if (d == "<c8") return {true, 4};
  if (d == "<c16") return {true, 8};
  if (!d.empty() && d[0] == '>') {
    throw InputError(path, 0,
                     "big-endian .npy data (dtype " + quote(d) +
                         ") is not supported (supported: " + kSupported + ")");
  }
  throw InputError(path, 0, "unsupported .npy dtype " + quote(d) + " (supported: " + kSupported + ")");
}

std::string shape_str(const std::vector<std::int64_t>& s) {
  std::string r = "(";
  for (std::size_t k = 0; k < s.size(); ++k)
    r += (k ? ", " : "") + std::to_string(s[k]);
  return r + (s.size() == 1 ? ",)" : ")");
}

void check_shape(const std::string& path, const NpyHeader& h) {
  if (h.shape.size() != 2) {
    throw InputError(
        path, 0,
        "the .npy array has shape " + shape_str(h.shape) + ": a matrix must be 2-D and square");
  }
  if (h.shape[0] != h.shape[1]) {
    throw InputError(path, 0,
                     "the .npy matrix is " + std::to_string(h.shape[0]) + " x " +
                         std::to_string(h.shape[1]) +
                         ", not square: eigsolve needs a square symmetric/Hermitian matrix");
  }
}

MatrixFileInfo info_of(const NpyHeader& h, const Dtype& dt) {
  MatrixFileInfo info;
  info.format = "npy";
  info.field = dt.complex ? "complex" : "real";
  info.symmetry = "general";
  info.rows = h.shape.size() > 0 ? h.shape[0] : 0;
  info.cols = h.shape.size() > 1 ? h.shape[1] : 0;
  info.entries = info.rows * info.cols;
  return info;
}

template <class R, class S>
R convert(const std::string& path, S x, index_t i, index_t j) {
  if (!is_finite(x)) {
    throw InputError(path, 0,
                     "element (" + std::to_string(i + 1) + ", " + std::to_string(j + 1) +
                         ") is not finite (NaN and Inf are rejected)");
  }
  if constexpr (std::is_same<R, dd_real>::value) {
    return dd_real(static_cast<double>(x));
  } else {
    R y = static_cast<R>(x);
    if (!is_finite(y)) {
      throw InputError(path, 0,
                       "element (" + std::to_string(i + 1) + ", " + std::to_string(j + 1) +
                           ") overflows " + real_type_name<R>() + " (the chosen precision)");
    }
    return y;
  }
}

// Fills a from the data in the file's order; returns the nonzero parts that became zero (only
// float64 data read as float can underflow: every other conversion is exact), the first one
// being the first in the file's order.
template <class T, class S>
Underflows fill(const std::string& path, const char* data, bool fortran, bool cplx,
                HostMatrix<T>& a) {
  using R = real_t<T>;
  constexpr bool kNarrowing = std::is_same<R, float>::value && std::is_same<S, double>::value;
  const index_t n = a.n;
  const std::size_t stride = cplx ? 2 : 1;
  Underflows zeroed;
  index_t first_k = std::numeric_limits<index_t>::max();
  for (index_t j = 0; j < n; ++j) {
    for (index_t i = 0; i < n; ++i) {
      const index_t k = fortran ? i + j * n : i * n + j;
      S part[2] = {S(0), S(0)};
      std::memcpy(part, data + static_cast<std::size_t>(k) * stride * sizeof(S),
                  stride * sizeof(S));
      R re = convert<R>(path, part[0], i, j);
      R im = convert<R>(path, part[1], i, j);
      if constexpr (kNarrowing) {
        const int z = int(re == R(0) && part[0] != S(0)) + int(im == R(0) && part[1] != S(0));
        if (z != 0) {
          zeroed.count += z;
          if (k < first_k) {  // C order: the loop is not in the file's order
            first_k = k;
            zeroed.row = i;
            zeroed.col = j;
          }
        }
      }
      a(i, j) = make_scalar<T>(re, im);
    }
  }
  return zeroed;
}

}  // namespace

bool has_npy_magic(const char* b, std::size_t size) {
  return size >= kMagicLen && std::memcmp(b, kMagic, kMagicLen) == 0;
}

MatrixFileInfo probe_npy(const std::string& path) {
  std::size_t want = std::size_t(1) << 16;
  for (;;) {
    bool complete = false;
    TextBuffer buf = TextBuffer::load_prefix(path, want, &complete);
    const auto* u = reinterpret_cast<const unsigned char*>(buf.begin());
    std::size_t need = 10;
    if (buf.size() >= 12 && u[6] >= 2) need = 12 + le32(u + 8);
    if (buf.size() >= 10 && u[6] == 1) need = 10 + (std::size_t(u[8]) | (std::size_t(u[9]) << 8));
    if (complete || buf.size() >= need) {
      NpyHeader h = parse_npy_header(path, buf.begin(), buf.size());
      Dtype dt = check_dtype(path, h);
      check_shape(path, h);
      return info_of(h, dt);
    }
    want = need;
  }
}

template <class T>
HostMatrix<T> read_npy(const TextBuffer& buf, MatrixFileInfo* info) {
  const std::string& path = buf.path();
  NpyHeader h = parse_npy_header(path, buf.begin(), buf.size());
  Dtype dt = check_dtype(path, h);
  check_shape(path, h);
  if (info) *info = info_of(h, dt);
  if (dt.complex && !is_complex_v<T>) {
    throw InputError(path, 0,
                     "the matrix is complex (dtype '" + h.descr +
                         "'); read it in a complex precision: use --precision c or z");
  }
  const index_t n = h.shape[0];
  // The bytes the header's shape and dtype need must be exactly the bytes the file holds:
  // checked before allocating, so a 120-byte file claiming (100000, 100000) asks for nothing.
  const std::size_t item = dt.part * (dt.complex ? 2 : 1);
  const std::size_t have = buf.size() - h.data_offset;
  const double need_estimate = static_cast<double>(n) * static_cast<double>(n) * item;
  const std::string array = std::to_string(n) + " x " + std::to_string(n) + " '" + h.descr + "'";
  if (need_estimate > 1.8e19) {  // more than any file can hold (2^64 bytes)
    char b[32];
    std::snprintf(b, sizeof b, "%.3g", need_estimate);
    throw InputError(path, 0,
                     "the .npy header declares a " + array + " array of " + b +
                         " bytes, but the file holds only " + std::to_string(have) +
                         " bytes of data: a wrong header or a truncated file");
  }
  const std::size_t need = static_cast<std::size_t>(n) * static_cast<std::size_t>(n) * item;
  if (have < need) {
    throw InputError(path, 0,
                     "the .npy data is truncated: the header declares a " + array + " array of " +
                         std::to_string(need) + " bytes, but the file holds only " +
                         std::to_string(have) + " bytes of data");
  }
  if (have > need) {
    throw InputError(path, 0,
                     "extra data after the .npy array: " + std::to_string(have - need) +
                         (have - need == 1 ? " byte" : " bytes") +
                         " more than the header's shape and dtype need");
  }
  HostMatrix<T> a = allocate_matrix<T>(path, 0, n);
  const char* data = buf.begin() + h.data_offset;
  const Underflows zeroed = dt.part == 4 ? fill<T, float>(path, data, h.fortran, dt.complex, a)
                                         : fill<T, double>(path, data, h.fortran, dt.complex, a);
  Asymmetry s = find_asymmetry(a);
  if (s.found) {
    if (s.i == s.j) {
      throw InputError(path, 0,
                       "diagonal element (" + std::to_string(s.i + 1) + ", " +
                           std::to_string(s.i + 1) + ") = " + describe_value(a(s.i, s.i)) +
                           " is not real: a Hermitian matrix has a real diagonal");
    }
    const bool cplx = is_complex_v<T>;
    throw InputError(path, 0,
                     std::string("the matrix is not ") + (cplx ? "Hermitian" : "symmetric") +
                         ": A(" + std::to_string(s.i + 1) + ", " + std::to_string(s.j + 1) +
                         ") = " + describe_value(a(s.i, s.j)) + " but A(" +
                         std::to_string(s.j + 1) + ", " + std::to_string(s.i + 1) +
                         ") = " + describe_value(a(s.j, s.i)) +
                         " (a .npy file holds the full matrix, which must be exactly " +
                         (cplx ? "Hermitian)" : "symmetric)"));
  }
  mirror_lower(a);
  zeroed.report(buf, info);  // line 0: a .npy file has no lines
  return a;
}

std::string npy_header(const char* descr, index_t rows, index_t cols) {
  std::string dict = std::string("{'descr': '") + descr + "', 'fortran_order': True, 'shape': (" +
                     std::to_string(rows) + ", " + std::to_string(cols) + "), }";
  // Pad with spaces so that magic + version + length + dict + '\n' is a multiple of 64.
  std::size_t pre = 10;
  std::size_t total = pre + dict.size() + 1;
  bool v2 = false;
  if (((total + 63) / 64) * 64 - pre > 65535) {
    v2 = true;
    pre = 12;
    total = pre + dict.size() + 1;
  }
  total = (total + 63) / 64 * 64;
  const std::size_t hlen = total - pre;
  dict.append(hlen - dict.size() - 1, ' ');
  dict += '\n';
  std::string out(kMagic, kMagicLen);
  out += static_cast<char>(v2 ? 2 : 1);
  out += '\0';
  for (int k = 0; k < (v2 ? 4 : 2); ++k)
    out += static_cast<char>((hlen >> (8 * k)) & 0xff);
  return out + dict;
}

#define EIGSOLVE_IO_INST(T) template HostMatrix<T> read_npy<T>(const TextBuffer&, MatrixFileInfo*);
EIGSOLVE_FOR_EACH_SCALAR(EIGSOLVE_IO_INST)
#undef EIGSOLVE_IO_INST

}  // namespace io_detail
}  // namespace eigsolve
