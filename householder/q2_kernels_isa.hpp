// Internal to householder/q2_kernels.hpp, which includes it once per instruction set (no include
// guard, by design) inside namespace q2_detail, with
//   EIGSOLVE_Q2_NS      the namespace of this copy (generic, avx2, avx512)
//   EIGSOLVE_Q2_SIMD    the register traits (simd::Avx2, simd::Avx512); not defined: the generic
//                       kernel (any T, NC columns of T per row)
//   EIGSOLVE_Q2_TARGET  the function target attribute (empty but for AVX-512)
// and undefines them at the end. Only the vector width differs between the copies, never a
// column's chain (householder/q2_kernels.hpp).
namespace EIGSOLVE_Q2_NS {

#define EIGSOLVE_Q2_FN EIGSOLVE_Q2_TARGET __attribute__((always_inline)) static inline

#if defined(EIGSOLVE_Q2_SIMD)

/// float, double, Complex<float>, Complex<double>: NV registers of columns per scratch row
/// (complex: NV of real parts, then NV of imaginary parts). Each loop keeps its accumulators in
/// local registers.
template <class T, int NV>
struct Kernel {
  using R = real_t<T>;
  using S = EIGSOLVE_Q2_SIMD<R>;
  using V = typename S::V;
  using Elem = R;
  static constexpr int kL = S::kLanes;
  static constexpr int kE = is_complex_v<T> ? 2 : 1;
  static constexpr int kCols = NV * kL;
  static constexpr index_t kRow = kE * NV * kL;  ///< reals per scratch row
  struct Acc {
    V a[kE * NV];
  };

  EIGSOLVE_Q2_FN const R* re(const T* v) { return reinterpret_cast<const R*>(v); }
  EIGSOLVE_Q2_FN const R* im(const T* v) { return reinterpret_cast<const R*>(v) + 1; }

  EIGSOLVE_Q2_FN void zero(Acc& s) {
    for (int t = 0; t < kE * NV; ++t)
      s.a[t] = S::zero();
  }

  /// s += conj(v) z; complex: re = fma(v.re, z.re, re); re = fma(v.im, z.im, re);
  /// im = fma(v.re, z.im, im); im = fma(-v.im, z.re, im) (madd_conj of complex.hpp).
  EIGSOLVE_Q2_FN void dot_row(const R* z, const T* v, V* s) {
    const V vr = S::bcast(re(v));
    if constexpr (kE == 1) {
      for (int t = 0; t < NV; ++t)
        s[t] = S::fma(vr, S::load(z + kL * t), s[t]);
    } else {
      const V vi = S::bcast(im(v));
      for (int t = 0; t < NV; ++t) {
        const V zr = S::load(z + kL * t), zi = S::load(z + kL * (NV + t));
        s[t] = S::fma(vr, zr, s[t]);
        s[t] = S::fma(vi, zi, s[t]);
        s[NV + t] = S::fma(vr, zi, s[NV + t]);
        s[NV + t] = vfnma(vi, zr, s[NV + t]);
      }
    }
  }

  /// z += v u; complex: re = fma(v.re, u.re, re); re = fma(-v.im, u.im, re);
  /// im = fma(v.re, u.im, im); im = fma(v.im, u.re, im) (madd of complex.hpp).
  EIGSOLVE_Q2_FN void axpy_row(R* z, const T* v, const V* u) {
    const V vr = S::bcast(re(v));
    if constexpr (kE == 1) {
      for (int t = 0; t < NV; ++t)
        S::store(z + kL * t, S::fma(vr, u[t], opaque(S::load(z + kL * t))));
    } else {
      const V vi = S::bcast(im(v));
      for (int t = 0; t < NV; ++t) {
        V zr = S::load(z + kL * t), zi = S::load(z + kL * (NV + t));
        zr = S::fma(vr, u[t], zr);
        zr = vfnma(vi, u[NV + t], zr);
        zi = S::fma(vr, u[NV + t], zi);
        zi = S::fma(vi, u[t], zi);
        S::store(z + kL * t, zr);
        S::store(z + kL * (NV + t), zi);
      }
    }
  }

  EIGSOLVE_Q2_FN void dot(const R* z, index_t len, const T* v, Acc& acc) {
    V s[kE * NV];
    for (int t = 0; t < kE * NV; ++t)
      s[t] = acc.a[t];
    for (index_t q = 0; q < len; ++q, z += kRow)
      dot_row(z, v + q, s);
    for (int t = 0; t < kE * NV; ++t)
      acc.a[t] = s[t];
  }

  EIGSOLVE_Q2_FN void axpy(R* z, index_t len, const T* v, const Acc& acc) {
    V u[kE * NV];
    for (int t = 0; t < kE * NV; ++t)
      u[t] = acc.a[t];
    for (index_t q = 0; q < len; ++q, z += kRow)
      axpy_row(z, v + q, u);
  }

  EIGSOLVE_Q2_FN void fused(R* z, index_t len, const T* vp, const Acc& uacc, const T* vn,
                            Acc& sacc) {
    V u[kE * NV], s[kE * NV];
    for (int t = 0; t < kE * NV; ++t) {
      u[t] = uacc.a[t];
      s[t] = sacc.a[t];
    }
    for (index_t q = 0; q < len; ++q, z += kRow) {
      axpy_row(z, vp + q, u);
      dot_row(z, vn + q, s);
    }
    for (int t = 0; t < kE * NV; ++t)
      sacc.a[t] = s[t];
  }

  /// u = -(tau * s); complex: p.re = fma(tau.re, s.re, -(tau.im * s.im)),
  /// p.im = fma(tau.re, s.im, tau.im * s.re) (complex.hpp's product), u = -p: the negation of
  /// the rounded product (opaque: see q2_detail::opaque).
  EIGSOLVE_Q2_FN void make_u(const T& tau, const Acc& s, Acc& u) {
    const V tr = S::bcast(re(&tau));
    if constexpr (kE == 1) {
      for (int t = 0; t < NV; ++t)
        u.a[t] = vneg(opaque(vmul(tr, s.a[t])));
    } else {
      const V ti = S::bcast(im(&tau));
      for (int t = 0; t < NV; ++t) {
        const V sr = s.a[t], si = s.a[NV + t];
        u.a[t] = vneg(opaque(S::fma(tr, sr, vneg(vmul(ti, si)))));
        u.a[NV + t] = vneg(opaque(S::fma(tr, si, vmul(ti, sr))));
      }
    }
  }

  /// Scratch rows [r0, r1) := rows [r0, r1) of the nc columns at Z; lanes j >= nc := 0.
  EIGSOLVE_Q2_FN void gather(const T* Z, index_t ldz, int nc, index_t r0, index_t r1, R* Zs) {
    for (index_t r = r0; r < r1; ++r) {
      R* zs = Zs + r * kRow;
      for (int j = 0; j < kCols; ++j) {
        const T x = j < nc ? Z[r + j * ldz] : T(0);
        zs[j] = real_part(x);
        if constexpr (kE == 2) zs[kCols + j] = imag_part(x);
      }
    }
  }
  EIGSOLVE_Q2_FN void scatter(const R* Zs, int nc, index_t r0, index_t r1, T* Z, index_t ldz) {
    for (index_t r = r0; r < r1; ++r) {
      const R* zs = Zs + r * kRow;
      for (int j = 0; j < nc; ++j) {
        if constexpr (kE == 2)
          Z[r + j * ldz] = T(zs[j], zs[kCols + j]);
        else
          Z[r + j * ldz] = zs[j];
      }
    }
  }
};

#else  // the generic kernel

/// Any scalar: NC columns of T per scratch row.
template <class T, int NC>
struct Kernel {
  using Elem = T;
  static constexpr int kCols = NC;
  static constexpr index_t kRow = NC;
  struct Acc {
    T a[NC];
  };
  EIGSOLVE_Q2_FN void zero(Acc& s) {
    for (int j = 0; j < NC; ++j)
      s.a[j] = T(0);
  }
  EIGSOLVE_Q2_FN void dot(const T* z, index_t len, const T* v, Acc& s) {
    for (index_t q = 0; q < len; ++q, z += kRow)
      for (int j = 0; j < NC; ++j)
        s.a[j] = madd_conj(v[q], z[j], s.a[j]);
  }
  EIGSOLVE_Q2_FN void axpy(T* z, index_t len, const T* v, const Acc& u) {
    for (index_t q = 0; q < len; ++q, z += kRow)
      for (int j = 0; j < NC; ++j)
        z[j] = madd(v[q], u.a[j], z[j]);
  }
  EIGSOLVE_Q2_FN void fused(T* z, index_t len, const T* vp, const Acc& u, const T* vn, Acc& s) {
    for (index_t q = 0; q < len; ++q, z += kRow)
      for (int j = 0; j < NC; ++j) {
        z[j] = madd(vp[q], u.a[j], z[j]);
        s.a[j] = madd_conj(vn[q], z[j], s.a[j]);
      }
  }
  /// u = -(tau * s): the negation of the rounded product (opaque: see q2_detail::opaque).
  EIGSOLVE_Q2_FN void make_u(const T& tau, const Acc& s, Acc& u) {
    for (int j = 0; j < NC; ++j)
      u.a[j] = -opaque(tau * s.a[j]);
  }
  EIGSOLVE_Q2_FN void gather(const T* Z, index_t ldz, int nc, index_t r0, index_t r1, T* Zs) {
    for (index_t r = r0; r < r1; ++r)
      for (int j = 0; j < NC; ++j)
        Zs[r * kRow + j] = j < nc ? Z[r + j * ldz] : T(0);
  }
  EIGSOLVE_Q2_FN void scatter(const T* Zs, int nc, index_t r0, index_t r1, T* Z, index_t ldz) {
    for (index_t r = r0; r < r1; ++r)
      for (int j = 0; j < nc; ++j)
        Z[r + j * ldz] = Zs[r * kRow + j];
  }
};

#endif  // EIGSOLVE_Q2_SIMD

/// P's axpy (pending, u known) and N's dot (s from +0) over the scratch: the rows only P has, the
/// rows both have (P's update of a row, then N's term of it), the rows only N has, in ascending
/// order; N's chain sees every row after P's update and takes its terms in ascending order.
template <class K, class T>
EIGSOLVE_Q2_TARGET __attribute__((always_inline)) inline void axpy_then_dot(
    typename K::Elem* Zs, const Refl<T>& P, const typename K::Acc& u, const Refl<T>& N,
    typename K::Acc& s) {
  const index_t p1 = P.r0 + P.len, n1 = N.r0 + N.len;
  const index_t o0 = std::max(P.r0, N.r0), o1 = std::min(p1, n1);
  if (o0 >= o1) {  // disjoint rows: independent
    K::axpy(Zs + P.r0 * K::kRow, P.len, P.v, u);
    K::dot(Zs + N.r0 * K::kRow, N.len, N.v, s);
    return;
  }
  if (P.r0 < o0)
    K::axpy(Zs + P.r0 * K::kRow, o0 - P.r0, P.v, u);
  else if (N.r0 < o0)
    K::dot(Zs + N.r0 * K::kRow, o0 - N.r0, N.v, s);
  K::fused(Zs + o0 * K::kRow, o1 - o0, P.v + (o0 - P.r0), u, N.v + (o0 - N.r0), s);
  if (p1 > o1)
    K::axpy(Zs + o1 * K::kRow, p1 - o1, P.v + (o1 - P.r0), u);
  else if (n1 > o1)
    K::dot(Zs + o1 * K::kRow, n1 - o1, N.v + (o1 - N.r0), s);
}

/// Every reflector on one block's scratch (rows 1 .. n-1 hold Z's rows), in the group schedule
/// of householder/two_stage_vectors.cpp, each reflector's axpy fused with the next one's dot.
template <class K, class T>
EIGSOLVE_Q2_TARGET void apply_block(index_t n, index_t b, const T* V2, index_t ldv2, const T* tau2,
                                    index_t ldt2, index_t G, index_t D, typename K::Elem* Zs) {
  const index_t ns = n - 1;  // sweeps 0 .. n-2
  typename K::Acc u, s;
  K::zero(u);  // set by make_u before its first use
  Refl<T> P;
  bool pending = false;
  for (index_t g = (ns - 1) / G; g >= 0; --g) {
    const index_t i0 = g * G, i1 = std::min(i0 + G, ns);
    const index_t levels = (n - 1 - i0 + b - 1) / b;  // of sweep i0, the group's most
    for (index_t k = 0; k < levels; ++k) {
      // Sweep i has level k iff i + 1 + kb <= n - 1.
      for (index_t i = std::min(i1, n - 1 - k * b) - 1; i >= i0; --i) {
        Refl<T> N;
        N.r0 = i + 1 + k * b;
        N.len = std::min(i + (k + 1) * b, n - 1) - N.r0 + 1;
        N.v = V2 + N.r0 + i * ldv2;
        N.tau = tau2[k + i * ldt2];
        if (D > 0 && i - D >= i0) prefetch(V2 + (N.r0 - D) + (i - D) * ldv2, N.len);
        K::zero(s);
        if (pending)
          axpy_then_dot<K>(Zs, P, u, N, s);
        else
          K::dot(Zs + N.r0 * K::kRow, N.len, N.v, s);
        K::make_u(N.tau, s, u);
        P = N;
        pending = true;
      }
    }
  }
  if (pending) K::axpy(Zs + P.r0 * K::kRow, P.len, P.v, u);
}

/// Column blocks [blk0, blk1) of Z (K::kCols columns each, the last one maybe narrower): each
/// copied into the scratch Zs (n * K::kRow elements), transformed, copied back.
template <class K, class T>
EIGSOLVE_Q2_TARGET void apply_blocks(index_t n, index_t b, const T* V2, index_t ldv2, const T* tau2,
                                     index_t ldt2, index_t G, index_t D, index_t m, T* Z,
                                     index_t ldz, index_t blk0, index_t blk1,
                                     typename K::Elem* Zs) {
  constexpr index_t NC = K::kCols;
  for (index_t blk = blk0; blk < blk1; ++blk) {
    const index_t j0 = blk * NC;
    const int nc = static_cast<int>(std::min(NC, m - j0));
    // Row 0 of Z never changes (every reflector starts at row >= 1).
    K::gather(Z + j0 * ldz, ldz, nc, 1, n, Zs);
    apply_block<K>(n, b, V2, ldv2, tau2, ldt2, G, D, Zs);
    K::scatter(Zs, nc, 1, n, Z + j0 * ldz, ldz);
  }
}

#undef EIGSOLVE_Q2_FN

}  // namespace EIGSOLVE_Q2_NS

#undef EIGSOLVE_Q2_NS
#undef EIGSOLVE_Q2_TARGET
#if defined(EIGSOLVE_Q2_SIMD)
#undef EIGSOLVE_Q2_SIMD
#endif
