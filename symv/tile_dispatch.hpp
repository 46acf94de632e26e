// Internal entry points of the real tile kernels that symv/reference.cpp calls (included by
// symv/tile_kernels_avx2.hpp after every kernel): each picks the AVX-512 variant where the CPU
// has it (has_avx512f()), else the AVX2 one. The variants give the same bits.
#pragma once

#if defined(EIGSOLVE_SYMV_AVX2)
#include <type_traits>

namespace eigsolve {
namespace symv_detail {

/// Both partials of one full stored 64 x 64 tile below the diagonal (float, double).
template <class R>
inline void tile_fused64(const R* S, index_t lds, const R* xr, const R* xc, R* pd, R* pt) {
#if defined(EIGSOLVE_SYMV_AVX512)
  if (has_avx512f()) {
    if constexpr (std::is_same<R, double>::value)
      strip_fused_512<1>(1, S, lds, xr, xc, pd, 0, pt);
    else
      strip_fused_f512<1>(1, S, lds, xr, xc, pd, 0, pt);
    return;
  }
#endif
  strip_fused<R, 1>(1, S, lds, xr, xc, pd, 0, pt);
}
inline void strip_fused_d64(int k, const double* S, index_t lds, const double* xr, const double* xc,
                            double* pd, index_t pd_stride, double* pt) {
#if defined(EIGSOLVE_SYMV_AVX512)
  if (has_avx512f()) {
    strip_fused_512<kStrip>(k, S, lds, xr, xc, pd, pd_stride, pt);
    return;
  }
#endif
  strip_fused<double, kStrip>(k, S, lds, xr, xc, pd, pd_stride, pt);
}
/// tile_diag64 / tile_fused_rows, the AVX-512 variants where the CPU has them (tile_diag64:
/// float with the diagonal blocks mirrored in registers, tile_diag64_f512).
template <class R>
inline void tile_diag64_any(const R* D, index_t ldd, const R* x, R* p) {
#if defined(EIGSOLVE_SYMV_AVX512)
  if (has_avx512f()) {
    if constexpr (std::is_same<R, double>::value)
      tile_diag64_512(D, ldd, x, p);
    else
      tile_diag64_f512(D, ldd, x, p);
    return;
  }
#endif
  tile_diag64(D, ldd, x, p);
}
template <class R>
inline void tile_fused_rows_any(int rows, const R* S, index_t lds, const R* xr, const R* xc, R* pd,
                                R* pt) {
#if defined(EIGSOLVE_SYMV_AVX512)
  if (has_avx512f()) {
    if constexpr (std::is_same<R, double>::value)
      tile_fused_rows_512(rows, S, lds, xr, xc, pd, pt);
    else
      tile_fused_rows_f512(rows, S, lds, xr, xc, pd, pt);
    return;
  }
#endif
  tile_fused_rows(rows, S, lds, xr, xc, pd, pt);
}
/// Tiles per float strip of the kernel strip_fused_f64 runs on this CPU.
inline int strip_tiles_f() {
#if defined(EIGSOLVE_SYMV_AVX512)
  if (has_avx512f()) return kStripF512;
#endif
  return kStripF;
}
/// k <= strip_tiles_f() tiles.
inline void strip_fused_f64(int k, const float* S, index_t lds, const float* xr, const float* xc,
                            float* pd, index_t pd_stride, float* pt) {
#if defined(EIGSOLVE_SYMV_AVX512)
  if (has_avx512f()) {
    strip_fused_f512<kStripF512>(k, S, lds, xr, xc, pd, pd_stride, pt);
    return;
  }
#endif
  strip_fused<float, kStripF>(k, S, lds, xr, xc, pd, pd_stride, pt);
}

}  // namespace symv_detail
}  // namespace eigsolve
#endif  // EIGSOLVE_SYMV_AVX2
