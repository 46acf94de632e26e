// The canonical rank-2k update of a Hermitian trailing matrix
// (docs/canonical-tridiagonalization.md, "After the panel"), shared by the one-stage reduction
// (householder/tridiagonalize.cpp, where it is defined) and stage 1 of the two-stage reduction
// (householder/band_reduce.cpp). Internal to householder/.
#pragma once

#include "core/precision.hpp"

namespace eigsolve {
namespace hh_detail {

/// Rank-2k update of the lower triangle of the m x m matrix A22:
/// a_ij -= sum_k (v_ik conj(w_jk) + w_ik conj(v_jk)), k = 0 .. kb-1 ascending, one chain per
/// element (a = madd(-v_ik, conj(w_jk), a); a = madd(-w_ik, conj(v_jk), a)); complex diagonal
/// made real afterwards. V, W: m x kb (leading dimensions ldv, ldw). NW, NV: kb x m workspace.
/// The bits do not depend on nthreads.
template <class T>
void rank2k_update(int nthreads, index_t m, index_t kb, const T* V, index_t ldv, const T* W,
                   index_t ldw, T* A22, index_t lda, T* NW, T* NV);

/// The panel's column update: a[r] for r < len, for k = 0 .. kb-1 ascending,
/// a[r] = madd(V(r, k), nw[k], a[r]); a[r] = madd(W(r, k), nv[k], a[r]) (nw[k] = -conj(w_gk),
/// nv[k] = -conj(v_gk), see docs/canonical-tridiagonalization.md). The bits do not depend on
/// nthreads.
template <class T>
void column_update(int nthreads, index_t len, index_t kb, const T* V, index_t ldv, const T* W,
                   index_t ldw, const T* nw, const T* nv, T* a);

}  // namespace hh_detail
}  // namespace eigsolve
