// The negation of a rounded result, as the canonical orders write it (docs/canonical-two-stage.md
// `u = -(conj(tau) * w)`, `t = -(tau * s)`; docs/canonical-backtransform.md `ny = -s`): the
// result is rounded first, then its sign flipped, so an exact +0 becomes -0.
//
//   spec:      p = fl(a b + c);  -p              a b + c == 0 exactly:  -(+0) = -0
//   folded:    fnmsub(a, b, c) = fl(-(a b) - c)                          +0 (round to nearest)
//
// GCC (12, -O3 with -mfma) folds the negation of an fma into fnmsub / fnmadd when nothing else
// uses the fma's result. A complex product's components are fmas (core/complex.hpp), so
// `-(tau * s)` for complex T was compiled that way in the bulge chase and the panel QR, and the
// sign of a zero there depended on the compiler, not on the spec (nvcc keeps the negation). A
// real product is safe (-(a b) and (-a) b round alike), but neg_rounded is used for every T at
// those places so that the code says what the spec says.
//
// neg_rounded(x) passes each component of x through an empty asm the optimizer cannot see
// through (no instruction, the value stays in its register), then flips its sign. Device code
// negates directly.
#pragma once

#include "core/hd.hpp"
#include "core/precision.hpp"

namespace eigsolve {
namespace neg_detail {

/// x, opaque to the host compiler's optimizer.
template <class R>
ES_HD_INLINE R opaque(R x) {
#if !defined(__CUDA_ARCH__)
#if defined(__x86_64__) || defined(__i386__)
  asm("" : "+x"(x));
#else
  asm("" : "+m"(x));
#endif
#endif
  return x;
}

}  // namespace neg_detail

/// -x of the rounded x, component by component (an exact +0 gives -0).
ES_HD_INLINE float neg_rounded(float x) {
  return -neg_detail::opaque(x);
}
ES_HD_INLINE double neg_rounded(double x) {
  return -neg_detail::opaque(x);
}
template <class R>
ES_HD_INLINE Complex<R> neg_rounded(const Complex<R>& x) {
  return {-neg_detail::opaque(x.re), -neg_detail::opaque(x.im)};
}
ES_HD_INLINE dd_real neg_rounded(const dd_real& x) {
  return {-neg_detail::opaque(x.hi), -neg_detail::opaque(x.lo)};
}

#if !defined(__CUDA_ARCH__)
/// out[i] := -x[i] for i < n, where the caller has stored rounded results in x (out may be x):
/// neg_rounded element by element, with one barrier for all (the asm's memory clobber: every
/// store before it is done, every load after it reads memory), so that the loops on both sides
/// stay vectorised.
template <class T>
inline void neg_rounded_stored(const T* x, T* out, index_t n) {
  asm volatile("" : : "r"(x), "r"(out) : "memory");
  for (index_t i = 0; i < n; ++i)
    out[i] = -x[i];
}
template <class T>
inline void neg_rounded_stored(T* x, index_t n) {
  neg_rounded_stored(static_cast<const T*>(x), x, n);
}
#endif

}  // namespace eigsolve
