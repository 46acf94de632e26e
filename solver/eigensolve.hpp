// The eigenvalue stage and the whole pipeline driver (backend-neutral).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/context.hpp"
#include "core/matrix.hpp"
#include "core/precision.hpp"
#include "solver/back_transform.hpp"

namespace eigsolve {

enum class TridiagSolver { bisection, sterf, stedc, stemr };
const char* tridiag_solver_name(TridiagSolver s);
TridiagSolver parse_tridiag_solver(const std::string& s);  ///< throws UsageError

/// How A becomes tridiagonal: one_stage (docs/canonical-tridiagonalization.md) or two_stage
/// (full -> band of half-width `band` -> tridiagonal, docs/canonical-two-stage.md: a second
/// canonical order, its own bits; both backends, the same bits, eigenvectors too). automatic
/// (the default) is two_stage from order two_stage_min_order(precision) on for eigenvalues only
/// and from two_stage_min_order_vectors(precision) on with eigenvectors, else one_stage: a
/// function of n, the precision and whether vectors are asked for, so every backend, thread
/// count and GPU picks the same and the bits agree.
enum class Reduction { one_stage, two_stage, automatic };
const char* reduction_name(Reduction r);          ///< "one-stage", "two-stage", "auto"
Reduction parse_reduction(const std::string& s);  ///< throws UsageError
/// The order from which Reduction::automatic means two_stage: where the two-stage eigenvalues
/// became the faster on the GPU (bench/NOTES.md, sessions 42 and 47): 1 (every order) for s
/// and d, 4096 for c, 7168 for z, 10240 for dd.
index_t two_stage_min_order(Precision p);
/// The same with eigenvectors, where the two-stage pipeline also pays Q2 (bench/NOTES.md,
/// sessions 23, 42 and 47): s and d the same as without (every order, so their eigenvalue bits
/// do not depend on vectors); never (the largest index_t) for c, z and dd.
index_t two_stage_min_order_vectors(Precision p);
/// one_stage or two_stage: `r` itself, or what automatic means for order n in precision p, with
/// or without eigenvectors.
Reduction resolve_reduction(Reduction r, index_t n, Precision p, bool vectors);

/// Which eigenvalues: all, the index range [il, iu] (0-based, inclusive, ascending order),
/// or those in the half-open value interval (vl, vu] (LAPACK's convention).
struct Subset {
  enum class Kind { all, index, value } kind = Kind::all;
  index_t il = 0, iu = -1;
  double vl = 0, vu = 0;
};

struct SolveOptions {
  TridiagSolver solver = TridiagSolver::bisection;
  bool vectors = false;
  Subset subset;
  int nb = 32;  ///< tridiagonalization panel width
  Reduction reduction = Reduction::automatic;
  int band = 32;  ///< two_stage: the band's half-width (part of the contract, like nb)
  /// Q Z: canonical (default, in the contract) or LAPACK ?ormtr/?unmtr (s/d/c/z, not in it).
  BackTransformMethod back_transform = BackTransformMethod::canonical;
  /// Progress: (stage name, fraction done in [0,1]); may be empty.
  std::function<void(const char*, double)> progress;
};

/// What opt.reduction means for order n in precision p: resolve_reduction(opt.reduction, n, p,
/// opt.vectors), except that automatic with eigenvectors back-transformed by LAPACK
/// (BackTransformMethod::lapack, whose ?ormtr/?unmtr know only the one-stage reflectors) is
/// one_stage. An explicit two_stage with it is a usage error (check_options).
Reduction resolve_reduction(const SolveOptions& opt, index_t n, Precision p);

struct StageTimes {
  double tridiagonalize = 0;  ///< seconds
  double tridiag_eigen = 0;   ///< eigenvalues (and vectors) of T
  double back_transform = 0;  ///< Q * Z
  /// --device cuda: parts of `tridiagonalize` spent on the device (householder/tridiag_cuda.hpp)
  double gpu_upload = 0;     ///< the matrix to the device
  double gpu_symv = 0;       ///< SYMV/HEMV kernels (CUDA events)
  double gpu_update = 0;     ///< rank-2k trailing updates (CUDA events)
  double gpu_transfers = 0;  ///< per-column v/w transfers and synchronisation
  double gpu_panels = 0;     ///< device panels: all their kernels and updates (CUDA events)
};

template <class T>
struct SolveResult {
  std::vector<real_t<T>> w;  ///< eigenvalues, ascending
  index_t n = 0;
  index_t m = 0;     ///< number of eigenvalues (= columns of z)
  std::vector<T> z;  ///< n x m eigenvectors, column-major (empty without vectors)
  StageTimes times;
  Reduction reduction = Reduction::one_stage;  ///< the reduction used (automatic resolved)
};

/// Solves A z = lambda z for the Hermitian matrix in the lower triangle of A (destroyed).
/// Eigenvectors are normalized to unit 2-norm with the largest-magnitude component (first one
/// on ties) real and positive. Throws UsageError for a solver not available for T (LAPACK
/// solvers with dd), NumericalError/LapackError on failures.
template <class T>
SolveResult<T> eigensolve(const Context& ctx, HostMatrix<T>& A, const SolveOptions& opt);

/// The same solve for a matrix already on the current CUDA device: the lower triangle of dA
/// (order n, leading dimension ldda >= n, device memory) is copied on the device and not
/// modified; the whole pipeline runs with the CUDA backend whatever ctx.backend says. The
/// result is bitwise the one eigensolve gives for the same matrix on the host, with either
/// backend. CPU-only builds throw NotCompiled.
template <class T>
SolveResult<T> eigensolve_device(const Context& ctx, index_t n, const T* dA, index_t ldda,
                                 const SolveOptions& opt);

}  // namespace eigsolve
