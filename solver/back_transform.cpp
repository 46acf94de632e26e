// Back-transformation and sign normalization (solver/back_transform.hpp).
//
//   for each column block of Z (parallel):       for i = n-2 down to 0:
//     v = [1, A(i+2:n, i)]  (rows i+1..n-1)         s_j = canonical_dot(conj(v), z_j(i+1:n))
//                                                   z_j(i+1:n) -= (tau_i * s_j) * v
#include "solver/back_transform.hpp"

#include <vector>

#include "core/canonical.hpp"
#include "core/errors.hpp"
#include "core/parallel.hpp"
#include "solver/lapack.hpp"

namespace eigsolve {

template <class T>
void apply_q_generic(const Context& ctx, index_t n, const T* A, index_t lda, const T* tau,
                     index_t m, T* Z, index_t ldz) {
  if (n <= 1 || m == 0) return;
  if (lda < n || ldz < n) throw DimensionError("apply_q_generic: lda or ldz < n");
  parallel_for(m, ctx.num_threads(), 4, [&](index_t jb, index_t je) {
    std::vector<T> v(static_cast<std::size_t>(n));
    for (index_t i = n - 2; i >= 0; --i) {
      const index_t len = n - i - 1;
      v[0] = T(1);
      for (index_t r = 1; r < len; ++r)
        v[r] = A[(i + 1 + r) + i * lda];
      const T t = tau[i];
      if (t == T(0)) continue;
      for (index_t j = jb; j < je; ++j) {
        T* zj = Z + (i + 1) + j * ldz;
        const T s = canonical_dot<true>(len, v.data(), index_t(1), zj, index_t(1));
        const T f = -(t * s);
        for (index_t r = 0; r < len; ++r)
          zj[r] = madd(f, v[r], zj[r]);
      }
    }
  });
}

template <class T>
void back_transform(const Context& ctx, index_t n, const T* A, index_t lda, const T* tau, index_t m,
                    T* Z, index_t ldz) {
  if constexpr (has_vendor_lapack_v<T>) {
    (void)ctx;
    lapack::ormtr(n, m, A, lda, tau, Z, ldz);
  } else {
    apply_q_generic(ctx, n, A, lda, tau, m, Z, ldz);
  }
}

template <class T>
void normalize_signs(const Context& ctx, index_t n, index_t m, T* Z, index_t ldz) {
  using R = real_t<T>;
  parallel_for(m, ctx.num_threads(), 16, [&](index_t jb, index_t je) {
    for (index_t j = jb; j < je; ++j) {
      T* z = Z + j * ldz;
      index_t k = 0;
      R best = R(-1);
      for (index_t i = 0; i < n; ++i) {
        const R a = abs2(z[i]);
        if (best < a) {
          best = a;
          k = i;
        }
      }
      if (n == 0) continue;
      if constexpr (is_complex_v<T>) {
        const R r = sqrt_(abs2(z[k]));
        if (!(r > R(0))) continue;
        const T s = conj(z[k]) / r;
        for (index_t i = 0; i < n; ++i)
          z[i] = z[i] * s;
        z[k] = T(r, R(0));
      } else {
        if (z[k] < R(0))
          for (index_t i = 0; i < n; ++i)
            z[i] = -z[i];
      }
    }
  });
}

#define EIGSOLVE_INSTANTIATE_BACK(T)                                                              \
  template void apply_q_generic<T>(const Context&, index_t, const T*, index_t, const T*, index_t, \
                                   T*, index_t);                                                  \
  template void back_transform<T>(const Context&, index_t, const T*, index_t, const T*, index_t,  \
                                  T*, index_t);                                                   \
  template void normalize_signs<T>(const Context&, index_t, index_t, T*, index_t);
EIGSOLVE_FOR_EACH_SCALAR(EIGSOLVE_INSTANTIATE_BACK)
#undef EIGSOLVE_INSTANTIATE_BACK

}  // namespace eigsolve
