// Internal to householder/tridiagonalize.cpp: the per-element update chains of the rank-2k
// update and of the panel's column update for dd_real on AVX-512, 8 rows in the lanes (hi and lo
// in two zmm, core/dd_avx512.hpp). Each element runs exactly its scalar chain
//
//   for k ascending:  c = madd(V(r, k), nw[k], c);  c = madd(W(r, k), nv[k], c)
//
// (madd = the dd product, then the accurate dd sum, in that operand order), so the bits are
// those of chain_rows_scalar. A dd chain is latency-bound (each step waits for the previous
// accurate sum), so NC independent chains of 8 rows are interleaved:
//
//   Cols: NC columns j of one 8-row block   (same V, W rows; nw, nv and a of column j)
//   Rows: NC consecutive 8-row blocks of one column (rows 8q..8q+7; the same nw, nv)
#pragma once

#include "core/dd_avx512.hpp"

#if defined(EIGSOLVE_DD_AVX512)
#include <immintrin.h>

#include "core/dd_real.hpp"
#include "core/precision.hpp"

namespace eigsolve {
namespace hh_detail {

enum class DdChains { Cols, Rows };

/// NC chains of 8 rows (see the file comment), kb steps. Cols: chain q updates a + q * ald
/// with nw + q * ldx, nv + q * ldx and rows 0..7 of V, W. Rows: chain q updates a + 8q with
/// rows 8q..8q+7 of V, W and the shared nw, nv.
template <DdChains kMode, int NC>
__attribute__((target("avx512f"))) inline void chains_dd512(index_t kb, const dd_real* V,
                                                            index_t ldv, const dd_real* W,
                                                            index_t ldw, const dd_real* nw,
                                                            const dd_real* nv, index_t ldx,
                                                            dd_real* a, index_t ald) {
  static_assert(NC >= 1 && NC <= 8, "chains per call");
  constexpr bool kCols = kMode == DdChains::Cols;
  dd512::V c[NC];
  for (int q = 0; q < NC; ++q)
    c[q] = dd512::load8(kCols ? a + q * ald : a + 8 * q);
  for (index_t k = 0; k < kb; ++k) {
    const dd_real* vk = V + ldv * k;
    const dd_real* wk = W + ldw * k;
    if constexpr (kCols) {
      const dd512::V v = dd512::load8(vk), w = dd512::load8(wk);
      for (int q = 0; q < NC; ++q)
        c[q] = dd512::madd(v, dd512::bcast(nw[k + q * ldx]), c[q]);
      for (int q = 0; q < NC; ++q)
        c[q] = dd512::madd(w, dd512::bcast(nv[k + q * ldx]), c[q]);
    } else {
      const dd512::V x = dd512::bcast(nw[k]), y = dd512::bcast(nv[k]);
      for (int q = 0; q < NC; ++q)
        c[q] = dd512::madd(dd512::load8(vk + 8 * q), x, c[q]);
      for (int q = 0; q < NC; ++q)
        c[q] = dd512::madd(dd512::load8(wk + 8 * q), y, c[q]);
    }
  }
  for (int q = 0; q < NC; ++q)
    dd512::store8(kCols ? a + q * ald : a + 8 * q, c[q]);
}

/// Dispatch on a run-time chain count nc (1 .. kMaxDdChains).
constexpr int kMaxDdChains = 4;  // 8 measured no faster (dd 2048 two-stage)
template <DdChains kMode>
inline void chains_dd512_n(int nc, index_t kb, const dd_real* V, index_t ldv, const dd_real* W,
                           index_t ldw, const dd_real* nw, const dd_real* nv, index_t ldx,
                           dd_real* a, index_t ald) {
  switch (nc) {
    case 4:
      chains_dd512<kMode, 4>(kb, V, ldv, W, ldw, nw, nv, ldx, a, ald);
      break;
    case 3:
      chains_dd512<kMode, 3>(kb, V, ldv, W, ldw, nw, nv, ldx, a, ald);
      break;
    case 2:
      chains_dd512<kMode, 2>(kb, V, ldv, W, ldw, nw, nv, ldx, a, ald);
      break;
    default:
      chains_dd512<kMode, 1>(kb, V, ldv, W, ldw, nw, nv, ldx, a, ald);
      break;
  }
}

}  // namespace hh_detail
}  // namespace eigsolve
#endif
