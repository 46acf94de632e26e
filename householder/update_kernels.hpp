// Internal to householder/: register-blocked AVX2 kernels for the rank-2k trailing update
// (docs/canonical-tridiagonalization.md). A tile of NQ row vectors x NC columns keeps NQ * NC
// independent accumulators in registers across the whole k loop; every lane is the chain of
// one element a_ij, for k ascending:
//   a = fma(v_ik, nw_jk, a);  a = fma(w_ik, nv_jk, a)      (nw = -conj(w), nv = -conj(v))
// which are the bits of madd(-v_ik, conj(w_jk), a); madd(-w_ik, conj(v_jk), a). Lanes outside
// an element's valid range start from 0, are never read from A and are discarded.
#pragma once

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "core/complex.hpp"
#include "core/precision.hpp"
#include "symv/tile_kernels.hpp"  // EIGSOLVE_SYMV_AVX2, <immintrin.h>

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

/// One 256-bit register of T (double: 4 lanes, float: 8 lanes).
template <class T>
struct Vec;

template <>
struct Vec<double> {
  using V = __m256d;
  static constexpr int kLanes = 4;
  static V load(const double* p) { return _mm256_loadu_pd(p); }
  static void store(double* p, V v) { _mm256_storeu_pd(p, v); }
  static V bcast(const double* p) { return _mm256_broadcast_sd(p); }
  static V fma(V a, V b, V c) { return _mm256_fmadd_pd(a, b, c); }
};

template <>
struct Vec<float> {
  using V = __m256;
  static constexpr int kLanes = 8;
  static V load(const float* p) { return _mm256_loadu_ps(p); }
  static void store(float* p, V v) { _mm256_storeu_ps(p, v); }
  static V bcast(const float* p) { return _mm256_broadcast_ss(p); }
  static V fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
};

/// The tile's row count for T.
template <class T, int NQ>
constexpr int kTileRows = NQ* int{Vec<T>::kLanes};

/// Tile of R = NQ * lanes rows x NC columns. V, W, a point at the tile's first row (a at its
/// first column, column c at a + lda * c); NW/NV + kb * c hold column c's negated conjugates.
/// Full == true: every lane is stored. Otherwise column c stores rows [lo[c], hi) only (lanes
/// outside start from 0 and are not read from a).
template <class T, int NC, int NQ, bool Full>
inline void tile_update(index_t kb, const T* V, index_t ldv, const T* W, index_t ldw, const T* NW,
                        const T* NV, T* a, index_t lda, const int* lo, int hi) {
  using X = Vec<T>;
  constexpr int L = X::kLanes, R = NQ * L;
  typename X::V acc[NC][NQ];
  if constexpr (Full) {
    for (int c = 0; c < NC; ++c)
      for (int q = 0; q < NQ; ++q)
        acc[c][q] = X::load(a + lda * c + L * q);
  } else {
    alignas(32) T buf[R];
    for (int c = 0; c < NC; ++c) {
      for (int l = 0; l < R; ++l)
        buf[l] = (l >= lo[c] && l < hi) ? a[l + lda * c] : T(0);
      for (int q = 0; q < NQ; ++q)
        acc[c][q] = X::load(buf + L * q);
    }
  }
  for (index_t k = 0; k < kb; ++k) {
    const T* vk = V + ldv * k;
    const T* wk = W + ldw * k;
    typename X::V x[NC], y[NC];
    for (int c = 0; c < NC; ++c) {
      x[c] = X::bcast(NW + kb * c + k);
      y[c] = X::bcast(NV + kb * c + k);
    }
    for (int q = 0; q < NQ; ++q) {
      const typename X::V v = X::load(vk + L * q);
      for (int c = 0; c < NC; ++c)
        acc[c][q] = X::fma(v, x[c], acc[c][q]);
    }
    for (int q = 0; q < NQ; ++q) {
      const typename X::V w = X::load(wk + L * q);
      for (int c = 0; c < NC; ++c)
        acc[c][q] = X::fma(w, y[c], acc[c][q]);
    }
  }
  if constexpr (Full) {
    for (int c = 0; c < NC; ++c)
      for (int q = 0; q < NQ; ++q)
        X::store(a + lda * c + L * q, acc[c][q]);
  } else {
    alignas(32) T buf[R];
    for (int c = 0; c < NC; ++c) {
      for (int q = 0; q < NQ; ++q)
        X::store(buf + L * q, acc[c][q]);
      for (int l = lo[c]; l < hi; ++l)
        a[l + lda * c] = buf[l];
    }
  }
}

/// Broadcast of one complex value (re, im) to every pair of lanes.
inline __m256d bcast_pair(const Complex<double>* p) {
  return _mm256_broadcast_pd(reinterpret_cast<const __m128d*>(p));
}
inline __m256 bcast_pair(const Complex<float>* p) {
  double d;
  std::memcpy(&d, p, sizeof d);
  return _mm256_castpd_ps(_mm256_set1_pd(d));
}

/// Complex rows per register of Complex<Rl>.
template <class Rl>
constexpr int kPairs = Vec<Rl>::kLanes / 2;

/// Complex tile: NQ registers of kPairs complex rows (re, im interleaved) x NC columns.
/// PV/PW (packed per k by pack_complex: NQ registers of duplicated real parts, then NQ of
/// duplicated imaginary parts) hold the window's V/W rows; NW/NV (+ kb c) are column c's
/// -conj(w_j.), -conj(v_j.) and NWB/NVB the same rotated to (-im, re). Per element and k the
/// four fmas of madd(v, nw, a) then the four of madd(w, nv, a):
///   (re, im) = fma((v.re, v.re), (x.re, x.im), (re, im));
///   (re, im) = fma((v.im, v.im), (-x.im, x.re), (re, im))
/// i.e. re = fma(v.re, x.re, re); re = fma(-v.im, x.im, re) (the negation is exact);
/// im = fma(v.re, x.im, im); im = fma(v.im, x.re, im) -- complex.hpp's madd.
template <class Rl, int NC, int NQ, bool Full>
inline void tile_update_c(index_t kb, const Rl* PV, const Rl* PW, const Complex<Rl>* NW,
                          const Complex<Rl>* NV, const Complex<Rl>* NWB, const Complex<Rl>* NVB,
                          Complex<Rl>* a, index_t lda, const int* lo, int hi) {
  using X = Vec<Rl>;
  constexpr int L = X::kLanes, R = kPairs<Rl> * NQ;  // complex rows
  typename X::V acc[NC][NQ];
  alignas(32) Rl buf[2 * R];
  for (int c = 0; c < NC; ++c) {
    const Rl* ac = reinterpret_cast<const Rl*>(a + lda * c);
    if constexpr (Full) {
      for (int q = 0; q < NQ; ++q)
        acc[c][q] = X::load(ac + L * q);
    } else {
      for (int l = 0; l < R; ++l) {
        const bool in = l >= lo[c] && l < hi;
        buf[2 * l] = in ? ac[2 * l] : Rl(0);
        buf[2 * l + 1] = in ? ac[2 * l + 1] : Rl(0);
      }
      for (int q = 0; q < NQ; ++q)
        acc[c][q] = X::load(buf + L * q);
    }
  }
  for (index_t k = 0; k < kb; ++k) {
    const Rl* vr = PV + 2 * L * NQ * k;
    const Rl* vi = vr + L * NQ;
    const Rl* wr = PW + 2 * L * NQ * k;
    const Rl* wi = wr + L * NQ;
    {
      typename X::V xa[NC], xb[NC];
      for (int c = 0; c < NC; ++c) {
        xa[c] = bcast_pair(NW + kb * c + k);
        xb[c] = bcast_pair(NWB + kb * c + k);
      }
      for (int q = 0; q < NQ; ++q) {
        const typename X::V r = X::load(vr + L * q), i = X::load(vi + L * q);
        for (int c = 0; c < NC; ++c) {
          acc[c][q] = X::fma(r, xa[c], acc[c][q]);
          acc[c][q] = X::fma(i, xb[c], acc[c][q]);
        }
      }
    }
    {
      typename X::V ya[NC], yb[NC];
      for (int c = 0; c < NC; ++c) {
        ya[c] = bcast_pair(NV + kb * c + k);
        yb[c] = bcast_pair(NVB + kb * c + k);
      }
      for (int q = 0; q < NQ; ++q) {
        const typename X::V r = X::load(wr + L * q), i = X::load(wi + L * q);
        for (int c = 0; c < NC; ++c) {
          acc[c][q] = X::fma(r, ya[c], acc[c][q]);
          acc[c][q] = X::fma(i, yb[c], acc[c][q]);
        }
      }
    }
  }
  for (int c = 0; c < NC; ++c) {
    Rl* ac = reinterpret_cast<Rl*>(a + lda * c);
    if constexpr (Full) {
      for (int q = 0; q < NQ; ++q)
        X::store(ac + L * q, acc[c][q]);
    } else {
      for (int q = 0; q < NQ; ++q)
        X::store(buf + L * q, acc[c][q]);
      for (int l = lo[c]; l < hi; ++l) {
        ac[2 * l] = buf[2 * l];
        ac[2 * l + 1] = buf[2 * l + 1];
      }
    }
  }
}

/// Packs rows [0, kPairs NQ) of the kb columns of X (ldx) for tile_update_c: per k, the
/// duplicated real parts, then the duplicated imaginary parts (2 L NQ reals).
template <class Rl, int NQ>
inline void pack_complex(index_t kb, const Complex<Rl>* X, index_t ldx, Rl* P) {
  constexpr int L = Vec<Rl>::kLanes, R = kPairs<Rl> * NQ;
  for (index_t k = 0; k < kb; ++k) {
    const Complex<Rl>* x = X + ldx * k;
    Rl* p = P + 2 * L * NQ * k;
    for (int l = 0; l < R; ++l) {
      p[2 * l] = p[2 * l + 1] = x[l].re;
      p[L * NQ + 2 * l] = p[L * NQ + 2 * l + 1] = x[l].im;
    }
  }
}

// ---- drivers: row windows x column groups of one column block ----

/// Real AVX2 types run the register-blocked tiles of update_kernels.hpp.
template <class T>
constexpr bool kBlockedUpdate = std::is_same<T, double>::value || std::is_same<T, float>::value;
template <class T>
constexpr int kBlockNQ = 3;  // row vectors per tile (3 x 3 accumulators: no spills)
template <class T>
constexpr int kBlockNC = 3;  // columns per tile
template <class T>
constexpr int kBlockRows = kTileRows<T, kBlockNQ<T>>;

template <class T, int NC>
void tile_dispatch(int nc, bool full, index_t kb, const T* V, index_t ldv, const T* W, index_t ldw,
                   const T* NW, const T* NV, T* a, index_t lda, const int* lo, int hi) {
  if constexpr (NC > 1) {
    if (nc < NC) {
      tile_dispatch<T, NC - 1>(nc, full, kb, V, ldv, W, ldw, NW, NV, a, lda, lo, hi);
      return;
    }
  }
  constexpr int NQ = kBlockNQ<T>;
  if (full)
    hh_detail::tile_update<T, NC, NQ, true>(kb, V, ldv, W, ldw, NW, NV, a, lda, lo, hi);
  else
    hh_detail::tile_update<T, NC, NQ, false>(kb, V, ldv, W, ldw, NW, NV, a, lda, lo, hi);
}

/// The lower-triangle part of columns [jb, je) of A22 (m >= kBlockRows): row windows of
/// kBlockRows (the last one shifted up to end at m) x kBlockNC columns; each stored element
/// gets exactly its own chain.
template <class T>
void blocked_columns(index_t m, index_t kb, const T* V, index_t ldv, const T* W, index_t ldw,
                     T* A22, index_t lda, const T* NW, const T* NV, index_t jb, index_t je) {
  constexpr int R = kBlockRows<T>, NC = kBlockNC<T>;
  std::vector<T> pack(static_cast<std::size_t>(2 * R * kb));
  T* pv = pack.data();
  T* pw = pv + R * kb;
  for (index_t ib = jb; ib < m; ib += R) {
    const index_t ie = std::min(m, ib + R);
    const index_t w0 = std::min(ib, m - R);
    const index_t jend = std::min(je, ie);
    const int hi = static_cast<int>(ie - w0);
    // The window's V and W rows packed contiguously (a copy: no value changes): with a
    // power-of-two leading dimension the kb strided rows would share a few L1 sets.
    for (index_t k = 0; k < kb; ++k)
      for (int l = 0; l < R; ++l) {
        pv[l + R * k] = V[w0 + l + ldv * k];
        pw[l + R * k] = W[w0 + l + ldw * k];
      }
    // The next row block's V and W rows (reused from L1 by every column group of the block):
    // strided column streams the hardware prefetcher does not follow.
    const index_t pn = std::min(m, ie + R);
    if (ie < m) {
      for (index_t k = 0; k < kb; ++k) {
        prefetch_rows(V + ldv * k, ie, pn);
        prefetch_rows(W + ldw * k, ie, pn);
      }
    }
    for (index_t j = jb; j < jend; j += NC) {
      const int nc = static_cast<int>(std::min<index_t>(NC, jend - j));
      if (ie < m)
        for (int c = 0; c < nc; ++c)
          prefetch_rows(A22 + lda * (j + c), ie, pn);
      const bool full = w0 == ib && ie == ib + R && j + nc - 1 <= ib;
      int lo[NC];
      for (int c = 0; c < NC; ++c)
        lo[c] = static_cast<int>(std::max(ib, j + c) - w0);
      tile_dispatch<T, NC>(nc, full, kb, pv, R, pw, R, NW + kb * j, NV + kb * j, A22 + w0 + lda * j,
                           lda, lo, hi);
    }
  }
}

/// Complex AVX2 types (Complex<double>, Complex<float>) run tile_update_c: 3 registers x 3
/// columns (6 rows for z, 12 for c).
template <class T>
constexpr bool kBlockedUpdateC =
    std::is_same<T, Complex<double>>::value || std::is_same<T, Complex<float>>::value;
constexpr int kCNQ = 3, kCNC = 3;
template <class Rl>
constexpr int kCRows = kCNQ* int{kPairs<Rl>};

template <class Rl, int NC>
void tile_dispatch_c(int nc, bool full, index_t kb, const Rl* PV, const Rl* PW,
                     const Complex<Rl>* NW, const Complex<Rl>* NV, const Complex<Rl>* NWB,
                     const Complex<Rl>* NVB, Complex<Rl>* a, index_t lda, const int* lo, int hi) {
  if constexpr (NC > 1) {
    if (nc < NC) {
      tile_dispatch_c<Rl, NC - 1>(nc, full, kb, PV, PW, NW, NV, NWB, NVB, a, lda, lo, hi);
      return;
    }
  }
  if (full)
    hh_detail::tile_update_c<Rl, NC, kCNQ, true>(kb, PV, PW, NW, NV, NWB, NVB, a, lda, lo, hi);
  else
    hh_detail::tile_update_c<Rl, NC, kCNQ, false>(kb, PV, PW, NW, NV, NWB, NVB, a, lda, lo, hi);
}

/// blocked_columns for complex T (m >= kCRows): tile_update_c on packed V/W rows; the diagonal
/// made real after the block (the update never reads A22, so this is the same as right after
/// the element's chain).
template <class Rl>
void blocked_columns_c(index_t m, index_t kb, const Complex<Rl>* V, index_t ldv,
                       const Complex<Rl>* W, index_t ldw, Complex<Rl>* A22, index_t lda,
                       const Complex<Rl>* NW, const Complex<Rl>* NV, index_t jb, index_t je) {
  using C = Complex<Rl>;
  constexpr int R = kCRows<Rl>, NC = kCNC;
  constexpr index_t kPack = 2 * hh_detail::Vec<Rl>::kLanes * kCNQ;  // reals per k
  std::vector<Rl> pack(static_cast<std::size_t>(2 * kPack * kb));
  Rl* pv = pack.data();
  Rl* pw = pv + kPack * kb;
  // -conj(w), -conj(v) rotated to (-im, re) for the block's columns.
  std::vector<C> rot(static_cast<std::size_t>(2 * kb * (je - jb)));
  C* nwb = rot.data();
  C* nvb = nwb + kb * (je - jb);
  for (index_t t = 0; t < kb * (je - jb); ++t) {
    const C x = NW[kb * jb + t], y = NV[kb * jb + t];
    nwb[t] = C(-x.im, x.re);
    nvb[t] = C(-y.im, y.re);
  }
  for (index_t ib = jb; ib < m; ib += R) {
    const index_t ie = std::min(m, ib + R);
    const index_t w0 = std::min(ib, m - R);
    const index_t jend = std::min(je, ie);
    const int hi = static_cast<int>(ie - w0);
    hh_detail::pack_complex<Rl, kCNQ>(kb, V + w0, ldv, pv);
    hh_detail::pack_complex<Rl, kCNQ>(kb, W + w0, ldw, pw);
    const index_t pn = std::min(m, ie + R);
    if (ie < m) {
      for (index_t k = 0; k < kb; ++k) {
        prefetch_rows(V + ldv * k, ie, pn);
        prefetch_rows(W + ldw * k, ie, pn);
      }
    }
    for (index_t j = jb; j < jend; j += NC) {
      const int nc = static_cast<int>(std::min<index_t>(NC, jend - j));
      if (ie < m)
        for (int c = 0; c < nc; ++c)
          prefetch_rows(A22 + lda * (j + c), ie, pn);
      const bool full = w0 == ib && ie == ib + R && j + nc - 1 <= ib;
      int lo[NC];
      for (int c = 0; c < NC; ++c)
        lo[c] = static_cast<int>(std::max(ib, j + c) - w0);
      tile_dispatch_c<Rl, NC>(nc, full, kb, pv, pw, NW + kb * j, NV + kb * j, nwb + kb * (j - jb),
                              nvb + kb * (j - jb), A22 + w0 + lda * j, lda, lo, hi);
    }
  }
  for (index_t j = jb; j < je; ++j)
    A22[j + lda * j].im = Rl(0);  // made real
}

#endif  // EIGSOLVE_SYMV_AVX2

}  // namespace hh_detail
}  // namespace eigsolve
