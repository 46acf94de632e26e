// `eigsolve generate`: test matrices with known properties, written as Matrix Market or .npy.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/matrix.hpp"
#include "core/precision.hpp"

namespace eigsolve {

struct GenerateOptions {
  std::string kind;                    ///< hadamard | random | laplace1d | kac | wilkinson
  index_t n = 0;                       ///< matrix order
  std::string spectrum = "clustered";  ///< hadamard: clustered | linear | wide
  bool complex = false;                ///< hadamard, random: Hermitian complex version
  std::uint64_t seed = 1;              ///< random
  std::string output;                  ///< .mtx or .npy
  std::string eigenvalues_output;      ///< exact spectrum, where the kind has one
};

/// The spectrum used by the hadamard generator (small integers, so A is exact in binary).
std::vector<double> hadamard_spectrum(index_t n, const std::string& spectrum);

/// A = H diag(lambda) H^T / n for the Sylvester Hadamard H of order n = 2^m (exact entries).
/// With complex = true, S A S^H with S = diag(i^k) (same spectrum).
HostMatrix<cdouble> hadamard_matrix(index_t n, const std::vector<double>& lambda, bool complex);

/// Runs the generate command; returns the process exit code.
int run_generate(const GenerateOptions& opt);

}  // namespace eigsolve
