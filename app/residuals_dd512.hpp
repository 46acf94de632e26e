// Internal to app/residuals.cpp (and its test): the per-column residuals of compute_residuals
// for the types without a vendor BLAS (dd_real), in T arithmetic, magnitudes in double:
//
//   az = A z_j:       az[i] = madd(A(i, k), z_j[k], az[i])          for k ascending, from 0
//   rcol[j] = sum over i ascending of |az[i] - w_j z_j[i]|
//   dot(k, j):        dot = madd_conj(z_k[i], z_j[i], dot)           for i ascending, from 0
//   ocol[j] = sum over k ascending of |dot(k, j) - (k == j)|
//
// residual_columns_scalar is that loop as written. For dd_real on an AVX-512 CPU,
// residual_columns_dd512 runs every one of these chains in the same order with 8 of them in the
// lanes (core/dd_avx512.hpp gives the scalar bits lane by lane), so rcol and ocol are bitwise the
// scalar ones:
//   A Z:   8 rows i in the lanes (A's column deinterleaved by dd512::load8), z_j[k] broadcast;
//          the rows past the last block of 8 run the scalar chain.
//   Gram:  8 columns k in the lanes, from a transposed copy of 8 columns of Z (hi and lo of
//          Z(i, k..k+7) contiguous; lanes past m are zero and dropped), z_j[i] broadcast.
// A dd chain is latency-bound (each step waits for the previous accurate sum), so a kernel call
// interleaves NR x NC independent chains: NR row blocks (or column blocks k) times NC columns j.
// Columns are processed in chunks of kChunkCols, each independently of the others: the results
// do not depend on how the columns are split over threads.
#pragma once

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "core/cpu_features.hpp"
#include "core/dd_avx512.hpp"
#include "core/dd_real.hpp"
#include "core/matrix.hpp"
#include "core/precision.hpp"
#include "solver/eigensolve.hpp"

namespace eigsolve {
namespace residuals_detail {

/// Columns [j0, j1) of A Z - Z Lambda and of I - Z^H Z: rcol[j], ocol[j] (the loop itself).
template <class T>
void residual_columns_scalar(const HostMatrix<T>& A, const SolveResult<T>& r, index_t j0,
                             index_t j1, double* rcol, double* ocol) {
  using R = real_t<T>;
  const index_t n = r.n, m = r.m;
  const T* Z = r.z.data();
  std::vector<T> az(static_cast<std::size_t>(n));
  for (index_t j = j0; j < j1; ++j) {
    const T* zj = Z + j * n;
    std::fill(az.begin(), az.end(), T(0));
    for (index_t k = 0; k < n; ++k) {
      const T zk = zj[k];
      const T* ak = &A(0, k);
      for (index_t i = 0; i < n; ++i)
        az[i] = madd(ak[i], zk, az[i]);
    }
    double s = 0;
    const T lam = T(r.w[j]);
    for (index_t i = 0; i < n; ++i)
      s += std::sqrt(to_double(abs2(az[i] - lam * zj[i])));
    rcol[j] = s;
    double o = 0;
    for (index_t k = 0; k < m; ++k) {
      const T* zk = Z + k * n;
      T dot = T(0);
      for (index_t i = 0; i < n; ++i)
        dot = madd_conj(zk[i], zj[i], dot);
      if (k == j) dot = dot - T(R(1));
      o += std::sqrt(to_double(abs2(dot)));
    }
    ocol[j] = o;
  }
}

#if defined(EIGSOLVE_DD_AVX512)

/// NR x NC chains of 8 lanes over t = 0 .. len-1, each from +0:
///   c[r][q] = L_r(t) * R[q * ldr + t] + c[r][q],
/// L_r(t) the 8 dd values at L + 8r + lds * t (kPacked false: interleaved, 8 rows of a column)
/// or the hi[8], lo[8] pair at L + r * lds + 8t (kPacked true: a transposed strip). c[r][q] is
/// stored interleaved at out + q * ldo + 8r.
template <int NR, int NC, bool kPacked>
__attribute__((target("avx512f"))) inline void res_chains(index_t len, const dd_real* L,
                                                          index_t lds, const dd_real* R,
                                                          index_t ldr, dd_real* out, index_t ldo) {
  dd512::V c[NR][NC];
  for (int r = 0; r < NR; ++r)
    for (int q = 0; q < NC; ++q)
      c[r][q] = {_mm512_setzero_pd(), _mm512_setzero_pd()};
  for (index_t t = 0; t < len; ++t) {
    dd512::V a[NR], b[NC];
    for (int r = 0; r < NR; ++r) {
      if constexpr (kPacked) {
        const double* d = reinterpret_cast<const double*>(L + r * lds + 8 * t);
        a[r] = {_mm512_loadu_pd(d), _mm512_loadu_pd(d + 8)};
      } else {
        a[r] = dd512::load8(L + 8 * r + lds * t);
      }
    }
    for (int q = 0; q < NC; ++q)
      b[q] = dd512::bcast(R[q * ldr + t]);
    for (int r = 0; r < NR; ++r)
      for (int q = 0; q < NC; ++q)
        c[r][q] = dd512::madd(a[r], b[q], c[r][q]);
  }
  for (int r = 0; r < NR; ++r)
    for (int q = 0; q < NC; ++q)
      dd512::store8(out + q * ldo + 8 * r, c[r][q]);
}

/// res_chains<nr, nc> for run-time counts 1 <= nr <= NR, 1 <= nc <= NC (the tails of a group).
template <bool kPacked, int NR, int NC>
inline void res_chains_n(int nr, int nc, index_t len, const dd_real* L, index_t lds,
                         const dd_real* R, index_t ldr, dd_real* out, index_t ldo) {
  if constexpr (NR > 1) {
    if (nr < NR) return res_chains_n<kPacked, NR - 1, NC>(nr, nc, len, L, lds, R, ldr, out, ldo);
  }
  if constexpr (NC > 1) {
    if (nc < NC) return res_chains_n<kPacked, NR, NC - 1>(nr, nc, len, L, lds, R, ldr, out, ldo);
  }
  res_chains<NR, NC, kPacked>(len, L, lds, R, ldr, out, ldo);
}

/// Chain shapes (row or k blocks x columns j) and columns per chunk. Measured (n = 1100, 256
/// columns, one thread): one chain 0.57 s; 2x2 0.37 s; 1x2, 1x4, 2x4, 3x1, 4x1 within 3% of it
/// (then bound by the FP pipes, not by the chains' latency); chunks of 16 / 32 / 64 within 4%.
/// Per thread: n * kChunkCols + m * kChunkCols + n * 8 * kGramBlocks dd values of work space.
constexpr int kAzBlocks = 2, kAzCols = 2;
constexpr int kGramBlocks = 2, kGramCols = 2;
constexpr index_t kChunkCols = 32;

/// residual_columns_scalar<dd_real> with the chains in the lanes (see the file comment).
inline void residual_columns_dd512(const HostMatrix<dd_real>& A, const SolveResult<dd_real>& r,
                                   index_t j0, index_t j1, double* rcol, double* ocol) {
  const index_t n = r.n, m = r.m;
  const dd_real* Z = r.z.data();
  const index_t n8 = n / 8 * 8;    // rows in blocks of 8
  const index_t mb = (m + 7) / 8;  // blocks of 8 columns k
  const index_t mpad = mb * 8;     // dots per column j, the lanes past m included
  const index_t strip = n * 8;     // dd values of one transposed block of 8 columns k
  std::vector<dd_real> az(static_cast<std::size_t>(n * kChunkCols));
  std::vector<dd_real> dots(static_cast<std::size_t>(mpad * kChunkCols));
  std::vector<dd_real> zt(static_cast<std::size_t>(strip * kGramBlocks));
  for (index_t jc = j0; jc < j1; jc += kChunkCols) {
    const index_t jn = std::min(kChunkCols, j1 - jc);
    // A z_j, rows 0 .. n8-1: the A strip of a row-block group is reused over the chunk's columns.
    for (index_t i0 = 0; i0 < n8; i0 += 8 * kAzBlocks) {
      const int nr = static_cast<int>(std::min<index_t>(kAzBlocks, (n8 - i0) / 8));
      for (index_t q0 = 0; q0 < jn; q0 += kAzCols) {
        const int nc = static_cast<int>(std::min<index_t>(kAzCols, jn - q0));
        res_chains_n<false, kAzBlocks, kAzCols>(nr, nc, n, &A(i0, 0), A.ld(), Z + (jc + q0) * n, n,
                                                az.data() + q0 * n + i0, n);
      }
    }
    for (index_t q = 0; q < jn; ++q) {
      const index_t j = jc + q;
      const dd_real* zj = Z + j * n;
      dd_real* a = az.data() + q * n;
      // The rows past the last block of 8: the scalar chains.
      if (n8 < n) {
        std::fill(a + n8, a + n, dd_real(0));
        for (index_t k = 0; k < n; ++k) {
          const dd_real zk = zj[k];
          const dd_real* ak = &A(0, k);
          for (index_t i = n8; i < n; ++i)
            a[i] = madd(ak[i], zk, a[i]);
        }
      }
      double s = 0;
      const dd_real lam = dd_real(r.w[j]);
      for (index_t i = 0; i < n; ++i)
        s += std::sqrt(to_double(abs2(a[i] - lam * zj[i])));
      rcol[j] = s;
    }
    // Z^H z_j: a group of blocks of 8 columns k transposed, then its chains for every column j.
    for (index_t kb = 0; kb < mb; kb += kGramBlocks) {
      const int nr = static_cast<int>(std::min<index_t>(kGramBlocks, mb - kb));
      for (int b = 0; b < nr; ++b) {
        double* d = reinterpret_cast<double*>(zt.data() + b * strip);
        for (int l = 0; l < 8; ++l) {
          const index_t k = (kb + b) * 8 + l;
          if (k < m) {
            const dd_real* zk = Z + k * n;
            for (index_t i = 0; i < n; ++i) {
              d[16 * i + l] = zk[i].hi;
              d[16 * i + 8 + l] = zk[i].lo;
            }
          } else {
            for (index_t i = 0; i < n; ++i)
              d[16 * i + l] = d[16 * i + 8 + l] = 0.0;
          }
        }
      }
      for (index_t q0 = 0; q0 < jn; q0 += kGramCols) {
        const int nc = static_cast<int>(std::min<index_t>(kGramCols, jn - q0));
        res_chains_n<true, kGramBlocks, kGramCols>(nr, nc, n, zt.data(), strip, Z + (jc + q0) * n,
                                                   n, dots.data() + q0 * mpad + kb * 8, mpad);
      }
    }
    for (index_t q = 0; q < jn; ++q) {
      const index_t j = jc + q;
      const dd_real* dq = dots.data() + q * mpad;
      double o = 0;
      for (index_t k = 0; k < m; ++k) {
        dd_real dot = dq[k];
        if (k == j) dot = dot - dd_real(1);  // T(R(1)) of the loop: (1, 0)
        o += std::sqrt(to_double(abs2(dot)));
      }
      ocol[j] = o;
    }
  }
}

#endif  // EIGSOLVE_DD_AVX512

/// Columns [j0, j1): the AVX-512 chains for dd_real where the CPU has them, else the loop.
template <class T>
void residual_columns(const HostMatrix<T>& A, const SolveResult<T>& r, index_t j0, index_t j1,
                      double* rcol, double* ocol) {
#if defined(EIGSOLVE_DD_AVX512)
  if constexpr (std::is_same_v<T, dd_real>) {
    if (has_avx512f()) {
      residual_columns_dd512(A, r, j0, j1, rcol, ocol);
      return;
    }
  }
#endif
  residual_columns_scalar(A, r, j0, j1, rcol, ocol);
}

}  // namespace residuals_detail
}  // namespace eigsolve
