// Run-time CPU features for the x86 kernels chosen per call (symv/, solver/).
#pragma once

#include <cstdlib>

namespace eigsolve {

#if defined(__GNUC__) && !defined(__CUDACC__) && (defined(__x86_64__) || defined(__i386__))
/// Whether the CPU runs avx512f (checked once; EIGSOLVE_NO_AVX512 set in the environment keeps
/// the AVX2 kernels, e.g. to test them on an AVX-512 machine).
inline bool has_avx512f() {
  static const bool yes = __builtin_cpu_supports("avx512f") && !std::getenv("EIGSOLVE_NO_AVX512");
  return yes;
}
/// has_avx512f() and AVX-512VL (32 ymm registers).
inline bool has_avx512vl() {
  static const bool yes = has_avx512f() && __builtin_cpu_supports("avx512vl");
  return yes;
}
#else
inline bool has_avx512f() {
  return false;
}
inline bool has_avx512vl() {
  return false;
}
#endif

}  // namespace eigsolve
