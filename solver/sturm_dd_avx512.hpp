// The dd Sturm counts of 8 to 48 shifts at once on AVX-512 (solver/bisection.cpp): one lane per
// shift, every lane exactly bisect::sturm_count<dd_real> with core/dd_avx512.hpp's lane-wise dd
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
using dd512::lt;
using dd512::sub;
using dd512::V;

/// bisect::sturm_div(dd_real, dd_real) lane by lane (the two-quotient division); a lane whose
/// q1 is not finite gives (q1, 0). fnmadd(q1, y, z) = fma(-q1, y, z) (the negation is exact).
__attribute__((target("avx512f"))) inline V sturm_div(const V& a, const V& b) {
  const __m512d zero = _mm512_setzero_pd();
  const __m512d q1 = _mm512_div_pd(a.hi, b.hi);
  const __mmask8 finite = _mm512_cmp_pd_mask(_mm512_sub_pd(q1, q1), zero, _CMP_EQ_OQ);
  const __m512d s = _mm512_add_pd(_mm512_fnmadd_pd(q1, b.hi, a.hi), a.lo);
  const __m512d t = _mm512_fnmadd_pd(q1, b.lo, s);
  const __m512d q2 = _mm512_div_pd(t, b.hi);
  V q;
  dd512::quick_two_sum(q1, q2, q.hi, q.lo);
  q.hi = _mm512_mask_blend_pd(dd512::is_zero(q.hi), q.hi, q1);
  return {_mm512_mask_blend_pd(finite, q1, q.hi), _mm512_mask_blend_pd(finite, zero, q.lo)};
}

/// cnt[w] = bisect::sturm_count(n, d, e2, pivmin, x[w]) for w = 0 .. 8G-1 (the multi-lane form:
/// t = (d_i - x) - sturm_div(e2_(i-1), q), then ((t < pivmin) & (-pivmin < t)) ? -pivmin : t). Each
/// row's dd division waits for the previous row's quotient, so one group of 8 is latency-bound: G
/// independent groups are interleaved row by row.
template <int G>
__attribute__((target("avx512f"))) inline void count_groups(index_t n, const dd_real* d,
                                                            const dd_real* e2,
                                                            const dd_real& pivmin, const dd_real* x,
                                                            std::int64_t* cnt) {
  alignas(64) double xh[8 * G], xl[8 * G];
  for (int w = 0; w < 8 * G; ++w) {
    xh[w] = x[w].hi;
    xl[w] = x[w].lo;
  }
  V X[G], q[G];
  __m512i c[G];
  const V piv = bcast(pivmin), mpiv = bcast(-pivmin), zero = bcast(dd_real(0.0));
  const __m512i one = _mm512_set1_epi64(1);
  const V d0 = bcast(d[0]);
  for (int g = 0; g < G; ++g) {
    X[g] = V{_mm512_load_pd(xh + 8 * g), _mm512_load_pd(xl + 8 * g)};
    c[g] = _mm512_setzero_si512();
    q[g] = sub(d0, X[g]);
  }
  for (index_t i = 0;;) {
    for (int g = 0; g < G; ++g) {
      const __mmask8 m = lt(q[g], piv) & lt(mpiv, q[g]);  // the pivmin guard
      q[g].hi = _mm512_mask_blend_pd(m, q[g].hi, mpiv.hi);
      q[g].lo = _mm512_mask_blend_pd(m, q[g].lo, mpiv.lo);
      c[g] = _mm512_mask_add_epi64(c[g], lt(q[g], zero), c[g], one);
    }
    if (++i >= n) break;
    const V di = bcast(d[i]), ei = bcast(e2[i - 1]);
    for (int g = 0; g < G; ++g)
      q[g] = sub(sub(di, X[g]), sturm_div(ei, q[g]));
  }
  for (int g = 0; g < G; ++g) {
    alignas(64) std::int64_t out[8];
    _mm512_store_si512(out, c[g]);
    for (int w = 0; w < 8; ++w)
      cnt[8 * g + w] = out[w];
  }
}

/// The counts of the first 8 * ceil(nx / 8) shifts of x (nx <= 48), up to 6 groups at once.
inline void count(index_t n, const dd_real* d, const dd_real* e2, const dd_real& pivmin,
                  const dd_real* x, int nx, std::int64_t* cnt) {
  switch ((nx + 7) / 8) {
    case 6:
      count_groups<6>(n, d, e2, pivmin, x, cnt);
      break;
    case 5:
      count_groups<5>(n, d, e2, pivmin, x, cnt);
      break;
    case 4:
      count_groups<4>(n, d, e2, pivmin, x, cnt);
      break;
    case 3:
      count_groups<3>(n, d, e2, pivmin, x, cnt);
      break;
    case 2:
      count_groups<2>(n, d, e2, pivmin, x, cnt);
      break;
    default:
      count_groups<1>(n, d, e2, pivmin, x, cnt);
      break;
  }
}

}  // namespace sturm_dd
}  // namespace eigsolve
#endif
