// Blocked Householder tridiagonalization in the canonical order of
// docs/canonical-tridiagonalization.md (LAPACK ?sytrd/?hetrd with uplo = 'L').
//
//   columns:  | panel 0 (nb) | panel 1 (nb) | ... | unblocked tail (sytd2, >= nb + 1 columns) |
//   panel p:  for each column g = j0 + i of the panel
//               a(g:n, g) -= chain_k<i (V W^H + W V^H)       (per-element madd chain)
//               reflector (larfg.hpp); w = SYMV(A22_panel_start, v)      (symv_reference)
//               w = ((w - V (W^H v)) - W (V^H v)) * tau ; w += alpha v    (canonical dots)
//             A22 -= V W^H + W V^H (per-element madd chain over k ascending)
#include "householder/tridiagonalize.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "core/cpu_features.hpp"
#include "core/errors.hpp"
#include "core/parallel.hpp"
#include "householder/chain_dd512.hpp"
#include "householder/chain_window_avx2.hpp"
#include "householder/larfg.hpp"
#include "householder/rank2k.hpp"
#include "householder/update_kernels.hpp"
#include "symv/reference.hpp"
#include "symv/tile_kernels.hpp"

namespace eigsolve {
namespace {

using symv_detail::col_dots;
using symv_detail::contiguous_dot;
using symv_detail::row_dots;

/// Rows kept in registers by the update kernel (8 vector registers for float/double).
template <class T>
constexpr int kUpdRows = std::is_arithmetic<T>::value              ? int(256 / sizeof(T))
                         : std::is_same<T, Complex<double>>::value ? 16
                                                                   : 8;

/// Items per thread so that a thread gets at least ~kMinWork multiply-adds (tiny parallel
/// regions cost more than they save, worst when the cores are oversubscribed).
constexpr index_t kMinWork = index_t(1) << 15;
inline index_t grain_for(index_t work_per_item) {
  return std::max<index_t>(1, kMinWork / std::max<index_t>(1, work_per_item));
}

template <class T>
void make_real(T& a) {
  if constexpr (is_complex_v<T>) a.im = real_t<T>(0);
  (void)a;
}

/// Scalar chains for rows l < len (see chain_rows).
template <class T>
void chain_rows_scalar(int len, index_t kb, const T* V, index_t ldv, const T* W, index_t ldw,
                       const T* nw, const T* nv, T* a) {
  for (int l = 0; l < len; ++l) {
    T c = a[l];
    for (index_t k = 0; k < kb; ++k) {
      c = madd(V[l + ldv * k], nw[k], c);
      c = madd(W[l + ldw * k], nv[k], c);
    }
    a[l] = c;
  }
}

/// The chains of rows [lo, hi) of a window of R = kUpdRows rows (V, W, a point at the
/// window start; all R rows of V and W are readable): the full-width vector chains run on the
/// window, the lanes outside [lo, hi) start from 0, are never read from a and are discarded.
/// Every stored element gets exactly its own chain, so the bits are those of the scalar chains.
template <class T>
void chain_window(int lo, int hi, index_t kb, const T* V, index_t ldv, const T* W, index_t ldw,
                  const T* nw, const T* nv, T* a) {
  constexpr int R = kUpdRows<T>;
#if defined(EIGSOLVE_SYMV_AVX2)
  if constexpr (std::is_same<T, Complex<double>>::value) {
    hh_detail::chain_window_z(lo, hi, kb, V, ldv, W, ldw, nw, nv, a);
    return;
  }
  if constexpr (std::is_same<T, Complex<float>>::value) {
    hh_detail::chain_window_c(lo, hi, kb, V, ldv, W, ldw, nw, nv, a);
    return;
  }
#endif
  T c[R];
  for (int l = 0; l < R; ++l)
    c[l] = T(0);
  for (int l = lo; l < hi; ++l)
    c[l] = a[l];
  for (index_t k = 0; k < kb; ++k) {
    const T* vk = V + ldv * k;
    const T* wk = W + ldw * k;
    const T x = nw[k], y = nv[k];
    for (int l = 0; l < R; ++l) {
      c[l] = madd(vk[l], x, c[l]);
      c[l] = madd(wk[l], y, c[l]);
    }
  }
  for (int l = lo; l < hi; ++l)
    a[l] = c[l];
}

/// a[r] for r < len: for k ascending, a = madd(V[r + ldv k], nw[k], a);
/// a = madd(W[r + ldw k], nv[k], a), where nw[k] = -conj(w_jk), nv[k] = -conj(v_jk)
/// (the same bits as madd(-v_rk, conj(w_jk), a), madd(-w_rk, conj(v_jk), a)).
/// A full block of R = kUpdRows rows runs the vector chains of chain_window.
template <class T>
void chain_rows(int len, index_t kb, const T* V, index_t ldv, const T* W, index_t ldw, const T* nw,
                const T* nv, T* a) {
  if (len == kUpdRows<T>) {
    chain_window(0, len, kb, V, ldv, W, ldw, nw, nv, a);
    return;
  }
  chain_rows_scalar(len, kb, V, ldv, W, ldw, nw, nv, a);
}

/// Whether partial spans run as a full vector window (lanes outside are wasted work: worth it
/// for hardware scalars, not for dd_real whose chains are scalar software arithmetic).
template <class T>
constexpr bool kVectorWindow = std::is_arithmetic<T>::value || is_complex_v<T>;

/// Rows [r0, re) of one column (r0 <= re <= m, rows < m of V/W readable): the vector window
/// when m >= R (shifted up at the bottom edge), else scalar chains.
template <class T>
void chain_span(index_t r0, index_t re, index_t m, index_t kb, const T* V, index_t ldv, const T* W,
                index_t ldw, const T* nw, const T* nv, T* a) {
  constexpr int R = kUpdRows<T>;
  if (re - r0 == R) {
    chain_rows(R, kb, V + r0, ldv, W + r0, ldw, nw, nv, a + r0);
  } else if (kVectorWindow<T> && m >= R) {
    const index_t w0 = std::min(r0, m - R);
    chain_window(static_cast<int>(r0 - w0), static_cast<int>(re - w0), kb, V + w0, ldv, W + w0, ldw,
                 nw, nv, a + w0);
  } else {
    chain_rows_scalar(static_cast<int>(re - r0), kb, V + r0, ldv, W + r0, ldw, nw, nv, a + r0);
  }
}

using hh_detail::prefetch_rows;
#if defined(EIGSOLVE_SYMV_AVX2)
using hh_detail::blocked_update;
using hh_detail::kBlockedUpdate;
using hh_detail::kBlockedUpdateC;
#endif

}  // namespace

namespace hh_detail {

/// The rank-2k update of householder/rank2k.hpp. NW/NV (kb x m, column j holds -conj(w_j.) /
/// -conj(v_j.)) are workspace filled here, by the thread that owns column j. Threads take column
/// blocks (paired from both ends for balance); one parallel region per update.
template <class T>
void rank2k_update(int nthreads, index_t m, index_t kb, const T* V, index_t ldv, const T* W,
                   index_t ldw, T* A22, index_t lda, T* NW, T* NV) {
  if (m <= 0 || kb <= 0) return;
  constexpr int R = kUpdRows<T>;
  constexpr index_t kColBlock = 64;
  const index_t nblk = (m + kColBlock - 1) / kColBlock;
  const index_t items = (nblk + 1) / 2;
  parallel_for(items, nthreads, grain_for(2 * kColBlock * m * kb), [&](index_t b, index_t e) {
    for (index_t item = b; item < e; ++item) {
      for (int side = 0; side < 2; ++side) {
        const index_t blk = side == 0 ? item : nblk - 1 - item;
        if (side == 1 && blk == item) break;
        const index_t jb = blk * kColBlock, je = std::min(m, jb + kColBlock);
        // The negated conjugates of this block's columns (only this block reads them).
        for (index_t j = jb; j < je; ++j)
          for (index_t k = 0; k < kb; ++k) {
            NW[k + kb * j] = -conj(W[j + ldw * k]);
            NV[k + kb * j] = -conj(V[j + ldv * k]);
          }
#if defined(EIGSOLVE_SYMV_AVX2)
        if constexpr (kBlockedUpdate<T> || kBlockedUpdateC<T>) {
          if (blocked_update(m, kb, V, ldv, W, ldw, A22, lda, NW, NV, jb, je)) continue;
        }
#endif
        for (index_t ib = jb; ib < m; ib += R) {
          const index_t ie = std::min(m, ib + R);
          const index_t pn = std::min(m, ie + R);
          if (ie < m) {
            for (index_t k = 0; k < kb; ++k) {
              prefetch_rows(V + ldv * k, ie, pn);
              prefetch_rows(W + ldw * k, ie, pn);
            }
          }
          index_t j = jb;
#if defined(EIGSOLVE_DD_AVX512)
          if constexpr (std::is_same<T, dd_real>::value) {
            // dd on AVX-512: the full 8-row windows (columns j <= ib), up to 4 columns at once.
            if (ie - ib == R && has_avx512f()) {
              const index_t jf = std::min(je, ib + 1);
              while (j < jf) {
                const int nc = static_cast<int>(std::min<index_t>(kMaxDdChains, jf - j));
                if (ie < m)
                  for (int q = 0; q < nc; ++q)
                    prefetch_rows(A22 + lda * (j + q), ie, pn);
                chains_dd512_n<DdChains::Cols>(nc, kb, V + ib, ldv, W + ib, ldw, NW + kb * j,
                                               NV + kb * j, kb, A22 + ib + lda * j, lda);
                j += nc;
              }
            }
          }
#endif
          for (; j < je && j < ie; ++j) {
            if (ie < m) prefetch_rows(A22 + lda * j, ie, pn);
            const index_t r0 = std::max(ib, j);
            chain_span(r0, ie, m, kb, V, ldv, W, ldw, NW + kb * j, NV + kb * j, A22 + lda * j);
            if (r0 == j) make_real(A22[j + lda * j]);
          }
        }
      }
    }
  });
}

/// The panel's column update (householder/rank2k.hpp): blocks of R rows, threads take ranges of
/// blocks; dd on AVX-512 runs up to 4 full blocks at once.
template <class T>
void column_update(int nthreads, index_t len, index_t kb, const T* V, index_t ldv, const T* W,
                   index_t ldw, const T* nw, const T* nv, T* a) {
  if (len <= 0) return;
  constexpr int R = kUpdRows<T>;
  const index_t blocks = (len + R - 1) / R;
  parallel_for(blocks, nthreads, grain_for(2 * R * kb), [&](index_t b, index_t e) {
    for (index_t q = b; q < e;) {
      const index_t r0 = q * R;
#if defined(EIGSOLVE_DD_AVX512)
      if constexpr (std::is_same<T, dd_real>::value) {
        if (r0 + R <= len && has_avx512f()) {
          const index_t full = std::min(e, len / R) - q;  // full blocks from q in this range
          const int nc = static_cast<int>(std::min<index_t>(kMaxDdChains, full));
          chains_dd512_n<DdChains::Rows>(nc, kb, V + r0, ldv, W + r0, ldw, nw, nv, 0, a + r0, 0);
          q += nc;
          continue;
        }
      }
#endif
      chain_span(r0, std::min<index_t>(len, r0 + R), len, kb, V, ldv, W, ldw, nw, nv, a);
      ++q;
    }
  });
}

#define EIGSOLVE_INSTANTIATE_RANK2K(T)                                                            \
  template void rank2k_update<T>(int, index_t, index_t, const T*, index_t, const T*, index_t, T*, \
                                 index_t, T*, T*);                                                \
  template void column_update<T>(int, index_t, index_t, const T*, index_t, const T*, index_t,     \
                                 const T*, const T*, T*);
EIGSOLVE_FOR_EACH_SCALAR(EIGSOLVE_INSTANTIATE_RANK2K)
#undef EIGSOLVE_INSTANTIATE_RANK2K

}  // namespace hh_detail

namespace {

using hh_detail::rank2k_update;

template <class T>
struct Workspace {
  std::vector<T> W;       // n x nb panel matrix (ldw = n)
  std::vector<T> NW, NV;  // nb x n negated conjugates for the update
  std::vector<T> y;       // n, the unblocked tail's w
  std::vector<T> t;       // 2 nb, W^H v and V^H v
  std::vector<T> wp;      // n / 64 + 1, tile partials of w^H v
};

/// The latrd panel: columns [j0, j0 + nb) of A, W(:, 0..nb) filled.
template <class T>
void panel(const Context& ctx, index_t n, index_t j0, index_t nb, T* A, index_t lda, real_t<T>* e,
           T* tau, Workspace<T>& ws, TridiagDevice<T>* dev) {
  const int nt = ctx.num_threads();
  T* W = ws.W.data();
  const index_t ldw = n;
  T* t1 = ws.t.data();
  T* t2 = ws.t.data() + nb;
  auto a = [&](index_t r, index_t c) -> T& { return A[r + lda * c]; };
  for (index_t i = 0; i < nb; ++i) {
    const index_t g = j0 + i;
    // a(g:n, g) -= sum_{k<i} v_rk conj(w_gk) + w_rk conj(v_gk) (element chains).
    make_real(a(g, g));
    if (i > 0) {
      for (index_t k = 0; k < i; ++k) {
        ws.NW[k] = -conj(W[g + ldw * k]);
        ws.NV[k] = -conj(a(g, j0 + k));
      }
      // Rows g .. n-1 of the column (relative to g: the window never reaches above g).
      hh_detail::column_update(nt, n - g, i, &a(g, j0), lda, W + g, ldw, ws.NW.data(), ws.NV.data(),
                               &a(g, g));
    }
    make_real(a(g, g));
    // Reflector annihilating a(g+2:n, g).
    T alpha = a(g + 1, g);
    tau[g] = hh_detail::larfg(n - g - 1, alpha, &a(std::min(g + 2, n - 1), g));
    e[g] = real_part(alpha);
    a(g + 1, g) = T(1);
    const index_t m = n - g - 1;
    const T* v = &a(g + 1, g);
    T* w = W + (g + 1) + ldw * i;
    if (dev)
      dev->symv(g + 1, m, v, w);
    else
      symv_reference(ctx, m, T(1), &a(g + 1, g + 1), lda, v, T(0), w);
    if (i > 0) {
      // t1 = W^H v, t2 = V^H v over rows g+1..n-1 (canonical dots), groups of 8 columns
      // (col_dots: float/double columns in vector lanes, the same chains).
      constexpr index_t G = 8;
      const index_t ng = (i + G - 1) / G;
      parallel_for(2 * ng, nt, grain_for(G * m), [&](index_t b, index_t e2) {
        for (index_t q = b; q < e2; ++q) {
          const index_t c0 = (q < ng ? q : q - ng) * G, nq = std::min(G, i - c0);
          if (q < ng)
            col_dots(m, nq, W + (g + 1) + ldw * c0, ldw, v, t1 + c0);
          else
            col_dots(m, nq, &a(g + 1, j0 + c0), lda, v, t2 + c0);
        }
      });
    }
    // w_r = (w_r - dot_k(V_r, t1)) - dot_k(W_r, t2) (i > 0), then w_r = tau * w_r; and per
    // tile of 64 rows (those of contiguous_dot from row g+1) the canonical partial of w^H v.
    const T tg = tau[g];
    T* wp = ws.wp.data();
    const index_t ntl = (m + kTile - 1) / kTile;
    parallel_for(ntl, nt, grain_for(4 * kTile * std::max<index_t>(i, 1)),
                 [&](index_t b, index_t e2) {
                   T d1[kTile], d2[kTile];
                   for (index_t q = b; q < e2; ++q) {
                     const index_t r0 = q * kTile, nr = std::min<index_t>(kTile, m - r0);
                     if (i > 0) {
                       row_dots(nr, i, &a(g + 1 + r0, j0), lda, t1, d1);
                       row_dots(nr, i, W + (g + 1 + r0), ldw, t2, d2);
                       for (index_t r = 0; r < nr; ++r)
                         w[r0 + r] = tg * ((w[r0 + r] - d1[r]) - d2[r]);
                     } else {
                       for (index_t r = 0; r < nr; ++r)
                         w[r0 + r] = tg * w[r0 + r];
                     }
                     wp[q] = contiguous_dot<true>(nr, w + r0, v + r0);  // one tile: its partial
                   }
                 });
    // w += alpha v with alpha = (-1/2 tau) (w^H v): the tile partials summed in ascending
    // order, the bits of contiguous_dot<true>(m, w, v).
    T whv = wp[0];
    for (index_t q = 1; q < ntl; ++q)
      whv = whv + wp[q];
    const T al = (T(-0.5) * tau[g]) * whv;
    for (index_t r = 0; r < m; ++r)
      w[r] = madd(al, v[r], w[r]);
  }
}

/// The unblocked tail (sytd2/hetd2) on columns [j0, n).
template <class T>
void unblocked(const Context& ctx, index_t n, index_t j0, T* A, index_t lda, real_t<T>* d,
               real_t<T>* e, T* tau, Workspace<T>& ws) {
  auto a = [&](index_t r, index_t c) -> T& { return A[r + lda * c]; };
  make_real(a(j0, j0));
  T* y = ws.y.data();
  for (index_t g = j0; g + 1 < n; ++g) {
    T alpha = a(g + 1, g);
    const T taui = hh_detail::larfg(n - g - 1, alpha, &a(std::min(g + 2, n - 1), g));
    e[g] = real_part(alpha);
    const index_t m = n - g - 1;
    if (taui != T(0)) {
      a(g + 1, g) = T(1);
      const T* v = &a(g + 1, g);
      symv_reference(ctx, m, taui, &a(g + 1, g + 1), lda, v, T(0), y);
      const T al = (T(-0.5) * taui) * contiguous_dot<true>(m, y, v);
      for (index_t r = 0; r < m; ++r)
        y[r] = madd(al, v[r], y[r]);
      rank2k_update(ctx.num_threads(), m, index_t(1), v, lda, y, m, &a(g + 1, g + 1), lda,
                    ws.NW.data(), ws.NV.data());
    } else {
      make_real(a(g + 1, g + 1));
    }
    a(g + 1, g) = T(e[g]);
    d[g] = real_part(a(g, g));
    tau[g] = taui;
  }
  d[n - 1] = real_part(a(n - 1, n - 1));
}

}  // namespace

template <class T>
void tridiagonalize(const Context& ctx, index_t n, T* A, index_t lda, real_t<T>* d, real_t<T>* e,
                    T* tau, const TridiagOptions& opt, TridiagDevice<T>* dev) {
  if (n < 0) throw DimensionError("tridiagonalize: n = " + std::to_string(n) + " < 0");
  if (lda < std::max<index_t>(1, n))
    throw DimensionError("tridiagonalize: lda = " + std::to_string(lda) + " < max(1, n)");
  if (opt.nb < 1) throw UsageError("tridiagonalize: nb = " + std::to_string(opt.nb) + " < 1");
  if (n == 0) return;
  const index_t nb = opt.nb;
  // Panels while more than nx = nb columns remain (LAPACK's NX for nb = 32); nb = 1 or
  // nb >= n: unblocked throughout.
  const bool blocked = nb > 1 && nb < n;
  Workspace<T> ws;
  try {
    const index_t kb = blocked ? nb : 1;
    if (blocked) ws.W.assign(static_cast<std::size_t>(n * nb), T(0));
    ws.NW.assign(static_cast<std::size_t>(kb * n), T(0));
    ws.NV.assign(static_cast<std::size_t>(kb * n), T(0));
    ws.y.assign(static_cast<std::size_t>(n), T(0));
    ws.t.assign(static_cast<std::size_t>(2 * kb), T(0));
    ws.wp.assign(static_cast<std::size_t>(n / kTile + 1), T(0));
  } catch (const std::bad_alloc&) {
    throw OutOfMemory("tridiagonalize workspace",
                      static_cast<std::uint64_t>((2 * nb + 2) * n) * sizeof(T));
  }
  index_t j0 = 0;
  if (blocked && dev && dev->device_panels()) {
    for (; j0 < n - nb; j0 += nb) {
      dev->device_panel(j0, nb);
      if (opt.progress) opt.progress(j0 + nb, n);
    }
    dev->fetch_panels(j0, A, lda, d, e, tau, opt.reflectors);
  } else if (blocked) {
    for (; j0 < n - nb; j0 += nb) {
      if (dev) dev->fetch_panel(j0, nb, A, lda);
      panel(ctx, n, j0, nb, A, lda, e, tau, ws, dev);
      const index_t s = j0 + nb, m = n - s;
      if (dev)
        dev->update(s, m, nb, A + s + lda * j0, lda, ws.W.data() + s, n);
      else
        rank2k_update(ctx.num_threads(), m, nb, A + s + lda * j0, lda, ws.W.data() + s, n,
                      A + s + lda * s, lda, ws.NW.data(), ws.NV.data());
      for (index_t j = j0; j < s; ++j) {
        A[(j + 1) + lda * j] = T(e[j]);
        d[j] = real_part(A[j + lda * j]);
      }
      if (opt.progress) opt.progress(s, n);
    }
  }
  if (dev) dev->fetch_tail(j0, A, lda);
  unblocked(ctx, n, j0, A, lda, d, e, tau, ws);
  if (opt.progress) opt.progress(n, n);
}

#define EIGSOLVE_INSTANTIATE_TRIDIAG(T)                                                         \
  template void tridiagonalize<T>(const Context&, index_t, T*, index_t, real_t<T>*, real_t<T>*, \
                                  T*, const TridiagOptions&, TridiagDevice<T>*);
EIGSOLVE_FOR_EACH_SCALAR(EIGSOLVE_INSTANTIATE_TRIDIAG)
#undef EIGSOLVE_INSTANTIATE_TRIDIAG

}  // namespace eigsolve
