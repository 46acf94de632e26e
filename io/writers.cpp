// Eigenvalue files (write and read back) and dense matrix output (.mtx array, .npy).
//
// The text writers format blocks of values on several threads, each block into its own buffer,
// and write the buffers in order: the bytes are those of a one-thread loop over the values
// (formatting a value depends on nothing but the value), for every thread count.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <string>
#include <vector>

#include "core/parallel.hpp"
#include "io/io_detail.hpp"

namespace eigsolve {

namespace {

[[noreturn]] void no_npy_dtype(const std::string& path) {
  throw OutputError(path,
                    "NumPy .npy has no double-double type: write dd results as .mtx "
                    "(Matrix Market text with round-trip digits)");
}

template <class T>
const char* npy_descr() {
  if constexpr (std::is_same<T, float>::value) return "<f4";
  if constexpr (std::is_same<T, double>::value) return "<f8";
  if constexpr (std::is_same<T, Complex<float>>::value) return "<c8";
  if constexpr (std::is_same<T, Complex<double>>::value) return "<c16";
  return nullptr;
}

/// Appends format_real(x) (float/double: std::to_chars, without a temporary string).
template <class R>
void append_real(std::string& out, const R& x) {
  if constexpr (std::is_same<R, dd_real>::value) {
    out += format_real(x);
  } else {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, x);
    out.append(buf, r.ptr);
  }
}

template <class T>
void append_value(std::string& out, const T& v) {
  if constexpr (is_complex_v<T>) {
    append_real(out, v.re);
    out += ' ';
    append_real(out, v.im);
  } else {
    append_real(out, v);
  }
  out += '\n';
}

/// Values per formatting block (a few hundred kB of text), and blocks per thread and round.
constexpr std::int64_t kBlockValues = std::int64_t(1) << 14;
constexpr std::int64_t kBlocksPerThread = 4;

/// The writers' thread count: nthreads, or omp_get_max_threads() for 0 (the CLI sets that from
/// --threads, as for the readers' parallel regions); at most kMaxWriterThreads, which bounds the
/// buffers (2 rounds of 4 blocks a thread: ~5 MB a thread for dd) where the write itself is
/// the limit anyway.
constexpr int kMaxWriterThreads = 32;
int writer_threads(int nthreads) {
  const int t = nthreads > 0 ? nthreads : omp_get_max_threads();
  return t < 1 ? 1 : (t > kMaxWriterThreads ? kMaxWriterThreads : t);
}

/// Appends items [0, count) to f (fmt(buffer, i0, i1) appends the text of items [i0, i1)), in
/// rounds of kBlocksPerThread * nthreads blocks of kBlockValues items. In each round the team
/// takes the blocks one at a time (each into its own buffer) while the calling thread first
/// writes the previous round's buffers in order, then joins in. Which thread formats a block does
/// not matter: the file holds the blocks in item order, the bytes of a one-thread loop.
template <class F>
void write_items(io_detail::AtomicFile& f, std::int64_t count, int nthreads, const F& fmt) {
  const std::int64_t nblocks = (count + kBlockValues - 1) / kBlockValues;
  const std::int64_t per_round = kBlocksPerThread * std::max(1, nthreads);
  const int team = static_cast<int>(
      std::max<std::int64_t>(1, std::min<std::int64_t>(std::max(1, nthreads), nblocks)));
  std::vector<std::string> cur(static_cast<std::size_t>(std::min(per_round, nblocks)));
  std::vector<std::string> prev(cur.size());
  std::int64_t nprev = 0;
  for (std::int64_t b0 = 0; b0 < nblocks || nprev > 0; b0 += per_round) {
    const std::int64_t nb = std::max<std::int64_t>(0, std::min(per_round, nblocks - b0));
    std::atomic<std::int64_t> next{0};
    run_team(nb > 0 ? team : 1, [&](int k) {
      if (k == 0) {
        for (std::int64_t b = 0; b < nprev; ++b)
          f.write(prev[static_cast<std::size_t>(b)]);
      }
      for (std::int64_t b = next++; b < nb; b = next++) {
        std::string& s = cur[static_cast<std::size_t>(b)];
        s.clear();
        const std::int64_t i0 = (b0 + b) * kBlockValues;
        const std::int64_t i1 = std::min(count, i0 + kBlockValues);
        fmt(s, i0, i1);
      }
    });
    cur.swap(prev);
    nprev = nb;
  }
}

}  // namespace

bool is_npy_path(const std::string& path) {
  if (path.size() < 4) return false;
  std::string ext = path.substr(path.size() - 4);
  for (char& c : ext)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext == ".npy";
}

namespace {
template <class R>
void eigenvalues_into(io_detail::AtomicFile& f, const std::vector<R>& w, int nthreads) {
  write_items(f, static_cast<std::int64_t>(w.size()), writer_threads(nthreads),
              [&](std::string& out, std::int64_t i0, std::int64_t i1) {
                for (std::int64_t i = i0; i < i1; ++i) {
                  append_real(out, w[static_cast<std::size_t>(i)]);
                  out += '\n';
                }
              });
}

/// write_dense's checks, before anything is opened.
template <class T>
void check_dense_args(const std::string& path, index_t n, index_t m, const T* z, index_t ldz) {
  if (n < 0 || m < 0 || ldz < (n > 1 ? n : 1) || (z == nullptr && n > 0 && m > 0)) {
    throw DimensionError(
        "write_dense: need n >= 0, m >= 0, ldz >= max(1, n) (n = " + std::to_string(n) +
        ", m = " + std::to_string(m) + ", ldz = " + std::to_string(ldz) + ")");
  }
  if (is_npy_path(path) && npy_descr<T>() == nullptr) no_npy_dtype(path);
}

/// The body of write_dense (after check_dense_args): .npy or Matrix Market array by the name.
template <class T>
void dense_into(io_detail::AtomicFile& f, const std::string& path, index_t n, index_t m, const T* z,
                index_t ldz, int nthreads) {
  if (is_npy_path(path)) {
    f.write(io_detail::npy_header(npy_descr<T>(), n, m));
    for (index_t j = 0; j < m; ++j) {
      f.write(reinterpret_cast<const char*>(z + j * ldz), static_cast<std::size_t>(n) * sizeof(T));
    }
    return;
  }
  f.write(std::string("%%MatrixMarket matrix array ") + (is_complex_v<T> ? "complex" : "real") +
          " general\n" + std::to_string(n) + " " + std::to_string(m) + "\n");
  if (n > 0 && m > 0) {
    write_items(f, n * m, writer_threads(nthreads),
                [&](std::string& s, std::int64_t k0, std::int64_t k1) {
                  index_t i = k0 % n, j = k0 / n;  // column-major order
                  for (std::int64_t k = k0; k < k1; ++k) {
                    append_value(s, z[i + j * ldz]);
                    if (++i == n) {
                      i = 0;
                      ++j;
                    }
                  }
                });
  }
}
}  // namespace

template <class R>
void write_eigenvalues(const std::string& path, const std::vector<R>& w, int nthreads) {
  io_detail::AtomicFile f(path);
  eigenvalues_into(f, w, nthreads);
  f.commit();
}

template <class R>
void OutputSet::eigenvalues(const std::string& path, const std::vector<R>& w, int nthreads) {
  add(path, [&w, nthreads](io_detail::AtomicFile& f) { eigenvalues_into(f, w, nthreads); });
}

template <class T>
void OutputSet::dense(const std::string& path, index_t n, index_t m, const T* z, index_t ldz,
                      int nthreads) {
  check_dense_args(path, n, m, z, ldz);
  add(path, [=](io_detail::AtomicFile& f) { dense_into(f, path, n, m, z, ldz, nthreads); });
}

namespace {
template <class R>
std::vector<R> eigenvalues_of(const io_detail::TextBuffer& buf, const std::string& name) {
  using namespace io_detail;
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
}  // namespace

template <class R>
std::vector<R> read_eigenvalues(const std::string& path) {
  using io_detail::TextBuffer;
  return eigenvalues_of<R>(TextBuffer::load(path == "-" ? std::string("/dev/stdin") : path), path);
}

std::string read_text_file(const std::string& path) {
  using io_detail::TextBuffer;
  const TextBuffer b = TextBuffer::load(path == "-" ? std::string("/dev/stdin") : path);
  return std::string(b.begin(), b.size());
}

template <class R>
std::vector<R> parse_eigenvalues(const std::string& name, const std::string& text) {
  return eigenvalues_of<R>(io_detail::TextBuffer::from_text(name, text), name);
}

template <class T>
void write_dense(const std::string& path, index_t n, index_t m, const T* z, index_t ldz,
                 int nthreads) {
  check_dense_args(path, n, m, z, ldz);
  io_detail::AtomicFile f(path);
  dense_into(f, path, n, m, z, ldz, nthreads);
  f.commit();
}

template <class T>
void check_dense_output(const std::string& path) {
  if (is_npy_path(path) && npy_descr<T>() == nullptr) no_npy_dtype(path);
  check_output_path(path);
}

#define EIGSOLVE_IO_INST_REAL(R)                                                        \
  template void write_eigenvalues<R>(const std::string&, const std::vector<R>&, int);   \
  template std::vector<R> read_eigenvalues<R>(const std::string&);                      \
  template std::vector<R> parse_eigenvalues<R>(const std::string&, const std::string&); \
  template void OutputSet::eigenvalues<R>(const std::string&, const std::vector<R>&, int);
EIGSOLVE_FOR_EACH_REAL(EIGSOLVE_IO_INST_REAL)
#undef EIGSOLVE_IO_INST_REAL

#define EIGSOLVE_IO_INST(T)                                                                   \
  template void write_dense<T>(const std::string&, index_t, index_t, const T*, index_t, int); \
  template void check_dense_output<T>(const std::string&);                                    \
  template void OutputSet::dense<T>(const std::string&, index_t, index_t, const T*, index_t, int);
EIGSOLVE_FOR_EACH_SCALAR(EIGSOLVE_IO_INST)
#undef EIGSOLVE_IO_INST

}  // namespace eigsolve
