// Element loads and stores through L2 only (ld/st.global.cg: never a stale L1 line), for data
// that another thread block writes and publishes under a flag during the same kernel. One
// overload per scalar of the project (complex and dd as their two words).
#pragma once

#include <cuda_runtime.h>

#include "core/precision.hpp"

namespace eigsolve {

__device__ __forceinline__ float ldcg(const float* p) {
  return __ldcg(p);
}
__device__ __forceinline__ double ldcg(const double* p) {
  return __ldcg(p);
}
template <class R>
__device__ __forceinline__ Complex<R> ldcg(const Complex<R>* p) {
  const R* q = reinterpret_cast<const R*>(p);
  return Complex<R>(__ldcg(q), __ldcg(q + 1));
}
__device__ __forceinline__ dd_real ldcg(const dd_real* p) {
  const double* q = reinterpret_cast<const double*>(p);
  return dd_real(__ldcg(q), __ldcg(q + 1));
}
__device__ __forceinline__ void stcg(float* p, float v) {
  __stcg(p, v);
}
__device__ __forceinline__ void stcg(double* p, double v) {
  __stcg(p, v);
}
template <class R>
__device__ __forceinline__ void stcg(Complex<R>* p, const Complex<R>& v) {
  R* q = reinterpret_cast<R*>(p);
  __stcg(q, v.re);
  __stcg(q + 1, v.im);
}
__device__ __forceinline__ void stcg(dd_real* p, const dd_real& v) {
  double* q = reinterpret_cast<double*>(p);
  __stcg(q, v.hi);
  __stcg(q + 1, v.lo);
}

}  // namespace eigsolve
