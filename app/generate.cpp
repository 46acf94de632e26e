#include "app/generate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>

#include "app/output_checks.hpp"
#include "core/errors.hpp"
#include "io/matrix_io.hpp"

namespace eigsolve {
namespace {

/// In-place fast Walsh-Hadamard transform (unnormalized) of integers.
void fwht(std::vector<std::int64_t>& v) {
  const std::size_t n = v.size();
  for (std::size_t h = 1; h < n; h *= 2)
    for (std::size_t i = 0; i < n; i += 2 * h)
      for (std::size_t j = i; j < i + h; ++j) {
        std::int64_t a = v[j], b = v[j + h];
        v[j] = a + b;
        v[j + h] = a - b;
      }
}

/// Dense Hermitian (or real symmetric when all imaginary parts are zero) matrix as text:
/// `array ... symmetric|hermitian`, lower triangle column by column.
std::string dense_mtx(const HostMatrix<cdouble>& A, bool complex, const std::string& comment) {
  const index_t n = A.n;
  std::string out = std::string("%%MatrixMarket matrix array ") +
                    (complex ? "complex hermitian" : "real symmetric") + "\n";
  out += "% " + comment + "\n";
  out += std::to_string(n) + " " + std::to_string(n) + "\n";
  out.reserve(out.size() + static_cast<std::size_t>(n) * (n + 1) / 2 * (complex ? 40 : 20));
  for (index_t j = 0; j < n; ++j)
    for (index_t i = j; i < n; ++i) {
      out += format_real(A(i, j).re);
      if (complex) {
        out += ' ';
        out += format_real(i == j ? 0.0 : A(i, j).im);
      }
      out += '\n';
    }
  return out;
}

std::string tridiag_mtx(const std::vector<double>& d, const std::vector<double>& e,
                        const std::string& comment) {
  const index_t n = static_cast<index_t>(d.size());
  std::string out = "%%MatrixMarket matrix coordinate real symmetric\n% " + comment + "\n";
  index_t nnz = n + std::max<index_t>(0, n - 1);
  out += std::to_string(n) + " " + std::to_string(n) + " " + std::to_string(nnz) + "\n";
  for (index_t i = 0; i < n; ++i) {
    out += std::to_string(i + 1) + " " + std::to_string(i + 1) + " " + format_real(d[i]) + "\n";
    if (i + 1 < n)
      out += std::to_string(i + 2) + " " + std::to_string(i + 1) + " " + format_real(e[i]) + "\n";
  }
  return out;
}

}  // namespace

std::vector<double> hadamard_spectrum(index_t n, const std::string& spectrum) {
  std::vector<double> lam(static_cast<std::size_t>(n));
  for (index_t k = 0; k < n; ++k) {
    if (spectrum == "linear") {
      lam[k] = static_cast<double>(k - n / 2);
    } else if (spectrum == "wide") {
      // magnitudes 2^0 .. 2^20 with both signs: a wide dynamic range, all exact.
      double mag = std::ldexp(1.0, static_cast<int>(k % 21));
      lam[k] = (k % 2 ? -mag : mag);
    } else if (spectrum == "clustered") {
      // clusters and multiplicities: {-64 x1, -3 x2, 0 x3, 1 x4, 2, 5 x2, 100 x1} repeated.
      static const double pattern[] = {-64, -3, -3, 0, 0, 0, 1, 1, 1, 1, 2, 5, 5, 100};
      lam[k] = pattern[k % 14];
    } else {
      throw UsageError("unknown --spectrum '" + spectrum +
                       "' (expected clustered, linear or wide)");
    }
  }
  std::sort(lam.begin(), lam.end());
  return lam;
}

HostMatrix<cdouble> hadamard_matrix(index_t n, const std::vector<double>& lambda, bool complex) {
  if (n < 1 || (n & (n - 1)) != 0) throw UsageError("hadamard: --n must be a power of two");
  // Entries must be integers for the transform to be exact: lambda holds small integers.
  for (double l : lambda)
    if (l != std::floor(l) || std::abs(l) > 0x1p40)
      throw UsageError("hadamard: the spectrum must be integers of moderate size");
  HostMatrix<cdouble> A(n);
  std::vector<std::int64_t> col(static_cast<std::size_t>(n));
  const int m = static_cast<int>(std::log2(static_cast<double>(n)) + 0.5);
  for (index_t j = 0; j < n; ++j) {
    // column j of H diag(lambda) H: H (lambda .* H e_j); (H e_j)_k = (-1)^popcount(k&j)
    for (index_t k = 0; k < n; ++k)
      col[k] = static_cast<std::int64_t>(lambda[k]) * (__builtin_popcountll(k & j) % 2 ? -1 : 1);
    fwht(col);
    for (index_t i = 0; i < n; ++i) {
      double v = std::ldexp(static_cast<double>(col[i]), -m);  // exact: integer / 2^m
      if (complex) {
        // S A S^H, S = diag(i^k): entry (i, j) times i^(i - j)
        int r = static_cast<int>(((i - j) % 4 + 4) % 4);
        static const double cr[4] = {1, 0, -1, 0}, ci[4] = {0, 1, 0, -1};
        A(i, j) = cdouble(v * cr[r], v * ci[r]);
      } else {
        A(i, j) = cdouble(v, 0.0);
      }
    }
  }
  return A;
}

int run_generate(const GenerateOptions& opt) {
  if (opt.output.empty()) throw UsageError("generate: -o/--output PATH is required");
  if (opt.n < 1) throw UsageError("generate: --n must be at least 1");
  const std::string& k = opt.kind;
  const bool dense = k == "hadamard" || k == "random";
  if (!dense && k != "laplace1d" && k != "kac" && k != "wilkinson")
    throw UsageError("generate: unknown kind '" + k +
                     "' (expected hadamard, random, laplace1d, kac or wilkinson)");
  // Everything that can be refused is refused before anything is written.
  if (!dense && opt.complex)
    throw UsageError("generate " + k + ": real symmetric only (no --complex)");
  std::vector<NamedOutput> outs{{"-o", opt.output}};
  if (!opt.eigenvalues_output.empty()) {
    if (k == "random" || k == "wilkinson")
      throw UsageError("generate " + k + ": no closed-form spectrum to write");
    outs.push_back({"--eigenvalues-output", opt.eigenvalues_output});
  }
  check_distinct_outputs(outs, "");  // the solve's rule: one file each, one on stdout at most
  // .npy (any case, write_dense's rule) holds the whole matrix, for every kind.
  const bool npy = is_npy_path(opt.output);
  if ((dense || npy) && opt.n > (index_t(1) << 31)) {  // n^2 must not overflow; beyond memory
    const std::string nn = std::to_string(opt.n);
    throw OutOfMemory(
        "generate " + k + " (a dense " + nn + " x " + nn + " matrix: more than 2^64 bytes)",
        std::numeric_limits<std::uint64_t>::max());
  }
  check_output_path(opt.output);
  if (!opt.eigenvalues_output.empty()) check_output_path(opt.eigenvalues_output);

  // The matrix and its spectrum live until the outputs are published (a stream output is
  // written then).
  std::vector<double> exact;
  HostMatrix<cdouble> A;     // hadamard, random
  HostMatrix<double> Areal;  // a real matrix as .npy
  std::string text;          // the Matrix Market text
  std::string comment;
  if (k == "hadamard") {
    exact = hadamard_spectrum(opt.n, opt.spectrum);
    A = hadamard_matrix(opt.n, exact, opt.complex);
    comment = "eigsolve generate hadamard --n " + std::to_string(opt.n) + " --spectrum " +
              opt.spectrum + (opt.complex ? " --complex" : "") +
              ": A = S H diag(lambda) H^T S^H / n, spectrum exactly lambda";
  } else if (k == "random") {
    std::mt19937_64 rng(opt.seed);
    auto uni = [&] { return static_cast<double>(rng() >> 11) * 0x1p-53 * 2.0 - 1.0; };
    A = HostMatrix<cdouble>(opt.n);
    for (index_t j = 0; j < opt.n; ++j)
      for (index_t i = j; i < opt.n; ++i) {
        double re = uni(), im = opt.complex && i != j ? uni() : 0.0;
        A(i, j) = cdouble(re, im);
        A(j, i) = cdouble(re, -im);
      }
    comment = "eigsolve generate random --n " + std::to_string(opt.n) + " --seed " +
              std::to_string(opt.seed) + (opt.complex ? " --complex" : "");
  }
  if (dense) {
    if (!npy) {
      text = dense_mtx(A, opt.complex, comment);
    } else if (!opt.complex) {
      Areal = HostMatrix<double>(opt.n);
      for (std::size_t q = 0; q < Areal.data.size(); ++q)
        Areal.data[q] = A.data[q].re;
    }
  } else {
    const index_t n = opt.n;
    std::vector<double> d(n), e(n > 0 ? n - 1 : 0);
    std::string what;
    if (k == "laplace1d") {
      std::fill(d.begin(), d.end(), 2.0);
      std::fill(e.begin(), e.end(), -1.0);
      exact.resize(n);
      for (index_t i = 0; i < n; ++i)
        exact[i] =
            2.0 - 2.0 * std::cos(static_cast<double>(i + 1) * M_PI / static_cast<double>(n + 1));
      std::sort(exact.begin(), exact.end());
      what = "tridiag(-1, 2, -1): lambda_k = 2 - 2 cos(k pi / (n + 1))";
    } else if (k == "kac") {
      for (index_t i = 0; i + 1 < n; ++i)
        e[i] = std::sqrt(static_cast<double>((i + 1) * (n - 1 - i)));
      exact.resize(n);
      for (index_t i = 0; i < n; ++i)
        exact[i] = static_cast<double>(-(n - 1) + 2 * i);
      what = "Kac/Clement: eigenvalues -(n-1), -(n-3), ..., n-1 (off-diagonals rounded)";
    } else {
      for (index_t i = 0; i < n; ++i)
        d[i] = std::abs(static_cast<double>(n - 1) / 2.0 - static_cast<double>(i));
      std::fill(e.begin(), e.end(), 1.0);
      what = "Wilkinson W+: close eigenvalue pairs";
    }
    if (npy) {
      Areal = HostMatrix<double>(n);  // the whole tridiagonal matrix, both triangles
      for (index_t i = 0; i < n; ++i) {
        Areal(i, i) = d[i];
        if (i + 1 < n) Areal(i + 1, i) = Areal(i, i + 1) = e[i];
      }
    } else {
      text = tridiag_mtx(d, e, "eigsolve generate " + k + ": " + what);
    }
  }

  // All or nothing where the outputs are regular files (docs/formats.md, "Outputs").
  OutputSet files;
  if (!npy)
    files.text(opt.output, std::move(text));
  else if (dense && opt.complex)
    files.dense(opt.output, A.n, A.n, A.ptr(), A.ld());
  else
    files.dense(opt.output, Areal.n, Areal.n, Areal.ptr(), Areal.ld());
  if (!opt.eigenvalues_output.empty()) files.eigenvalues(opt.eigenvalues_output, exact);
  files.publish();
  return kExitOk;
}

}  // namespace eigsolve
