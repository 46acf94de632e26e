// Eigenvalue files (write and read back) and dense matrix output (.mtx array, .npy).
#include <cctype>
#include <charconv>
#include <string>
#include <vector>

#include "io/io_detail.hpp"

namespace eigsolve {

namespace {

bool ends_with_npy(const std::string& path) {
  if (path.size() < 4) return false;
  std::string ext = path.substr(path.size() - 4);
  for (char& c : ext)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext == ".npy";
}

template <class T>
const char* npy_descr() {
  if constexpr (std::is_same<T, float>::value) return "<f4";
  if constexpr (std::is_same<T, double>::value) return "<f8";
  if constexpr (std::is_same<T, Complex<float>>::value) return "<c8";
  if constexpr (std::is_same<T, Complex<double>>::value) return "<c16";
  return nullptr;
}

template <class T>
void append_value(std::string& out, const T& v) {
  if constexpr (is_complex_v<T>) {
    out += format_real(v.re);
    out += ' ';
    out += format_real(v.im);
  } else {
    out += format_real(v);
  }
  out += '\n';
}

}  // namespace

template <class R>
void write_eigenvalues(const std::string& path, const std::vector<R>& w) {
  io_detail::AtomicFile f(path);
  std::string chunk;
  for (const R& x : w) {
    chunk += format_real(x);
    chunk += '\n';
    if (chunk.size() >= (1u << 16)) {
      f.write(chunk);
      chunk.clear();
    }
  }
  f.write(chunk);
  f.commit();
}

template <class R>
std::vector<R> read_eigenvalues(const std::string& path) {
  using namespace io_detail;
  TextBuffer buf = TextBuffer::load(path == "-" ? std::string("/dev/stdin") : path);
  const std::string& name = path;
  std::vector<R> w;
  for_each_data_line(buf.begin(), buf.end(), [&](const DataLine& l) {
    if (*l.tok[0].b == '#') return true;  // '#' comments as well as '%'
    if (l.ntok != 1) {
      throw InputError(
          name, buf.line_of(l.begin),
          "expected one eigenvalue per line, found " + std::to_string(l.ntok) + " fields");
    }
    const Token& t = l.tok[0];
    R x;
    NumStatus s = parse_real<R>(t.b, t.e, x);
    if (s == NumStatus::kNonFinite) {  // what write_eigenvalues wrote for inf/nan reads back
      const char* b = (*t.b == '+') ? t.b + 1 : t.b;
      double d = 0;
      std::from_chars(b, t.e, d);
      x = R(static_cast<real_t<R>>(d));
      s = NumStatus::kOk;
    }
    if (s != NumStatus::kOk) {
      throw InputError(name, buf.line_of(l.begin), number_error(s, t.view(), "eigenvalue"));
    }
    w.push_back(x);
    return true;
  });
  return w;
}

template <class T>
void write_dense(const std::string& path, index_t n, index_t m, const T* z, index_t ldz) {
  if (n < 0 || m < 0 || ldz < (n > 1 ? n : 1) || (z == nullptr && n > 0 && m > 0)) {
    throw DimensionError(
        "write_dense: need n >= 0, m >= 0, ldz >= max(1, n) (n = " + std::to_string(n) +
        ", m = " + std::to_string(m) + ", ldz = " + std::to_string(ldz) + ")");
  }
  const bool npy = ends_with_npy(path);
  if (npy) {
    const char* descr = npy_descr<T>();
    if (descr == nullptr) {
      throw OutputError(path,
                        "NumPy .npy has no double-double type: write dd results as .mtx "
                        "(Matrix Market text with round-trip digits)");
    }
    io_detail::AtomicFile f(path);
    f.write(io_detail::npy_header(descr, n, m));
    for (index_t j = 0; j < m; ++j) {
      f.write(reinterpret_cast<const char*>(z + j * ldz), static_cast<std::size_t>(n) * sizeof(T));
    }
    f.commit();
    return;
  }
  io_detail::AtomicFile f(path);
  std::string out = std::string("%%MatrixMarket matrix array ") +
                    (is_complex_v<T> ? "complex" : "real") + " general\n" + std::to_string(n) +
                    " " + std::to_string(m) + "\n";
  for (index_t j = 0; j < m; ++j) {
    for (index_t i = 0; i < n; ++i) {
      append_value(out, z[i + j * ldz]);
      if (out.size() >= (1u << 20)) {
        f.write(out);
        out.clear();
      }
    }
  }
  f.write(out);
  f.commit();
}

#define EIGSOLVE_IO_INST_REAL(R)                                                 \
  template void write_eigenvalues<R>(const std::string&, const std::vector<R>&); \
  template std::vector<R> read_eigenvalues<R>(const std::string&);
EIGSOLVE_FOR_EACH_REAL(EIGSOLVE_IO_INST_REAL)
#undef EIGSOLVE_IO_INST_REAL

#define EIGSOLVE_IO_INST(T) \
  template void write_dense<T>(const std::string&, index_t, index_t, const T*, index_t);
EIGSOLVE_FOR_EACH_SCALAR(EIGSOLVE_IO_INST)
#undef EIGSOLVE_IO_INST

}  // namespace eigsolve
