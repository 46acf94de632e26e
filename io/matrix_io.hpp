// Reading dense symmetric/Hermitian matrices (Matrix Market, NumPy .npy) and writing results.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/matrix.hpp"
#include "core/precision.hpp"

namespace eigsolve {

namespace io_detail {
class AtomicFile;
}

/// What a matrix file holds, read from its header alone.
struct MatrixFileInfo {
  std::string format;    ///< "coordinate", "array" or "npy"
  std::string field;     ///< "real", "integer", "pattern", "complex" (npy: "real"/"complex")
  std::string symmetry;  ///< "general", "symmetric", "hermitian", "skew-symmetric"
  index_t rows = 0;
  index_t cols = 0;
  index_t entries = 0;  ///< stored entries (coordinate), rows*cols otherwise
  /// Coordinate files (set by read_matrix, not by the probe): entries summed into an earlier
  /// entry of the same (i, j) and triangle (docs/formats.md, "Duplicate entries").
  index_t duplicates = 0;
  /// Set by read_matrix: nonzero values of the file that became exactly zero in the chosen
  /// precision (real and imaginary parts count apart; a value that becomes subnormal does not
  /// count; integer and pattern fields never underflow), and where the first of them in file
  /// order is: its line (Matrix Market; 0 for .npy) and its (row, column), 1-based as the
  /// file stores it (0 when there is none).
  index_t underflows = 0;
  std::int64_t underflow_line = 0;
  index_t underflow_row = 0;
  index_t underflow_col = 0;
  bool is_complex() const { return field == "complex"; }
};

/// Reads the header only (banner and size line, or the .npy header). Throws InputError.
MatrixFileInfo probe_matrix_file(const std::string& path);

/// Reads a .mtx or .npy file (chosen by content: the .npy magic, else Matrix Market) into a
/// dense n x n column-major matrix of scalar T whose lower triangle holds the matrix.
/// The strict upper triangle is filled too, with the mirror conj(A(i,j)) of the lower one,
/// and the diagonal has imaginary part +0: the result is the full symmetric/Hermitian matrix.
/// Values are parsed with one correct rounding straight into real_t<T> (float/double:
/// std::from_chars; dd: parse_dd); symmetry is checked exactly after that rounding.
/// Validates everything (see docs/formats.md); throws InputError naming file:line and the
/// problem (line 0: the whole file, and every .npy error). Complex data with a real T is an
/// InputError ("use --precision c or z"); real data with a complex T has imaginary parts 0.
/// Large array bodies are parsed by several OpenMP threads; neither the matrix nor the
/// reported error depends on the thread count. Throws OutOfMemory when the matrix does not fit.
template <class T>
HostMatrix<T> read_matrix(const std::string& path, MatrixFileInfo* info = nullptr);

/// Writes eigenvalues, one per line, ascending as given, in the shortest decimal form that
/// reads back to the same value (dd: enough digits to round-trip the pair). "-" = stdout.
/// A regular file (or new path) is written atomically (temporary file + rename); a device,
/// FIFO or /dev/stdout is written directly; a symbolic link is followed; a directory is
/// refused (docs/formats.md, "Outputs"). Throws OutputError.
/// nthreads: threads that format the text (0: omp_get_max_threads(), which the CLI sets from
/// --threads; at most 32); the bytes written do not depend on it.
template <class R>
void write_eigenvalues(const std::string& path, const std::vector<R>& w, int nthreads = 0);

/// Reads an eigenvalue file as written by write_eigenvalues (one number per line; blank lines
/// and lines starting with '%' or '#' are skipped; "-" = stdin). Throws InputError(file:line).
template <class R>
std::vector<R> read_eigenvalues(const std::string& path);

/// The whole content of a file ("-" = stdin). Throws InputError(path, 0, ...) when it cannot
/// be read (missing, a directory, ...).
std::string read_text_file(const std::string& path);

/// read_eigenvalues of a file's text already in memory; `name` names it in messages.
template <class R>
std::vector<R> parse_eigenvalues(const std::string& name, const std::string& text);

/// Writes an n x m column-major matrix (leading dimension ldz >= max(1, n)): NumPy for a path
/// ending in .npy (Fortran order; '<f4', '<f8', '<c8', '<c16'), else Matrix Market
/// `array real|complex general` with round-trip digits. dd is written as .mtx only (a .npy
/// path for dd is an OutputError). Atomic. Throws OutputError, DimensionError.
/// nthreads: threads that format the .mtx text (0: omp_get_max_threads(), which the CLI sets
/// from --threads; at most 32); the bytes written do not depend on it.
template <class T>
void write_dense(const std::string& path, index_t n, index_t m, const T* z, index_t ldz,
                 int nthreads = 0);

/// Shortest round-trip decimal of a real (float/double: std::to_chars; dd: core/dd_io.hpp).
template <class R>
std::string format_real(const R& x);

/// Checks, before a long run, that `path` can take an output by the rules of write_file_atomic:
/// "-" and descriptors of this process pass; a folder, block device or socket is refused; a
/// character device or FIFO passes without being opened; an existing regular file must be
/// writable, and the folder of a regular file or new path must take the temporary file (one is
/// created and removed). Throws OutputError with the message the write would give.
void check_output_path(const std::string& path);

/// check_output_path for write_dense<T>: also refuses a .npy path for dd (no NumPy dtype).
template <class T>
void check_dense_output(const std::string& path);

/// Writes `content` to `path` like write_eigenvalues: atomically (temporary file beside the
/// target, then rename) for a regular file, directly for a device, FIFO or standard stream;
/// "-" writes to stdout. Throws OutputError.
void write_file_atomic(const std::string& path, const std::string& content);

/// Whether write_dense writes `path` as NumPy .npy: its name ends in ".npy" in any case
/// (".NPY", ".Npy"). The one rule for every .npy output (--vectors-output, generate -o).
bool is_npy_path(const std::string& path);

/// Whether `path` names a stream that an output is written to in place, without a temporary:
/// "-", /dev/stdout and the process's other descriptors, a character device (/dev/null), a
/// FIFO (symbolic links followed). False for a regular file or a new path (and for the paths
/// an output refuses: a folder, ...).
bool is_stream_output(const std::string& path);

/// The outputs of one run, all or nothing where they are regular files (docs/formats.md,
/// "Outputs"). Each output added to a regular file (or a new path) is written at once to its
/// temporary `<target>.tmp.XXXXXX`, complete and closed but not renamed; an output to a stream
/// (is_stream_output) cannot be staged and is written directly, later: by write_streams() or
/// publish(), in the order added (the data it refers to must live until then). publish() writes
/// the streams not yet written, checks that every target is still a regular file or absent,
/// then renames every temporary into place. Any failure throws OutputError; destroying the set
/// without publish() removes every temporary, so an old file stays as it was and a new path is
/// not created. Formats as write_eigenvalues, write_dense, write_file_atomic.
class OutputSet {
 public:
  OutputSet();
  ~OutputSet();
  OutputSet(const OutputSet&) = delete;
  OutputSet& operator=(const OutputSet&) = delete;

  template <class R>
  void eigenvalues(const std::string& path, const std::vector<R>& w, int nthreads = 0);
  /// Checks the sizes and the dd .npy refusal before anything is written.
  template <class T>
  void dense(const std::string& path, index_t n, index_t m, const T* z, index_t ldz,
             int nthreads = 0);
  void text(const std::string& path, std::string content);
  /// Writes the stream outputs added so far, in the order added.
  void write_streams();
  /// Writes the remaining streams, then renames every staged temporary into place (every
  /// target checked before the first rename). Nothing may be added after it.
  void publish();

 private:
  using Writer = std::function<void(io_detail::AtomicFile&)>;
  void add(const std::string& path, Writer writer);
  void run(const std::string& path, const Writer& writer);
  std::vector<std::unique_ptr<io_detail::AtomicFile>> staged_;
  std::vector<std::pair<std::string, Writer>> streams_;
  bool published_ = false;
};

}  // namespace eigsolve
