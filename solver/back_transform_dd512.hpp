// Steps 1 and 3 of the canonical back-transformation (solver/back_transform.cpp,
// docs/canonical-backtransform.md) for dd_real on AVX-512 (core/dd_avx512.hpp: hi and lo of 8
// dd values in two zmm, every lane the bits of core/dd_real.hpp's scalar operators):
//
//   step 1  w_cj = canonical_dot(conj(V(:, c)), Z(:, j)): 8 reflectors c in the lanes (rows of
//           the packed P, P[kp r + c] = V(r, c)), z_rj broadcast; per tile of 64 rows its 8
//           chunk chains s = V(r, c) * z_rj + s in flight together, the fixed tree, then
//           acc = acc + p tile by tile: lane by lane exactly canonical_dot.
//   step 3  z_rj = chain_c madd(v_rc, ny_cj, z_rj): 8 rows r in the lanes, ny_cj broadcast, NC
//           columns j interleaved (one dd chain is latency-bound).
//
// CPU only; the caller checks has_avx512f().
#pragma once

#include "core/dd_avx512.hpp"

#if defined(EIGSOLVE_DD_AVX512)
#include <immintrin.h>

#include <algorithm>

#include "core/canonical.hpp"
#include "core/dd_real.hpp"
#include "core/precision.hpp"

namespace eigsolve {
namespace bt_dd512 {

using dd512::V;

/// Step 1 for the reflectors [8g, 8g + 8) of P (ld kp) and one column z of L rows: out[0..7].
__attribute__((target("avx512f"))) inline void step1_group(index_t L, const dd_real* P, index_t kp,
                                                           const dd_real* z, dd_real* out) {
  V acc{_mm512_setzero_pd(), _mm512_setzero_pd()};
  for (index_t t0 = 0; t0 < L; t0 += kTile) {
    V c[kChunk];
    for (int q = 0; q < kChunk; ++q)
      c[q] = V{_mm512_setzero_pd(), _mm512_setzero_pd()};
    if (t0 + kTile <= L) {
      for (int jj = 0; jj < kChunk; ++jj)
        for (int q = 0; q < kChunk; ++q) {
          const index_t r = t0 + q * kChunk + jj;
          c[q] = dd512::madd(dd512::load8(P + kp * r), dd512::bcast(z[r]), c[q]);
        }
    } else {  // the last, partial tile: chunks past L stay +0
      for (int jj = 0; jj < kChunk; ++jj)
        for (int q = 0; q < kChunk; ++q) {
          const index_t r = t0 + q * kChunk + jj;
          if (r >= L) continue;
          c[q] = dd512::madd(dd512::load8(P + kp * r), dd512::bcast(z[r]), c[q]);
        }
    }
    const V p = dd512::tree8(c);
    acc = t0 == 0 ? p : dd512::add(acc, p);
  }
  dd512::store8(out, acc);
}

/// Step 3 on rows [0, 8) of NC columns: z + ldz q (q < NC) += V NY(:, q), V = the 8 rows at Vr
/// of the k columns (ld L), NY(c, q) = ny[c + kp q].
template <int NC>
__attribute__((target("avx512f"))) inline void step3_rows8(index_t k, const dd_real* Vr, index_t L,
                                                           const dd_real* ny, index_t kp,
                                                           dd_real* z, index_t ldz) {
  V s[NC];
  for (int q = 0; q < NC; ++q)
    s[q] = dd512::load8(z + ldz * q);
  for (index_t c = 0; c < k; ++c) {
    const V v = dd512::load8(Vr + L * c);
    for (int q = 0; q < NC; ++q)
      s[q] = dd512::madd(v, dd512::bcast(ny[c + kp * q]), s[q]);
  }
  for (int q = 0; q < NC; ++q)
    dd512::store8(z + ldz * q, s[q]);
}

}  // namespace bt_dd512
}  // namespace eigsolve
#endif
