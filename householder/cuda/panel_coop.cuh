// The fused panel's small per-column kernels as ONE cooperative kernel per column
// (EIGSOLVE_GPU_COOP=1; the default launches K1, K2, K3 and K5 separately, with programmatic
// dependent launch inside a CUDA graph, which measured 1-5 % faster: bench/NOTES.md). A grid of at
// most one resident block per needed 256-row slice runs the same bodies over virtual blocks vb,
// with a grid-wide barrier where one kernel used to end and the next begin:
//
//   column i of the panel (g = j0 + i), launched after the SYMV and the dots of column i-1:
//
//     [K5 of column i-1: w, tile partials of w^H v]   (i > 0)
//     ---------------------- grid.sync ----------------------
//     K1 column update of A(g:n, g) (pending w += alpha v first), block maxima -> slots
//     ---------------------- grid.sync ----------------------
//     K2 tile partials of the scaled squares
//     ---------------------- grid.sync ----------------------
//     K3 beta, tau (every block sums the partials itself), x := scale2(x, -ex) r
//
//   after the panel's last column: [K5 of column nb-1] grid.sync [K1, pending axpy only]
//
// Every virtual block does exactly what the block of the same index did in the separate
// kernels, and every value that crosses blocks (slots, tile partials, w) goes through global
// memory in the same way: the bits are those of the separate kernels (and of the host).
#pragma once

#include <cooperative_groups.h>

#include "householder/cuda/panel_fused_w.cuh"

namespace eigsolve {
namespace tridiag_cuda {
namespace panel_fused {

template <class T>
struct CoopArgs {
  index_t n, g, j0, i;  ///< K1..K3 work on column g = j0 + i; K5 (w_prev) on column g - 1
  T* A;
  index_t lda;
  T* W;
  index_t ldw;
  T* tau;
  real_t<T>* e;
  T* apart;
  real_t<T>* slots;
  T* alpha_save;
  real_t<T>* sqpart;
  const T* tvec;
  bool w_prev;  ///< run K5 of column i-1 first
  bool col;     ///< false: after K5, only the pending axpy (the panel's tail)
};

__device__ __forceinline__ index_t coop_blocks(index_t work, index_t per) {
  return work > 0 ? (work + per - 1) / per : 1;
}

/// Dynamic shared memory: 2 max(i, 1) elements (K5's t, then K1's broadcast operands).
template <class T>
__global__ void __launch_bounds__(kRows) column_coop_kernel(CoopArgs<T> a) {
  namespace cg = cooperative_groups;
  cg::grid_group grid = cg::this_grid();
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* sm = reinterpret_cast<T*>(smem_raw);
  const index_t nblk = gridDim.x;
  const index_t n = a.n, g = a.g, i = a.i;
  if (a.w_prev) {  // K5 of column i-1 (g-1)
    const index_t mp = n - g, ip = i - 1;
    panel_w_stage(ip, a.tvec, sm);
    for (index_t vb = blockIdx.x; vb < coop_blocks(mp, kRows); vb += nblk)
      panel_w_rows(vb, mp, g - 1, a.j0, ip, a.A, a.lda, a.W, a.ldw, sm, a.tau, a.apart);
    grid.sync();
  }
  // K1
  const T al = pending_alpha(n, g, i, a.tau, a.apart);
  if (a.col) colupd_stage(g, a.j0, i, a.A, a.lda, a.W, a.ldw, al, sm, sm + i);
  const index_t ns = coop_blocks(n - g, kRows);
  for (index_t vb = blockIdx.x; vb < ns; vb += nblk)
    colupd_rows(vb, n, g, a.j0, i, a.A, a.lda, a.W, a.ldw, al, sm, sm + i, a.slots, a.alpha_save,
                a.col);
  if (!a.col) return;
  grid.sync();
  // K2
  const index_t nx = n - g - 2;
  const index_t ntl = nx > 0 ? (nx + kTile - 1) / kTile : 0;
  int ex = 0;
  if (sumsq_head(n, g, a.slots, ns, a.alpha_save, ex))
    for (index_t vb = blockIdx.x; vb < coop_blocks(ntl, kTilesK2); vb += nblk)
      sumsq_tiles(vb, n, g, a.A, a.lda, ex, a.sqpart);
  grid.sync();
  // K3
  T rr;
  if (!finish_head(n, g, a.A, a.lda, a.e, a.tau, a.slots, ns, a.alpha_save, a.sqpart,
                   blockIdx.x == 0, ex, rr))
    return;
  for (index_t vb = blockIdx.x; vb < coop_blocks(nx, index_t(kRows) * kScalePerThread); vb += nblk)
    finish_scale(vb, n, g, a.A, a.lda, ex, rr);
}

}  // namespace panel_fused
}  // namespace tridiag_cuda
}  // namespace eigsolve
