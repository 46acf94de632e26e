// Reading dense symmetric/Hermitian matrices (Matrix Market, NumPy .npy) and writing results.
#pragma once

#include <string>
#include <vector>

#include "core/matrix.hpp"
#include "core/precision.hpp"

namespace eigsolve {

/// What a matrix file holds, read from its header alone.
struct MatrixFileInfo {
  std::string format;    ///< "coordinate", "array" or "npy"
  std::string field;     ///< "real", "integer", "pattern", "complex" (npy: "real"/"complex")
  std::string symmetry;  ///< "general", "symmetric", "hermitian", "skew-symmetric"
  index_t rows = 0;
  index_t cols = 0;
  index_t entries = 0;   ///< stored entries (coordinate), rows*cols otherwise
  bool is_complex() const { return field == "complex"; }
};

/// Reads the header only (banner and size line, or the .npy header). Throws InputError.
MatrixFileInfo probe_matrix_file(const std::string& path);

/// Reads a .mtx or .npy file (chosen by content: the .npy magic, else Matrix Market) into a
/// dense n x n column-major matrix of scalar T whose lower triangle holds the matrix.
/// Validates everything (see docs/formats.md); throws InputError naming file:line and the
/// problem. Complex data with a real T is an InputError.
template <class T>
HostMatrix<T> read_matrix(const std::string& path, MatrixFileInfo* info = nullptr);

/// Writes eigenvalues, one per line, ascending as given, in the shortest decimal form that
/// reads back to the same value (dd: enough digits to round-trip the pair). "-" = stdout.
/// Written atomically (temporary file + rename). Throws OutputError.
template <class R>
void write_eigenvalues(const std::string& path, const std::vector<R>& w);

/// Reads an eigenvalue file as written by write_eigenvalues (one number per line).
template <class R>
std::vector<R> read_eigenvalues(const std::string& path);

/// Writes an n x m column-major matrix: Matrix Market `array general` for .mtx, NumPy for
/// .npy (dd is written as .mtx only, with round-trip digits). Atomic. Throws OutputError.
template <class T>
void write_dense(const std::string& path, index_t n, index_t m, const T* z, index_t ldz);

/// Shortest round-trip decimal of a real (float/double: std::to_chars; dd: core/dd_io.hpp).
template <class R>
std::string format_real(const R& x);

/// Writes `content` to `path` atomically (temporary file in the same folder, then rename);
/// "-" writes to stdout. Throws OutputError.
void write_file_atomic(const std::string& path, const std::string& content);

}  // namespace eigsolve
