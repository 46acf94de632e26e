// libFuzzer target: the NumPy .npy reader through probe_matrix_file/read_matrix on an in-memory
// file, against a reference written from the format NumPy writes (magic, version 1/2/3, a
// header that is the Python dict literal {'descr': ..., 'fortran_order': ..., 'shape': (...)}
// with nothing but blanks after it, exactly rows*cols*itemsize data bytes, finite values, an
// exactly symmetric/Hermitian matrix). Findings: crashes, sanitizer reports, a message that is
// not one printable line, and any disagreement with the reference (acceptance or bits).
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "core/errors.hpp"
#include "fuzz_common.hpp"
#include "io/io_detail.hpp"
#include "io/matrix_io.hpp"

using namespace eigsolve;

namespace {

constexpr std::uint64_t kMemoryLimit = std::uint64_t(1) << 20;
fuzz::MemFile* g_file = nullptr;

struct Header {
  std::string descr;
  bool fortran = false;
  std::vector<std::int64_t> shape;
  std::size_t offset = 0;
};

// The header dict, parsed strictly: ws '{' ws (key ws ':' ws value ws (',' ws ...)*) [','] ws '}'
// ws end; keys and strings in '...' or "..." (no escapes); ints without leading zeros.
class Dict {
 public:
  explicit Dict(std::string_view s) : s_(s) {}
  bool parse(Header& h) {
    bool d = false, f = false, sh = false;
    ws();
    if (!eat('{')) return false;
    ws();
    while (!peek('}')) {
      std::string key;
      if (!str(key)) return false;
      ws();
      if (!eat(':')) return false;
      ws();
      if (key == "descr") {
        if (!str(h.descr)) return false;
        d = true;
      } else if (key == "fortran_order") {
        if (s_.substr(k_, 4) == "True") {
          h.fortran = true, k_ += 4;
        } else if (s_.substr(k_, 5) == "False") {
          h.fortran = false, k_ += 5;
        } else {
          return false;
        }
        f = true;
      } else if (key == "shape") {
        if (!tuple(h.shape)) return false;
        sh = true;
      } else {
        return false;
      }
      ws();
      if (eat(',')) {
        ws();
      } else if (!peek('}')) {
        return false;
      }
    }
    ++k_;
    ws();
    return k_ == s_.size() && d && f && sh;
  }

 private:
  bool peek(char c) const { return k_ < s_.size() && s_[k_] == c; }
  bool eat(char c) {
    if (!peek(c)) return false;
    ++k_;
    return true;
  }
  void ws() {
    while (k_ < s_.size() && (s_[k_] == ' ' || s_[k_] == '\t' || s_[k_] == '\n' || s_[k_] == '\r'))
      ++k_;
  }
  bool str(std::string& out) {
    if (!peek('\'') && !peek('"')) return false;
    const char q = s_[k_++];
    const std::size_t b = k_;
    while (k_ < s_.size() && s_[k_] != q) {
      if (s_[k_] == '\\' || s_[k_] == '\n') return false;
      ++k_;
    }
    if (k_ == s_.size()) return false;
    out.assign(s_.substr(b, k_ - b));
    ++k_;
    return true;
  }
  bool tuple(std::vector<std::int64_t>& v) {
    v.clear();  // a repeated key: the last value counts, as in a Python dict literal
    if (!eat('(')) return false;
    ws();
    while (!peek(')')) {
      const std::size_t b = k_;
      __int128 x = 0;
      while (k_ < s_.size() && s_[k_] >= '0' && s_[k_] <= '9') {
        x = x * 10 + (s_[k_++] - '0');
        if (x > INT64_MAX) return false;
      }
      if (k_ == b || (s_[b] == '0' && k_ - b > 1)) return false;
      v.push_back(static_cast<std::int64_t>(x));
      ws();
      if (eat(',')) {
        ws();
      } else if (!peek(')')) {
        return false;
      }
    }
    ++k_;
    return true;
  }
  std::string_view s_;
  std::size_t k_ = 0;
};

enum class Ref { kAccept, kReject, kTooBig };

template <class T, class S>
Ref reference_fill(const char* d, const Header& h, bool cplx, std::vector<T>& a) {
  using R = real_t<T>;
  const std::int64_t n = h.shape[0];
  a.assign(static_cast<std::size_t>(n * n), T(R(0)));
  for (std::int64_t j = 0; j < n; ++j) {
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t k = h.fortran ? i + j * n : i * n + j;
      S part[2] = {0, 0};
      std::memcpy(part, d + k * (cplx ? 2 : 1) * sizeof(S), (cplx ? 2 : 1) * sizeof(S));
      if (!std::isfinite(part[0]) || !std::isfinite(part[1])) return Ref::kReject;
      R re, im;
      if constexpr (std::is_same<R, dd_real>::value) {
        re = dd_real(static_cast<double>(part[0]));
        im = dd_real(static_cast<double>(part[1]));
      } else {
        re = static_cast<R>(part[0]);
        im = static_cast<R>(part[1]);
        if (!std::isfinite(re) || !std::isfinite(im)) return Ref::kReject;
      }
      a[static_cast<std::size_t>(i + j * n)] = make_scalar<T>(re, im);
    }
  }
  for (std::int64_t j = 0; j < n; ++j) {
    T& dj = a[static_cast<std::size_t>(j + j * n)];
    if (!(imag_part(dj) == R(0))) return Ref::kReject;
    for (std::int64_t i = j + 1; i < n; ++i)
      if (!(a[static_cast<std::size_t>(i + j * n)] == conj(a[static_cast<std::size_t>(j + i * n)])))
        return Ref::kReject;
  }
  for (std::int64_t j = 0; j < n; ++j) {
    a[static_cast<std::size_t>(j + j * n)] = T(real_part(a[static_cast<std::size_t>(j + j * n)]));
    for (std::int64_t i = j + 1; i < n; ++i)
      a[static_cast<std::size_t>(j + i * n)] = conj(a[static_cast<std::size_t>(i + j * n)]);
  }
  return Ref::kAccept;
}

template <class T>
Ref reference(const std::uint8_t* data, std::size_t size, std::vector<T>& a) {
  if (size < 10 || std::memcmp(data, "\x93NUMPY", 6) != 0) return Ref::kReject;
  const int major = data[6];
  std::size_t hlen = 0, off = 0;
  if (major == 1) {
    hlen = data[8] | (std::size_t(data[9]) << 8), off = 10;
  } else if (major == 2 || major == 3) {
    if (size < 12) return Ref::kReject;
    hlen = data[8] | (std::size_t(data[9]) << 8) | (std::size_t(data[10]) << 16) |
           (std::size_t(data[11]) << 24);
    off = 12;
  } else {
    return Ref::kReject;
  }
  if (off + hlen > size) return Ref::kReject;
  Header h;
  if (!Dict(std::string_view(reinterpret_cast<const char*>(data) + off, hlen)).parse(h))
    return Ref::kReject;
  h.offset = off + hlen;
  std::size_t part = 0;
  bool cplx = false;
  if (h.descr == "<f4") part = 4;
  if (h.descr == "<f8") part = 8;
  if (h.descr == "<c8") part = 4, cplx = true;
  if (h.descr == "<c16") part = 8, cplx = true;
  if (part == 0 || h.shape.size() != 2 || h.shape[0] != h.shape[1]) return Ref::kReject;
  if (cplx && !is_complex_v<T>) return Ref::kReject;
  const std::int64_t n = h.shape[0];
  const double need = double(n) * double(n) * double(part * (cplx ? 2 : 1));
  if (need != double(size - h.offset)) return Ref::kReject;
  if (double(n) * double(n) * sizeof(T) > double(kMemoryLimit)) return Ref::kTooBig;
  const char* d = reinterpret_cast<const char*>(data) + h.offset;
  return part == 4 ? reference_fill<T, float>(d, h, cplx, a)
                   : reference_fill<T, double>(d, h, cplx, a);
}

template <class T>
void check(const std::uint8_t* data, std::size_t size) {
  if (size < 6 || std::memcmp(data, "\x93NUMPY", 6) != 0) {  // Matrix Market: the other target
    try {
      read_matrix<T>(g_file->path());
    } catch (const InputError& e) {
      fuzz::check_message(e.what(), g_file->path());
    } catch (const OutOfMemory&) {
    }
    return;
  }
  std::vector<T> want;
  const Ref ref = reference<T>(data, size, want);
  std::string got = "accepted";
  HostMatrix<T> a;
  try {
    a = read_matrix<T>(g_file->path());
  } catch (const InputError& e) {
    got = e.what();
    fuzz::check_message(got, g_file->path());
  } catch (const OutOfMemory& e) {
    got = std::string("OOM ") + e.what();
  }
  const bool accepted = got == "accepted";
  if (ref == Ref::kTooBig) {
    if (got.rfind("OOM ", 0) == 0 || got.find("is too large") != std::string::npos) return;
    fuzz::finding("too big for the limit, but the reader said: " + got);
  }
  if (ref == Ref::kReject && accepted) fuzz::finding("the reference rejects, the reader accepts");
  if (ref == Ref::kAccept && !accepted) fuzz::finding("the reference accepts, the reader: " + got);
  if (ref == Ref::kAccept && !fuzz::same_bits(a.data.data(), want.data(), want.size()))
    fuzz::finding("accepted, but the matrix differs from the reference");
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  g_file = new fuzz::MemFile();
  io_detail::matrix_memory_limit() = kMemoryLimit;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  g_file->set(data, size);
  try {
    probe_matrix_file(g_file->path());
  } catch (const InputError& e) {
    fuzz::check_message(e.what(), g_file->path());
  }
  switch (size % 5) {
    case 0: check<double>(data, size); break;
    case 1: check<float>(data, size); break;
    case 2: check<Complex<double>>(data, size); break;
    case 3: check<Complex<float>>(data, size); break;
    default: check<dd_real>(data, size); break;
  }
  return 0;
}
