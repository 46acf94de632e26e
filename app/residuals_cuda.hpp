// The accuracy diagnostics of app/residuals.hpp computed on the GPU (cuBLAS GEMMs and a
// deterministic per-column reduction) for a run that is there (--device cuda --vectors).
// Backend-neutral header; a CPU-only build throws NotCompiled.
//
//   upload A (full Hermitian), Z  ->  AZ = A Z (?gemm), G = Z^H Z (?gemm)
//   column j: sum_i |AZ_ij - w_j Z_ij| and sum_i |G_ij - delta_ij| in double, one block per
//   column in a fixed tree order (the report's numbers do not change from run to run)
//   max over the columns on the host; ||A||_1 from the host as before.
//   dd: our own dd products (64 x 64 tiles, the host's k-ascending madd chain per entry; the
//   lower tiles of Z^T Z only) with the |.| column sums of each tile fused in, then a fixed
//   per-column sum of the tiles' partial sums; A, Z and O((n + m) m / 64) doubles on the device.
#pragma once

#include <type_traits>

#include "app/residuals.hpp"

namespace eigsolve {

/// Whether the device path exists for T (s, d, c, z: cuBLAS; dd: our own dd products).
template <class T>
constexpr bool residuals_on_device_v = has_vendor_lapack_v<T> || std::is_same_v<T, dd_real>;

/// A: the full Hermitian matrix (both triangles), r: the solve with vectors; anorm = ||A||_1.
/// Throws DeviceError (with the bytes needed and available when the GPU cannot hold A, Z and
/// the two products; dd: A, Z and the partial sums) or NotCompiled.
template <class T>
Residuals compute_residuals_cuda(const HostMatrix<T>& A, const SolveResult<T>& r, double anorm);

}  // namespace eigsolve
