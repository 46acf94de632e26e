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
//   a task = (group j, slab of columns); lane = column. Tasks are drawn by ticket in the
//   order t = j S + slab (S slabs), so a task only waits for tasks drawn before it:
//     level k of (j, slab) waits until (j-1, slab) has finished level min(k+1, L(j-1))
//     (progress flag, release/acquire): windows of (j, k) and (j-1, k') with k' > k are
//     disjoint, and every row (j, k) loads was last written by (j-1) at a level <= k;
//     group j reuses the flag slot of group j-R, so it first waits until j-R is finished.
//
//   fast path (b = 32 = NB, G = 32; C = 1 or 2 columns per lane, slabs of 32 C columns), per
//   level:
//     rows in:  level 0 all W rows, later the b new rows [G-1, W); through a staging tile
//               (lane q loads row q of 32 columns: 32 contiguous elements per column, all 32
//               loads in flight), 32 columns at a time
//     window:   rows [G-1, W) in registers y[c][NB] (slots: see fast_compute), rows [0, G-1) in
//               the warp's shared "carry" (row r of lane l's column c at carry[32 (r C + c) + l]);
//               after reflector t row t+NB-1 leaves y for the carry and row t-1 enters: y ends
//               with rows [0, NB) (out, final for this group), the carry with rows [NB, W-1) =
//               the next level's rows [0, G-1)
//     V tile:   the level's G reflectors (G x kVS values, G taus) in shared memory (aliasing the
//               staging tile), loaded by lane t = reflector t (one address, immediate offsets;
//               double: beside the rows' loads, else after them, VLoad; d, z, dd with
//               Packed: from the packed tiles, lane q loading element q of each reflector,
//               fetch_vp), read as 16-byte
//               broadcasts, for the dot and again for the update (not held in registers in
//               between)
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
#include "core/neg_rounded.hpp"
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
/// held in registers in between. Typed per scalar (f32 / f64 destination registers): an untyped
/// 4 x u32 load cost two register moves per double (session 17, Nsight: 0.44 IMAD.MOV per DFMA).
#if defined(__CUDA_ARCH__)
ES_HD_INLINE unsigned q2_smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
ES_HD_INLINE void lds16(const float* p, float* out) {
  asm volatile("ld.volatile.shared.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(out[0]), "=f"(out[1]), "=f"(out[2]), "=f"(out[3])
               : "r"(q2_smem_addr(p))
               : "memory");
}
ES_HD_INLINE void lds16(const double* p, double* out) {
  asm volatile("ld.volatile.shared.v2.f64 {%0, %1}, [%2];"
               : "=d"(out[0]), "=d"(out[1])
               : "r"(q2_smem_addr(p))
               : "memory");
}
ES_HD_INLINE void lds16(const Complex<float>* p, Complex<float>* out) {
  asm volatile("ld.volatile.shared.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(out[0].re), "=f"(out[0].im), "=f"(out[1].re), "=f"(out[1].im)
               : "r"(q2_smem_addr(p))
               : "memory");
}
ES_HD_INLINE void lds16(const Complex<double>* p, Complex<double>* out) {
  asm volatile("ld.volatile.shared.v2.f64 {%0, %1}, [%2];"
               : "=d"(out[0].re), "=d"(out[0].im)
               : "r"(q2_smem_addr(p))
               : "memory");
}
ES_HD_INLINE void lds16(const dd_real* p, dd_real* out) {
  asm volatile("ld.volatile.shared.v2.f64 {%0, %1}, [%2];"
               : "=d"(out[0].hi), "=d"(out[0].lo)
               : "r"(q2_smem_addr(p))
               : "memory");
}
#else
template <class T>
void lds16(const T* p, T* out) {
  for (int e = 0; e < 16 / int(sizeof(T)); ++e)
    out[e] = p[e];
}
#endif

/// Reflectors unrolled per body of the fast path's reflector loop: after a body the register
/// window is rotated by U (NB moves per U reflectors). U = G (float) means no rotation at all;
/// the 16-byte types, whose madd dominates the moves, take bodies of one reflector (code size,
/// and ptxas then keeps them without spills: 244-246 registers for z and dd, sm_90). With C = 2
/// columns per lane the body is as for a type twice as wide.
template <class T, int C = 1>
struct FastCfg {
  static constexpr int kW = int(sizeof(T)) * C;  ///< bytes of a row per lane
  static constexpr int kU1 = std::is_same<T, float>::value    ? 32
                             : std::is_same<T, double>::value ? 16
                             : sizeof(T) == 8                 ? 8
                                                              : 1;
  static constexpr int kU = C == 1 ? kU1 : kW <= 8 ? 16 : kW <= 16 && sizeof(T) <= 8 ? 8 : 1;
  static_assert(kGF % kU == 0 && kU <= kNB, "bodies tile the group");
  /// fast_compute keeps v_q (q < kKeepV) in registers from the dot to the update and loads the
  /// rest again. double keeps all 32 (Q2 -11 % at n = 16384 on the H200 against 0, -9 % with
  /// 16; 255 registers and 44 bytes of spills, 220 without); the 16-byte scalars would spill
  /// hundreds of bytes and float / complex float were not measured: they load v again.
  static constexpr int kKeepV = std::is_same<T, double>::value ? kNB : 0;
};

/// Columns per lane the fast path offers for T: 2 for the scalars of at most 8 bytes (two
/// independent chains per lane, each v loaded from shared memory serves both), else 1.
template <class T>
constexpr int fast_max_cols() {
  return sizeof(T) <= 8 ? 2 : 1;
}

/// Elements of one warp's shared memory, fast path with C columns per lane: the staging / V
/// tile (max of NB x kStg and G x kVS + G taus; the C groups of 32 columns are staged one after
/// the other), then the carry ((G-1) x 32 C).
/// Row pitch of the V tile in elements (reflector t's v at Vs + t kVS<T>): 16-byte aligned
/// rows for lds16, an odd number of 16-byte units so that put_v's stores of lane t's row meet
/// lane t+8's banks, not lane t+1's.
template <class T>
constexpr int kVS = kNB + 16 / int(sizeof(T));
static_assert(kVS<float> * 4 % 16 == 0 && kVS<double> * 8 % 16 == 0, "V tile rows 16-byte aligned");
/// Elements of the staging / V tile region: max of NB x kStg and G x kVS + G taus.
template <class T>
constexpr int kFastBuf = (kNB * kStg > kGF * kVS<T> + kGF) ? kNB* kStg : kGF* kVS<T> + kGF;
template <class T>
constexpr int fast_elems(int C) {
  return kFastBuf<T> + (kGF - 1) * kLanes * C;
}

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
  /// The packed V tiles (fast path only; nullptr: the V tile is read from V2 and tau2).
  const T* Vp = nullptr;
};

/// The packed V tiles of the fast path (b = G = 32; EIGSOLVE_GPU_Q2_PACK): the V tile of level k
/// of group j -- its G reflectors' NB values and G taus, as fast_task stages them -- is tile
/// packed_tile(j, k), kTileElems elements from Vp + packed_tile(j, k) kTileElems:
///
///     [t NB + q]  = v_q of reflector t (V2 row w0+t+q, column i0+t), zero where that row does
///                   not exist (t + q >= lim)
///     [G NB + t]  = tau of reflector t (tau2 row k, column i0+t), zero where t >= lim
///
/// (i0 = group_base(j), w0 = i0 + 1 + k NB, lim = min(n - w0, W): fetch_v's values, zeros
/// included). Lane l then loads element l of each row: 256 contiguous bytes per load in d,
/// where fetch_v's lane t = reflector t touches 32 sectors per load (Nsight, session 21: 12.7
/// of 32 bytes per sector used, L1 at 81 % of its throughput). Group j has j + 1 levels on the
/// fast path (i0 = (NG-1-j) 32 and 0 < n-1 - (NG-1) 32 <= 32), so the tiles of group j start at
/// j (j+1) / 2 and there are NG (NG+1) / 2 of them. Only where the values come from changes:
/// every chain is the same, so the bits are too.
constexpr int kTileElems = kGF * kNB + kGF;
ES_HD_INLINE index_t packed_tiles(index_t NG) {
  return NG * (NG + 1) / 2;
}
ES_HD_INLINE index_t packed_tile(index_t j, index_t k) {
  return j * (j + 1) / 2 + k;
}
/// Element e < kTileElems of tile (j, k) (g: the fast path's geometry, G = b = 32).
template <class T>
ES_HD_INLINE T packed_value(const Geo& g, const T* V2, index_t ldv2, const T* tau2, index_t ldt2,
                            index_t j, index_t k, int e) {
  constexpr index_t W = kGF + kNB - 1;
  const index_t i0 = group_base(g, j), w0 = i0 + 1 + k * kNB;
  const index_t lim = g.n - w0 < W ? g.n - w0 : W;
  if (e < kGF * kNB) {
    const index_t t = e / kNB, q = e % kNB;
    return t + q < lim ? V2[(w0 + t + q) + (i0 + t) * ldv2] : T(0);
  }
  const index_t t = e - kGF * kNB;
  return t < lim ? tau2[k + (i0 + t) * ldt2] : T(0);
}

/// A lane's registers on the fast path: the window rows of its C columns, and loads in flight
/// (zb: the lane's row of 32 columns, vb: its element of each reflector of the V tile, tb: a
/// tau) between the phase that issues them and the one that stores them to shared memory.
template <class T, int C = 1>
struct LaneY {
  T y[C][kNB];
  T zb[kLanes];
  T vb[kGF];
  T tb;
};

/// Between two bodies of fast_compute's reflector loop: y[c][q] := y[c][(q - U) mod NB], so that
/// row t0'+q of the next body (top t0' = t0 - U) is in slot q again.
template <class T, int C>
ES_HD_INLINE void rotate_body(LaneY<T, C>& Y) {
  constexpr int U = FastCfg<T, C>::kU, NB = kNB;
  ES_Q2_UNROLL
  for (int c = 0; c < C; ++c) {
    T tmp[NB];
    ES_Q2_UNROLL
    for (int q = 0; q < NB; ++q)
      tmp[q] = Y.y[c][(q - U + NB) % NB];
    ES_Q2_UNROLL
    for (int q = 0; q < NB; ++q)
      Y.y[c][q] = tmp[q];
  }
}

/// Fast path, one level's reflectors on one lane's C columns: y[c][NB] holds window rows
/// [G-1, W) of column c (y[c][q] = row G-1+q) on entry, carry[32 (r C + c)] row r < G-1 (the
/// caller passes carry + lane). Vs[t kVS + q] = v_q of reflector t, taus[t]; lim = rows of the
/// window that exist (n - w0, at most W); Full: lim == W (every reflector, every row).
///
/// Bodies of U reflectors t = t0 .. t0-U+1 (t0 = G-1, G-1-U, ..): inside a body row r is in
/// slot (r - t0) mod NB (static: t = t0 - d, d unrolled), so reflector t's row t+q is in slot
/// (q - d) mod NB; the row entering after it (t-1) takes the slot of the row leaving (t+NB-1),
/// both NB-1-d. Between bodies y is rotated so that row t0'+q is in slot q again. On exit row
/// r < NB is in slot (r - (U-1)) mod NB (final_slot). A reflector's v is loaded from Vs for the
/// dot; its first kKeepV values stay in registers for the update, the rest are loaded again
/// (loading all of them again made the shared-memory wavefronts a co-limit with 8 warps per
/// SM); each load serves the C columns' chains (independent, interleaved: the same chains as
/// one column at a time).
template <class T, bool Full, int C = 1, int KeepV = FastCfg<T, C>::kKeepV>
ES_HD_INLINE void fast_compute(LaneY<T, C>& Y, T* carry, const T* Vs, const T* taus, int lim) {
  constexpr int U = FastCfg<T, C>::kU, NB = kNB, P = 16 / int(sizeof(T));
  for (int t0 = kGF - 1; t0 >= U - 1; t0 -= U) {
    ES_Q2_UNROLL
    for (int d = 0; d < U; ++d) {
      const int t = t0 - d;
      if (Full || t < lim) {
        const T* v = Vs + t * kVS<T>;
        const int len = lim - t;  // rows of this reflector (Full: >= NB)
        T s[C];
        ES_Q2_UNROLL
        for (int c = 0; c < C; ++c)
          s[c] = T(0);
        T vr[NB];  // v, loaded once for the dot and kept for the update
        ES_Q2_UNROLL
        for (int q0 = 0; q0 < NB; q0 += P) {
          if (!Full && q0 >= len) break;
          lds16(v + q0, vr + q0);
          ES_Q2_UNROLL
          for (int e = 0; e < P; ++e) {
            const int q = q0 + e;
            if (Full || q < len) {
              ES_Q2_UNROLL
              for (int c = 0; c < C; ++c)
                s[c] = madd_conj(vr[q], Y.y[c][(q - d + NB) % NB], s[c]);
            }
          }
        }
        T u[C];
        ES_Q2_UNROLL
        for (int c = 0; c < C; ++c)
          u[c] = neg_rounded(taus[t] * s[c]);  // the rounded product, negated
        ES_Q2_UNROLL
        for (int q0 = 0; q0 < NB; q0 += P) {
          if (!Full && q0 >= len) break;
          T vp[P];
          if (q0 >= KeepV) lds16(v + q0, vp);
          ES_Q2_UNROLL
          for (int e = 0; e < P; ++e) {
            const int q = q0 + e;
            if (Full || q < len) {
              const T vq = q0 >= KeepV ? vp[e] : vr[q];
              ES_Q2_UNROLL
              for (int c = 0; c < C; ++c) {
                T& z = Y.y[c][(q - d + NB) % NB];
                z = madd(vq, u[c], z);
              }
            }
          }
        }
      }
      if (t > 0) {  // row t+NB-1 to the carry (slot t-1), row t-1 from it
        ES_Q2_UNROLL
        for (int c = 0; c < C; ++c) {
          T& z = Y.y[c][NB - 1 - d];
          T* cr = carry + ((t - 1) * C + c) * kLanes;
          const T out = z;
          z = *cr;
          *cr = out;
        }
      }
    }
    if (t0 - U >= U - 1) rotate_body(Y);  // another body follows
  }
}

/// fast_compute<T, true, C> (Full levels) with each reflector's update interleaved with the next
/// reflector's dot (the default for complex double, EIGSOLVE_GPU_Q2_IL=1 / 0 elsewhere; session
/// 22 on the H200 at n = 16384: z's Q2 -3-5 %, d's +3 %): reflector t-1's dot reads
/// row t-1+q, which reflector t's update writes at its step q-1, so step q of the loop updates
/// row t+q and takes step q of the next dot (row t-1 from the carry at q = 0, which reflector t
/// does not touch). Every chain is fast_compute's (the dot of t-1 is +0 then q ascending, each
/// update one madd), so are the bits; only the program order changes, so that the dependent dot
/// chain has the update's independent FMAs beside it. The dot of reflector G-1 (the first) is
/// taken alone, reflector 0 has no next dot; slots, rotations and carry swaps are fast_compute's.
template <class T, int C = 1>
ES_HD_INLINE void fast_compute_il(LaneY<T, C>& Y, T* carry, const T* Vs, const T* taus) {
  constexpr int U = FastCfg<T, C>::kU, NB = kNB, P = 16 / int(sizeof(T));
  T s[C];
  {  // the dot of reflector G-1 (rows G-1 .. G-1+NB-1: slots 0 .. NB-1 of the first body)
    const T* v = Vs + (kGF - 1) * kVS<T>;
    ES_Q2_UNROLL
    for (int c = 0; c < C; ++c)
      s[c] = T(0);
    ES_Q2_UNROLL
    for (int q0 = 0; q0 < NB; q0 += P) {
      T vp[P];
      lds16(v + q0, vp);
      ES_Q2_UNROLL
      for (int e = 0; e < P; ++e)
        ES_Q2_UNROLL
      for (int c = 0; c < C; ++c)
        s[c] = madd_conj(vp[e], Y.y[c][q0 + e], s[c]);
    }
  }
  for (int t0 = kGF - 1; t0 >= U - 1; t0 -= U) {
    ES_Q2_UNROLL
    for (int d = 0; d < U; ++d) {
      const int t = t0 - d;
      const T* v = Vs + t * kVS<T>;
      T u[C];
      ES_Q2_UNROLL
      for (int c = 0; c < C; ++c)
        u[c] = neg_rounded(taus[t] * s[c]);  // the rounded product, negated
      if (t > 0) {
        const T* vn = Vs + (t - 1) * kVS<T>;
        T zin[C], sn[C];
        ES_Q2_UNROLL
        for (int c = 0; c < C; ++c) {
          zin[c] = carry[((t - 1) * C + c) * kLanes];  // row t-1
          sn[c] = T(0);
        }
        ES_Q2_UNROLL
        for (int q0 = 0; q0 < NB; q0 += P) {
          T vp[P], vq[P];
          lds16(v + q0, vp);
          lds16(vn + q0, vq);
          ES_Q2_UNROLL
          for (int e = 0; e < P; ++e) {
            const int q = q0 + e;
            ES_Q2_UNROLL
            for (int c = 0; c < C; ++c) {
              T& z = Y.y[c][(q - d + NB) % NB];  // row t+q
              z = madd(vp[e], u[c], z);
              // step q of the next dot: row t-1+q (the carry's row t-1 at q = 0; else row
              // t+q-1, written by the update's step q-1)
              const T& zp = q == 0 ? zin[c] : Y.y[c][(q - 1 - d + NB) % NB];
              sn[c] = madd_conj(vq[e], zp, sn[c]);
            }
          }
        }
        ES_Q2_UNROLL
        for (int c = 0; c < C; ++c) {  // row t+NB-1 to the carry (slot t-1), row t-1 from it
          T& z = Y.y[c][NB - 1 - d];
          carry[((t - 1) * C + c) * kLanes] = z;
          z = zin[c];
          s[c] = sn[c];
        }
      } else {
        ES_Q2_UNROLL
        for (int q0 = 0; q0 < NB; q0 += P) {
          T vp[P];
          lds16(v + q0, vp);
          ES_Q2_UNROLL
          for (int e = 0; e < P; ++e)
            ES_Q2_UNROLL
          for (int c = 0; c < C; ++c) {
            T& z = Y.y[c][(q0 + e - d + NB) % NB];
            z = madd(vp[e], u[c], z);
          }
        }
      }
    }
    if (t0 - U >= U - 1) rotate_body(Y);  // another body follows
  }
}

/// Slot of window row r < NB after fast_compute.
template <class T, int C = 1>
ES_HD_INLINE constexpr int final_slot(int r) {
  return (r - (FastCfg<T, C>::kU - 1) + kNB) % kNB;
}

/// A task's flag slots, computed once per task: j mod R and the levels of group j-1 are 64-bit
/// divisions, which wait_level and publish took up to three times a level (session 22). Slots
/// are below kSyncWords (2^16 + 1) and levels below n / 32, so they fit an int.
struct TaskFlags {
  int own = 0;   ///< slab R + j mod R: group j's slot (group j-R's until that one is finished)
  int prev = 0;  ///< slab R + (j-1) mod R: group j-1's slot (j >= 1)
  int lp = 0;    ///< levels of group j-1 (j >= 1)
};
ES_HD_INLINE TaskFlags task_flags(const Geo& g, index_t j, index_t slab) {
  TaskFlags f;
  const int jr = int(j % g.R), base = int(slab * g.R);
  f.own = base + jr;
  f.prev = base + (jr > 0 ? jr - 1 : int(g.R) - 1);  // (j-1) mod R without a second division
  f.lp = j >= 1 ? int(group_levels(g, j - 1)) : 0;
  return f;
}

/// Waits (Exec::wait) before level k of group j: the slot of group j-R free (k == 0), group j-1
/// at level min(k+1, L(j-1)).
template <class Exec>
ES_HD_INLINE void wait_level(const Exec& X, const Geo& g, const TaskFlags& f, index_t j,
                             index_t k) {
  if (k == 0 && j >= g.R) X.wait(f.own, enc(j - g.R, group_levels(g, j - g.R)));
  if (j >= 1) X.wait(f.prev, enc(j - 1, k + 1 < f.lp ? k + 1 : f.lp));
}

/// p as an address the compiler cannot take apart (device: an empty asm; a no-op on the host).
/// Loads from p + constant then take one register pair and immediate offsets: without it the
/// compiler re-associated fetch_vp's tile + k kTileElems + lane + 32 t, turned lane + 32 t into
/// lane | 32 t (lane < 32), and formed each of the 33 addresses with 3-4 integer instructions.
template <class T>
ES_HD_INLINE const T* opaque_ptr(const T* p) {
#if defined(__CUDA_ARCH__)
  asm("" : "+l"(p));
#endif
  return p;
}

/// Columns of the 32 from jc that exist (0 .. 32; jc may lie past the last column with C = 2).
ES_HD_INLINE int slab_cols(const Geo& g, index_t jc) {
  return g.nc - jc >= kLanes ? kLanes : g.nc > jc ? int(g.nc - jc) : 0;
}

/// Issues the loads of one window row of 32 columns into the lane's zb (lane q: row q of the
/// staging tile): zb[c] := p[c ld] for c < cols, zero for the others (cols: the columns that
/// exist, 0 where the row does not). All 32 in flight (they go to the staging tile with put_z).
/// The address steps by ld from one pointer and the test is one int compare, where p + c ld
/// and jc + c < nc cost a 64-bit product and a 64-bit compare per element (session 22); a full
/// row (every level but the matrix's last rows, every slab but the last: uniform across the
/// warp) takes no test at all.
template <class T, int C, class Exec>
ES_HD_INLINE void fetch_z(const Exec& X, LaneY<T, C>& Y, const T* p, index_t ld, int cols) {
  if (cols == kLanes) {
    ES_Q2_UNROLL
    for (int c = 0; c < kLanes; ++c, p += ld)
      Y.zb[c] = X.ldz(p);
  } else {
    ES_Q2_UNROLL
    for (int c = 0; c < kLanes; ++c, p += ld)
      Y.zb[c] = c < cols ? X.ldz(p) : T(0);
  }
}

/// The stores of one window row of 32 columns from the staging tile (lane q: row q):
/// p[c ld] := src[c] for c < cols; fetch_z's addressing.
template <class T, class Exec>
ES_HD_INLINE void store_z(const Exec& X, T* p, index_t ld, int cols, const T* src) {
  if (cols == kLanes) {
    ES_Q2_UNROLL
    for (int c = 0; c < kLanes; ++c, p += ld)
      X.stz(p, src[c]);
  } else {
    ES_Q2_UNROLL
    for (int c = 0; c < kLanes; ++c, p += ld)
      if (c < cols) X.stz(p, src[c]);
  }
}

/// The staging tile stg[q kStg + c] := lane q's zb[c].
template <class T, int C>
ES_HD_INLINE void put_z(int lane, const LaneY<T, C>& Y, T* stg) {
  ES_Q2_UNROLL
  for (int c = 0; c < kLanes; ++c)
    stg[lane * kStg + c] = Y.zb[c];
}

/// Issues the loads of the V tile of level k of the group at i0 (window from w0, lim rows exist)
/// into the lane's vb and tb, lane t holding reflector t: vb[q] = its v_q (zero where the row
/// does not exist), tb = its tau. All 33 in flight, from one address (the offsets q are
/// immediates; V2 and tau2 are read-only for the kernel). (Session 17's Nsight profile: a loop
/// over the reflectors with lane = q kept 4 loads in flight, 8 round trips per level, 9 % of
/// the kernel's stall samples; with all 32 in flight and an address each, 254 registers.)
template <class T, int C, class Exec>
ES_HD_INLINE void fetch_v(const Exec& X, int lane, LaneY<T, C>& Y, const Args<T>& a, index_t i0,
                          index_t k, index_t w0, int lim, int q0 = 0, int B = kNB) {
  const int len = lim - lane;  // rows of reflector `lane` that exist (none if <= 0)
  const T* p = a.V2 + (w0 + lane) + (i0 + lane) * a.ldv2;
  ES_Q2_UNROLL
  for (int q = 0; q < kNB; ++q)
    if (q >= q0 && q < q0 + B) Y.vb[q] = q < len ? X.ldv(p + q) : T(0);
  if (q0 == 0) Y.tb = len > 0 ? X.ldv(a.tau2 + k + (i0 + lane) * a.ldt2) : T(0);
}

/// The V tile: Vs[t kVS + q] := lane t's vb[q] (q in [q0, q0+B)), taus[t] := its tb
/// (fast_compute reads only the entries of reflectors and rows that exist).
template <class T, int C>
ES_HD_INLINE void put_v(int lane, const LaneY<T, C>& Y, T* Vs, T* taus, int q0 = 0, int B = kNB) {
  ES_Q2_UNROLL
  for (int q = 0; q < kNB; ++q)
    if (q >= q0 && q < q0 + B) Vs[lane * kVS<T> + q] = Y.vb[q];
  if (q0 == 0) taus[lane] = Y.tb;
}

/// The V tile of a level from its packed tile (a.Vp + packed_tile(j, k) kTileElems: fast_task
/// steps it per level) into the lane's vb and tb, lane l holding element l of each reflector:
/// vb[t] = v_l of reflector t (t in [t0, t0+B)), tb = the tau of reflector l. One address,
/// immediate offsets, every load 32 contiguous elements.
template <class T, int C, class Exec>
ES_HD_INLINE void fetch_vp(const Exec& X, int lane, LaneY<T, C>& Y, const T* tile, int t0 = 0,
                           int B = kGF) {
  const T* p = opaque_ptr(tile + lane);
  ES_Q2_UNROLL
  for (int t = 0; t < kGF; ++t)
    if (t >= t0 && t < t0 + B) Y.vb[t] = X.ldv(p + t * kNB);
  if (t0 == 0) Y.tb = X.ldv(p + kGF * kNB);
}

/// The V tile from fetch_vp's registers: Vs[t kVS + lane] := vb[t] (t in [t0, t0+B)),
/// taus[lane] := tb (a row of the tile per store: no bank conflicts).
template <class T, int C>
ES_HD_INLINE void put_vp(int lane, const LaneY<T, C>& Y, T* Vs, T* taus, int t0 = 0, int B = kGF) {
  ES_Q2_UNROLL
  for (int t = 0; t < kGF; ++t)
    if (t >= t0 && t < t0 + B) Vs[t * kVS<T> + lane] = Y.vb[t];
  if (t0 == 0) taus[lane] = Y.tb;
}

/// The loads of session 16, kept for float and complex float (VLoad::kLegacy): one window row
/// of 32 columns into the staging tile, lane q's row at stg + q kStg (fetch_z's p, ld, cols:
/// zero where the row or column does not exist).
template <class T, class Exec>
ES_HD_INLINE void stage_in(const Exec& X, T* stg, const T* p, index_t ld, int cols) {
  for (int c0 = 0; c0 < kLanes; c0 += 8) {  // 8 loads in flight per lane (registers)
    T buf[8];
    ES_Q2_UNROLL
    for (int c = 0; c < 8; ++c, p += ld)
      buf[c] = c0 + c < cols ? X.ldz(p) : T(0);
    ES_Q2_UNROLL
    for (int c = 0; c < 8; ++c)
      stg[c0 + c] = buf[c];
  }
}

/// The V tile of level k of the group at i0 (window from w0, lim rows exist), lane = q:
/// Vs[t kVS + q], taus[t] for the reflectors t < min(G, lim), q < min(NB, lim - t) (nothing
/// else is read). Session 16's loads, kept for float and complex float (VLoad::kLegacy).
template <class T, class Exec>
ES_HD_INLINE void fast_vtile(const Exec& X, int lane, const Args<T>& a, T* Vs, T* taus, index_t i0,
                             index_t k, index_t w0, int lim) {
  for (int t = 0; t < kGF && t < lim; ++t)
    if (lane < lim - t) Vs[t * kVS<T> + lane] = X.ldv(a.V2 + (w0 + t + lane) + (i0 + t) * a.ldv2);
  if (lane < kGF && lane < lim) taus[lane] = X.ldv(a.tau2 + k + (i0 + lane) * a.ldt2);
}

/// The async loads (`Async` in fast_task; the device's cp.async, no registers in flight): the
/// rows of stage_in's tile, lane q copying row q of the 32 columns from j0 (X.cprow: dst[c] :=
/// src[c ld] for c < cols, zero for the others, whose src is not read), then the lane waits for
/// its copies (the caller's X.each then makes them the warp's).
template <class T, class Exec>
ES_HD_INLINE void stage_async(const Exec& X, int lane, const Geo& g, const Args<T>& a, T* stg,
                              index_t w0, int r0, int rows, index_t j0) {
  const index_t r = w0 + r0 + lane;
  const bool rok = lane < rows && r < g.n;
  const index_t left = g.nc - j0;  // columns from j0 that exist
  const int cols = !rok ? 0 : left < kLanes ? int(left) : kLanes;
  X.cprow(stg + lane * kStg, a.Z + (rok ? r + j0 * a.ldz : 0), a.ldz, cols);
  X.cpwait();
}

/// The V tile of level k of group j from the packed tiles (a.Vp) into Vs[t kVS + q] and taus[t]
/// by 16-byte async copies (kVS rows and the tile are 16-byte aligned): chunk e = i 32 + lane of
/// the tile's 32 CR chunks (CR = 32 / P per reflector, P elements per chunk), then the taus' CR
/// chunks by lanes < CR; the lane waits for its copies.
template <class T, class Exec>
ES_HD_INLINE void vtile_async(const Exec& X, int lane, const Args<T>& a, index_t j, index_t k,
                              T* Vs, T* taus) {
  constexpr int P = 16 / int(sizeof(T)), CR = kNB / P;
  const T* tile = a.Vp + packed_tile(j, k) * kTileElems;
  ES_Q2_UNROLL
  for (int i = 0; i < CR; ++i) {
    const int e = i * kLanes + lane, t = e / CR, part = e % CR;
    X.cp16(Vs + t * kVS<T> + part * P, tile + t * kNB + part * P);
  }
  if (lane < CR) X.cp16(taus + lane * P, tile + kGF * kNB + lane * P);
  X.cpwait();
}

/// Where the fast path loads the V tile: with the rows (kWithRows: all 32 loads beside the
/// rows', y not yet live), else after the rows in batches of kVBatch loads (registers beside y).
/// Session 17 (H200, Q2 at n = 16384 / 8192): with the rows for double (1.20 -> 0.98 s, at 198
/// registers); complex float lost with them (0.23 -> 0.27 s, 254 registers), so the other
/// scalars load after the rows (z: 0.43 -> 0.39 s).
/// float and complex float keep session 16's loads (kLegacy): with these, ptxas took 242 and
/// 232 registers against 126 and 168.
template <class T, int C>
struct VLoad {
  static constexpr bool kWithRows = C == 1 && std::is_same<T, double>::value;
  static constexpr int kVBatch = 8;
  static constexpr bool kLegacy =
      std::is_same<T, float>::value || std::is_same<T, Complex<float>>::value;
};

/// One task (group j, slab) on the fast path with C columns per lane (a slab: 32 C columns,
/// lane l's column c is j0 + 32 c + l). RF: rf(lane) -> LaneY<T, C>& (the device: the thread's
/// registers; the emulation: one per lane). sm: the warp's fast_elems<T>(C) elements.
/// Packed: the V tiles from a.Vp (fetch_vp / put_vp, at the places of fetch_v / put_v).
/// IL: Full levels through fast_compute_il.
/// Async: the rows and the packed V tile by async copies (stage_async, vtile_async: the rows
/// first, then the V tile in the same shared memory), no registers holding loads in flight;
/// the partial levels (one per task) load v again for the update (KeepV = 0) so that the
/// kernel fits 168 registers (12 warps per SM) without spills.
template <class T, int C = 1, bool Packed = false, bool IL = false, bool Async = false, class Exec,
          class RF>
ES_HD void fast_task(const Exec& X, RF rf, T* sm, const Geo& g, const Args<T>& a, index_t j,
                     index_t slab) {
  static_assert(!Packed || (C == 1 && !VLoad<T, C>::kLegacy),
                "packed V tiles: one column per lane, not the legacy loads");
  static_assert(!Async || Packed, "async loads: the packed V tiles");
  constexpr int NB = kNB, G = kGF, W = G + NB - 1;
  T* stg = sm;  // staging tile; the V tile and taus alias it
  T* Vs = sm;
  T* taus = sm + G * kVS<T>;
  T* carry = sm + kFastBuf<T>;
  const index_t i0 = group_base(g, j), L = group_levels(g, j);
  const index_t j0 = slab * kLanes * C;
  const TaskFlags tf = task_flags(g, j, slab);
  const T* vt0 = nullptr;  // the packed V tile of level 0; level k's is vt0 + k kTileElems
  if constexpr (Packed) vt0 = a.Vp + packed_tile(j, 0) * kTileElems;
  for (index_t k = 0; k < L; ++k) {
    const index_t w0 = i0 + 1 + k * NB;
    const int lim = g.n - w0 < W ? int(g.n - w0) : W;
    // Row indices below n fit an int (n ldz may not: the column offsets stay 64-bit), so the
    // lane's row pointer is the slab's column pointer plus one 32-bit offset.
    const int wi = int(w0), n = int(g.n);
    [[maybe_unused]] const T* vt = Packed ? vt0 + k * kTileElems : nullptr;
    wait_level(X, g, tf, j, k);
    // The V tile's loads go out with the last rows' (VLoad::kWithRows) or after all rows.
    ES_Q2_UNROLL
    for (int c = 0; c < C; ++c) {
      const index_t jc = j0 + index_t(c) * kLanes;
      [[maybe_unused]] const T* zc = a.Z + jc * a.ldz;  // column jc
      [[maybe_unused]] const int cols = slab_cols(g, jc);
      if (k == 0) {
        // all W rows: [0, NB) then [NB, W); row r < G-1 to the carry, row G-1+q to y[c][q]
        ES_Q2_UNROLL
        for (int p = 0; p < 2; ++p) {
          const int r0 = p * NB, rows = W - r0 < NB ? W - r0 : NB;
          X.each([&](int lane) {
            if constexpr (Async) {
              stage_async(X, lane, g, a, stg, w0, r0, rows, jc);
            } else if constexpr (VLoad<T, C>::kLegacy) {
              const int r = wi + r0 + lane;
              stage_in(X, stg + lane * kStg, zc + r, a.ldz, lane < rows && r < n ? cols : 0);
            } else {
              LaneY<T, C>& Y = rf(lane);
              if (VLoad<T, C>::kWithRows && p == 1) {
                if constexpr (Packed)
                  fetch_vp(X, lane, Y, vt);
                else
                  fetch_v(X, lane, Y, a, i0, k, w0, lim);
              }
              const int r = wi + r0 + lane;
              fetch_z(X, Y, zc + r, a.ldz, lane < rows && r < n ? cols : 0);
              put_z(lane, Y, stg);
            }
          });
          X.each([&](int lane) {
            LaneY<T, C>& Y = rf(lane);
            ES_Q2_UNROLL
            for (int q = 0; q < NB; ++q) {
              const int r = r0 + q;
              if (r < G - 1)
                carry[(r * C + c) * kLanes + lane] = stg[q * kStg + lane];
              else if (r < W)
                Y.y[c][r - (G - 1)] = stg[q * kStg + lane];
            }
          });
        }
      } else {
        X.each([&](int lane) {
          if constexpr (Async) {
            stage_async(X, lane, g, a, stg, w0, G - 1, NB, jc);
          } else if constexpr (VLoad<T, C>::kLegacy) {
            const int r = wi + (G - 1) + lane;
            stage_in(X, stg + lane * kStg, zc + r, a.ldz, r < n ? cols : 0);
          } else {
            LaneY<T, C>& Y = rf(lane);
            if (VLoad<T, C>::kWithRows) {
              if constexpr (Packed)
                fetch_vp(X, lane, Y, vt);
              else
                fetch_v(X, lane, Y, a, i0, k, w0, lim);
            }
            const int r = wi + (G - 1) + lane;
            fetch_z(X, Y, zc + r, a.ldz, r < n ? cols : 0);
            put_z(lane, Y, stg);
          }
        });
        X.each([&](int lane) {
          LaneY<T, C>& Y = rf(lane);
          ES_Q2_UNROLL
          for (int q = 0; q < NB; ++q)
            Y.y[c][q] = stg[q * kStg + lane];
        });
      }
    }
    if constexpr (Async) {
      X.each([&](int lane) { vtile_async(X, lane, a, j, k, Vs, taus); });
    } else if constexpr (VLoad<T, C>::kLegacy) {
      X.each([&](int lane) { fast_vtile(X, lane, a, Vs, taus, i0, k, w0, lim); });
    } else if constexpr (VLoad<T, C>::kWithRows) {
      X.each([&](int lane) {
        if constexpr (Packed)
          put_vp(lane, rf(lane), Vs, taus);
        else
          put_v(lane, rf(lane), Vs, taus);
      });
    } else {
      constexpr int B = VLoad<T, C>::kVBatch;
      ES_Q2_UNROLL
      for (int q0 = 0; q0 < NB; q0 += B)
        X.each([&](int lane) {
          LaneY<T, C>& Y = rf(lane);
          if constexpr (Packed) {
            fetch_vp(X, lane, Y, vt, q0, B);
            put_vp(lane, Y, Vs, taus, q0, B);
          } else {
            fetch_v(X, lane, Y, a, i0, k, w0, lim, q0, B);
            put_v(lane, Y, Vs, taus, q0, B);
          }
        });
    }
    X.each([&](int lane) {
      LaneY<T, C>& Y = rf(lane);
      if (lim == W) {
        if constexpr (IL)
          fast_compute_il<T, C>(Y, carry + lane, Vs, taus);
        else
          fast_compute<T, true, C>(Y, carry + lane, Vs, taus, lim);
      } else if constexpr (Async) {  // v loaded again for the update (see Async above)
        fast_compute<T, false, C, 0>(Y, carry + lane, Vs, taus, lim);
      } else
        fast_compute<T, false, C>(Y, carry + lane, Vs, taus, lim);
    });
    // rows [0, NB) of the window are final for this group
    ES_Q2_UNROLL
    for (int c = 0; c < C; ++c) {
      const index_t jc = j0 + index_t(c) * kLanes;
      X.each([&](int lane) {
        LaneY<T, C>& Y = rf(lane);
        ES_Q2_UNROLL
        for (int r = 0; r < NB; ++r)
          stg[r * kStg + lane] = Y.y[c][final_slot<T, C>(r)];
      });
      X.each([&](int lane) {
        if (lane < lim)
          store_z(X, a.Z + jc * a.ldz + (wi + lane), a.ldz, slab_cols(g, jc), stg + lane * kStg);
      });
    }
    X.publish(tf.own, enc(j, k + 1));
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
  const TaskFlags tf = task_flags(g, j, slab);
  for (index_t k = 0; k < L; ++k) {
    const index_t w0 = i0 + 1 + k * b;
    const index_t lim = g.n - w0 < W ? g.n - w0 : W;
    wait_level(X, g, tf, j, k);
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
        const T u = neg_rounded(taus[t] * s);
        for (index_t q = 0; q < len; ++q)
          z[(t + q) * kLanes] = madd(v[q], u, z[(t + q) * kLanes]);
      }
      const index_t col = j0 + lane;
      if (col < g.nc)
        for (index_t r = 0; r < b && r < lim; ++r)
          X.stz(a.Z + (w0 + r) + col * a.ldz, z[r * kLanes]);
    });
    X.publish(tf.own, enc(j, k + 1));
  }
}

}  // namespace q2_warp
}  // namespace eigsolve
