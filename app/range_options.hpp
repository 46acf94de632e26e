// The CLI's eigenvalue subset options, --index-range FROM:TO and --value-range A:B, parsed into
// a solver Subset (separate from solve.cpp so that tests/fuzz can drive it directly).
#pragma once

#include <string>

#include "solver/eigensolve.hpp"

namespace eigsolve {

/// The subset chosen by --index-range FROM:TO (1-based, inclusive; needs 1 <= FROM <= TO <= n)
/// or --value-range A:B (the half-open interval (A, B], A < B, both finite). Empty strings
/// mean "not given"; both given is an error. Throws UsageError naming the option (the text
/// quoted with control bytes escaped, so the message is one line).
Subset parse_subset(const std::string& index_range, const std::string& value_range, index_t n);

}  // namespace eigsolve
