// The dd Sturm count of 8 shifts at once on AVX-512 (solver/bisection.cpp): one lane per shift,
// every lane exactly bisect::sturm_count<dd_real> with core/dd_avx512.hpp's lane-wise dd
// operations, the guard and the comparisons as masks. CPU only (chosen at run time).
#pragma once

#if defined(__GNUC__) && !defined(__CUDACC__) && (defined(__x86_64__) || defined(__i386__))
#define EIGSOLVE_STURM_DD_AVX512 1
#include <immintrin.h>

#include <cstdint>

#include "core/dd_avx512.hpp"
#include "core/dd_real.hpp"
#include "core/precision.hpp"

namespace eigsolve {
namespace sturm_dd {

using dd512::add;  // core/dd_avx512.hpp
using dd512::bcast;
using dd512::div;
using dd512::lt;
using dd512::sub;
using dd512::V;

/// cnt[w] = bisect::sturm_count(n, d, e2, pivmin, x[w]) for w = 0..7 (the multi-lane form:
/// t = (d_i - x) - e2_(i-1) / q, then ((t < pivmin) & (-pivmin < t)) ? -pivmin : t).
__attribute__((target("avx512f"))) inline void count8(index_t n, const dd_real* d,
                                                      const dd_real* e2, const dd_real& pivmin,
                                                      const dd_real* x, std::int64_t* cnt) {
  alignas(64) double xh[8], xl[8];
  for (int w = 0; w < 8; ++w) {
    xh[w] = x[w].hi;
    xl[w] = x[w].lo;
  }
  const V X{_mm512_load_pd(xh), _mm512_load_pd(xl)};
  const V piv = bcast(pivmin), mpiv = bcast(-pivmin), zero = bcast(dd_real(0.0));
  __m512i c = _mm512_setzero_si512();
  const __m512i one = _mm512_set1_epi64(1);
  V q = sub(bcast(d[0]), X);
  for (index_t i = 0;;) {
    const __mmask8 g = lt(q, piv) & lt(mpiv, q);  // the pivmin guard
    q.hi = _mm512_mask_blend_pd(g, q.hi, mpiv.hi);
    q.lo = _mm512_mask_blend_pd(g, q.lo, mpiv.lo);
    c = _mm512_mask_add_epi64(c, lt(q, zero), c, one);
    if (++i >= n) break;
    q = sub(sub(bcast(d[i]), X), div(bcast(e2[i - 1]), q));
  }
  alignas(64) std::int64_t out[8];
  _mm512_store_si512(out, c);
  for (int w = 0; w < 8; ++w)
    cnt[w] = out[w];
}

}  // namespace sturm_dd
}  // namespace eigsolve
#endif
