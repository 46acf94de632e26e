// Accuracy diagnostics of a computed eigendecomposition, for the summary and the report.
#pragma once

#include "core/context.hpp"
#include "core/matrix.hpp"
#include "solver/eigensolve.hpp"

namespace eigsolve {

struct Residuals {
  double backward = 0;       ///< ||A Z - Z Lambda||_1 / (n ||A||_1)
  double orthogonality = 0;  ///< ||I - Z^H Z||_1 / n
};

/// A holds the full Hermitian matrix (both triangles, as the readers return it).
template <class T>
Residuals compute_residuals(const Context& ctx, const HostMatrix<T>& A, const SolveResult<T>& r);

}  // namespace eigsolve
