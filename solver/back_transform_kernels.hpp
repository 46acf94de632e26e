// Internal to solver/back_transform.cpp: the AVX2 kernels of the canonical blocked
// back-transformation (docs/canonical-backtransform.md), one template for float, double,
// Complex<float> and Complex<double> over the SIMD traits of symv/simd_avx2.hpp. Every lane is
// (a part of) the chain of one output element, so vector fma lane by lane = the scalar chain.
//
//   step 1 (W = V^H Z)   lanes across reflectors c of the block (the packed rows of conj(V)),
//                        z_r broadcast; each (c, j) the canonical dot over the block's rows:
//                        chunks of 8 rows (fma chain), tree of 8 chunks, tiles of 64 ascending
//   step 3 (Z += V NY)   lanes across rows r (the packed columns of V), ny_cj broadcast; each
//                        z_rj one chain over c = 0 .. k-1 ascending: z = madd(v_rc, ny_cj, z)
//
// Complex: (re, im) of one element in two adjacent lanes; madd(a, b, s) as two fmas
//   (re, im) = fma((a.re, a.re), (b.re, b.im), (re, im))
//   (re, im) = fma((a.im, a.im), (-b.im, b.re), (re, im))
// i.e. re = fma(a.re, b.re, re); re = fma(-a.im, b.im, re); im = fma(a.re, b.im, im);
// im = fma(a.im, b.re, im) -- complex.hpp's madd (the negation is exact).
#pragma once

#include <algorithm>
#include <cstring>

#include "core/complex.hpp"
#include "core/precision.hpp"
#include "symv/tile_kernels.hpp"  // EIGSOLVE_SYMV_AVX2, symv/simd_avx2.hpp

namespace eigsolve {
namespace bt_detail {

#if defined(EIGSOLVE_SYMV_AVX2)

template <class T>
struct Shape {
  using Rl = real_t<T>;
  using S = simd::Avx2<Rl>;
  using V = typename S::V;
  static constexpr int kE = is_complex_v<T> ? 2 : 1;  // reals per element, fma terms per madd
  static constexpr int kLanes = S::kLanes;
  static constexpr int kPerReg = kLanes / kE;  // elements per register
};

/// (re, im) pairs -> (-im, re) (exact: a permutation and a sign flip).
inline __m256d rot(__m256d v) {
  const __m256d s = _mm256_set_pd(0.0, -0.0, 0.0, -0.0);
  return _mm256_xor_pd(_mm256_permute_pd(v, 0x5), s);
}
inline __m256 rot(__m256 v) {
  const __m256 s = _mm256_set_ps(0.f, -0.f, 0.f, -0.f, 0.f, -0.f, 0.f, -0.f);
  return _mm256_xor_ps(_mm256_permute_ps(v, 0xB1), s);
}

/// The broadcast operands of element b for term t: t = 0 (b.re, b.im) / b, t = 1 (-b.im, b.re).
template <class T>
__attribute__((always_inline)) inline void bcast_terms(const T* p, typename Shape<T>::V* out) {
  using S = typename Shape<T>::S;
  out[0] = S::bcast(p);
  if constexpr (Shape<T>::kE == 2) out[1] = rot(out[0]);
}

constexpr int kStep1Vecs = 4;  // c-vectors per register tile of step 1
constexpr int kStep1Cols = 3;  // columns per register tile of step 1

/// Step 1 for NJ columns and one group of kStep1Vecs c-vectors, over the tiles of 64 rows in
/// [rb, re) of the block's rows [0, L) (rb a multiple of 64; re a multiple of 64 or L):
/// acc(c, j) = canonical dot of conj(V(:, c)) and z_j (tiles of 64 from row 0, summed in
/// ascending order). rb = 0 starts the sum; rb > 0 continues the one that out holds (a value
/// stored and loaded: the same bits as one pass over [0, L)). P: packed rows, P + pld * (E r +
/// t) = the reals of term t of row r (lane-parallel over c), offset to the group. z[j] =
/// Z(block row 0, column j). Out + ow * j: the group's reals.
template <class T, int NJ>
void step1_group(index_t L, index_t rb, index_t re, const real_t<T>* P, index_t pld,
                 const T* const* z, real_t<T>* out, index_t ow) {
  using Sh = Shape<T>;
  using S = typename Sh::S;
  using V = typename Sh::V;
  constexpr int E = Sh::kE, L4 = Sh::kLanes, NV = kStep1Vecs;
  V acc[NJ][NV];
  for (int j = 0; j < NJ; ++j)
    for (int v = 0; v < NV; ++v)  // rb = 0: overwritten by tile 0 (silences -Wmaybe-uninitialized)
      acc[j][v] = rb == 0 ? S::zero() : S::load(out + ow * j + L4 * v);
  alignas(32) typename Sh::Rl cs[8][NJ][NV][L4];
  for (index_t t0 = rb; t0 < re; t0 += 64) {
    for (int ch = 0; ch < 8; ++ch) {
      const index_t r0 = t0 + 8 * ch, r1 = std::min(L, r0 + 8);
      V s[NJ][NV];
      for (int j = 0; j < NJ; ++j)
        for (int v = 0; v < NV; ++v)
          s[j][v] = S::zero();
      for (index_t r = r0; r < r1; ++r) {
        for (int t = 0; t < E; ++t) {
          V b[NJ];
          for (int j = 0; j < NJ; ++j) {
            V bt[E];
            bcast_terms<T>(z[j] + r, bt);
            b[j] = bt[t];
          }
          const typename Sh::Rl* p = P + pld * (E * r + t);
          for (int v = 0; v < NV; ++v) {
            const V a = S::load(p + L4 * v);
            for (int j = 0; j < NJ; ++j)
              s[j][v] = S::fma(a, b[j], s[j][v]);
          }
        }
      }
      for (int j = 0; j < NJ; ++j)
        for (int v = 0; v < NV; ++v)
          S::store_aligned(cs[ch][j][v], s[j][v]);
    }
    for (int j = 0; j < NJ; ++j)
      for (int v = 0; v < NV; ++v) {
        V c[8];
        for (int ch = 0; ch < 8; ++ch)
          c[ch] = S::load_aligned(cs[ch][j][v]);
        const V p = simd::tree8<S>(c);
        acc[j][v] = t0 == 0 ? p : S::add(acc[j][v], p);
      }
  }
  for (int j = 0; j < NJ; ++j)
    for (int v = 0; v < NV; ++v)
      S::store(out + ow * j + L4 * v, acc[j][v]);
}

constexpr int kStep3Q = 4;  // row vectors per register tile of step 3
constexpr int kStep3C = 3;  // columns per register tile of step 3

/// Step 3 on a window of R = kStep3Q * kPerReg rows x NC columns: z_rj = madd(v_rc, ny_cj, z_rj)
/// for c = 0 .. k-1 ascending. VD + ldd (E c + t): term t of column c of V at the window's first
/// row (real: V itself; complex: the packed (re, re) / (im, im) duplicates of pack_dup);
/// NY[t] + kp j + c: term t's operand of (c, j) (t = 1: rotated); z + ldz j: the window in
/// column j. Rows [lo, R) are stored (the lanes below lo belong to an earlier window).
template <class T, int NC>
void step3_tile(index_t k, const real_t<T>* VD, index_t ldd, const T* const* NY, index_t kp, T* z,
                index_t ldz, int lo) {
  using Sh = Shape<T>;
  using Rl = typename Sh::Rl;
  using S = typename Sh::S;
  using V = typename Sh::V;
  constexpr int E = Sh::kE, L4 = Sh::kLanes, NQ = kStep3Q, R = NQ * Sh::kPerReg;
  V acc[NC][NQ];
  for (int j = 0; j < NC; ++j)
    for (int q = 0; q < NQ; ++q)
      acc[j][q] = S::load(reinterpret_cast<const Rl*>(z + ldz * j) + L4 * q);
  for (index_t c = 0; c < k; ++c) {
    for (int t = 0; t < E; ++t) {
      const Rl* vc = VD + ldd * (E * c + t);
      V b[NC];
      for (int j = 0; j < NC; ++j)
        b[j] = S::bcast(NY[t] + kp * j + c);
      for (int q = 0; q < NQ; ++q) {
        const V a = S::load(vc + L4 * q);
        for (int j = 0; j < NC; ++j)
          acc[j][q] = S::fma(a, b[j], acc[j][q]);
      }
    }
  }
  for (int j = 0; j < NC; ++j) {
    Rl* zc = reinterpret_cast<Rl*>(z + ldz * j);
    if (lo == 0) {
      for (int q = 0; q < NQ; ++q)
        S::store(zc + L4 * q, acc[j][q]);
    } else {
      alignas(32) Rl buf[E * R];
      for (int q = 0; q < NQ; ++q)
        S::store(buf + L4 * q, acc[j][q]);
      std::memcpy(zc + E * lo, buf + E * lo, sizeof(Rl) * E * (R - lo));
    }
  }
}

template <class T>
constexpr int kStep3Rows = kStep3Q* Shape<T>::kPerReg;

#endif  // EIGSOLVE_SYMV_AVX2

}  // namespace bt_detail
}  // namespace eigsolve
