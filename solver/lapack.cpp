// LAPACKE bindings (solver/lapack.hpp). std::complex is only the transport type of the C
// interface here (layout-compatible with our Complex<R>); no arithmetic is done with it.
#include <complex>
#define lapack_complex_float std::complex<float>
#define lapack_complex_double std::complex<double>
#include <lapacke.h>

#include <limits>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "solver/lapack.hpp"

namespace eigsolve {
namespace lapack {
namespace {

lapack_int li(index_t v, const char* routine) {
  if (v < 0 || v > static_cast<index_t>(std::numeric_limits<lapack_int>::max()))
    throw DimensionError(std::string(routine) + ": size " + std::to_string(v) +
                         " does not fit the 32-bit LAPACK integer");
  return static_cast<lapack_int>(v);
}
void check(lapack_int info, const char* routine) {
  if (info != 0) throw LapackError(routine, info);
}

}  // namespace

void sterf(index_t n, float* d, float* e) {
  if (n == 0) return;
  check(LAPACKE_ssterf(li(n, "ssterf"), d, e), "ssterf");
}
void sterf(index_t n, double* d, double* e) {
  if (n == 0) return;
  check(LAPACKE_dsterf(li(n, "dsterf"), d, e), "dsterf");
}

index_t stedc_vectors_max_order() {
  const index_t cap = std::numeric_limits<lapack_int>::max();
  index_t n = 1;
  while (1 + 4 * (n + 1) + (n + 1) * (n + 1) <= cap)
    ++n;
  return n;
}

namespace {
void check_stedc_order(index_t n, bool vectors, const char* routine) {
  if (vectors && n > stedc_vectors_max_order())
    throw DimensionError(std::string(routine) + " with eigenvectors: n = " + std::to_string(n) +
                         " is above " + std::to_string(stedc_vectors_max_order()) +
                         ", the largest order whose workspace (1 + 4n + n^2 elements) fits the "
                         "32-bit LAPACK integer");
}
}  // namespace

void stedc(index_t n, float* d, float* e, float* z, index_t ldz) {
  if (n == 0) return;
  check_stedc_order(n, z != nullptr, "sstedc");
  float dummy = 0;
  check(LAPACKE_sstedc(LAPACK_COL_MAJOR, z ? 'I' : 'N', li(n, "sstedc"), d, e, z ? z : &dummy,
                       z ? li(ldz, "sstedc") : 1),
        "sstedc");
}
void stedc(index_t n, double* d, double* e, double* z, index_t ldz) {
  if (n == 0) return;
  check_stedc_order(n, z != nullptr, "dstedc");
  double dummy = 0;
  check(LAPACKE_dstedc(LAPACK_COL_MAJOR, z ? 'I' : 'N', li(n, "dstedc"), d, e, z ? z : &dummy,
                       z ? li(ldz, "dstedc") : 1),
        "dstedc");
}

namespace {
template <class R, class F>
index_t stemr_impl(F f, const char* name, char range, index_t n, R* d, R* e, R vl, R vu, index_t il,
                   index_t iu, R* w, R* z, index_t ldz, index_t nzc) {
  if (n == 0) return 0;
  lapack_int m = 0;
  lapack_logical tryrac = 1;
  std::vector<lapack_int> isuppz(static_cast<std::size_t>(2 * n));
  R dummy = 0;
  const lapack_int ili = range == 'I' ? li(il + 1, name) : 1;
  const lapack_int iui = range == 'I' ? li(iu + 1, name) : 1;
  check(f(LAPACK_COL_MAJOR, z ? 'V' : 'N', range, li(n, name), d, e, vl, vu, ili, iui, &m, w,
          z ? z : &dummy, z ? li(ldz, name) : 1, z ? li(nzc, name) : 1, isuppz.data(), &tryrac),
        name);
  return m;
}
}  // namespace

index_t stemr(char range, index_t n, float* d, float* e, float vl, float vu, index_t il, index_t iu,
              float* w, float* z, index_t ldz, index_t nzc) {
  return stemr_impl<float>(LAPACKE_sstemr, "sstemr", range, n, d, e, vl, vu, il, iu, w, z, ldz,
                           nzc);
}
index_t stemr(char range, index_t n, double* d, double* e, double vl, double vu, index_t il,
              index_t iu, double* w, double* z, index_t ldz, index_t nzc) {
  return stemr_impl<double>(LAPACKE_dstemr, "dstemr", range, n, d, e, vl, vu, il, iu, w, z, ldz,
                            nzc);
}

namespace {
template <class R, class F>
void stein_impl(F f, const char* name, index_t n, const R* d, const R* e, index_t m, const R* w,
                R* z, index_t ldz) {
  if (n == 0 || m == 0) return;
  std::vector<lapack_int> iblock(static_cast<std::size_t>(m), 1),
      ifail(static_cast<std::size_t>(m));
  std::vector<lapack_int> isplit(static_cast<std::size_t>(n), li(n, name));
  std::vector<R> e_full(static_cast<std::size_t>(n), R(0));
  for (index_t i = 0; i + 1 < n; ++i)
    e_full[static_cast<std::size_t>(i)] = e[i];
  // LAPACKE_?stein's NaN check reads n entries of w, not m: with m < n it read past the
  // caller's array (an intermittent "info = -6" when the heap beyond held a NaN). ?stein itself
  // uses the first m; the rest is padding.
  std::vector<R> w_full(static_cast<std::size_t>(n), R(0));
  for (index_t j = 0; j < m; ++j)
    w_full[static_cast<std::size_t>(j)] = w[j];
  check(f(LAPACK_COL_MAJOR, li(n, name), d, e_full.data(), li(m, name), w_full.data(),
          iblock.data(), isplit.data(), z, li(ldz, name), ifail.data()),
        name);
}
}  // namespace

void stein(index_t n, const float* d, const float* e, index_t m, const float* w, float* z,
           index_t ldz) {
  stein_impl<float>(LAPACKE_sstein, "sstein", n, d, e, m, w, z, ldz);
}
void stein(index_t n, const double* d, const double* e, index_t m, const double* w, double* z,
           index_t ldz) {
  stein_impl<double>(LAPACKE_dstein, "dstein", n, d, e, m, w, z, ldz);
}

void ormtr(index_t n, index_t m, const float* a, index_t lda, const float* tau, float* c,
           index_t ldc) {
  if (n == 0 || m == 0) return;
  check(LAPACKE_sormtr(LAPACK_COL_MAJOR, 'L', 'L', 'N', li(n, "sormtr"), li(m, "sormtr"), a,
                       li(lda, "sormtr"), tau, c, li(ldc, "sormtr")),
        "sormtr");
}
void ormtr(index_t n, index_t m, const double* a, index_t lda, const double* tau, double* c,
           index_t ldc) {
  if (n == 0 || m == 0) return;
  check(LAPACKE_dormtr(LAPACK_COL_MAJOR, 'L', 'L', 'N', li(n, "dormtr"), li(m, "dormtr"), a,
                       li(lda, "dormtr"), tau, c, li(ldc, "dormtr")),
        "dormtr");
}
void ormtr(index_t n, index_t m, const Complex<float>* a, index_t lda, const Complex<float>* tau,
           Complex<float>* c, index_t ldc) {
  if (n == 0 || m == 0) return;
  using C = lapack_complex_float;
  check(LAPACKE_cunmtr(LAPACK_COL_MAJOR, 'L', 'L', 'N', li(n, "cunmtr"), li(m, "cunmtr"),
                       reinterpret_cast<const C*>(a), li(lda, "cunmtr"),
                       reinterpret_cast<const C*>(tau), reinterpret_cast<C*>(c), li(ldc, "cunmtr")),
        "cunmtr");
}
void ormtr(index_t n, index_t m, const Complex<double>* a, index_t lda, const Complex<double>* tau,
           Complex<double>* c, index_t ldc) {
  if (n == 0 || m == 0) return;
  using C = lapack_complex_double;
  check(LAPACKE_zunmtr(LAPACK_COL_MAJOR, 'L', 'L', 'N', li(n, "zunmtr"), li(m, "zunmtr"),
                       reinterpret_cast<const C*>(a), li(lda, "zunmtr"),
                       reinterpret_cast<const C*>(tau), reinterpret_cast<C*>(c), li(ldc, "zunmtr")),
        "zunmtr");
}

}  // namespace lapack
}  // namespace eigsolve
