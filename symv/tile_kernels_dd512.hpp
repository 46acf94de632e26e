// tile_partials for dd_real on AVX-512 (symv/tile_kernels.hpp): a tile of up to 64 columns, 8 rows
// in the lanes (hi and lo in two zmm, core/dd_avx512.hpp), each chunk chain s = madd(B(i, j), x_j,
// s) = B(i, j) * x_j + s over its 8 columns in order, the fixed tree, the scalar loop of the
// generic code for the rows past the last block of 8. The same bits as the generic
// tile_partials<dd_real> (tests/symv compares with a literal scalar loop).
#pragma once

#include "core/dd_avx512.hpp"

#if defined(EIGSOLVE_DD_AVX512)
#include <immintrin.h>

#include <algorithm>

#include "core/canonical.hpp"
#include "core/dd_real.hpp"
#include "core/precision.hpp"

namespace eigsolve {
namespace symv_detail {

__attribute__((target("avx512f"))) inline void tile_partials_dd512(int rows, int cols,
                                                                   const dd_real* B, index_t ldb,
                                                                   const dd_real* x, dd_real* p) {
  constexpr int kC = 8;
  int i0 = 0;
  for (; i0 + 8 <= rows; i0 += 8) {
    dd512::V c[kC];
    for (int k = 0; k < kC; ++k)
      c[k] = {_mm512_setzero_pd(), _mm512_setzero_pd()};
    // Chunks are independent chains: interleaved so that 8 are in flight (as the generic code).
    for (int jj = 0; jj < kC; ++jj)
      for (int k = 0; k < kC; ++k) {
        const int j = k * kC + jj;
        if (j >= cols) continue;  // a narrow tile: chunks past cols stay +0, as in the scalar loop
        const dd512::V a = dd512::load8(B + i0 + ldb * j);
        c[k] = dd512::madd(a, dd512::bcast(x[j]), c[k]);
      }
    const dd512::V t = dd512::tree8(c);
    alignas(64) double h[8], l[8];
    _mm512_store_pd(h, t.hi);
    _mm512_store_pd(l, t.lo);
    for (int r = 0; r < 8; ++r)
      p[i0 + r] = dd_real(h[r], l[r]);
  }
  for (; i0 < rows; ++i0) {
    dd_real c[kC];
    for (int k = 0; k < kC; ++k) {
      dd_real s = dd_real(0.0);
      for (int j = k * kC; j < std::min(cols, (k + 1) * kC); ++j)
        s = madd(B[i0 + ldb * j], x[j], s);
      c[k] = s;
    }
    p[i0] = ((c[0] + c[1]) + (c[2] + c[3])) + ((c[4] + c[5]) + (c[6] + c[7]));
  }
}

}  // namespace symv_detail
}  // namespace eigsolve
#endif
