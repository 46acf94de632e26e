// SYMV / HEMV on the CPU in the canonical order of docs/canonical-symv.md.
//
//   stored tiles (I, J), J <= I            workspace P (nt x nt tile partials of 64 rows)
//   +----+                                  P(I, J) = partial of the rows of panel I from
//   | Dg |                                            tile column J (8 chunk chains + tree)
//   +----+----+                             stored tile (I, J), J < I, read ONCE gives
//   | S  | Dg |                               P(I, J) (direct) and P(J, I) (transposed, conj)
//   +----+----+----+                        diagonal tile gives P(I, I)
//   | S  | S  | Dg |                        then, per row: acc = P(R, 0); acc = acc + P(R, C)
//   +----+----+----+                        for C ascending (the canonical tile order).
//
// Threads take contiguous runs of tiles (column-major over the lower triangle, so a run
// streams down the columns of A; runs cut by estimated cost) and write disjoint workspace
// entries, then split the row sums by row panels: the bits never depend on the thread count. double
// / float / Complex<double> have AVX2 kernels (symv/tile_kernels.hpp; double / float: the tiles of
// a partial last row panel run the full-tile kernels, the missing rows padded with +0 and x with
// -0, so that a padded term fma(+0, -0, s) leaves every s, -0 included, as it is; complex:
// the tiles below the diagonal are read once for both partials, symv_detail::tile_fused_c, and a
// full diagonal tile is not expanded, symv_detail::tile_diag64_c), every chain keeping its element
// order (double, float: the full tiles below the diagonal of one tile column in a thread's run go
// in strips of up to 8 (float 4) tiles, chunk column outer, so that each column is a long
// contiguous stream; same blocks, same bits; on an AVX-512 CPU the double / float / complex-float
// strips run the zmm kernels of symv/tile_kernels_avx512*.hpp, float in 16-row blocks); dd reads
// the tile once in place and once from cache through a conj-transposed 64 x 64 buffer.
#include "symv/reference.hpp"

#include <algorithm>
#include <cstdint>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "core/canonical.hpp"
#include "symv/tile_kernels.hpp"
#include "core/errors.hpp"
#include "core/parallel.hpp"

namespace eigsolve {
namespace {

template <class T>
T real_diag(const T& a) {
  if constexpr (is_complex_v<T>)
    return T(a.re, real_t<T>(0));
  else
    return a;
}

/// buf[i + 64 j] = a_{r0+i, r0+j} of the diagonal tile (full Hermitian expansion).
template <class T>
void expand_diagonal(int rows, const T* A, index_t lda, index_t r0, T* buf) {
  // Stored columns first (contiguous reads), then the mirror inside the buffer (a strided
  // walk over A itself would touch 64 columns lda apart per row).
  for (int j = 0; j < rows; ++j) {
    const T* col = A + r0 + lda * (r0 + j);
    buf[j + kTile * j] = real_diag(col[j]);
    for (int i = j + 1; i < rows; ++i)
      buf[i + kTile * j] = col[i];
  }
  for (int j = 0; j < rows; ++j)
    for (int i = 0; i < j; ++i)
      buf[i + kTile * j] = conj(buf[j + kTile * i]);
}

/// buf[i + 64 j] = conj(A(c0 + j, r0 + i)): the row elements of panel r0 in tile column c0 > r0.
template <class T>
void expand_transposed(int rows, int cols, const T* A, index_t lda, index_t r0, index_t c0,
                       T* buf) {
#if defined(EIGSOLVE_SYMV_AVX2)
  // Complex: the same copies and sign flips (conj is an exact negation of the imaginary part,
  // an XOR of its sign bit, as the scalar code compiles) in AVX2 blocks: Complex<float> as
  // 64-bit units, 4 x 4 transposes; Complex<double> as 128-bit units, 2 x 2.
  if constexpr (std::is_same<T, Complex<float>>::value || std::is_same<T, Complex<double>>::value) {
    constexpr int U = std::is_same<T, Complex<float>>::value ? 4 : 2;
    const __m256d sign =
        std::is_same<T, Complex<float>>::value
            ? _mm256_castps_pd(_mm256_setr_ps(0.f, -0.f, 0.f, -0.f, 0.f, -0.f, 0.f, -0.f))
            : _mm256_setr_pd(0.0, -0.0, 0.0, -0.0);
    const int rv = rows - rows % U, cv = cols - cols % U;
    for (int i = 0; i < rv; i += U) {
      const double* src = reinterpret_cast<const double*>(A + c0 + lda * (r0 + i));
      const index_t ld = lda * index_t(sizeof(T) / sizeof(double));
      for (int j = 0; j < cv; j += U) {
        double* dst = reinterpret_cast<double*>(buf + i + kTile * j);
        constexpr index_t ldb = kTile * index_t(sizeof(T) / sizeof(double));
        if constexpr (U == 4) {
          const double* s0 = src + j;
          const __m256d a0 = _mm256_loadu_pd(s0), a1 = _mm256_loadu_pd(s0 + ld);
          const __m256d a2 = _mm256_loadu_pd(s0 + 2 * ld), a3 = _mm256_loadu_pd(s0 + 3 * ld);
          const __m256d t0 = _mm256_unpacklo_pd(a0, a1), t1 = _mm256_unpackhi_pd(a0, a1);
          const __m256d t2 = _mm256_unpacklo_pd(a2, a3), t3 = _mm256_unpackhi_pd(a2, a3);
          _mm256_storeu_pd(dst, _mm256_xor_pd(_mm256_permute2f128_pd(t0, t2, 0x20), sign));
          _mm256_storeu_pd(dst + ldb, _mm256_xor_pd(_mm256_permute2f128_pd(t1, t3, 0x20), sign));
          _mm256_storeu_pd(dst + 2 * ldb,
                           _mm256_xor_pd(_mm256_permute2f128_pd(t0, t2, 0x31), sign));
          _mm256_storeu_pd(dst + 3 * ldb,
                           _mm256_xor_pd(_mm256_permute2f128_pd(t1, t3, 0x31), sign));
        } else {
          const double* s0 = src + 2 * j;
          const __m256d a0 = _mm256_loadu_pd(s0), a1 = _mm256_loadu_pd(s0 + ld);
          _mm256_storeu_pd(dst, _mm256_xor_pd(_mm256_permute2f128_pd(a0, a1, 0x20), sign));
          _mm256_storeu_pd(dst + ldb, _mm256_xor_pd(_mm256_permute2f128_pd(a0, a1, 0x31), sign));
        }
      }
    }
    for (int i = 0; i < rows; ++i) {
      const T* src = A + c0 + lda * (r0 + i);
      for (int j = i < rv ? cv : 0; j < cols; ++j)
        buf[i + kTile * j] = conj(src[j]);
    }
    return;
  }
#endif
  constexpr int B = 8;
  for (int ib = 0; ib < rows; ib += B) {
    const int ie = std::min(rows, ib + B);
    for (int jb = 0; jb < cols; jb += B) {
      const int je = std::min(cols, jb + B);
      for (int i = ib; i < ie; ++i) {
        const T* src = A + c0 + lda * (r0 + i);
        for (int j = jb; j < je; ++j)
          buf[i + kTile * j] = conj(src[j]);
      }
    }
  }
}

/// Partials of the stored tile (I, J), J <= I (tile-aligned at r0 = 64 I, c0 = 64 J):
/// pd = partial of the rows of panel I against x(c0 ..) (direct, or the expanded diagonal tile),
/// pt = partial of the rows of panel J against x(r0 ..) (transposed; unused when J == I).
/// The tile is read from memory once; the transposed pass finds it in cache.
template <class T>
void tile_pair(index_t n, const T* A, index_t lda, const T* x, index_t I, index_t J, T* buf, T* pd,
               T* pt) {
  const index_t r0 = I * kTile, c0 = J * kTile;
  const int rows = static_cast<int>(std::min<index_t>(kTile, n - r0));
  const int cols = static_cast<int>(std::min<index_t>(kTile, n - c0));
#if defined(EIGSOLVE_SYMV_AVX2)
  if constexpr (std::is_same<T, double>::value || std::is_same<T, float>::value) {
    // Full tiles in place; a tile of the last (partial) row panel is copied into a 64 x 64
    // buffer padded with +0, with x padded with -0: a padded term is fma(+0, -0, s) = s + (-0)
    // = s exactly, for every s, -0 included (a chain from +0 holds -0 after a negative product
    // that underflows to zero; +0 * +0 padding turned that into +0, session 51), so the
    // partials of the rows and columns that exist are those of the definition. pd gets 64
    // entries (the slot has 64; pass 2 reads only rows < n).
    if (rows == kTile) {
      if (J == I)
        symv_detail::tile_diag64_any(A + r0 + lda * r0, lda, x + r0, pd);
      else
        symv_detail::tile_fused64(A + r0 + lda * c0, lda, x + r0, x + c0, pd, pt);
      return;
    }
    alignas(64) T xp[kTile];
    std::fill(xp, xp + kTile, T(-0.0));
    std::copy(x + r0, x + r0 + rows, xp);
    if (J != I) {
      symv_detail::tile_fused_rows_any(rows, A + r0 + lda * c0, lda, xp, x + c0, pd, pt);
      return;
    }
    // Diagonal tile: tile_diag64 reads only the lower triangle (column j from row j).
    for (int j = 0; j < kTile; ++j) {
      T* b = buf + kTile * j;
      const int e = j < rows ? rows : j;
      if (j < rows) std::copy(A + r0 + j + lda * (r0 + j), A + r0 + rows + lda * (r0 + j), b + j);
      std::fill(b + e, b + kTile, T(0));
    }
    symv_detail::tile_diag64_any(buf, index_t(kTile), xp, pd);
    return;
  }
  if constexpr (std::is_same<T, Complex<float>>::value || std::is_same<T, Complex<double>>::value) {
    // Tiles below the diagonal read once for both partials; the last (partial) row panel
    // with x padded with zeros, and the transposed chunk of its last partial 8-row block
    // recomputed with the padded rows absent (symv_detail::absent_tail_ct: no choice of padding
    // signs keeps a -0 part of the four-fma complex madd, session 51).
#if defined(EIGSOLVE_SYMV_AVX512)
    if constexpr (std::is_same<T, Complex<float>>::value) {
      if (symv_detail::has_avx512f()) {
        if (J != I) {
          if (rows == kTile) {
            symv_detail::tile_fused_c512(rows, A + r0 + lda * c0, lda, x + r0, x + c0, pd, pt);
          } else {
            alignas(64) T xp[kTile];
            std::fill(xp, xp + kTile, T(0));
            std::copy(x + r0, x + r0 + rows, xp);
            symv_detail::tile_fused_c512(rows, A + r0 + lda * c0, lda, xp, x + c0, pd, pt);
          }
          return;
        }
        if (rows == kTile) {
          symv_detail::tile_diag64_c512(A + r0 + lda * r0, lda, x + r0, pd);
          return;
        }
      }
    }
#endif
    if (J != I) {
      if (rows == kTile) {
        symv_detail::tile_fused_c(rows, A + r0 + lda * c0, lda, x + r0, x + c0, pd, pt);
      } else {
        alignas(64) T xp[kTile];
        std::fill(xp, xp + kTile, T(0));
        std::copy(x + r0, x + r0 + rows, xp);
        symv_detail::tile_fused_c(rows, A + r0 + lda * c0, lda, xp, x + c0, pd, pt);
      }
      return;
    }
    if (rows == kTile) {
      symv_detail::tile_diag64_c(A + r0 + lda * r0, lda, x + r0, pd);
      return;
    }
  }
#endif
  if (J == I) {
    expand_diagonal(rows, A, lda, r0, buf);
    symv_detail::tile_partials(rows, cols, buf, index_t(kTile), x + c0, pd);
    return;
  }
  symv_detail::tile_partials(rows, cols, A + r0 + lda * c0, lda, x + c0, pd);
  expand_transposed(cols, rows, A, lda, c0, r0, buf);
  symv_detail::tile_partials(cols, rows, buf, index_t(kTile), x + r0, pt);
}

/// Per-thread workspace of tile partials, grown as needed (symv is called once per column by
/// the tridiagonalization: no allocation in the steady state).
template <class T>
T* partial_workspace(std::size_t count) {
  thread_local std::vector<T> ws;
  if (ws.size() < count) {
    try {
      ws.resize(count);
    } catch (const std::bad_alloc&) {
      throw OutOfMemory("symv_reference workspace", static_cast<std::uint64_t>(count * sizeof(T)));
    }
  }
  return ws.data();
}

/// Boundaries of `team` contiguous runs of the nt (nt + 1) / 2 stored tiles (column-major over
/// the lower triangle) of about equal estimated cost: a diagonal tile 2, a tile of a partial
/// last row panel 1.5, any other tile 1 (single-tile paths cost about that much more than the
/// strips). cut[0] = 0, cut[team] = ntiles; per-thread storage, valid until the next call.
inline const index_t* tile_cuts(index_t n, index_t nt, int team) {
  thread_local std::vector<index_t> cut;
  cut.assign(static_cast<std::size_t>(team) + 1, 0);
  const index_t ntiles = nt * (nt + 1) / 2;
  cut[team] = ntiles;
  if (team <= 1) return cut.data();
  const bool partial = n % kTile != 0;
  auto cost = [&](index_t I, index_t J) -> index_t {  // half units
    return I == J ? 4 : (partial && I == nt - 1) ? 3 : 2;
  };
  index_t total = 0;
  for (index_t J = 0; J < nt; ++J)
    total += 4 + 2 * (nt - J - 1) + ((partial && J < nt - 1) ? 1 : 0);
  index_t acc = 0, t = 0;
  int k = 1;
  for (index_t J = 0; J < nt && k < team; ++J)
    for (index_t I = J; I < nt && k < team; ++I, ++t) {
      acc += cost(I, J);
      while (k < team && acc * team >= total * k)
        cut[k++] = t + 1;
    }
  for (; k < team; ++k)
    cut[k] = ntiles;
  return cut.data();
}

/// Pass 2 for the row panels [rb, re): y_i = alpha * (P(R, 0) + P(R, 1) + ...), tiles
/// ascending, then beta as in docs/canonical-symv.md.
template <class T>
void row_sums(index_t n, index_t nt, const T* P, T alpha, T beta, bool beta_zero, T* y, index_t rb,
              index_t re) {
  for (index_t R = rb; R < re; ++R) {
    const index_t r0 = R * kTile;
    const int rows = static_cast<int>(std::min<index_t>(kTile, n - r0));
    T acc[kTile];
    const T* p = P + R * nt * kTile;
    for (int i = 0; i < rows; ++i)
      acc[i] = p[i];
    for (index_t C = 1; C < nt; ++C) {
      p += kTile;
      for (int i = 0; i < rows; ++i)
        acc[i] = acc[i] + p[i];
    }
    for (int i = 0; i < rows; ++i) {
      const T t = acc[i];
      y[r0 + i] = beta_zero ? alpha * t : madd(alpha, t, beta * y[r0 + i]);
    }
  }
}

/// Pass 1's threads: the stored tiles, column-major over the lower triangle, cut into runs of
/// about equal cost (tile_cuts), one per team member; body(tb, te, I, J) gets run [tb, te) and
/// its first tile (I, J). A tile is ~4096 multiply-adds each way: below ~8 tiles a thread, stay
/// on one thread. Where a run is cut changes no bit.
template <class F>
void for_tile_runs(const Context& ctx, index_t n, index_t nt, F&& body) {
  const index_t ntiles = nt * (nt + 1) / 2;
  const int team = static_cast<int>(
      std::min<index_t>(std::max(1, ctx.num_threads()), std::max<index_t>(1, ntiles / 8)));
  const index_t* cut = tile_cuts(n, nt, team);
  run_team(team, [&](int part) {
    const index_t tb = cut[part], te = cut[part + 1];
    if (tb >= te) return;
    // Tile column J holds tiles I = J .. nt-1, so the columns of A are streamed down (the next
    // tile continues the same 64 column runs).
    index_t J = 0, first = 0;
    while (first + (nt - J) <= tb) {
      first += nt - J;
      ++J;
    }
    body(tb, te, J + (tb - first), J);
  });
}

/// Pass 1 for `nv` vectors at once: every stored tile (I, J), J <= I, (or strip of tiles) is
/// read from memory once and its kernel run for each vector q in turn while the tile is in
/// cache, writing the partials of vector q to P + q pstride (the layout of one SYMV). Each
/// vector's partials are those of its own SYMV: the kernels and their chains are the same.
template <class T>
void tile_pass(const Context& ctx, index_t n, index_t nt, const T* A, index_t lda, int nv,
               const T* X, index_t ldx, T* P, std::size_t pstride) {
  for_tile_runs(ctx, n, nt, [&](index_t tb, index_t te, index_t I, index_t J) {
    alignas(64) T buf[kTile * kTile];
    for (index_t t = tb; t < te;) {
      // The unit: k tiles of tile column J from row panel I; strip = a strip kernel's call.
      index_t k = 1;
      bool strip = false;
#if defined(EIGSOLVE_SYMV_AVX2)
      if constexpr (std::is_same<T, double>::value || std::is_same<T, float>::value) {
        // Below-diagonal full tiles of this tile column within this thread's run: one strip.
        const index_t full = n / kTile;  // row panels I < full have 64 rows
        const index_t kmax =
            std::is_same<T, double>::value ? symv_detail::kStrip : symv_detail::strip_tiles_f();
        k = std::min<index_t>({kmax, te - t, full - I, nt - I});
        strip = I > J && k >= 2;
      }
#if defined(EIGSOLVE_SYMV_AVX512)
      if constexpr (std::is_same<T, Complex<float>>::value) {
        // The same strips for complex float on AVX-512 (symv/tile_kernels_avx512_c.hpp).
        if (symv_detail::has_avx512f()) {
          const index_t full = n / kTile;
          k = std::min<index_t>({index_t(symv_detail::kStripC), te - t, full - I, nt - I});
          strip = I > J && k >= 2;
        }
      }
#endif
#endif
      if (!strip) k = 1;
      for (int q = 0; q < nv; ++q) {
        const T* x = X + ldx * q;
        T* Pq = P + pstride * std::size_t(q);
        T* pd = Pq + (I * nt + J) * kTile;
        T* pt = Pq + (J * nt + I) * kTile;
        if (!strip) {
          tile_pair(n, A, lda, x, I, J, buf, pd, pt);
          continue;
        }
#if defined(EIGSOLVE_SYMV_AVX2)
        const T* S = A + I * kTile + lda * (J * kTile);
        if constexpr (std::is_same<T, double>::value)
          symv_detail::strip_fused_d64(static_cast<int>(k), S, lda, x + I * kTile, x + J * kTile,
                                       pd, nt * kTile, pt);
        else if constexpr (std::is_same<T, float>::value)
          symv_detail::strip_fused_f64(static_cast<int>(k), S, lda, x + I * kTile, x + J * kTile,
                                       pd, nt * kTile, pt);
#if defined(EIGSOLVE_SYMV_AVX512)
        else if constexpr (std::is_same<T, Complex<float>>::value) {
          if (symv_detail::hemv_c_permute())
            symv_detail::strip_fused_c512<symv_detail::kStripC, true>(
                static_cast<int>(k), S, lda, x + I * kTile, x + J * kTile, pd, nt * kTile, pt);
          else
            symv_detail::strip_fused_c512<symv_detail::kStripC, false>(
                static_cast<int>(k), S, lda, x + I * kTile, x + J * kTile, pd, nt * kTile, pt);
        }
#endif
#endif
      }
      t += k;
      I += k;
      if (I == nt) {
        ++J;
        I = J;
      }
    }
  });
}

#if defined(EIGSOLVE_SYMV_AVX2)
/// symm_reference for 8 vectors in the SIMD lanes: double (AVX-512: one zmm per 8-lane row,
/// else two ymm halves), float (one ymm) and, on AVX-512, Complex<double> and Complex<float> (rows
/// of the 8 real parts, then the 8 imaginary parts). The full tiles below the diagonal run
/// tile_fused_lanes8[_z] (each element broadcast once for the 8 vectors' chains, no transposes);
/// the diagonal tiles and those of a partial last row panel run tile_pair per vector. Partials are
/// kept lane-major, P[(R nt + C) 64 + i][W doubles], and each row's sum of vector q is the
/// left-to-right sum over C, then T(1) times it (alpha = 1, beta = 0): the bits of every vector's
/// symv_reference call.
template <class T>
void symm_lanes8(const Context& ctx, index_t n, index_t nt, const T* A, index_t lda, const T* V,
                 index_t ldv, T* X, index_t ldx, T* Pt) {
  constexpr bool cplx = is_complex_v<T>;
  constexpr int L = 8, W = cplx ? 16 : 8;  // vectors; reals per lane-major row
  using R = real_t<T>;
  R* P = reinterpret_cast<R*>(Pt);
  const index_t np = nt * kTile, full = n / kTile;
  // xl[i] = the 8 vectors' row i (re then im for complex), rows n .. np-1 zero (only full
  // tiles read them, as the padded kernels do).
  thread_local std::vector<R> xl_store;
  if (xl_store.size() < static_cast<std::size_t>(np * W)) xl_store.resize(np * W);
  R* xl = xl_store.data();
  for (index_t i = 0; i < np; ++i)
    for (int q = 0; q < L; ++q) {
      const T v = i < n ? V[i + ldv * q] : T(0);
      if constexpr (cplx) {
        xl[i * W + q] = v.re;
        xl[i * W + L + q] = v.im;
      } else {
        xl[i * W + q] = v;
      }
    }
  for_tile_runs(ctx, n, nt, [&](index_t tb, index_t te, index_t I, index_t J) {
    alignas(64) T buf[kTile * kTile];
    alignas(64) T pdq[kTile], ptq[kTile];
    for (index_t t = tb; t < te; ++t) {
      R* pd = P + (I * nt + J) * kTile * W;
      R* pt = P + (J * nt + I) * kTile * W;
      if (I > J && I < full) {
        const R* S = reinterpret_cast<const R*>(A + I * kTile + lda * (J * kTile));
        const R *xr = xl + I * kTile * W, *xc = xl + J * kTile * W;
        if constexpr (std::is_same<T, float>::value) {
          symv_detail::tile_fused_lanes_avx2(S, lda, xr, xc, pd, pt);
        } else if constexpr (cplx) {
#if defined(EIGSOLVE_SYMV_AVX512)
          if constexpr (std::is_same<R, double>::value)
            symv_detail::tile_fused_lanes8_z(S, lda, xr, xc, pd, pt);
          else
            symv_detail::tile_fused_lanes8_c(S, lda, xr, xc, pd, pt);
#else
          static_assert(!cplx, "the complex lanes kernel needs AVX-512 (symm_reference checks)");
#endif
        } else {
#if defined(EIGSOLVE_SYMV_AVX512)
          if (symv_detail::has_avx512f()) {
            symv_detail::tile_fused_lanes8(S, lda, xr, xc, pd, pt);
          } else
#endif
          {
            symv_detail::tile_fused_lanes_avx2(S, lda, xr, xc, pd, pt);
            symv_detail::tile_fused_lanes_avx2(S, lda, xr + 4, xc + 4, pd + 4, pt + 4);
          }
        }
      } else {
        for (int q = 0; q < L; ++q) {
          std::fill(pdq, pdq + kTile, T(0));
          std::fill(ptq, ptq + kTile, T(0));
          tile_pair(n, A, lda, V + ldv * q, I, J, buf, pdq, ptq);
          auto put = [&](R* dst, const T* src) {
            for (int i = 0; i < kTile; ++i) {
              if constexpr (cplx) {
                dst[i * W + q] = src[i].re;
                dst[i * W + L + q] = src[i].im;
              } else {
                dst[i * W + q] = src[i];
              }
            }
          };
          put(pd, pdq);
          if (J != I) put(pt, ptq);
        }
      }
      if (++I == nt) {
        ++J;
        I = J;
      }
    }
  });
  parallel_for(nt, ctx.num_threads(), std::max<index_t>(1, (index_t(1) << 16) / (nt * kTile * W)),
               [&](index_t rb, index_t re) {
                 alignas(64) R acc[kTile * W];
                 for (index_t Rp = rb; Rp < re; ++Rp) {
                   const index_t r0 = Rp * kTile;
                   const int rows = static_cast<int>(std::min<index_t>(kTile, n - r0));
                   const R* p = P + Rp * nt * kTile * W;
                   for (int e = 0; e < rows * W; ++e)
                     acc[e] = p[e];
                   for (index_t C = 1; C < nt; ++C) {
                     p += kTile * W;
                     for (int e = 0; e < rows * W; ++e)
                       acc[e] = acc[e] + p[e];
                   }
                   for (int q = 0; q < L; ++q)
                     for (int i = 0; i < rows; ++i) {
                       if constexpr (cplx)
                         X[r0 + i + ldx * q] = T(1) * T(acc[i * W + q], acc[i * W + L + q]);
                       else
                         X[r0 + i + ldx * q] = T(1) * acc[i * W + q];
                     }
                 }
               });
}
#endif

void check_symv_args(const char* who, index_t n, index_t lda) {
  if (n < 0) throw DimensionError(std::string(who) + ": n = " + std::to_string(n) + " < 0");
  if (lda < std::max<index_t>(1, n))
    throw DimensionError(std::string(who) + ": lda = " + std::to_string(lda) + " < max(1, n)");
}

}  // namespace

template <class T>
void symv_reference(const Context& ctx, index_t n, T alpha, const T* A, index_t lda, const T* x,
                    T beta, T* y) {
  check_symv_args("symv_reference", n, lda);
  if (n == 0) return;
  const index_t nt = (n + kTile - 1) / kTile;
  const bool beta_zero = (beta == T(0));
  // P[(R nt + C) 64 + i]: the canonical partial of tile column C for row i of row panel R.
  // Every stored tile (I, J), J <= I, is read once and writes P(I, J) and P(J, I); threads
  // take contiguous runs of tiles, no shared accumulator.
  const std::size_t pstride = static_cast<std::size_t>(nt * nt * kTile);
  T* P = partial_workspace<T>(pstride);
  tile_pass(ctx, n, nt, A, lda, 1, x, n, P, pstride);
  // Rows: acc = P(R, 0) + P(R, 1) + ... in ascending tile order; row panels split across the
  // threads (each row's sum is its own: the thread count changes no bit) once there are
  // ~64 K additions per thread (a parallel region costs ~1-4 us: n >= ~2900).
  parallel_for(
      nt, ctx.num_threads(), std::max<index_t>(1, (index_t(1) << 16) / (nt * kTile)),
      [&](index_t rb, index_t re) { row_sums(n, nt, P, alpha, beta, beta_zero, y, rb, re); });
}

template <class T>
void symm_reference(const Context& ctx, index_t n, index_t k, const T* A, index_t lda, const T* V,
                    index_t ldv, T* X, index_t ldx, index_t group) {
  check_symv_args("symm_reference", n, lda);
  if (k < 0) throw DimensionError("symm_reference: k = " + std::to_string(k) + " < 0");
  if (k > 0 && (ldv < std::max<index_t>(1, n) || ldx < std::max<index_t>(1, n)))
    throw DimensionError("symm_reference: ldv = " + std::to_string(ldv) +
                         ", ldx = " + std::to_string(ldx) + " < max(1, n)");
  if (n == 0 || k == 0) return;
  const index_t nt = (n + kTile - 1) / kTile;
  const std::size_t pstride = static_cast<std::size_t>(nt * nt * kTile);
  if (group <= 0) group = kSymmGroup;
  group = std::min(group, k);
  T* P = partial_workspace<T>(pstride * static_cast<std::size_t>(group));
  for (index_t q0 = 0; q0 < k; q0 += group) {
    const int nv = static_cast<int>(std::min(group, k - q0));
#if defined(EIGSOLVE_SYMV_AVX2)
    if constexpr (std::is_same<T, double>::value || std::is_same<T, float>::value) {
      if (nv == 8) {  // the 8 vectors in the lanes
        symm_lanes8(ctx, n, nt, A, lda, V + ldv * q0, ldv, X + ldx * q0, ldx, P);
        continue;
      }
    }
#if defined(EIGSOLVE_SYMV_AVX512)
    if constexpr (std::is_same<T, Complex<double>>::value ||
                  std::is_same<T, Complex<float>>::value) {
      if (nv == 8 && (std::is_same<T, Complex<double>>::value ? symv_detail::has_avx512f()
                                                              : symv_detail::has_avx512vl())) {
        symm_lanes8(ctx, n, nt, A, lda, V + ldv * q0, ldv, X + ldx * q0, ldx, P);
        continue;
      }
    }
#endif
#endif
    tile_pass(ctx, n, nt, A, lda, nv, V + ldv * q0, ldv, P, pstride);
    // Row sums of the nv vectors (alpha = 1, beta = 0: x_i = acc), row panels of every vector
    // split across the threads together.
    parallel_for(nt * nv, ctx.num_threads(),
                 std::max<index_t>(1, (index_t(1) << 16) / (nt * kTile)),
                 [&](index_t rb, index_t re) {
                   for (index_t it = rb; it < re;) {
                     const index_t q = it / nt, R = it % nt, e = std::min(re, (q + 1) * nt);
                     row_sums(n, nt, P + pstride * std::size_t(q), T(1), T(0), true,
                              X + ldx * (q0 + q), R, R + (e - it));
                     it = e;
                   }
                 });
  }
}

#define EIGSOLVE_INSTANTIATE_SYMV(T)                                                               \
  template void symv_reference<T>(const Context&, index_t, T, const T*, index_t, const T*, T, T*); \
  template void symm_reference<T>(const Context&, index_t, index_t, const T*, index_t, const T*,   \
                                  index_t, T*, index_t, index_t);
EIGSOLVE_FOR_EACH_SCALAR(EIGSOLVE_INSTANTIATE_SYMV)
#undef EIGSOLVE_INSTANTIATE_SYMV

}  // namespace eigsolve
