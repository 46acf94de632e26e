// core/dd_real.hpp's operations on 8 dd values at once (AVX-512: hi and lo in two zmm), lane by
// lane the scalar formulas in the same order — 2Sum, Fast2Sum, 2Prod with fma, the accurate sum,
// the product, their signed-zero selects as masked blends, the
// lexicographic comparison as a mask. A vector add / sub / mul / fma / div rounds like the
// scalar one lane by lane, so every lane has the scalar bits. CPU only (target attribute; the
// callers choose it at run time with has_avx512f(), core/cpu_features.hpp).
#pragma once

#if defined(__GNUC__) && !defined(__CUDACC__) && (defined(__x86_64__) || defined(__i386__))
#define EIGSOLVE_DD_AVX512 1
#include <immintrin.h>

#include "core/dd_real.hpp"

namespace eigsolve {
namespace dd512 {

struct V {
  __m512d hi, lo;
};

#define EIGSOLVE_AVX512 __attribute__((target("avx512f"), always_inline)) inline

EIGSOLVE_AVX512 void two_sum(__m512d a, __m512d b, __m512d& s, __m512d& e) {
  s = _mm512_add_pd(a, b);
  const __m512d bb = _mm512_sub_pd(s, a);
  e = _mm512_add_pd(_mm512_sub_pd(a, _mm512_sub_pd(s, bb)), _mm512_sub_pd(b, bb));
}
EIGSOLVE_AVX512 void quick_two_sum(__m512d a, __m512d b, __m512d& s, __m512d& e) {
  s = _mm512_add_pd(a, b);
  e = _mm512_sub_pd(b, _mm512_sub_pd(s, a));
}
EIGSOLVE_AVX512 __mmask8 is_zero(__m512d x) {
  return _mm512_cmp_pd_mask(x, _mm512_setzero_pd(), _CMP_EQ_OQ);
}
EIGSOLVE_AVX512 V neg(const V& a) {
  const __m512i sign = _mm512_set1_epi64(static_cast<long long>(0x8000000000000000ull));
  return {_mm512_castsi512_pd(_mm512_xor_si512(_mm512_castpd_si512(a.hi), sign)),
          _mm512_castsi512_pd(_mm512_xor_si512(_mm512_castpd_si512(a.lo), sign))};
}
/// operator+(dd_real, dd_real).
EIGSOLVE_AVX512 V add(const V& a, const V& b) {
  __m512d s1, s2, t1, t2;
  two_sum(a.hi, b.hi, s1, s2);
  two_sum(a.lo, b.lo, t1, t2);
  const __m512d s0 = s1;
  s2 = _mm512_add_pd(s2, t1);
  quick_two_sum(s1, s2, s1, s2);
  s2 = _mm512_add_pd(s2, t2);
  V r;
  quick_two_sum(s1, s2, r.hi, r.lo);
  r.hi = _mm512_mask_blend_pd(is_zero(r.hi) & is_zero(s0), r.hi, s0);
  return r;
}
EIGSOLVE_AVX512 V sub(const V& a, const V& b) {
  return add(a, neg(b));
}
/// operator*(dd_real, dd_real).
EIGSOLVE_AVX512 V mul(const V& a, const V& b) {
  const __m512d p = _mm512_mul_pd(a.hi, b.hi);
  __m512d e = _mm512_fmsub_pd(a.hi, b.hi, p);  // fma(a.hi, b.hi, -p)
  __m512d t = _mm512_mul_pd(a.lo, b.lo);
  t = _mm512_fmadd_pd(a.hi, b.lo, t);
  t = _mm512_fmadd_pd(a.lo, b.hi, t);
  e = _mm512_add_pd(e, t);
  V r;
  quick_two_sum(p, e, r.hi, r.lo);
  r.hi = _mm512_mask_blend_pd(is_zero(r.hi), r.hi, p);
  return r;
}
/// sloppy_add(dd_real, dd_real).
EIGSOLVE_AVX512 V sloppy_add(const V& a, const V& b) {
  __m512d s1, s2;
  two_sum(a.hi, b.hi, s1, s2);
  s2 = _mm512_add_pd(s2, _mm512_add_pd(a.lo, b.lo));
  V r;
  quick_two_sum(s1, s2, r.hi, r.lo);
  r.hi = _mm512_mask_blend_pd(is_zero(r.hi) & is_zero(s1), r.hi, s1);
  return r;
}
/// madd(dd_real, dd_real, dd_real) = a * b + c with this build's madd sum (core/dd_real.hpp).
EIGSOLVE_AVX512 V madd(const V& a, const V& b, const V& c) {
  if constexpr (kDdSloppyMadd)
    return sloppy_add(mul(a, b), c);
  else
    return add(mul(a, b), c);
}
/// a < b lexicographically on (hi, lo) (false with NaN), as operator<(dd_real, dd_real).
EIGSOLVE_AVX512 __mmask8 lt(const V& a, const V& b) {
  return _mm512_cmp_pd_mask(a.hi, b.hi, _CMP_LT_OQ) |
         (_mm512_cmp_pd_mask(a.hi, b.hi, _CMP_EQ_OQ) & _mm512_cmp_pd_mask(a.lo, b.lo, _CMP_LT_OQ));
}
EIGSOLVE_AVX512 V bcast(const dd_real& a) {
  return {_mm512_set1_pd(a.hi), _mm512_set1_pd(a.lo)};
}
/// The canonical tile tree ((c0 + c1) + (c2 + c3)) + ((c4 + c5) + (c6 + c7)) lane by lane.
EIGSOLVE_AVX512 V tree8(const V* c) {
  return add(add(add(c[0], c[1]), add(c[2], c[3])), add(add(c[4], c[5]), add(c[6], c[7])));
}
/// 8 consecutive dd values from memory, split into (hi, lo) by two permutes.
EIGSOLVE_AVX512 V load8(const dd_real* p) {
  const __m512i even = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0);
  const __m512i odd = _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1);
  const double* d = reinterpret_cast<const double*>(p);
  const __m512d v0 = _mm512_loadu_pd(d), v1 = _mm512_loadu_pd(d + 8);
  return {_mm512_permutex2var_pd(v0, even, v1), _mm512_permutex2var_pd(v0, odd, v1)};
}
/// (hi, lo) back to 8 consecutive dd values in memory.
EIGSOLVE_AVX512 void store8(dd_real* p, const V& x) {
  const __m512i first = _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0);
  const __m512i second = _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4);
  double* d = reinterpret_cast<double*>(p);
  _mm512_storeu_pd(d, _mm512_permutex2var_pd(x.hi, first, x.lo));
  _mm512_storeu_pd(d + 8, _mm512_permutex2var_pd(x.hi, second, x.lo));
}

#undef EIGSOLVE_AVX512

}  // namespace dd512
}  // namespace eigsolve
#endif
