// Internal to householder/: register-blocked AVX2 / AVX-512 kernels for the rank-2k trailing
// update (docs/canonical-tridiagonalization.md), one template for float, double, Complex<float>
// and Complex<double> over the SIMD traits of symv/simd_avx2.hpp / symv/simd_avx512.hpp
// (householder/update_kernels_isa.hpp, compiled once per instruction set; the AVX-512 copy is
// avx512f-targeted and chosen at run time, EIGSOLVE_NO_AVX512=1 keeps AVX2). A tile of NQ row
// vectors x NC columns keeps NQ * NC independent accumulators in registers across the whole k loop;
// every lane is (a part of) the chain of one element a_ij, for k ascending:
//   a = madd(v_ik, nw_jk, a);  a = madd(w_ik, nv_jk, a)      (nw = -conj(w), nv = -conj(v))
// which are the bits of madd(-v_ik, conj(w_jk), a); madd(-w_ik, conj(v_jk), a). Lanes outside
// an element's valid range start from 0, are never read from A and are discarded.
// Real T: one lane per row, one fma per madd. Complex T: (re, im) of a row in two lanes; per
// madd(v, x, a) two fmas with the packed, duplicated parts of v,
//   (re, im) = fma((v.re, v.re), (x.re, x.im), (re, im));
//   (re, im) = fma((v.im, v.im), (-x.im, x.re), (re, im))
// i.e. re = fma(v.re, x.re, re); re = fma(-v.im, x.im, re) (the negation is exact);
// im = fma(v.re, x.im, im); im = fma(v.im, x.re, im) -- complex.hpp's madd.
#pragma once

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "core/complex.hpp"
#include "core/precision.hpp"
#include "symv/tile_kernels.hpp"  // EIGSOLVE_SYMV_AVX2, symv/simd_avx2.hpp, has_avx512f
#if defined(EIGSOLVE_SYMV_AVX512)
#include "symv/simd_avx512.hpp"
#endif

namespace eigsolve {
namespace hh_detail {

/// Prefetches the cache lines of p[r0 .. r1) (a hint: no effect on any value).
template <class T>
inline void prefetch_rows(const T* p, index_t r0, index_t r1) {
  const char* b = reinterpret_cast<const char*>(p + r0);
  const char* e = reinterpret_cast<const char*>(p + r1);
  for (const char* q = b; q < e + 63; q += 64)
    __builtin_prefetch(q < e ? q : e - 1, 0, 3);
}

#if defined(EIGSOLVE_SYMV_AVX2)

/// The types that run the register-blocked tiles.
template <class T>
constexpr bool kBlockedUpdate = std::is_same<T, double>::value || std::is_same<T, float>::value;
template <class T>
constexpr bool kBlockedUpdateC =
    std::is_same<T, Complex<double>>::value || std::is_same<T, Complex<float>>::value;

// The kernels, once per instruction set (householder/update_kernels_isa.hpp). Tile shapes
// (row vectors x columns; no bit depends on them): AVX2 3 x 3 (9 of the 16 ymm registers
// accumulate), AVX-512 4 x 4 (16 of the 32 zmm), the fastest of 2x4 .. 5x4 / 4x6 in a
// stand-alone timing of the update (bench/NOTES.md, session 4).
#define EIGSOLVE_ISA_NS avx2
#define EIGSOLVE_ISA_SIMD simd::Avx2
#define EIGSOLVE_ISA_TARGET
#define EIGSOLVE_ISA_NQ(T) 3
#define EIGSOLVE_ISA_NC(T) 3
#include "householder/update_kernels_isa.hpp"
#if defined(EIGSOLVE_SYMV_AVX512)
#define EIGSOLVE_ISA_NS avx512
#define EIGSOLVE_ISA_SIMD simd::Avx512
#define EIGSOLVE_ISA_TARGET __attribute__((target("avx512f")))
#define EIGSOLVE_ISA_NQ(T) 4
#define EIGSOLVE_ISA_NC(T) 4
#include "householder/update_kernels_isa.hpp"
#endif

/// The lower-triangle part of columns [jb, je) of A22 by the register-blocked tiles of the
/// widest instruction set the CPU runs (AVX-512F unless EIGSOLVE_NO_AVX512 is set, else AVX2;
/// the same chains): false (nothing done) when m is below that kernel's tile height.
template <class T>
bool blocked_update(index_t m, index_t kb, const T* V, index_t ldv, const T* W, index_t ldw, T* A22,
                    index_t lda, const T* NW, const T* NV, index_t jb, index_t je) {
#if defined(EIGSOLVE_SYMV_AVX512)
  if (symv_detail::has_avx512f()) {
    if (m < avx512::kBlockRows<T>) return false;
    avx512::blocked_columns(m, kb, V, ldv, W, ldw, A22, lda, NW, NV, jb, je);
    return true;
  }
#endif
  if (m < avx2::kBlockRows<T>) return false;
  avx2::blocked_columns(m, kb, V, ldv, W, ldw, A22, lda, NW, NV, jb, je);
  return true;
}

#endif  // EIGSOLVE_SYMV_AVX2

}  // namespace hh_detail
}  // namespace eigsolve
