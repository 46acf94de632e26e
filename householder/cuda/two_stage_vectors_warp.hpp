// Z := Q2 Z (docs/canonical-two-stage.md, "Z := Q2 Z") as the work of one warp on 32 columns
// of Z, written __host__ __device__ (device-only code only under __CUDA_ARCH__: lds16) so that a
// host loop over the 32 lanes (tests/gpu/test_gpu_two_stage_vectors.cpp) runs exactly the
// device's per-lane code (householder/cuda/two_stage_vectors_device.cu runs the phases with a
// __syncwarp() between two; loads, stores and flags go through its executor).
//
//   groups of G sweeps, processing order j = 0 .. NG-1 (j = 0 the last group, base
//   i0 = (NG-1-j) G), each through its levels k = 0 .. L(j)-1, L(j) = ceil((n-1-i0)/b):
//   level k of group j applies H(i0+t, k) for t = G-1 .. 0 (the spec's group schedule), all on
//   the window of W = G+b-1 rows from w0 = i0+1+kb; reflector t on window rows t .. t+b-1.
//
//   a task = (group j, slab of 32 columns); lane = column. Tasks are drawn by ticket in the
//   order t = j S + slab (S slabs), so a task only waits for tasks drawn before it:
//     level k of (j, slab) waits until (j-1, slab) has finished level min(k+1, L(j-1))
//     (progress flag, release/acquire): windows of (j, k) and (j-1, k') with k' > k are
//     disjoint, and every row (j, k) loads was last written by (j-1) at a level <= k;
//     group j reuses the flag slot of group j-R, so it first waits until j-R is finished.
//
//   fast path (b = 32 = NB, G = 32), per level:
//     rows in:  level 0 all W rows, later the b new rows [G-1, W); through a staging tile
//               (lane q loads row q of the 32 columns: 32 contiguous elements per column)
//     window:   rows [G-1, W) in registers y[NB] (slots: see fast_compute), rows [0, G-1) in the
//               warp's shared "carry" (row r of lane c at carry[32 r + c]); after reflector t
//               row t+NB-1 leaves y for the carry and row t-1 enters: y ends with rows [0, NB)
//               (out, final for this group), the carry with rows [NB, W-1) = the next level's
//               rows [0, G-1)
//     V tile:   the level's G reflectors (G x NB values, G taus) in shared memory (aliasing the
//               staging tile), read as 16-byte broadcasts, for the dot and again for the
//               update (not held in registers in between)
//     compute:  s = +0; s = madd_conj(v_q, z, s) for q = 0 .. ascending; u = -(tau * s);
//               z = madd(v_q, u, z) -- missing rows (past n - 1) predicated off, no zero terms
//     rows out: the NB out rows through the staging tile (lane q stores row q)
//   generic path (any b, any G): the whole window in shared memory (win[32 r + lane]), rows
//   loaded and stored by each lane for its own column.
//
// Every chain is the spec's, so the bits are apply_q2_canonical's whatever the schedule, the
// number of warps or the path.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/canonical.hpp"
#include "core/hd.hpp"
#include "core/precision.hpp"

#if defined(__CUDACC__)
#define ES_Q2_UNROLL _Pragma("unroll")
#else
#define ES_Q2_UNROLL
#endif

namespace eigsolve {
namespace q2_warp {

constexpr int kLanes = 32;
constexpr int kNB = 32;   ///< the fast path's band width (the default b)
constexpr int kGF = 32;   ///< the fast path's sweeps per group
constexpr int kStg = 33;  ///< row pitch of the staging tile (conflict-free both ways)

/// out[0 .. 16/sizeof(T)) := the 16 bytes at p (shared memory, 16-byte aligned): one vector
/// load, volatile: neither merged with an earlier load of the same address nor moved across
/// another volatile one, so a reflector's v loaded for its dot and again for its update is not
/// held in registers in between.
template <class T>
ES_HD_INLINE void lds16(const T* p, T* out) {
#if defined(__CUDA_ARCH__)
  unsigned w[4];
  const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(p));
  asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3])
               : "r"(a)
               : "memory");
  memcpy(out, w, 16);
#else
  for (int e = 0; e < 16 / int(sizeof(T)); ++e)
    out[e] = p[e];
#endif
}

/// Reflectors unrolled per body of the fast path's reflector loop: after a body the register
/// window is rotated by U (NB moves per U reflectors). U = G (float) means no rotation at all;
/// the 16-byte types, whose madd dominates the moves, take bodies of one reflector (code size,
/// and ptxas then keeps them without spills: 244-246 registers for z and dd, sm_90).
template <class T>
struct FastCfg {
  static constexpr int kU = std::is_same<T, float>::value    ? 32
                            : std::is_same<T, double>::value ? 16
                            : sizeof(T) == 8                 ? 8
                                                             : 1;
  static_assert(kGF % kU == 0 && kU <= kNB, "bodies tile the group");
};

/// Elements of one warp's shared memory, fast path: the staging / V tile (max of NB x kStg and
/// G x NB + G taus), then the carry ((G-1) x 32).
constexpr int kFastBuf = (kNB * kStg > kGF * kNB + kGF) ? kNB * kStg : kGF * kNB + kGF;
constexpr int kFastCarry = (kGF - 1) * kLanes;
constexpr int kFastElems = kFastBuf + kFastCarry;

/// Elements of one warp's shared memory, generic path: window (W x 32), V tile (G x b), taus (G).
ES_HD_INLINE index_t generic_elems(index_t b, index_t G) {
  return (G + b - 1) * kLanes + G * b + G;
}

/// The problem and the task grid (the same in every warp).
struct Geo {
  index_t n = 0, b = 1;  ///< order, band width
  index_t G = 1;         ///< sweeps per group
  index_t NG = 0;        ///< groups: ceil((n-1)/G)
  index_t S = 0;         ///< slabs of 32 columns: ceil(nc/32)
  index_t R = 1;         ///< flag slots per slab (group j uses slot j mod R)
  index_t nc = 0;        ///< columns of Z
};

ES_HD_INLINE index_t group_base(const Geo& g, index_t j) {
  return (g.NG - 1 - j) * g.G;
}
/// Levels of group j: those of its first sweep i0, ceil((n-1-i0)/b).
ES_HD_INLINE index_t group_levels(const Geo& g, index_t j) {
  return (g.n - 1 - group_base(g, j) + g.b - 1) / g.b;
}
/// Progress value of group j after `lev` levels (monotone in (j, lev)).
ES_HD_INLINE std::uint64_t enc(index_t j, index_t lev) {
  return (std::uint64_t(j) << 24) | std::uint64_t(lev);
}

/// The device pointers of a call.
template <class T>
struct Args {
  const T* V2 = nullptr;
  index_t ldv2 = 0;
  const T* tau2 = nullptr;
  index_t ldt2 = 0;
  T* Z = nullptr;
  index_t ldz = 0;
};

/// A lane's registers on the fast path.
template <class T>
struct LaneY {
  T y[kNB];
};

/// Fast path, one level's reflectors on one lane's column: y[NB] holds window rows [G-1, W)
/// (y[q] = row G-1+q) on entry, carry[32 r] row r < G-1 (this lane's column: the caller passes
/// carry + lane). Vs[t NB + q] = v_q of reflector t, taus[t]; lim = rows of the window that
/// exist (n - w0, at most W); Full: lim == W (every reflector, every row).
///
/// Bodies of U reflectors t = t0 .. t0-U+1 (t0 = G-1, G-1-U, ..): inside a body row r is in
/// slot (r - t0) mod NB (static: t = t0 - d, d unrolled), so reflector t's row t+q is in slot
/// (q - d) mod NB; the row entering after it (t-1) takes the slot of the row leaving (t+NB-1),
/// both NB-1-d. Between bodies y is rotated so that row t0'+q is in slot q again. On exit row
/// r < NB is in slot (r - (U-1)) mod NB (final_slot). A reflector's v is loaded from Vs for
/// the dot and again for the update.
template <class T, bool Full>
ES_HD_INLINE void fast_compute(LaneY<T>& Y, T* carry, const T* Vs, const T* taus, int lim) {
  constexpr int U = FastCfg<T>::kU, NB = kNB, P = 16 / int(sizeof(T));
  for (int t0 = kGF - 1; t0 >= U - 1; t0 -= U) {
    ES_Q2_UNROLL
    for (int d = 0; d < U; ++d) {
      const int t = t0 - d;
      if (Full || t < lim) {
        const T* v = Vs + t * NB;
        const int len = lim - t;  // rows of this reflector (Full: >= NB)
        T s = T(0);
        ES_Q2_UNROLL
        for (int q0 = 0; q0 < NB; q0 += P) {
          if (!Full && q0 >= len) break;
          T vp[P];
          lds16(v + q0, vp);
          ES_Q2_UNROLL
          for (int e = 0; e < P; ++e) {
            const int q = q0 + e;
            if (Full || q < len) s = madd_conj(vp[e], Y.y[(q - d + NB) % NB], s);
          }
        }
        const T u = -(taus[t] * s);
        ES_Q2_UNROLL
        for (int q0 = 0; q0 < NB; q0 += P) {
          if (!Full && q0 >= len) break;
          T vp[P];
          lds16(v + q0, vp);
          ES_Q2_UNROLL
          for (int e = 0; e < P; ++e) {
            const int q = q0 + e;
            if (Full || q < len) {
              T& z = Y.y[(q - d + NB) % NB];
              z = madd(vp[e], u, z);
            }
          }
        }
      }
      if (t > 0) {  // row t+NB-1 to the carry (slot t-1), row t-1 from it
        T& z = Y.y[NB - 1 - d];
        const T out = z;
        z = carry[(t - 1) * kLanes];
        carry[(t - 1) * kLanes] = out;
      }
    }
    if (t0 - U >= U - 1) {  // another body follows: y[q] := y[(q - U) mod NB]
      T tmp[NB];
      ES_Q2_UNROLL
      for (int q = 0; q < NB; ++q)
        tmp[q] = Y.y[(q - U + NB) % NB];
      ES_Q2_UNROLL
      for (int q = 0; q < NB; ++q)
        Y.y[q] = tmp[q];
    }
  }
}

/// Slot of window row r < NB after fast_compute.
template <class T>
ES_HD_INLINE constexpr int final_slot(int r) {
  return (r - (FastCfg<T>::kU - 1) + kNB) % kNB;
}

/// Waits (Exec::wait) before level k of group j: the slot of group j-R free (k == 0), group j-1
/// at level min(k+1, L(j-1)).
template <class Exec>
ES_HD_INLINE void wait_level(const Exec& X, const Geo& g, index_t j, index_t slab, index_t k) {
  if (k == 0 && j >= g.R) X.wait(slab * g.R + j % g.R, enc(j - g.R, group_levels(g, j - g.R)));
  if (j >= 1) {
    const index_t lp = group_levels(g, j - 1);
    X.wait(slab * g.R + (j - 1) % g.R, enc(j - 1, k + 1 < lp ? k + 1 : lp));
  }
}

/// Loads `rows` window rows from row r0 of the window (matrix row w0 + r0 ..) of the slab's 32
/// columns into the staging tile stg[q kStg + c] (zero where the row or column does not exist).
template <class T, class Exec>
ES_HD_INLINE void stage_in(const Exec& X, int lane, const Geo& g, const Args<T>& a, T* stg,
                           index_t w0, int r0, int rows, index_t j0) {
  const index_t r = w0 + r0 + lane;
  const bool rok = lane < rows && r < g.n;
  const T* p = a.Z + r + j0 * a.ldz;
  for (int c0 = 0; c0 < kLanes; c0 += 8) {  // 8 loads in flight per lane (registers)
    T buf[8];
    ES_Q2_UNROLL
    for (int c = 0; c < 8; ++c)
      buf[c] = (rok && j0 + c0 + c < g.nc) ? X.ldz(p + (c0 + c) * a.ldz) : T(0);
    ES_Q2_UNROLL
    for (int c = 0; c < 8; ++c)
      stg[lane * kStg + c0 + c] = buf[c];
  }
}

/// The V tile of level k of the group at i0 (window from w0, lim rows exist): Vs[t NB + q],
/// taus[t] for the reflectors t < min(G, lim), q < min(NB, lim - t) (nothing else is read).
template <class T, class Exec>
ES_HD_INLINE void fast_vtile(const Exec& X, int lane, const Args<T>& a, T* Vs, T* taus, index_t i0,
                             index_t k, index_t w0, int lim) {
  for (int t = 0; t < kGF && t < lim; ++t)
    if (lane < lim - t) Vs[t * kNB + lane] = X.ldv(a.V2 + (w0 + t + lane) + (i0 + t) * a.ldv2);
  if (lane < kGF && lane < lim) taus[lane] = X.ldv(a.tau2 + k + (i0 + lane) * a.ldt2);
}

/// One task (group j, slab) on the fast path. RF: rf(lane) -> LaneY<T>& (the device: the
/// thread's registers; the emulation: one per lane). sm: the warp's kFastElems elements.
template <class T, class Exec, class RF>
ES_HD void fast_task(const Exec& X, RF rf, T* sm, const Geo& g, const Args<T>& a, index_t j,
                     index_t slab) {
  constexpr int NB = kNB, G = kGF, W = G + NB - 1;
  T* stg = sm;  // staging tile; the V tile and taus alias it
  T* Vs = sm;
  T* taus = sm + G * NB;
  T* carry = sm + kFastBuf;
  const index_t i0 = group_base(g, j), L = group_levels(g, j);
  const index_t j0 = slab * kLanes;
  for (index_t k = 0; k < L; ++k) {
    const index_t w0 = i0 + 1 + k * NB;
    const int lim = g.n - w0 < W ? int(g.n - w0) : W;
    wait_level(X, g, j, slab, k);
    if (k == 0) {
      // all W rows: [0, NB) then [NB, W); row r < G-1 to the carry, row G-1+q to y[q]
      ES_Q2_UNROLL
      for (int p = 0; p < 2; ++p) {
        const int r0 = p * NB, rows = W - r0 < NB ? W - r0 : NB;
        X.each([&](int lane) { stage_in(X, lane, g, a, stg, w0, r0, rows, j0); });
        X.each([&](int lane) {
          LaneY<T>& Y = rf(lane);
          ES_Q2_UNROLL
          for (int q = 0; q < NB; ++q) {
            const int r = r0 + q;
            if (r < G - 1)
              carry[r * kLanes + lane] = stg[q * kStg + lane];
            else if (r < W)
              Y.y[r - (G - 1)] = stg[q * kStg + lane];
          }
        });
      }
    } else {
      X.each([&](int lane) { stage_in(X, lane, g, a, stg, w0, G - 1, NB, j0); });
      X.each([&](int lane) {
        LaneY<T>& Y = rf(lane);
        ES_Q2_UNROLL
        for (int q = 0; q < NB; ++q)
          Y.y[q] = stg[q * kStg + lane];
      });
    }
    X.each([&](int lane) { fast_vtile(X, lane, a, Vs, taus, i0, k, w0, lim); });
    X.each([&](int lane) {
      LaneY<T>& Y = rf(lane);
      if (lim == W)
        fast_compute<T, true>(Y, carry + lane, Vs, taus, lim);
      else
        fast_compute<T, false>(Y, carry + lane, Vs, taus, lim);
    });
    // rows [0, NB) of the window are final for this group
    X.each([&](int lane) {
      LaneY<T>& Y = rf(lane);
      ES_Q2_UNROLL
      for (int r = 0; r < NB; ++r)
        stg[r * kStg + lane] = Y.y[final_slot<T>(r)];
    });
    X.each([&](int lane) {
      const index_t r = w0 + lane;
      if (lane < lim) {
        ES_Q2_UNROLL
        for (int c = 0; c < kLanes; ++c)
          if (j0 + c < g.nc) X.stz(a.Z + r + (j0 + c) * a.ldz, stg[lane * kStg + c]);
      }
    });
    X.publish(slab * g.R + j % g.R, enc(j, k + 1));
  }
}

/// One task on the generic path (any b, G = g.G): win[32 r + lane] (W = G+b-1 rows), Vs[t b + q],
/// taus[t]; loads and stores by each lane for its own column.
template <class T, class Exec>
ES_HD void generic_task(const Exec& X, T* sm, const Geo& g, const Args<T>& a, index_t j,
                        index_t slab) {
  const index_t b = g.b, G = g.G, W = G + b - 1;
  T* win = sm;
  T* Vs = sm + W * kLanes;
  T* taus = Vs + G * b;
  const index_t i0 = group_base(g, j), L = group_levels(g, j);
  const index_t j0 = slab * kLanes;
  for (index_t k = 0; k < L; ++k) {
    const index_t w0 = i0 + 1 + k * b;
    const index_t lim = g.n - w0 < W ? g.n - w0 : W;
    wait_level(X, g, j, slab, k);
    X.each([&](int lane) {
      const index_t col = j0 + lane;
      const bool cok = col < g.nc;
      index_t rin = 0;
      if (k > 0) {  // the window moves down b rows: rows [b, W) -> [0, G-1)
        for (index_t r = 0; r < G - 1; ++r)
          win[r * kLanes + lane] = win[(r + b) * kLanes + lane];
        rin = G - 1;
      }
      for (index_t r = rin; r < W; ++r)
        win[r * kLanes + lane] = (cok && r < lim) ? X.ldz(a.Z + (w0 + r) + col * a.ldz) : T(0);
      for (index_t t = 0; t < G && t < lim; ++t)
        for (index_t q = lane; q < b && t + q < lim; q += kLanes)
          Vs[t * b + q] = X.ldv(a.V2 + (w0 + t + q) + (i0 + t) * a.ldv2);
      for (index_t t = lane; t < G && t < lim; t += kLanes)
        taus[t] = X.ldv(a.tau2 + k + (i0 + t) * a.ldt2);
    });
    X.each([&](int lane) {
      T* z = win + lane;
      for (index_t t = (lim < G ? lim : G) - 1; t >= 0; --t) {
        const index_t len = lim - t < b ? lim - t : b;
        const T* v = Vs + t * b;
        T s = T(0);
        for (index_t q = 0; q < len; ++q)
          s = madd_conj(v[q], z[(t + q) * kLanes], s);
        const T u = -(taus[t] * s);
        for (index_t q = 0; q < len; ++q)
          z[(t + q) * kLanes] = madd(v[q], u, z[(t + q) * kLanes]);
      }
      const index_t col = j0 + lane;
      if (col < g.nc)
        for (index_t r = 0; r < b && r < lim; ++r)
          X.stz(a.Z + (w0 + r) + col * a.ldz, z[r * kLanes]);
    });
    X.publish(slab * g.R + j % g.R, enc(j, k + 1));
  }
}

}  // namespace q2_warp
}  // namespace eigsolve
