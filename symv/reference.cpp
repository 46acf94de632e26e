// SYMV / HEMV on the CPU in the canonical order of docs/canonical-symv.md.
//
//   row panel I (64 rows)          tiles of the full symmetric row a_i, J = 0 .. T-1
//   +----+----+----+----+
//   | D  |    |    |    |  J <  I : direct tile, read in place (column-major, rows contiguous)
//   +----+----+----+----+  J == I : diagonal tile, expanded into a 64x64 buffer
//   | D  | Dg |    |    |  J >  I : transposed tile (J, I) of the lower triangle, conj-copied
//   +----+----+----+----+           into a 64x64 buffer (row elements of panel I)
//   | D  | D  | Dg | T  |  each tile gives p_i (8 chunk chains + fixed tree) for its 64 rows,
//   +----+----+----+----+  acc_i = p_i(0); acc_i = acc_i + p_i(J) for J ascending.
//
// The lower triangle is read twice (once direct, once transposed); row panels are
// independent, so the split over threads (parallel_for over panels) never changes a bit.
#include "symv/reference.hpp"

#include <algorithm>
#include <string>
#include <type_traits>

#include "core/canonical.hpp"
#include "symv/tile_kernels.hpp"
#include "core/errors.hpp"
#include "core/parallel.hpp"

namespace eigsolve {
namespace {

template <class T>
T real_diag(const T& a) {
  if constexpr (is_complex_v<T>)
    return T(a.re, real_t<T>(0));
  else
    return a;
}

/// buf[i + 64 j] = a_{r0+i, r0+j} of the diagonal tile (full Hermitian expansion).
template <class T>
void expand_diagonal(int rows, const T* A, index_t lda, index_t r0, T* buf) {
  for (int j = 0; j < rows; ++j) {
    const T* col = A + r0 + lda * (r0 + j);
    for (int i = 0; i < j; ++i)
      buf[i + kTile * j] = conj(A[(r0 + j) + lda * (r0 + i)]);
    buf[j + kTile * j] = real_diag(col[j]);
    for (int i = j + 1; i < rows; ++i)
      buf[i + kTile * j] = col[i];
  }
}

/// buf[i + 64 j] = conj(A(c0 + j, r0 + i)): the row elements of panel r0 in tile column c0 > r0.
template <class T>
void expand_transposed(int rows, int cols, const T* A, index_t lda, index_t r0, index_t c0,
                       T* buf) {
  constexpr int B = 8;
  for (int ib = 0; ib < rows; ib += B) {
    const int ie = std::min(rows, ib + B);
    for (int jb = 0; jb < cols; jb += B) {
      const int je = std::min(cols, jb + B);
      for (int i = ib; i < ie; ++i) {
        const T* src = A + c0 + lda * (r0 + i);
        for (int j = jb; j < je; ++j)
          buf[i + kTile * j] = conj(src[j]);
      }
    }
  }
}

}  // namespace

template <class T>
void symv_reference(const Context& ctx, index_t n, T alpha, const T* A, index_t lda, const T* x,
                    T beta, T* y) {
  if (n < 0) throw DimensionError("symv_reference: n = " + std::to_string(n) + " < 0");
  if (lda < std::max<index_t>(1, n))
    throw DimensionError("symv_reference: lda = " + std::to_string(lda) + " < max(1, n)");
  if (n == 0) return;
  const index_t nt = (n + kTile - 1) / kTile;
  const bool beta_zero = (beta == T(0));
  // A row panel costs nt * 4096 multiply-adds: small problems stay on one thread.
  const index_t grain = std::max<index_t>(1, 4 / nt);
  parallel_for(nt, ctx.num_threads(), grain, [&](index_t pb, index_t pe) {
    alignas(64) T buf[kTile * kTile];
    T acc[kTile], p[kTile];
    for (index_t I = pb; I < pe; ++I) {
      const index_t r0 = I * kTile;
      const int rows = static_cast<int>(std::min<index_t>(kTile, n - r0));
      for (index_t J = 0; J < nt; ++J) {
        const index_t c0 = J * kTile;
        const int cols = static_cast<int>(std::min<index_t>(kTile, n - c0));
#if defined(EIGSOLVE_SYMV_AVX2)
        if constexpr (std::is_same<T, double>::value) {
          if (rows == kTile && cols == kTile && J != I) {
            if (J < I)
              symv_detail::tile_direct_d64(A + r0 + lda * c0, lda, x + c0, p);
            else
              symv_detail::tile_transposed_d64(A + c0 + lda * r0, lda, x + c0, p);
            if (J == 0)
              for (int i = 0; i < rows; ++i)
                acc[i] = p[i];
            else
              for (int i = 0; i < rows; ++i)
                acc[i] = acc[i] + p[i];
            continue;
          }
        }
#endif
        if (J < I) {
          symv_detail::tile_partials(rows, cols, A + r0 + lda * c0, lda, x + c0, p);
        } else if (J == I) {
          expand_diagonal(rows, A, lda, r0, buf);
          symv_detail::tile_partials(rows, cols, buf, index_t(kTile), x + c0, p);
        } else {
          expand_transposed(rows, cols, A, lda, r0, c0, buf);
          symv_detail::tile_partials(rows, cols, buf, index_t(kTile), x + c0, p);
        }
        if (J == 0)
          for (int i = 0; i < rows; ++i)
            acc[i] = p[i];
        else
          for (int i = 0; i < rows; ++i)
            acc[i] = acc[i] + p[i];
      }
      for (int i = 0; i < rows; ++i) {
        const T t = acc[i];
        y[r0 + i] = beta_zero ? alpha * t : madd(alpha, t, beta * y[r0 + i]);
      }
    }
  });
}

#define EIGSOLVE_INSTANTIATE_SYMV(T) \
  template void symv_reference<T>(const Context&, index_t, T, const T*, index_t, const T*, T, T*);
EIGSOLVE_FOR_EACH_SCALAR(EIGSOLVE_INSTANTIATE_SYMV)
#undef EIGSOLVE_INSTANTIATE_SYMV

}  // namespace eigsolve
