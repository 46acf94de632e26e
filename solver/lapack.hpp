// Thin LAPACKE bindings of the tridiagonal stage (s/d) and the back-transformation (s/d/c/z).
//
// Overload sets over the vendor precisions only (has_vendor_lapack_v<T>). Sizes are index_t;
// lapack_int is 32-bit here, so every size is checked to fit (DimensionError otherwise), and
// info != 0 becomes LapackError("dstedc", info). Indices are 0-based on our side.
#pragma once

#include "core/precision.hpp"

namespace eigsolve {
namespace lapack {

/// All eigenvalues of T = (d, e) by the root-free QR (?sterf); d is overwritten with them in
/// ascending order, e is destroyed.
void sterf(index_t n, float* d, float* e);
void sterf(index_t n, double* d, double* e);

/// Divide and conquer (?stedc). With z == nullptr only eigenvalues (compz = 'N'); otherwise
/// compz = 'I': z (n x n, ldz >= n) receives the eigenvectors of T. d -> eigenvalues ascending.
void stedc(index_t n, float* d, float* e, float* z, index_t ldz);
void stedc(index_t n, double* d, double* e, double* z, index_t ldz);

/// The largest n for which ?stedc can compute vectors (compz = 'I'): LAPACK sizes its real
/// workspace as 1 + 4n + n^2 elements in its 32-bit integer, which wraps from n = 46339 on (a
/// negative count fails, a wrapped positive one is too small and the routine writes past it).
/// stedc() refuses larger n with vectors (DimensionError) instead of calling LAPACK.
index_t stedc_vectors_max_order();

/// MRRR (?stemr). range: 'A' all, 'I' indices [il, iu] (0-based), 'V' values (vl, vu].
/// e must have length n (workspace). w receives the m eigenvalues found (capacity n);
/// with z != nullptr (ldz >= n, nzc columns, nzc >= m) also the eigenvectors. Returns m.
index_t stemr(char range, index_t n, float* d, float* e, float vl, float vu, index_t il, index_t iu,
              float* w, float* z, index_t ldz, index_t nzc);
index_t stemr(char range, index_t n, double* d, double* e, double vl, double vu, index_t il,
              index_t iu, double* w, double* z, index_t ldz, index_t nzc);

/// Eigenvectors of T for the m given eigenvalues w (ascending) by inverse iteration (?stein,
/// one block). z is n x m, ldz >= n. Throws LapackError when a vector fails to converge.
void stein(index_t n, const float* d, const float* e, index_t m, const float* w, float* z,
           index_t ldz);
void stein(index_t n, const double* d, const double* e, index_t m, const double* w, double* z,
           index_t ldz);

/// C := Q C with Q from ?sytrd/?hetrd('L') held in (a, lda, tau): ?ormtr / ?unmtr with
/// side = 'L', uplo = 'L', trans = 'N'. C is n x m, ldc >= n.
void ormtr(index_t n, index_t m, const float* a, index_t lda, const float* tau, float* c,
           index_t ldc);
void ormtr(index_t n, index_t m, const double* a, index_t lda, const double* tau, double* c,
           index_t ldc);
void ormtr(index_t n, index_t m, const Complex<float>* a, index_t lda, const Complex<float>* tau,
           Complex<float>* c, index_t ldc);
void ormtr(index_t n, index_t m, const Complex<double>* a, index_t lda, const Complex<double>* tau,
           Complex<double>* c, index_t ldc);

}  // namespace lapack
}  // namespace eigsolve
