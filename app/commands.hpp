// The eigsolve subcommands, callable from main.cpp (which alone catches exceptions).
#pragma once

#include <string>

#include "app/generate.hpp"

namespace eigsolve {

/// Options of the main command (`eigsolve FILE ...`), already parsed from the command line.
struct SolveCliOptions {
  std::string input;
  std::string precision = "auto";  ///< auto (d for real files, z for complex) | s | d | c | z | dd
  std::string device = "auto";     ///< auto | cpu | cuda
  bool vectors = false;
  bool no_residuals = false;   ///< with vectors: skip the residual check (and A's copy for it)
  std::string output;          ///< eigenvalues; empty or "-" = stdout
  std::string vectors_output;  ///< .mtx or .npy; implies vectors
  std::string report;          ///< JSON report path
  int threads = 0;             ///< 0 = all hardware threads
  std::string index_range;     ///< "i:j", 1-based inclusive
  std::string value_range;     ///< "a:b", the half-open interval (a, b]
  std::string tridiag_solver = "bisection";
  std::string back_transform = "canonical";  ///< canonical | lapack (not in the contract)
  int nb = 32;
  std::string reduction = "auto";  ///< auto | one-stage | two-stage
  int band = 32;                   ///< two-stage: the band's half-width
  bool quiet = false;
};

int run_solve(const SolveCliOptions& opt);

struct CompareOptions {
  std::string a, b;
  double rtol = -1;  ///< < 0: bitwise comparison only
  bool quiet = false;
};

/// Compares two eigenvalue files: exit 0 when identical (or within rtol when given), 1 otherwise.
int run_compare(const CompareOptions& opt);

}  // namespace eigsolve
