// Internal to householder/update_kernels.hpp, which includes it once per instruction set (no
// include guard, by design) inside namespace hh_detail, with
//   EIGSOLVE_ISA_NS      the namespace of this copy (avx2, avx512)
//   EIGSOLVE_ISA_SIMD    the register traits (simd::Avx2, simd::Avx512)
//   EIGSOLVE_ISA_TARGET  the function target attribute (empty for AVX2, the build's baseline)
//   EIGSOLVE_ISA_NQ(T)/NC(T)  row vectors x columns of a register tile for scalar T
// and undefines them at the end. The chains are those described in update_kernels.hpp; only
// the vector width and the tile shape differ between the copies, never an element's chain.
namespace EIGSOLVE_ISA_NS {
/// The vector shape of the update for T: E reals per row (1 real, 2 complex) and as many fma
/// terms per madd; rows per register L / E.
template <class T>
struct UpdateShape {
  using Rl = real_t<T>;
  using S = EIGSOLVE_ISA_SIMD<Rl>;
  static constexpr int kE = is_complex_v<T> ? 2 : 1;
  static constexpr int kLanes = S::kLanes;
  static constexpr int kRowsPerReg = kLanes / kE;
};

/// acc[c][q] = madd(rows q of P, x operand of column c, acc[c][q]) for one k: E fmas per
/// lane, term t taking the packed part t of the rows and the broadcast Y[t][kb c + k].
template <class T, int NC, int NQ>
EIGSOLVE_ISA_TARGET __attribute__((always_inline)) inline void madd_terms(
    typename UpdateShape<T>::S::V (&acc)[NC][NQ], const real_t<T>* P, const T* const* Y, index_t kb,
    index_t k) {
  using Sh = UpdateShape<T>;
  using S = typename Sh::S;
  constexpr int E = Sh::kE, L = Sh::kLanes;
  // Term by term over all elements: each element still gets term 0 before term 1 (its
  // chain's order), and only NC broadcasts are live at a time (no spills for complex).
  for (int t = 0; t < E; ++t) {
    typename S::V x[NC];
    for (int c = 0; c < NC; ++c)
      x[c] = S::bcast(Y[t] + kb * c + k);
    for (int q = 0; q < NQ; ++q) {
      const typename S::V r = S::load(P + L * NQ * t + L * q);
      for (int c = 0; c < NC; ++c)
        acc[c][q] = S::fma(r, x[c], acc[c][q]);
    }
  }
}

/// Tile of R = NQ * L / E rows x NC columns. PV/PW (packed by pack_rows: per k, E blocks of NQ
/// registers) hold the window's V/W rows; YV[t] + kb c / YW[t] + kb c (t < E) are the x
/// operands of column c, broadcast per k: real: -conj(w_j.), -conj(v_j.); complex: the same,
/// then rotated to (-im, re). Full == true: every lane is stored. Otherwise column c stores rows
/// [lo[c], hi) only (lanes outside start from 0 and are not read from a).
template <class T, int NC, int NQ, bool Full>
EIGSOLVE_ISA_TARGET inline void tile_update(index_t kb, const real_t<T>* PV, const real_t<T>* PW,
                                            const T* const* YV, const T* const* YW, T* a,
                                            index_t lda, const int* lo, int hi) {
  using Sh = UpdateShape<T>;
  using Rl = typename Sh::Rl;
  using S = typename Sh::S;
  using V = typename S::V;
  constexpr int E = Sh::kE, L = Sh::kLanes, R = NQ * Sh::kRowsPerReg;
  constexpr index_t kPack = E * L * NQ;  // reals per k
  V acc[NC][NQ];
  for (int c = 0; c < NC; ++c) {
    const Rl* ac = reinterpret_cast<const Rl*>(a + lda * c);
    if constexpr (Full) {
      for (int q = 0; q < NQ; ++q)
        acc[c][q] = S::load(ac + L * q);
    } else {
      alignas(64) Rl buf[E * R];
      for (int l = 0; l < E * R; ++l)
        buf[l] = Rl(0);
      for (int l = E * lo[c]; l < E * hi; ++l)
        buf[l] = ac[l];
      for (int q = 0; q < NQ; ++q)
        acc[c][q] = S::load(buf + L * q);
    }
  }
  {
    V reg[NC][NQ];  // a fresh local: GCC keeps it in registers (acc, filled through memory
                    // in the partial case, would be stored back on every k)
    for (int c = 0; c < NC; ++c)
      for (int q = 0; q < NQ; ++q)
        reg[c][q] = acc[c][q];
    for (index_t k = 0; k < kb; ++k) {
      madd_terms<T, NC, NQ>(reg, PV + kPack * k, YV, kb, k);  // madd(v_ik, nw_jk, a)
      madd_terms<T, NC, NQ>(reg, PW + kPack * k, YW, kb, k);  // madd(w_ik, nv_jk, a)
    }
    for (int c = 0; c < NC; ++c)
      for (int q = 0; q < NQ; ++q)
        acc[c][q] = reg[c][q];
  }
  for (int c = 0; c < NC; ++c) {
    Rl* ac = reinterpret_cast<Rl*>(a + lda * c);
    if constexpr (Full) {
      for (int q = 0; q < NQ; ++q)
        S::store(ac + L * q, acc[c][q]);
    } else {
      alignas(64) Rl buf[E * R];
      for (int q = 0; q < NQ; ++q)
        S::store(buf + L * q, acc[c][q]);
      for (int l = lo[c]; l < hi; ++l)
        for (int r = 0; r < E; ++r)
          ac[E * l + r] = buf[E * l + r];
    }
  }
}

/// Packs rows [0, R) of the kb columns of X (ldx) for tile_update (a copy: no value changes;
/// with a power-of-two leading dimension the kb strided rows would share a few L1 sets).
/// Real: per k the R values. Complex: per k the duplicated real parts, then the duplicated
/// imaginary parts (2 L NQ reals).
template <class T, int NQ>
inline void pack_rows(index_t kb, const T* X, index_t ldx, real_t<T>* P) {
  using Sh = UpdateShape<T>;
  constexpr int L = Sh::kLanes, R = NQ * Sh::kRowsPerReg;
  for (index_t k = 0; k < kb; ++k) {
    const T* x = X + ldx * k;
    real_t<T>* p = P + Sh::kE * L * NQ * k;
    for (int l = 0; l < R; ++l) {
      if constexpr (is_complex_v<T>) {
        p[2 * l] = p[2 * l + 1] = x[l].re;
        p[L * NQ + 2 * l] = p[L * NQ + 2 * l + 1] = x[l].im;
      } else {
        p[l] = x[l];
      }
    }
  }
}

// ---- driver: row windows x column groups of one column block ----

template <class T>
constexpr int kBlockNQ = EIGSOLVE_ISA_NQ(T);  // row vectors per tile
template <class T>
constexpr int kBlockNC = EIGSOLVE_ISA_NC(T);  // columns per tile
/// Rows per tile: NQ vectors (AVX2 3 x 3: 12 double, 24 float, 6 Complex<double>, 12
/// Complex<float> rows; AVX-512: twice as many).
template <class T>
constexpr int kBlockRows = kBlockNQ<T>* UpdateShape<T>::kRowsPerReg;
template <class Rl>
constexpr int kCRows = kBlockRows<Complex<Rl>>;

template <class T, int NC>
EIGSOLVE_ISA_TARGET void tile_dispatch(int nc, bool full, index_t kb, const real_t<T>* PV,
                                       const real_t<T>* PW, const T* const* YV, const T* const* YW,
                                       T* a, index_t lda, const int* lo, int hi) {
  if constexpr (NC > 1) {
    if (nc < NC) {
      tile_dispatch<T, NC - 1>(nc, full, kb, PV, PW, YV, YW, a, lda, lo, hi);
      return;
    }
  }
  if (full)
    tile_update<T, NC, kBlockNQ<T>, true>(kb, PV, PW, YV, YW, a, lda, lo, hi);
  else
    tile_update<T, NC, kBlockNQ<T>, false>(kb, PV, PW, YV, YW, a, lda, lo, hi);
}

/// The lower-triangle part of columns [jb, je) of A22 (m >= kBlockRows<T>): row windows of
/// kBlockRows (the last one shifted up to end at m) x kBlockNC columns; each stored element
/// gets exactly its own chain. Complex: the diagonal is made real after the block (the update
/// never reads A22, so this is the same as right after the element's chain).
template <class T>
EIGSOLVE_ISA_TARGET void blocked_columns(index_t m, index_t kb, const T* V, index_t ldv, const T* W,
                                         index_t ldw, T* A22, index_t lda, const T* NW, const T* NV,
                                         index_t jb, index_t je) {
  using Rl = real_t<T>;
  constexpr int R = kBlockRows<T>, NC = kBlockNC<T>, E = UpdateShape<T>::kE;
  constexpr index_t kPack = E * UpdateShape<T>::kLanes * kBlockNQ<T>;  // reals per k
  // Per-thread scratch kept between calls (every entry read is written first: no zeroing).
  thread_local std::vector<Rl> pack;
  thread_local std::vector<T> rot;
  if (pack.size() < static_cast<std::size_t>(2 * kPack * kb))
    pack.resize(static_cast<std::size_t>(2 * kPack * kb));
  Rl* pv = pack.data();
  Rl* pw = pv + kPack * kb;
  // Complex: -conj(w), -conj(v) rotated to (-im, re) for the block's columns.
  if constexpr (E == 2) {
    if (rot.size() < static_cast<std::size_t>(2 * kb * (je - jb)))
      rot.resize(static_cast<std::size_t>(2 * kb * (je - jb)));
    for (index_t t = 0; t < kb * (je - jb); ++t) {
      const T x = NW[kb * jb + t], y = NV[kb * jb + t];
      rot[t] = T(-x.im, x.re);
      rot[kb * (je - jb) + t] = T(-y.im, y.re);
    }
  }
  for (index_t ib = jb; ib < m; ib += R) {
    const index_t ie = std::min(m, ib + R);
    const index_t w0 = std::min(ib, m - R);
    const index_t jend = std::min(je, ie);
    const int hi = static_cast<int>(ie - w0);
    pack_rows<T, kBlockNQ<T>>(kb, V + w0, ldv, pv);
    pack_rows<T, kBlockNQ<T>>(kb, W + w0, ldw, pw);
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
      const T* yv[E];
      const T* yw[E];
      yv[0] = NW + kb * j;
      yw[0] = NV + kb * j;
      if constexpr (E == 2) {
        yv[1] = rot.data() + kb * (j - jb);
        yw[1] = rot.data() + kb * (je - jb) + kb * (j - jb);
      }
      tile_dispatch<T, NC>(nc, full, kb, pv, pw, yv, yw, A22 + w0 + lda * j, lda, lo, hi);
    }
  }
  if constexpr (E == 2)
    for (index_t j = jb; j < je; ++j)
      A22[j + lda * j].im = Rl(0);  // made real
}

}  // namespace EIGSOLVE_ISA_NS

#undef EIGSOLVE_ISA_NS
#undef EIGSOLVE_ISA_SIMD
#undef EIGSOLVE_ISA_TARGET
#undef EIGSOLVE_ISA_NQ
#undef EIGSOLVE_ISA_NC
