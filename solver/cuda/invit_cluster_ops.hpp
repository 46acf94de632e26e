// Host/device pieces of the thread-block-cluster form of phase B step 2
// (solver/cuda/invit_cluster.cuh): the row geometry, one owned chunk of the fused sweep and the
// ascending chain of the tile partials. Plain C++ on the host, so a CPU emulation of the kernel
// (bench/NOTES.md, "Device phase B on thread block clusters") runs exactly this code against
// the host's phase B.
//
//   cluster of cs CTAs, CTA r owns the tiles [r * tpc, min(ntiles, (r + 1) * tpc)):
//
//   rows  | CTA 0: tiles 0 .. tpc-1 | CTA 1: tiles tpc .. 2tpc-1 | ... | CTA cs-1 (maybe short) |
//   CTA r, thread t, slot s < kc: local chunk t + threads * s (8 rows, in registers for the
//   whole column); lanes 8a .. 8a+7 hold the 8 chunks of one tile (threads % 32 == 0).
#pragma once

#include "core/arith.hpp"
#include "core/canonical.hpp"
#include "core/hd.hpp"
#include "core/precision.hpp"

#include <type_traits>

namespace eigsolve {
namespace invit_dev {

constexpr int kCT = 512;  // most threads per CTA of the cluster kernel

/// Row geometry of the cluster step 2 for n rows on clusters of cs CTAs.
struct ClusterGeom {
  index_t ntiles;  // ceil(n / 64): the tile partials of one dot
  index_t ntp;     // ntiles rounded up to 8, plus 8: one partial buffer (every CTA holds two)
  index_t tpc;     // tiles per CTA
  int cs;          // CTAs per cluster
  int threads;     // threads per CTA (a multiple of 32, at most kCT)
  int kc;          // chunks per thread (1 or 2)
  int tx;          // exchange: 0 cluster barrier, 1 st.async + mbarrier (invit_cluster_sync.cuh)
};

/// False when n rows do not fit (more than kCT * 2 chunks per CTA) or n < 1. kc = 1 while
/// kCT threads suffice, else 2 (double: y, q_prev and v of 2 chunks are 96 registers; 4 would
/// live in local memory).
inline bool cluster_geom(index_t n, int cs, ClusterGeom& G) {
  if (n < 1 || cs < 1) return false;
  G.ntiles = (n + kTile - 1) / kTile;
  G.ntp = (G.ntiles + 7) / 8 * 8 + 8;
  G.tpc = (G.ntiles + cs - 1) / cs;
  G.cs = cs;
  G.tx = 0;
  const index_t chunks = G.tpc * (kTile / kChunk);
  for (int kc = 1; kc <= 2; ++kc) {
    const index_t th = ((chunks + kc - 1) / kc + 31) / 32 * 32;
    if (th <= kCT) {
      G.kc = kc;
      G.threads = int(th);
      return true;
    }
  }
  return false;
}

/// One owned chunk (rows base .. base+7; Full: all below n) of a dot of a column: per row
/// y_i = madd(ncp, qp_i, y_i), then s = madd(v_i, y_i, s) (Nrm: madd(y_i, y_i, s)). Returns the
/// chunk sum (+0 for no row): the canonical chunk chain, rows ascending. The first dot of a
/// column runs with qp = +0 and ncp = -0: madd(-0, +0, y) = -0 + y = y for every y (+-0
/// included), so the update needs no flag. That holds for float and double only: dd's madd of
/// -0 and a y with y.lo = -0 gives lo = +0 (the accurate sum's zero fix-up is on hi alone), so
/// a dd form of this kernel would need the flag; the static_assert keeps it to what it proves.
template <bool Full, bool Nrm, class R>
ES_HD_INLINE R cluster_chunk(index_t base, index_t n, R ncp, R (&y)[kChunk], const R (&qp)[kChunk],
                             const R (&v)[kChunk]) {
  static_assert(std::is_same<R, float>::value || std::is_same<R, double>::value,
                "cluster_chunk: madd(-0, +0, y) == y is shown for float and double only");
  R s = R(0);
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int u = 0; u < kChunk; ++u) {
    if (Full || base + u < n) {
      const R yi = madd(ncp, qp[u], y[u]);
      y[u] = yi;
      s = madd(Nrm ? yi : v[u], yi, s);
    }
  }
  return s;
}

/// b[0..8) = p[0..8); p 32-byte aligned on the device (16-byte loads of the shared buffer).
template <class R>
ES_HD_INLINE void load8(const R* p, R (&b)[8]) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same<R, double>::value) {
    const double2* p2 = reinterpret_cast<const double2*>(p);
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      const double2 w = p2[u];
      b[2 * u] = w.x;
      b[2 * u + 1] = w.y;
    }
  } else if constexpr (std::is_same<R, float>::value) {
    const float4* p4 = reinterpret_cast<const float4*>(p);
#pragma unroll
    for (int u = 0; u < 2; ++u) {
      const float4 w = p4[u];
      b[4 * u] = w.x;
      b[4 * u + 1] = w.y;
      b[4 * u + 2] = w.z;
      b[4 * u + 3] = w.w;
    }
  } else {
#pragma unroll
    for (int u = 0; u < 8; ++u)
      b[u] = p[u];
  }
#else
  for (int u = 0; u < 8; ++u)
    b[u] = p[u];
#endif
}

/// acc = p[0]; acc = acc + p[1]; ...; acc + p[nt-1] (nt >= 1): the canonical ascending sum of
/// the tile partials. Groups of 8 loaded one group ahead of their adds, unconditionally: p must
/// be readable up to nt rounded up to 8, plus 8 (values past nt are loaded, never added).
template <class R>
ES_HD_INLINE R cluster_chain(const R* p, index_t nt) {
  R b[8], nx[8];
  load8(p, b);
  R acc = b[0];
  if (nt < 8) {
    for (int u = 1; u < 8; ++u)
      if (u < nt) acc = acc + b[u];
    return acc;
  }
  load8(p + 8, nx);
  for (int u = 1; u < 8; ++u)
    acc = acc + b[u];
  index_t i = 8;  // nx: the group [i, i + 8) (partial or beyond nt when i + 8 > nt)
  for (; i + 8 <= nt; i += 8) {
    for (int u = 0; u < 8; ++u)
      b[u] = nx[u];
    load8(p + i + 8, nx);
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int u = 0; u < 8; ++u)
      acc = acc + b[u];
  }
  for (int u = 0; u < 8; ++u)
    if (i + u < nt) acc = acc + nx[u];
  return acc;
}

/// a = cluster_chain(p, nt), af = cluster_chain(pf, nt): the same adds in the same order per
/// chain, the two chains interleaved in one loop (two independent dependency chains; the B3
/// form of step 2, two columns in flight). pf as readable as p.
template <class R>
ES_HD_INLINE void cluster_chain2(const R* p, const R* pf, index_t nt, R& a, R& af) {
  R b[8], nx[8], bf[8], nxf[8];
  load8(p, b);
  load8(pf, bf);
  R acc = b[0], accf = bf[0];
  if (nt < 8) {
    for (int u = 1; u < 8; ++u)
      if (u < nt) {
        acc = acc + b[u];
        accf = accf + bf[u];
      }
    a = acc;
    af = accf;
    return;
  }
  load8(p + 8, nx);
  load8(pf + 8, nxf);
  for (int u = 1; u < 8; ++u) {
    acc = acc + b[u];
    accf = accf + bf[u];
  }
  index_t i = 8;  // nx, nxf: the group [i, i + 8)
  for (; i + 8 <= nt; i += 8) {
    for (int u = 0; u < 8; ++u) {
      b[u] = nx[u];
      bf[u] = nxf[u];
    }
    load8(p + i + 8, nx);
    load8(pf + i + 8, nxf);
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int u = 0; u < 8; ++u) {
      acc = acc + b[u];
      accf = accf + bf[u];
    }
  }
  for (int u = 0; u < 8; ++u)
    if (i + u < nt) {
      acc = acc + nx[u];
      accf = accf + nxf[u];
    }
  a = acc;
  af = accf;
}

}  // namespace invit_dev
}  // namespace eigsolve
