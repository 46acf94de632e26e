// Back-transformation and sign normalization (solver/back_transform.hpp). The canonical order
// (docs/canonical-backtransform.md):
//
//   Q = H(0) H(1) ... H(n-2) = Q_0 Q_1 ... Q_{B-1},  Q_b = H(32b) ... H(32b+k-1) = I - V T V^H
//   for b = B-1 down to 0:                                 (rows i0+1 .. n-1 of Z, i0 = 32b)
//     V   = L x k, column c = [0 .. 0, 1, A(i0+c+2 : n, i0+c)]   (L = n-i0-1, unit in row c)
//     T   = k x k upper: T_cc = tau_c; T_rc = chain_q=r..c-1 T_rq ((-tau_c) g_qc),
//           g_qc = canonical_dot(conj(V(:,q)), V(:,c))
//     W   = V^H Z        w_cj = canonical_dot(conj(V(:,c)), Z(:,j))   (tiles from row i0+1)
//     NY  = -(T W)       ny_cj = -(chain_q=c..k-1 T_cq w_qj)
//     Z  += V NY         z_rj = chain_c=0..k-1 madd(v_rc, ny_cj, z_rj)
//   (chain = s = 0 (or z); s = madd(a, b, s) in the index order shown)
//
// Threads split the columns of Z; each column's bits are those of this definition whichever
// thread computes it and whether the AVX2 kernels (solver/back_transform_kernels.hpp) or the
// scalar code below do.
#include "solver/back_transform.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "core/canonical.hpp"
#include "core/cpu_features.hpp"
#include "core/errors.hpp"
#include "core/neg_rounded.hpp"
#include "core/parallel.hpp"
#include "solver/back_transform_cuda.hpp"
#include "solver/back_transform_dd512.hpp"
#include "solver/back_transform_kernels.hpp"
#include "solver/lapack.hpp"

namespace eigsolve {

const char* back_transform_name(BackTransformMethod m) {
  return m == BackTransformMethod::lapack     ? "lapack"
         : m == BackTransformMethod::cusolver ? "cusolver"
                                              : "canonical";
}

BackTransformMethod parse_back_transform(const char* s) {
  const std::string v(s);
  if (v == "canonical") return BackTransformMethod::canonical;
  if (v == "lapack") return BackTransformMethod::lapack;
  if (v == "cusolver") return BackTransformMethod::cusolver;
  throw UsageError("unknown back-transformation '" + v +
                   "' (expected canonical, lapack or cusolver)");
}

namespace {

/// V of the block at reflector i0 (k reflectors, L = n-i0-1 rows): column c of Vp (ld L) is
/// zero above row c, 1 at row c, A(i0+1+r, i0+c) below.
template <class T>
void pack_v(index_t n, const T* A, index_t lda, index_t i0, index_t k, T* Vp) {
  const index_t L = n - i0 - 1;
  for (index_t c = 0; c < k; ++c) {
    T* v = Vp + L * c;
    for (index_t r = 0; r < c; ++r)
      v[r] = T(0);
    v[c] = T(1);
    const T* a = A + (i0 + 1) + (i0 + c) * lda;
    for (index_t r = c + 1; r < L; ++r)
      v[r] = a[r];
  }
}

/// The T factor (k x k, ld k, upper; below the diagonal zero) of the block (LAPACK ?larft
/// 'F', 'C' structure, our order): see the top of the file.
template <class T>
void t_factor(const Context& ctx, index_t L, index_t k, const T* Vp, const T* tau, T* Tm) {
  std::vector<T> G(static_cast<std::size_t>(k * k), T(0));
  parallel_for(k, ctx.num_threads(), 4, [&](index_t cb, index_t ce) {
    for (index_t c = cb; c < ce; ++c)
      for (index_t r = 0; r < c; ++r)
        G[r + k * c] = canonical_dot<true>(L, Vp + L * r, index_t(1), Vp + L * c, index_t(1));
  });
  std::vector<T> x(static_cast<std::size_t>(k));
  for (index_t c = 0; c < k; ++c) {
    for (index_t r = c + 1; r < k; ++r)
      Tm[r + k * c] = T(0);
    Tm[c + k * c] = tau[c];
    if (tau[c] == T(0)) {
      for (index_t r = 0; r < c; ++r)
        Tm[r + k * c] = T(0);
      continue;
    }
    const T nt = -tau[c];
    for (index_t q = 0; q < c; ++q)
      x[q] = nt * G[q + k * c];
    for (index_t r = 0; r < c; ++r) {
      T s = T(0);
      for (index_t q = r; q < c; ++q)
        s = madd(Tm[r + k * q], x[q], s);
      Tm[r + k * c] = s;
    }
  }
}

/// Columns per group of one thread (Z rows of a group stay in L2 between steps 1 and 3).
constexpr index_t kGroupCols = 24;

/// Whether T runs the AVX2 kernels.
template <class T>
constexpr bool kVector =
#if defined(EIGSOLVE_SYMV_AVX2)
    std::is_same<real_t<T>, double>::value || std::is_same<real_t<T>, float>::value;
#else
    false;
#endif

/// Whether dd runs steps 1 and 3 on AVX-512 (solver/back_transform_dd512.hpp; P packed as for
/// the real AVX2 kernels).
template <class T>
bool dd_lanes() {
#if defined(EIGSOLVE_DD_AVX512)
  if constexpr (std::is_same<T, dd_real>::value) return has_avx512f();
#endif
  return false;
}

/// Rows of step 1's lane-parallel pack (c padded to kp, see pack_rows) per block.
template <class T>
void pack_rows(index_t L, index_t k, index_t kp, const T* Vp, real_t<T>* P) {
  using Rl = real_t<T>;
  if constexpr (is_complex_v<T>) {
    // Row r: term 0 = (a.re, a.re) per c, term 1 = (a.im, a.im), a = conj(v_rc).
    const index_t pld = 2 * kp;
    for (index_t r = 0; r < L; ++r) {
      Rl* p0 = P + pld * (2 * r);
      Rl* p1 = p0 + pld;
      for (index_t c = 0; c < kp; ++c) {
        const T v = c < k ? Vp[r + L * c] : T(0);
        p0[2 * c] = p0[2 * c + 1] = v.re;
        p1[2 * c] = p1[2 * c + 1] = -v.im;
      }
    }
  } else {
    for (index_t r = 0; r < L; ++r)
      for (index_t c = 0; c < kp; ++c)
        P[kp * r + c] = c < k ? Vp[r + L * c] : T(0);
  }
}

/// Complex: the (re, re) and (im, im) duplicates of each column of V for step 3's lanes,
/// D + 2L (2c + t) + 2r (t = 0: re, 1: im). A copy: no value changes.
template <class T>
void pack_dup(index_t L, index_t k, const T* Vp, real_t<T>* D) {
  if constexpr (is_complex_v<T>) {
    for (index_t c = 0; c < k; ++c) {
      real_t<T>* dr = D + 2 * L * (2 * c);
      real_t<T>* di = dr + 2 * L;
      for (index_t r = 0; r < L; ++r) {
        const T v = Vp[r + L * c];
        dr[2 * r] = dr[2 * r + 1] = v.re;
        di[2 * r] = di[2 * r + 1] = v.im;
      }
    }
  } else {
    (void)L, (void)k, (void)Vp, (void)D;
  }
}

/// Steps 1-3 of one block on the columns [j0, j0+nc) of Z (rows i0+1 ..). W, NY, NYR: kp * nc.
template <class T>
void block_columns(index_t L, index_t k, index_t kp, const T* Vp, const real_t<T>* P,
                   const real_t<T>* VD, const T* Tm, T* Zb, index_t ldz, index_t nc, T* W, T* NY,
                   T* NYR) {
  // Step 1: W = V^H Z.
  bool done1 = false;
#if defined(EIGSOLVE_SYMV_AVX2)
  if constexpr (kVector<T>) {
    using Sh = bt_detail::Shape<T>;
    using Rl = real_t<T>;
    constexpr index_t kGroup = bt_detail::kStep1Vecs * Sh::kPerReg;  // c per group
    const index_t pld = Sh::kE * kp;
    Rl* Wr = reinterpret_cast<Rl*>(W);
    // Slabs of rows whose packed P (~256 KiB) stays in L2 while every column and c-group of the
    // call passes over it (P of the whole block, ~L KiB in z, is read from L3 otherwise, once
    // per column triple and group); each (c, j) sum continues from slab to slab in tile order.
    const index_t kSlab = std::max<index_t>(
        64, (index_t(256) << 10) / (Sh::kE * pld * index_t(sizeof(Rl))) / 64 * 64);
    for (index_t s0 = 0; s0 < L; s0 += kSlab) {
      const index_t s1 = std::min(L, s0 + kSlab);
      for (index_t jj = 0; jj < nc; jj += bt_detail::kStep1Cols) {
        const int nj = static_cast<int>(std::min<index_t>(bt_detail::kStep1Cols, nc - jj));
        const T* zp[bt_detail::kStep1Cols];
        for (int j = 0; j < nj; ++j)
          zp[j] = Zb + ldz * (jj + j);
        for (index_t g = 0; g < kp; g += kGroup) {
          const Rl* Pg = P + Sh::kE * g;
          Rl* out = Wr + Sh::kE * (kp * jj + g);
          if (nj == 3)
            bt_detail::step1_group<T, 3>(L, s0, s1, Pg, pld, zp, out, Sh::kE * kp);
          else if (nj == 2)
            bt_detail::step1_group<T, 2>(L, s0, s1, Pg, pld, zp, out, Sh::kE * kp);
          else
            bt_detail::step1_group<T, 1>(L, s0, s1, Pg, pld, zp, out, Sh::kE * kp);
        }
      }
    }
    done1 = true;
  }
#endif
#if defined(EIGSOLVE_DD_AVX512)
  if constexpr (std::is_same<T, dd_real>::value) {
    if (dd_lanes<T>()) {  // 8 reflectors in the lanes, per column of Z
      for (index_t j = 0; j < nc; ++j)
        for (index_t c0 = 0; c0 < k; c0 += 8)
          bt_dd512::step1_group(L, P + c0, kp, Zb + ldz * j, W + c0 + kp * j);
      done1 = true;
    }
  }
#endif
  (void)P;
  if (!done1)
    for (index_t j = 0; j < nc; ++j)
      for (index_t c = 0; c < k; ++c)
        W[c + kp * j] = canonical_dot<true>(L, Vp + L * c, index_t(1), Zb + ldz * j, index_t(1));
  // Step 2: NY = -(T W).
  for (index_t j = 0; j < nc; ++j)
    for (index_t c = 0; c < k; ++c) {
      T s = T(0);
      for (index_t q = c; q < k; ++q)
        s = madd(Tm[c + k * q], W[q + kp * j], s);
      // ny = -s, the rounded chain negated (core/neg_rounded.hpp: never a folded fnmsub).
      const T ny = neg_rounded(s);
      NY[c + kp * j] = ny;
      if constexpr (is_complex_v<T>) NYR[c + kp * j] = T(-ny.im, ny.re);
    }
    // Step 3: Z += V NY.
#if defined(EIGSOLVE_SYMV_AVX2)
  if constexpr (kVector<T>) {
    constexpr index_t R = bt_detail::kStep3Rows<T>;
    constexpr index_t E = bt_detail::Shape<T>::kE;
    constexpr index_t NC = bt_detail::kStep3C;
    if (L >= R) {
      for (index_t ib = 0; ib < L; ib += R) {
        const index_t w0 = std::min(ib, L - R);
        const int lo = static_cast<int>(ib - w0);
        for (index_t jj = 0; jj < nc; jj += NC) {
          const T* ny[2] = {NY + kp * jj, NYR + kp * jj};
          T* z = Zb + w0 + ldz * jj;
          switch (std::min(NC, nc - jj)) {
            case 4:
              bt_detail::step3_tile<T, 4>(k, VD + E * w0, E * L, ny, kp, z, ldz, lo);
              break;
            case 3:
              bt_detail::step3_tile<T, 3>(k, VD + E * w0, E * L, ny, kp, z, ldz, lo);
              break;
            case 2:
              bt_detail::step3_tile<T, 2>(k, VD + E * w0, E * L, ny, kp, z, ldz, lo);
              break;
            default:
              bt_detail::step3_tile<T, 1>(k, VD + E * w0, E * L, ny, kp, z, ldz, lo);
          }
        }
      }
      return;
    }
  }
#endif
  (void)NYR, (void)VD;
  index_t rs = 0;  // rows [0, rs) done by the vector kernel
#if defined(EIGSOLVE_DD_AVX512)
  if constexpr (std::is_same<T, dd_real>::value) {
    if (dd_lanes<T>()) {  // 8 rows in the lanes, up to 4 columns of Z at once
      for (; rs + 8 <= L; rs += 8)
        for (index_t jj = 0; jj < nc; jj += 4) {
          const T* ny = NY + kp * jj;
          T* z = Zb + rs + ldz * jj;
          switch (std::min<index_t>(4, nc - jj)) {
            case 4:
              bt_dd512::step3_rows8<4>(k, Vp + rs, L, ny, kp, z, ldz);
              break;
            case 3:
              bt_dd512::step3_rows8<3>(k, Vp + rs, L, ny, kp, z, ldz);
              break;
            case 2:
              bt_dd512::step3_rows8<2>(k, Vp + rs, L, ny, kp, z, ldz);
              break;
            default:
              bt_dd512::step3_rows8<1>(k, Vp + rs, L, ny, kp, z, ldz);
          }
        }
    }
  }
#endif
  for (index_t j = 0; j < nc; ++j) {
    T* z = Zb + ldz * j;
    for (index_t r = rs; r < L; ++r) {
      T s = z[r];
      for (index_t c = 0; c < k; ++c)
        s = madd(Vp[r + L * c], NY[c + kp * j], s);
      z[r] = s;
    }
  }
}

}  // namespace

template <class T>
void apply_q_canonical(const Context& ctx, index_t n, const T* A, index_t lda, const T* tau,
                       index_t m, T* Z, index_t ldz) {
  if (n <= 1 || m <= 0) return;
  if (lda < n || ldz < n) throw DimensionError("apply_q_canonical: lda or ldz < n");
  constexpr index_t kB = kBackTransformBlock;
  const index_t nrefl = n - 1, nblocks = (nrefl + kB - 1) / kB;
  constexpr index_t kp = kB;  // c padded to the block size (a multiple of every c-group)
  const index_t lmax = n - 1;
  std::vector<T> Vp(static_cast<std::size_t>(lmax * kB)), Tm(static_cast<std::size_t>(kB * kB));
  std::vector<real_t<T>> P, D;
  if (kVector<T> || dd_lanes<T>())
    P.resize(static_cast<std::size_t>(lmax * kp * (is_complex_v<T> ? 4 : 1)));
  if (kVector<T> && is_complex_v<T>) D.resize(static_cast<std::size_t>(lmax * kB * 4));
  for (index_t b = nblocks - 1; b >= 0; --b) {
    const index_t i0 = kB * b, k = std::min(kB, nrefl - i0), L = n - i0 - 1;
    pack_v(n, A, lda, i0, k, Vp.data());
    t_factor(ctx, L, k, Vp.data(), tau + i0, Tm.data());
    if (kVector<T> || dd_lanes<T>()) pack_rows(L, k, kp, Vp.data(), P.data());
    if (kVector<T> && is_complex_v<T>) pack_dup(L, k, Vp.data(), D.data());
    parallel_for(m, ctx.num_threads(), 4, [&](index_t jb, index_t je) {
      std::vector<T> buf(static_cast<std::size_t>(3 * kp * kGroupCols));
      for (index_t j0 = jb; j0 < je; j0 += kGroupCols) {
        const index_t nc = std::min(kGroupCols, je - j0);
        const real_t<T>* vd =
            is_complex_v<T> ? D.data() : reinterpret_cast<const real_t<T>*>(Vp.data());
        block_columns(L, k, kp, Vp.data(), P.data(), vd, Tm.data(), Z + (i0 + 1) + ldz * j0, ldz,
                      nc, buf.data(), buf.data() + kp * kGroupCols,
                      buf.data() + 2 * kp * kGroupCols);
      }
    });
  }
}

template <class T>
void back_transform(const Context& ctx, index_t n, const T* A, index_t lda, const T* tau, index_t m,
                    T* Z, index_t ldz, BackTransformMethod method) {
  if (method == BackTransformMethod::lapack) {
    if constexpr (has_vendor_lapack_v<T>) {
      lapack::ormtr(n, m, A, lda, tau, Z, ldz);
      return;
    } else {
      throw UsageError("--back-transform lapack is not available for --precision dd");
    }
  }
  if (method == BackTransformMethod::cusolver) {
    if constexpr (has_vendor_lapack_v<T>) {
      ormtr_cusolver(n, m, A, lda, tau, Z, ldz);
      return;
    } else {
      throw UsageError("--back-transform cusolver is not available for --precision dd");
    }
  }
  apply_q_canonical(ctx, n, A, lda, tau, m, Z, ldz);
}

template <class T>
void normalize_signs(const Context& ctx, index_t n, index_t m, T* Z, index_t ldz) {
  using R = real_t<T>;
  parallel_for(m, ctx.num_threads(), 16, [&](index_t jb, index_t je) {
    for (index_t j = jb; j < je; ++j) {
      T* z = Z + j * ldz;
      index_t k = 0;
      R best = R(-1);
      for (index_t i = 0; i < n; ++i) {
        const R a = abs2(z[i]);
        if (best < a) {
          best = a;
          k = i;
        }
      }
      if (n == 0) continue;
      if constexpr (is_complex_v<T>) {
        const R r = sqrt_(abs2(z[k]));
        if (!(r > R(0))) continue;
        const T s = conj(z[k]) / r;
        for (index_t i = 0; i < n; ++i)
          z[i] = z[i] * s;
        z[k] = T(r, R(0));
      } else {
        if (z[k] < R(0))
          for (index_t i = 0; i < n; ++i)
            z[i] = -z[i];
      }
    }
  });
}

#define EIGSOLVE_INSTANTIATE_BACK(T)                                                             \
  template void apply_q_canonical<T>(const Context&, index_t, const T*, index_t, const T*,       \
                                     index_t, T*, index_t);                                      \
  template void back_transform<T>(const Context&, index_t, const T*, index_t, const T*, index_t, \
                                  T*, index_t, BackTransformMethod);                             \
  template void normalize_signs<T>(const Context&, index_t, index_t, T*, index_t);
EIGSOLVE_FOR_EACH_SCALAR(EIGSOLVE_INSTANTIATE_BACK)
#undef EIGSOLVE_INSTANTIATE_BACK

}  // namespace eigsolve
