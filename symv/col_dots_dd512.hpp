// col_dots for dd_real on AVX-512 (symv/tile_kernels.hpp): up to 8 columns in the lanes (hi and
// lo of their elements of one row gathered into two zmm, core/dd_avx512.hpp's operations lane by
// lane), v_i broadcast; per tile of 64 rows the 8 chunk chains s = M(i, q) * v_i + s in flight
// together, the fixed tree, then acc = acc + p tile by tile: per lane exactly
// contiguous_dot<true> (conj is the identity for dd). tests/symv compares with a literal loop.
#pragma once

#include "core/dd_avx512.hpp"

#if defined(EIGSOLVE_DD_AVX512)
#include <immintrin.h>

#include "core/canonical.hpp"
#include "core/dd_real.hpp"
#include "core/precision.hpp"

namespace eigsolve {
namespace symv_detail {

/// out[q] = contiguous_dot<true>(m, M + ldm q, v) for q < nq <= 8 (lanes past nq read column 0
/// and are dropped).
__attribute__((target("avx512f"))) inline void col_dots_dd512(index_t m, int nq, const dd_real* M,
                                                              index_t ldm, const dd_real* v,
                                                              dd_real* out) {
  alignas(64) long long off[8];
  for (int q = 0; q < 8; ++q)
    off[q] = 2 * ldm * (q < nq ? q : 0);  // in doubles
  const __m512i ihi = _mm512_load_si512(off);
  const __m512i ilo = _mm512_add_epi64(ihi, _mm512_set1_epi64(1));
  // (the masked form: the unmasked intrinsic trips GCC 12's -Wmaybe-uninitialized)
  const __m512d zero = _mm512_setzero_pd();
  dd512::V acc{_mm512_setzero_pd(), _mm512_setzero_pd()};
  for (index_t t0 = 0; t0 < m; t0 += kTile) {
    dd512::V c[kChunk];
    for (int k = 0; k < kChunk; ++k)
      c[k] = dd512::V{_mm512_setzero_pd(), _mm512_setzero_pd()};
    const bool full = t0 + kTile <= m;
    for (int jj = 0; jj < kChunk; ++jj)
      for (int k = 0; k < kChunk; ++k) {
        const index_t i = t0 + k * kChunk + jj;
        if (!full && i >= m) continue;  // a chunk past m stays +0
        const double* b = reinterpret_cast<const double*>(M + i);
        const dd512::V a{_mm512_mask_i64gather_pd(zero, 0xFF, ihi, b, 8),
                         _mm512_mask_i64gather_pd(zero, 0xFF, ilo, b, 8)};
        c[k] = dd512::madd(a, dd512::bcast(v[i]), c[k]);
      }
    const dd512::V p = dd512::tree8(c);
    acc = t0 == 0 ? p : dd512::add(acc, p);
  }
  alignas(64) double h[8], l[8];
  _mm512_store_pd(h, acc.hi);
  _mm512_store_pd(l, acc.lo);
  for (int q = 0; q < nq; ++q)
    out[q] = dd_real(h[q], l[q]);
}

}  // namespace symv_detail
}  // namespace eigsolve
#endif
