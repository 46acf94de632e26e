// Internal helpers of io/: file buffers, the line tokenizer, number parsing, atomic output.
// Not part of the public API (include io/matrix_io.hpp instead).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/errors.hpp"
#include "core/matrix.hpp"
#include "core/precision.hpp"
#include "io/matrix_io.hpp"

namespace eigsolve {
namespace io_detail {

// ---------------------------------------------------------------------------------------------
// Whole-file buffer
// ---------------------------------------------------------------------------------------------

/// A file's bytes in memory followed by one '\n' sentinel (so every line, the last included,
/// ends with '\n' and scanners need no end checks inside a line).
class TextBuffer {
 public:
  /// Reads the whole file. Throws InputError(path, 0, ...) when it cannot be read.
  static TextBuffer load(const std::string& path);
  /// Reads at most `max_bytes` from the start of the file (for header probes).
  static TextBuffer load_prefix(const std::string& path, std::size_t max_bytes, bool* complete);
  /// A copy of text already in memory; `name` stands for the path in messages.
  static TextBuffer from_text(const std::string& name, std::string_view text);

  const char* begin() const { return data_.get(); }
  const char* content_end() const { return data_.get() + size_; }  ///< before the sentinel
  const char* end() const { return data_.get() + size_ + 1; }      ///< after the sentinel
  std::size_t size() const { return size_; }
  const std::string& path() const { return path_; }
  /// 1-based line number of the byte at p (counts '\n' before it; lazy, for errors only).
  std::int64_t line_of(const char* p) const;
  /// Line of the last byte that is not white space (the end of a truncated file).
  std::int64_t last_content_line() const;

 private:
  std::string path_;
  std::unique_ptr<char[]> data_;
  std::size_t size_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Line tokenizer
// ---------------------------------------------------------------------------------------------

extern const bool kHSpace[256];  ///< ' ', '\t', '\r', '\v', '\f'

inline bool is_hspace(char c) {
  return kHSpace[static_cast<unsigned char>(c)];
}
inline bool is_token_end(char c) {
  return c == '\n' || is_hspace(c);
}

struct Token {
  const char* b = nullptr;
  const char* e = nullptr;
  std::string_view view() const { return {b, static_cast<std::size_t>(e - b)}; }
};

/// A data line: its first byte and up to kMaxTokens tokens (ntok counts all of them).
struct DataLine {
  static constexpr int kMaxTokens = 5;
  const char* begin = nullptr;
  Token tok[kMaxTokens];
  int ntok = 0;
};

/// Splits the data lines of [p, end) (end[-1] must be '\n'), skipping blank lines and lines
/// whose first non-blank byte is '%'. Calls f(const DataLine&) for each; f returns false to
/// stop. Returns the position after the last line handed to f (or end).
template <class F>
const char* for_each_data_line(const char* p, const char* end, F&& f) {
  while (p < end) {
    const char* ls = p;
    while (is_hspace(*p))
      ++p;
    if (*p == '\n') {
      ++p;
      continue;
    }
    if (*p == '%') {
      while (*p != '\n')
        ++p;
      ++p;
      continue;
    }
    DataLine line;
    line.begin = ls;
    for (;;) {
      const char* tb = p;
      while (!is_token_end(*p))
        ++p;
      if (line.ntok < DataLine::kMaxTokens) line.tok[line.ntok] = Token{tb, p};
      ++line.ntok;
      while (is_hspace(*p))
        ++p;
      if (*p == '\n') break;
    }
    ++p;
    if (!f(static_cast<const DataLine&>(line))) return p;
  }
  return end;
}

/// Shortens a token for an error message ("'1.5e3'", or the first 40 bytes and "..."); control
/// and non-ASCII bytes are written as \xNN so that the message stays one printable line.
std::string quote(std::string_view s);

// ---------------------------------------------------------------------------------------------
// Numbers
// ---------------------------------------------------------------------------------------------

enum class NumStatus { kOk, kBad, kNonFinite, kOverflow };

/// Parses a whole token as a real of type R, correctly rounded (float/double: from_chars;
/// dd_real: parse_dd of core/dd_io.hpp). Accepts a leading '+' and Fortran 'D' exponents.
/// Underflow rounds (to a subnormal or zero); overflow is kOverflow; inf/nan are kNonFinite.
template <class R>
NumStatus parse_real(const char* b, const char* e, R& out);

/// True when the decimal token [b, e) has a nonzero digit before its exponent marker ('e',
/// 'E', 'd', 'D'): a token that parse_real turned into zero then underflowed. Called only for
/// zero results, so the hot loops pay one comparison per value.
inline bool has_nonzero_digit(const char* b, const char* e) {
  for (; b < e; ++b) {
    const char c = *b;
    if (c >= '1' && c <= '9') return true;
    if (c == 'e' || c == 'E' || c == 'd' || c == 'D') return false;
  }
  return false;
}

/// Nonzero values of a file that became exactly zero (MatrixFileInfo::underflows): counted
/// per chunk or block of a body and merged in file order, so the first one does not depend on
/// the thread count.
struct Underflows {
  index_t count = 0;
  const char* line = nullptr;  ///< the start of the first one's line (Matrix Market)
  index_t row = 0;             ///< its (row, col), 0-based as the file stores it
  index_t col = 0;
  /// `parts` values (1, or 2 for both parts of a complex value) at (i, j) on `line`.
  void note(const char* at, index_t i, index_t j, int parts) {
    if (count == 0) {
      line = at;
      row = i;
      col = j;
    }
    count += parts;
  }
  /// Adds the values of a later part of the file.
  void merge(const Underflows& later) {
    if (later.count == 0) return;
    if (count == 0) {
      line = later.line;
      row = later.row;
      col = later.col;
    }
    count += later.count;
  }
  /// Writes the count and the first one's place (1-based) into info, if given.
  void report(const TextBuffer& buf, MatrixFileInfo* info) const {
    if (info == nullptr) return;
    info->underflows = count;
    if (count == 0) return;
    info->underflow_line = line ? buf.line_of(line) : 0;
    info->underflow_row = row + 1;
    info->underflow_col = col + 1;
  }
};

/// Parses a whole token as a signed 64-bit integer (leading '+' accepted). kOverflow when it
/// does not fit.
NumStatus parse_int64(const char* b, const char* e, std::int64_t& out);

/// The real nearest to v (exact for |v| <= 2^53 in double, always exact in dd).
template <class R>
R int_to_real(std::int64_t v);

/// "value 'x' is not a number" etc., for a token that failed with status s.
std::string number_error(NumStatus s, std::string_view token, const char* what);

/// The name of a real type for messages ("float", "double", "dd_real").
template <class R>
const char* real_type_name();

// ---------------------------------------------------------------------------------------------
// Shared validation of full matrices (general files, .npy)
// ---------------------------------------------------------------------------------------------

/// Where a general matrix fails to be symmetric/Hermitian: (i, j) 0-based with i >= j.
/// i == j means a diagonal entry with a nonzero imaginary part.
struct Asymmetry {
  bool found = false;
  index_t i = 0;
  index_t j = 0;
};

/// Checks A(i,j) == conj(A(j,i)) for all i > j and imag(A(i,i)) == 0 (exact comparisons).
template <class T>
Asymmetry find_asymmetry(const HostMatrix<T>& a);

/// Copies conj(lower) into the strict upper triangle and zeroes the imaginary part of the
/// diagonal (which callers have checked to be +-0).
template <class T>
void mirror_lower(HostMatrix<T>& a);

/// The most bytes a matrix read from a file may take (default: the machine's memory plus
/// swap; the fuzz targets lower it). Larger matrices are an OutOfMemory before allocating.
std::uint64_t& matrix_memory_limit();

/// Allocates an n x n matrix, turning bad_alloc (and sizes over matrix_memory_limit()) into
/// OutOfMemory and absurd n into InputError.
template <class T>
HostMatrix<T> allocate_matrix(const std::string& path, std::int64_t line, index_t n);

/// "1 entry", "0 entries", "3 entries" for messages: the count and the noun in its number.
inline std::string count_of(std::int64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

/// "1.5" or "(1.5, -2)" for messages.
template <class T>
std::string describe_value(const T& v);

// ---------------------------------------------------------------------------------------------
// Format back ends
// ---------------------------------------------------------------------------------------------

MatrixFileInfo probe_matrix_market(const std::string& path);
/// Array bodies of at least this many bytes are parsed in parallel chunks (default 16 MiB;
/// tests lower it to exercise the chunked path on small files).
std::size_t& array_parallel_bytes();
/// Coordinate bodies of at least this many bytes are tokenized and converted in parallel
/// chunks, then applied in file order (default 16 MiB; tests lower it).
std::size_t& coordinate_parallel_bytes();
/// Size of the blocks of a parallel coordinate parse (default 4 MiB): each round parses one
/// block per thread, then applies them in order (tests lower it to get many rounds).
std::size_t& coordinate_block_bytes();
template <class T>
HostMatrix<T> read_matrix_market(const TextBuffer& buf, MatrixFileInfo* info);

bool has_npy_magic(const char* b, std::size_t size);
MatrixFileInfo probe_npy(const std::string& path);
template <class T>
HostMatrix<T> read_npy(const TextBuffer& buf, MatrixFileInfo* info);
/// The .npy preamble (magic, version, padded header) of a Fortran-order rows x cols array.
std::string npy_header(const char* descr, index_t rows, index_t cols);

// ---------------------------------------------------------------------------------------------
// Output files
// ---------------------------------------------------------------------------------------------

/// The write(2) and close(2) that output files call; tests substitute failing ones (a full
/// disk, a failing close) without touching real devices.
struct OutputSyscalls {
  ssize_t (*write)(int fd, const void* p, std::size_t n);
  int (*close)(int fd);
};
OutputSyscalls& output_syscalls();

/// An output file. What it does depends on what the path names (symbolic links are followed
/// to their final target, never replaced):
///  - a new path or a regular file: written to a temporary `<target>.tmp.XXXXXX` in the
///    target's folder and renamed into place by commit(), so a failed run leaves nothing
///    partial (an existing file keeps its permission bits);
///  - "-", /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: the process's open
///    descriptor, written directly;
///  - a character device (/dev/null, /dev/full, a terminal) or a FIFO: opened and written
///    directly; every write and the close are checked;
///  - a folder, a block device, a socket: refused (OutputError) before anything is written.
/// Destroying it without commit() removes the temporary.
class AtomicFile {
 public:
  explicit AtomicFile(const std::string& path);  ///< throws OutputError
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(const char* p, std::size_t n);  ///< buffered; throws OutputError
  void write(std::string_view s) { write(s.data(), s.size()); }
  /// finish() then publish(); throws OutputError (and removes the temporary).
  void commit();
  /// Flush and close: a direct output is then done; a regular file's temporary is complete
  /// but not yet renamed (destroying the object removes it). Throws OutputError (and removes
  /// the temporary).
  void finish();
  /// After finish(): throws OutputError (and removes the temporary) when the target is no
  /// longer a regular file or absent (replaced meanwhile, e.g. by a folder or a device).
  void check_target();
  /// After finish(): check_target(), then renames the temporary over the target (nothing for a
  /// direct output). Throws OutputError (and removes the temporary).
  void publish();
  /// True when the output is written in place (device, FIFO, standard stream).
  bool direct() const { return tmp_.empty(); }

 private:
  void flush();
  void write_all(const char* p, std::size_t n);
  [[noreturn]] void fail(const std::string& what);  // closes, removes the temporary, throws
  std::string path_;                                // as given (for messages)
  std::string target_;                              // the final target of the links (replace mode)
  std::string tmp_;  // the temporary (replace mode); empty when writing directly
  int fd_ = -1;
  bool finished_ = false;  // flushed and closed (a temporary stays until publish())
  bool done_ = false;      // published (or failed): nothing left to do
  std::string buf_;
};

/// True when `path` names what AtomicFile writes in place: "-", a descriptor of this process,
/// an existing character device or FIFO (symbolic links followed). False otherwise (a regular
/// file, a new path, and the paths AtomicFile refuses).
bool writes_in_place(const std::string& path);

}  // namespace io_detail
}  // namespace eigsolve
