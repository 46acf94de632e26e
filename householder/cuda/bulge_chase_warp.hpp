// One sweep level of the canonical bulge chase (docs/canonical-two-stage.md, "Stage 2") as the
// phases that one warp runs on blocks held in shared memory. Written __host__ __device__ with
// no CUDA intrinsic, so that a host loop over the 32 lanes (tests/gpu/test_gpu_bulge_chase.cpp,
// HostWarpEmulation) runs exactly the device's per-lane code; the kernel
// (householder/cuda/bulge_chase_device.cu) calls the phases in this order with a __syncwarp()
// between two of them, the emulator calls each phase for lanes 0..31 one after the other.
//
//   level 0 (task A)      on x = B(st:ed+1, i) (stride 1) and D = B(st:ed+1, st:ed+1)
//     larfg_max, larfg_head, larfg_chunks, larfg_tail, larfg_scatter (v' := [1; x], x := 0)
//     sym2: sym2_y, sym2_alpha, sym2_yupd, sym2_update
//   level k >= 1 (tasks B, C)   C = B(J1:J2+1, st:ed+1) (M x L), D = B(J1:J2+1, J1:J2+1)
//     right (rows), larfg_* on C(:, 0) (stride P), left (columns 1 .. L-1), sym2 on D
//
// Every chain is the spec's: plain ascending chains from +0 with madd / madd_conj; larfg as
// hh_detail::larfg (householder/larfg.hpp): max of abs1, the exponent of the maximum, the
// canonical scaled sum of squares (tiles of 64 from x[0], chunks of 8, tile_tree, tiles added
// in ascending order), then beta, tau and 1 / (alpha - beta) by the same formulas. Every
// negation of a computed value (t, u, -w_r, -y_r) is neg_rounded (core/neg_rounded.hpp): on the
// device a plain negation of the rounded value; compiled for the host (the tests' emulation),
// where GCC would fold -fma(a, b, c) into fnmsub (+0 for -0), it passes through a barrier first.
#pragma once

#include "core/canonical.hpp"
#include "core/hd.hpp"
#include "core/neg_rounded.hpp"
#include "core/precision.hpp"

#if !defined(__CUDA_ARCH__)
#include <cmath>
#endif

#if defined(__CUDACC__)
#define ES_BULGE_UNROLL _Pragma("unroll")
#else
#define ES_BULGE_UNROLL
#endif

namespace eigsolve {
namespace bulge_warp {

constexpr int kLanes = 32;

/// Binary exponent of a (frexp's), dd: of hi. hh_detail::exponent_of on the host.
ES_HD_INLINE int exponent_of_hd(float a) {
  int e = 0;
#if defined(__CUDA_ARCH__)
  frexpf(a, &e);
#else
  std::frexp(a, &e);
#endif
  return e;
}
ES_HD_INLINE int exponent_of_hd(double a) {
  int e = 0;
#if defined(__CUDA_ARCH__)
  frexp(a, &e);
#else
  std::frexp(a, &e);
#endif
  return e;
}
ES_HD_INLINE int exponent_of_hd(const dd_real& a) {
  return exponent_of_hd(a.hi);
}

/// 2^k a, every component (hh_detail::Scale2: the exact product rounded once; scalbn gives the
/// same bits).
template <class T>
ES_HD_INLINE T scale_all(const T& a, int k) {
  if constexpr (is_complex_v<T>)
    return T(scale2(a.re, k), scale2(a.im, k));
  else
    return scale2(a, k);
}

/// -0.5·tau as householder/bulge_chase.cpp forms it: complex, both components times -0.5; real
/// (dd included), the T product T(-0.5) * tau. Exact.
template <class T>
ES_HD_INLINE T neg_half(const T& tau) {
  if constexpr (is_complex_v<T>)
    return tau * real_t<T>(-0.5);
  else
    return T(-0.5) * tau;
}

template <class T>
ES_HD_INLINE T real_only(const T& a) {
  if constexpr (is_complex_v<T>)
    return T(a.re, real_t<T>(0));
  else
    return a;
}

/// The scalars passed between phases (shared memory on the device: written by lane 0 in one
/// phase, read by every lane after the next barrier).
template <class T>
struct Scalars {
  T tau;     ///< tau of v
  T tau2;    ///< tau of w
  T rr;      ///< 1 / (alpha - beta), scaled
  T alpha;   ///< sym2's alpha
  int ex;    ///< larfg's exponent
  int mode;  ///< larfg: 1 when the reflector is computed, 0 when tau = 0 (nothing changes)
};

/// The warp's working set: pointers into its shared memory (held by every lane).
template <class T>
struct Work {
  using R = real_t<T>;
  T* C;           ///< M x L block of task B, C(r, c) = C[r * P + c]
  T* D;           ///< M x M Hermitian block, lower triangle: D(r, c) = D[r * P + c], c <= r
  T* x;           ///< task A: the column B(st:ed+1, i)
  T* v;           ///< the current reflector [1; ...] (length L)
  T* w;           ///< the new reflector (length M)
  T* y;           ///< sym2's y (length M)
  R* part;        ///< kLanes partials (maxima, then chunk sums)
  R* part2;       ///< kLanes partials (register path: chunk sums)
  Scalars<T>* s;  ///< the scalars
  int P;          ///< pitch of C and D
};

/// Where the chase keeps its reflectors for the eigenvectors (docs/canonical-two-stage.md,
/// "Stage 2's reflectors"): level k of sweep i in column i of V2 from row i+1+kb (the unit as
/// exactly 1), its scalar in tau2[k + i * ldt2]. Used by sweep<.., true> / sweep_reg<.., true>
/// only: each level stores the v the warp already holds (one store per lane and row, contiguous
/// down the column) and one tau; nothing the chase computes changes.
template <class T>
struct KeepRefl {
  T* V2 = nullptr;
  index_t ldv2 = 0;
  T* tau2 = nullptr;
  index_t ldt2 = 0;
};

/// right(C, v, tau): per row r, t = -(tau * (chain c: madd(C(r,c), v_c))); C(r,c) = madd(t,
/// conj(v_c), C(r,c)).
template <class T>
ES_HD_INLINE void right(int lane, const Work<T>& W, int M, int L) {
  const T tau = W.s->tau;
  for (int r = lane; r < M; r += kLanes) {
    T* row = W.C + r * W.P;
    T s = T(0);
    for (int c = 0; c < L; ++c)
      s = madd(row[c], W.v[c], s);
    const T t = neg_rounded(tau * s);
    for (int c = 0; c < L; ++c)
      row[c] = madd(t, conj(W.v[c]), row[c]);
  }
}

/// larfg on a[0 .. m) (a[0] = alpha, x = a[1 .. m), stride st): per-lane maxima of abs1(x_i).
template <class T>
ES_HD_INLINE void larfg_max(int lane, const Work<T>& W, int m, const T* a, int st) {
  using R = real_t<T>;
  R mx = R(0);
  for (int i = 1 + lane; i < m; i += kLanes) {
    const R q = abs1(a[i * st]);
    if (q > mx) mx = q;
  }
  W.part[lane] = mx;
}

/// Lane 0: the maximum, the trivial cases (tau = 0) and the exponent.
template <class T>
ES_HD_INLINE void larfg_head(const Work<T>& W, int m, const T* a) {
  using R = real_t<T>;
  R xmax = W.part[0];
  for (int q = 1; q < kLanes; ++q)
    if (W.part[q] > xmax) xmax = W.part[q];
  const R ar = real_part(a[0]);
  const R ai = imag_part(a[0]);
  bool trivial;
  if constexpr (is_complex_v<T>)
    trivial = m <= 0;
  else
    trivial = m <= 1;
  if (!trivial && xmax == R(0) && ai == R(0)) trivial = true;
  W.s->mode = trivial ? 0 : 1;
  R amax = xmax;
  if (abs(ar) > amax) amax = abs(ar);
  if (abs(ai) > amax) amax = abs(ai);
  W.s->ex = trivial ? 0 : exponent_of_hd(amax);
  W.s->tau2 = T(0);
}

/// Chunk chains of the scaled sum of squares of x = a[1 .. m): lane 8t + q runs chunk q of tile
/// t (x[64t + 8q .. +8)), for m - 1 <= 4 * 64 (b <= 257).
template <class T>
ES_HD_INLINE void larfg_chunks(int lane, const Work<T>& W, int m, const T* a, int st) {
  using R = real_t<T>;
  if (W.s->mode == 0) return;
  const int nx = m - 1, k = -W.s->ex;
  R s = R(0);
  const int i0 = lane * kChunk;
  for (int i = i0; i < i0 + kChunk && i < nx; ++i) {
    const T xs = scale_all(a[(1 + i) * st], k);
    s = madd(real_part(xs), real_part(xs), s);
    if constexpr (is_complex_v<T>) s = madd(xs.im, xs.im, s);
  }
  W.part[lane] = s;
}

/// Lane 0: tile trees, tiles in ascending order, then beta, tau and r (hh_detail::larfg).
/// a[0] := beta.
template <class T>
ES_HD_INLINE void larfg_tail(const Work<T>& W, int m, T* a) {
  using R = real_t<T>;
  if (W.s->mode == 0) return;
  const int nx = m - 1, e = W.s->ex;
  R t = R(0);
  for (int t0 = 0, tl = 0; t0 < nx; t0 += kTile, ++tl) {
    const R p = tile_tree(W.part + tl * kChunk);
    t = (t0 == 0) ? p : t + p;
  }
  const R ar = real_part(a[0]);
  const R ai = imag_part(a[0]);
  const R ars = scale2(ar, -e);
  const R ais = scale2(ai, -e);
  if constexpr (is_complex_v<T>) t = madd(ais, ais, t);
  t = madd(ars, ars, t);
  const R bn = sqrt_(t);
  const R bs = (ars >= R(0)) ? -bn : bn;
  T as;
  if constexpr (is_complex_v<T>) {
    W.s->tau2 = T((bs - ars) / bs, -ais / bs);
    as = T(ars, ais);
  } else {
    W.s->tau2 = (bs - ars) / bs;
    as = T(ars);
  }
  W.s->rr = T(1) / (as - T(bs));
  a[0] = T(scale2(bs, e));
}

/// w := [1; v-part of x] (x_i := (2^-e x_i) * r when the reflector is computed, else as is),
/// and x's entries := 0.
template <class T>
ES_HD_INLINE void larfg_scatter(int lane, const Work<T>& W, int m, T* a, int st) {
  if (lane == 0) W.w[0] = T(1);
  const int k = -W.s->ex;
  const T r = W.s->rr;
  for (int i = 1 + lane; i < m; i += kLanes) {
    const T xi = a[i * st];
    W.w[i] = W.s->mode ? scale_all(xi, k) * r : xi;
    a[i * st] = T(0);
  }
}

/// left(C(:, 1:L), w, tau2): per column c >= 1, u = -(conj(tau2) * (chain r:
/// madd_conj(w_r, C(r,c)))); C(r,c) = madd(w_r, u, C(r,c)).
template <class T>
ES_HD_INLINE void left(int lane, const Work<T>& W, int M, int L) {
  const T ctau = conj(W.s->tau2);
  for (int c = 1 + lane; c < L; c += kLanes) {
    T s = T(0);
    for (int r = 0; r < M; ++r)
      s = madd_conj(W.w[r], W.C[r * W.P + c], s);
    const T u = neg_rounded(ctau * s);
    for (int r = 0; r < M; ++r)
      W.C[r * W.P + c] = madd(W.w[r], u, W.C[r * W.P + c]);
  }
}

/// The full value D^(r, c) of the Hermitian block from its lower triangle.
template <class T>
ES_HD_INLINE T dfull(const Work<T>& W, int r, int c) {
  if (c < r) return W.D[r * W.P + c];
  if (c == r) return real_only(W.D[r * W.P + r]);
  return conj(W.D[c * W.P + r]);
}

/// sym2, 1: y_r = tau2 * (chain c: madd(D^(r,c), w_c)).
template <class T>
ES_HD_INLINE void sym2_y(int lane, const Work<T>& W, int M) {
  const T tau = W.s->tau2;
  for (int r = lane; r < M; r += kLanes) {
    T s = T(0);
    for (int c = 0; c < M; ++c)
      s = madd(dfull(W, r, c), W.w[c], s);
    W.y[r] = tau * s;
  }
}

/// sym2, 2 (lane 0): s = chain c: madd_conj(y_c, w_c); alpha = (-0.5·tau2) * s.
template <class T>
ES_HD_INLINE void sym2_alpha(const Work<T>& W, int M) {
  T s = T(0);
  for (int c = 0; c < M; ++c)
    s = madd_conj(W.y[c], W.w[c], s);
  W.s->alpha = neg_half(W.s->tau2) * s;
}

/// sym2, 3: y_c = madd(alpha, w_c, y_c).
template <class T>
ES_HD_INLINE void sym2_yupd(int lane, const Work<T>& W, int M) {
  const T al = W.s->alpha;
  for (int c = lane; c < M; c += kLanes)
    W.y[c] = madd(al, W.w[c], W.y[c]);
}

/// sym2, 4: per row r (lanes), c <= r: D(r,c) = madd(-w_r, conj(y_c), D(r,c)); then
/// madd(-y_r, conj(w_c), .); complex: the diagonal made real.
template <class T>
ES_HD_INLINE void sym2_update(int lane, const Work<T>& W, int M) {
  for (int r = lane; r < M; r += kLanes) {
    const T nw = neg_rounded(W.w[r]), ny = neg_rounded(W.y[r]);
    T* row = W.D + r * W.P;
    for (int c = 0; c <= r; ++c) {
      T a = row[c];
      a = madd(nw, conj(W.y[c]), a);
      a = madd(ny, conj(W.w[c]), a);
      if (c == r) a = real_only(a);
      row[c] = a;
    }
  }
}

/// v := w, tau := tau2 (the next level's reflector); lanes copy, lane 0 the scalar. The scalar
/// is read by the next phase after a barrier.
template <class T>
ES_HD_INLINE void advance(int lane, const Work<T>& W, int M) {
  for (int c = lane; c < M; c += kLanes)
    W.v[c] = W.w[c];
  if (lane == 0) W.s->tau = W.s->tau2;
}

/// The shared-memory path's store of one level's reflector (KeepRefl): w = W.w[0 .. m) (after
/// larfg_scatter), tau = W.s->tau2, rows row .. row+m-1 of column i of V2.
template <class T, class Exec>
ES_HD_INLINE void keep_level(const Exec& X, int lane, const Work<T>& W, const KeepRefl<T>& keep,
                             index_t i, int k, index_t row, int m) {
  T* col = keep.V2 + row + i * keep.ldv2;
  for (int r = lane; r < m; r += kLanes)
    X.store(col + r, W.w[r]);
  if (lane == 0) X.store(keep.tau2 + k + i * keep.ldt2, W.s->tau2);
}

/// Loads the rows x cols block src(r, c) -> *dst(r, c) (src(r, c) == nullptr: skipped): lane
/// takes rows lane, lane + 32, ...; per row, columns in batches of K, every load of a batch
/// issued before its first store (no division by a runtime size anywhere).
template <int K, class T, class Exec, class Src, class Dst>
ES_HD_INLINE void gather(const Exec& X, int lane, int rows, int cols, Src src, Dst dst) {
  for (int r = lane; r < rows; r += kLanes)
    for (int c0 = 0; c0 < cols; c0 += K) {
      T buf[K];
      ES_BULGE_UNROLL
      for (int k = 0; k < K; ++k) {
        const T* p = c0 + k < cols ? src(r, c0 + k) : nullptr;
        if (p) buf[k] = X.load(p);
      }
      ES_BULGE_UNROLL
      for (int k = 0; k < K; ++k) {
        const T* p = c0 + k < cols ? src(r, c0 + k) : nullptr;
        if (p) *dst(r, c0 + k) = buf[k];
      }
    }
}

/// One whole sweep i (every level) by one warp. Exec provides each(f) (f(lane) for every lane,
/// then a barrier), one(f) (f() on lane 0, then a barrier), load(p) / store(p, v) of band
/// elements, wait(i, c) (returns once sweep i-1's progress is >= c, at once for i = 0) and
/// publish(i, c) (sweep i's progress := c, every store before it visible first).
///
/// Progress of a sweep: c = 2 (levels finished) + (1 when part 1 of the next level is
/// finished), kDone when the sweep is over. Level 0 is task A: part 1 the reflector of column i
/// (its column written back), part 2 sym2 on D = B(i+1:i+b+1, .). Level k >= 1: part 1 task B
/// on C, part 2 task C (sym2).
///
/// Dependency rule (derived from the elements the parts touch; st_k = i+1+kb, ed_k = i+(k+1)b,
/// clipped at n-1): level k of sweep i touches rows st_k .. ed_k and columns st_(k-1) .. ed_k
/// only (part 1: C = rows st_k..ed_k x columns st_(k-1)..ed_(k-1), k = 0: column i; part 2: the
/// lower triangle of rows/columns st_k..ed_k). Sweep i-1's level k' has st'_k' = i+k'b, so its
/// rows meet level k's only for k' in {k, k+1}; sweeps further back meet them only at levels
/// their own waits have already ordered before sweep i-1's. In detail: part 1 of (i, k) meets
/// (i-1, k) and part 1 of (i-1, k+1) (element (ed_k, ed_(k-1)) is C(0, 0) there), never part 2
/// of (i-1, k+1) (its columns start at ed_k > ed_(k-1)); part 2 of (i, k) meets part 2 of
/// (i-1, k+1) (the diagonal element (ed_k, ed_k)) and part 1 (row ed_k). Hence:
///   Split:  part 1 of level k waits for c >= 2k+3, part 2 for c >= 2k+4
///   !Split: level k waits for c >= 2k+4 (both parts of sweep i-1's levels 0 .. k+1)
/// Later parts of sweep i-1 touch no element of the waiting part, in either direction. Since
/// part 2's only element in common with part 2 of (i-1, k+1) is (ed_k, ed_k) (also when ed_k is
/// clipped at n-1: then (i-1, k+1) starts at row >= n-1), the register path (sweep_reg) reads
/// the rest of its block before its wait for 2k+4, and that element after it.
constexpr int kDone = 0x7fffffff;

template <bool Split, class T, class Exec, bool Keep = false>
ES_HD void sweep(const Exec& X, const Work<T>& W, index_t n, index_t b, T* AB, index_t ldab,
                 index_t i, KeepRefl<T> keep = {}) {
  const int P = W.P;
  auto at = [=](index_t r, index_t c) { return AB + (r - c) + c * ldab; };
  constexpr int K = sizeof(T) >= 16 ? 8 : 16;
  index_t st = i + 1;
  index_t ed = i + b < n - 1 ? i + b : n - 1;
  int L = int(ed - st + 1);
  auto load_D = [&](index_t s0, int m) {
    X.each([&](int lane) {
      gather<K, T>(
          X, lane, m, m,
          [&](int r, int c) -> const T* { return r >= c ? at(s0 + r, s0 + c) : nullptr; },
          [&](int r, int c) { return W.D + r * P + c; });
    });
  };
  auto sym2_and_store = [&](index_t s0, int m, bool last, int k) {
    X.each([&](int lane) { sym2_y(lane, W, m); });
    X.one([&]() { sym2_alpha(W, m); });
    X.each([&](int lane) { sym2_yupd(lane, W, m); });
    X.each([&](int lane) {
      sym2_update(lane, W, m);
      advance(lane, W, m);
    });
    X.each([&](int lane) {
      for (int c = 0; c < m; ++c)
        for (int r = c + lane; r < m; r += kLanes)
          X.store(at(s0 + r, s0 + c), W.D[r * P + c]);
    });
    X.publish(i, last ? kDone : 2 * k + 2);
  };
  // ---- level 0, task A: the column x = B(st:ed+1, i), D = B(st:ed+1, st:ed+1)
  {
    const bool last = ed + 1 > n - 1;
    X.wait(i, Split ? 3 : 4);
    X.each([&](int lane) {
      gather<K, T>(
          X, lane, L, 1, [&](int r, int) -> const T* { return at(st + r, i); },
          [&](int r, int) { return W.x + r; });
    });
    if (!Split) load_D(st, L);
    X.each([&](int lane) { larfg_max(lane, W, L, W.x, 1); });
    X.one([&]() { larfg_head(W, L, W.x); });
    X.each([&](int lane) { larfg_chunks(lane, W, L, W.x, 1); });
    X.one([&]() { larfg_tail(W, L, W.x); });
    X.each([&](int lane) { larfg_scatter(lane, W, L, W.x, 1); });
    X.each([&](int lane) {
      for (int r = lane; r < L; r += kLanes)
        X.store(at(st + r, i), W.x[r]);
      if constexpr (Keep) keep_level(X, lane, W, keep, i, 0, st, L);
    });
    if (Split) {
      X.publish(i, 1);
      X.wait(i, 4);
      load_D(st, L);
    }
    sym2_and_store(st, L, last, 0);
  }
  // ---- levels k >= 1: tasks B and C
  for (int k = 1;; ++k) {
    const index_t J1 = ed + 1;
    if (J1 > n - 1) break;
    const index_t J2 = ed + b < n - 1 ? ed + b : n - 1;
    const int M = int(J2 - J1 + 1);
    const bool last = J2 + 1 > n - 1;
    X.wait(i, Split ? 2 * k + 3 : 2 * k + 4);
    X.each([&](int lane) {
      gather<K, T>(
          X, lane, M, L, [&](int r, int c) -> const T* { return at(J1 + r, st + c); },
          [&](int r, int c) { return W.C + r * P + c; });
    });
    if (!Split) load_D(J1, M);
    X.each([&](int lane) { right(lane, W, M, L); });
    T* c0 = W.C;  // C(:, 0), stride P
    X.each([&](int lane) { larfg_max(lane, W, M, c0, P); });
    X.one([&]() { larfg_head(W, M, c0); });
    X.each([&](int lane) { larfg_chunks(lane, W, M, c0, P); });
    X.one([&]() { larfg_tail(W, M, c0); });
    X.each([&](int lane) { larfg_scatter(lane, W, M, c0, P); });
    X.each([&](int lane) {
      left(lane, W, M, L);
      if constexpr (Keep) keep_level(X, lane, W, keep, i, k, J1, M);
    });
    X.each([&](int lane) {
      for (int c = 0; c < L; ++c)
        for (int r = lane; r < M; r += kLanes)
          X.store(at(J1 + r, st + c), W.C[r * P + c]);
    });
    if (Split) {
      X.publish(i, 2 * k + 1);
      X.wait(i, 2 * k + 4);
      load_D(J1, M);
    }
    sym2_and_store(J1, M, last, k);
    st = J1;
    ed = J2;
    L = M;
  }
}

// ================================================================================================
// Register path (blocks of order <= NB <= 32: every row of a block belongs to one lane). The
// same chains in the same order as the phases above; only where the operands live changes:
//
//   task B   lane r holds row r of C in registers (loaded from the band, all loads issued
//            together), runs right's chain on them, writes the row to shared memory (left reads
//            columns); larfg's head and tail are computed by every lane (same inputs, same
//            order, same bits: no lane-0 phase, no broadcast of scalars); left: lane c runs
//            column c's chain into u_c (shared), then lane r updates its own row with every u_c
//            and stores it to the band.
//   task C   lane r holds row r of the lower triangle of D (raw diagonal apart), writes it to
//            shared memory, builds the full Hermitian row in registers (conj of the column
//            read back, the diagonal made real) and runs sym2_y's plain chain; alpha's chain and
//            every y_c's update are computed by every lane; lane r updates its lower row and
//            stores it.
//   v / w    two buffers swapped per level (no copy), tau kept per lane.
//
// The kernel runs it as phases with a __syncwarp() between two; the host emulation calls each
// phase for lanes 0..31 with one LaneRegs per lane.
// ================================================================================================

template <class T, int NB>
struct LaneRegs {
  T a[NB];   ///< task B: row r of C; task C: row r of D (lower: raw; upper: conj of column r)
  T dg;      ///< task C: the raw diagonal D(r, r)
  T x;       ///< larfg: element r of the column
  T wr;      ///< w_r
  T tau;     ///< tau of v
  T tau2;    ///< tau of w
  T rr;      ///< 1 / (alpha - beta), scaled
  T beta;    ///< beta, scaled back
  int ex;    ///< larfg's exponent
  int mode;  ///< 1: the reflector is computed
};

/// larfg, 1: lane r < m holds a[r] in R.x; W.x[r] := a[r]; the per-lane maxima exactly as
/// larfg_max writes them (part[q] = abs1(a[1 + q]) for 1 + q < m, else 0; m <= kLanes).
template <class T, int NB>
ES_HD_INLINE void r_larfg_1(int lane, const Work<T>& W, LaneRegs<T, NB>& R, int m) {
  using Re = real_t<T>;
  if (lane < m) W.x[lane] = R.x;
  Re mx = Re(0);  // larfg_max's rule: a NaN never replaces the running maximum
  if (lane >= 1 && lane < m) {
    const Re q = abs1(R.x);
    if (q > mx) mx = q;
  }
  W.part[lane == 0 ? kLanes - 1 : lane - 1] = mx;
}

/// larfg, 2: larfg_head by every lane (mode, ex in its registers), then this lane's chunk chain
/// as larfg_chunks (into part2).
template <class T, int NB>
ES_HD_INLINE void r_larfg_2(int lane, const Work<T>& W, LaneRegs<T, NB>& R, int m) {
  using Re = real_t<T>;
  Re xmax = W.part[0];
  ES_BULGE_UNROLL
  for (int q = 1; q < kLanes; ++q)
    if (W.part[q] > xmax) xmax = W.part[q];
  const T a0 = W.x[0];
  const Re ar = real_part(a0);
  const Re ai = imag_part(a0);
  bool trivial;
  if constexpr (is_complex_v<T>)
    trivial = m <= 0;
  else
    trivial = m <= 1;
  if (!trivial && xmax == Re(0) && ai == Re(0)) trivial = true;
  R.mode = trivial ? 0 : 1;
  Re amax = xmax;
  if (abs(ar) > amax) amax = abs(ar);
  if (abs(ai) > amax) amax = abs(ai);
  R.ex = trivial ? 0 : exponent_of_hd(amax);
  R.tau2 = T(0);
  if (R.mode == 0) return;
  const int nx = m - 1, k = -R.ex;
  Re s = Re(0);
  const int i0 = lane * kChunk;
  ES_BULGE_UNROLL
  for (int j = 0; j < kChunk; ++j)
    if (i0 + j < nx) {
      const T xs = scale_all(W.x[1 + i0 + j], k);
      s = madd(real_part(xs), real_part(xs), s);
      if constexpr (is_complex_v<T>) s = madd(xs.im, xs.im, s);
    }
  W.part2[lane] = s;
}

/// larfg, 3: larfg_tail by every lane (tau2, rr, beta in its registers), then larfg_scatter for
/// this lane's element: w_r (W.w and R.wr), a[r] := beta (r = 0, reflector computed) or 0.
template <class T, int NB>
ES_HD_INLINE void r_larfg_3(int lane, const Work<T>& W, LaneRegs<T, NB>& R, int m) {
  using Re = real_t<T>;
  if (R.mode != 0) {
    const int nx = m - 1, e = R.ex;
    Re t = Re(0);
    for (int t0 = 0, tl = 0; t0 < nx; t0 += kTile, ++tl) {
      const Re p = tile_tree(W.part2 + tl * kChunk);
      t = (t0 == 0) ? p : t + p;
    }
    const T a0 = W.x[0];
    const Re ar = real_part(a0);
    const Re ai = imag_part(a0);
    const Re ars = scale2(ar, -e);
    const Re ais = scale2(ai, -e);
    if constexpr (is_complex_v<T>) t = madd(ais, ais, t);
    t = madd(ars, ars, t);
    const Re bn = sqrt_(t);
    const Re bs = (ars >= Re(0)) ? -bn : bn;
    T as;
    if constexpr (is_complex_v<T>) {
      R.tau2 = T((bs - ars) / bs, -ais / bs);
      as = T(ars, ais);
    } else {
      R.tau2 = (bs - ars) / bs;
      as = T(ars);
    }
    R.rr = T(1) / (as - T(bs));
    R.beta = T(scale2(bs, e));
  }
  if (lane == 0) {
    W.w[0] = T(1);
    R.wr = T(1);
    if (R.mode != 0) R.x = R.beta;
  } else if (lane < m) {
    const T xi = R.x;
    const T wi = R.mode ? scale_all(xi, -R.ex) * R.rr : xi;
    W.w[lane] = wi;
    R.wr = wi;
    R.x = T(0);
  }
}

/// Task B, 1: right on this lane's row (registers; v from W.v), the row to shared memory
/// (columns 1 .. L-1, for left), R.x := C(r, 0), then larfg, 1 on column 0.
template <class T, int NB>
ES_HD_INLINE void r_right(int lane, const Work<T>& W, LaneRegs<T, NB>& R, int M, int L) {
  if (lane < M) {
    T s = T(0);
    ES_BULGE_UNROLL
    for (int c = 0; c < NB; ++c)
      if (c < L) s = madd(R.a[c], W.v[c], s);
    const T t = neg_rounded(R.tau * s);
    T* row = W.C + lane * W.P;
    ES_BULGE_UNROLL
    for (int c = 0; c < NB; ++c)
      if (c < L) {
        R.a[c] = madd(t, conj(W.v[c]), R.a[c]);
        if (c > 0) row[c] = R.a[c];
      }
    R.x = R.a[0];
  }
  r_larfg_1(lane, W, R, M);
}

/// Task B, 2: left's chain for column c = lane (1 <= c < L): u_c = -(conj(tau2) * chain) into
/// W.y[c].
template <class T, int NB>
ES_HD_INLINE void r_left_u(int lane, const Work<T>& W, LaneRegs<T, NB>& R, int M, int L) {
  if (lane >= 1 && lane < L) {
    const T ctau = conj(R.tau2);
    T s = T(0);
    ES_BULGE_UNROLL
    for (int r = 0; r < NB; ++r)
      if (r < M) s = madd_conj(W.w[r], W.C[r * W.P + lane], s);
    W.y[lane] = neg_rounded(ctau * s);
  }
}

/// Task B, 3: this lane's row: C(r, 0) := R.x, C(r, c) = madd(w_r, u_c, C(r, c)) for c >= 1.
template <class T, int NB>
ES_HD_INLINE void r_left_update(int lane, const Work<T>& W, LaneRegs<T, NB>& R, int M, int L) {
  if (lane < M) {
    R.a[0] = R.x;
    ES_BULGE_UNROLL
    for (int c = 1; c < NB; ++c)
      if (c < L) R.a[c] = madd(R.wr, W.y[c], R.a[c]);
  }
}

/// Task C, 1: this lane's lower row (R.a[c], c < r) to shared memory.
template <class T, int NB>
ES_HD_INLINE void r_sym2_share(int lane, const Work<T>& W, LaneRegs<T, NB>& R, int M) {
  if (lane < M) {
    T* row = W.D + lane * W.P;
    ES_BULGE_UNROLL
    for (int c = 0; c < NB; ++c)
      if (c < lane) row[c] = R.a[c];
  }
}

/// Task C, 2: the full Hermitian row (R.a[c] := conj(D(c, r)) for c > r), then sym2_y's chain:
/// y_r = tau2 * (chain c: madd(D^(r, c), w_c)) into W.y[r]. Lane `pend` (whose diagonal R.dg is
/// not loaded yet) stops its chain before term c = pend and keeps the partial sum in R.x;
/// r_sym2_y_tail finishes it (pend >= M: no such lane).
template <class T, int NB>
ES_HD_INLINE void r_sym2_y_head(int lane, const Work<T>& W, LaneRegs<T, NB>& R, int M, int pend) {
  if (lane < M) {
    ES_BULGE_UNROLL
    for (int c = 0; c < NB; ++c)
      if (c > lane && c < M) R.a[c] = conj(W.D[c * W.P + lane]);
    const T dr = real_only(R.dg);
    const int lim = lane == pend ? pend : M;
    T s = T(0);
    ES_BULGE_UNROLL
    for (int c = 0; c < NB; ++c)
      if (c < M && c < lim) s = madd(c == lane ? dr : R.a[c], W.w[c], s);
    if (lane == pend)
      R.x = s;
    else
      W.y[lane] = R.tau2 * s;
  }
}

/// Task C, 2 (lane pend only, its diagonal R.dg now loaded): the rest of its chain, terms
/// c = pend .. M-1 after the partial sum R.x, into W.y[pend].
template <class T, int NB>
ES_HD_INLINE void r_sym2_y_tail(int lane, const Work<T>& W, LaneRegs<T, NB>& R, int M) {
  const T dr = real_only(R.dg);
  T s = R.x;
  ES_BULGE_UNROLL
  for (int c = 0; c < NB; ++c)
    if (c >= lane && c < M) s = madd(c == lane ? dr : R.a[c], W.w[c], s);
  W.y[lane] = R.tau2 * s;
}

/// Task C, 3: alpha (sym2_alpha's chain, by every lane), y_c := madd(alpha, w_c, y_c) as
/// needed (every lane the same bits), then sym2_update on this lane's lower row (registers).
/// Afterwards tau := tau2 (the next level's v is this level's w).
template <class T, int NB>
ES_HD_INLINE void r_sym2_update(int lane, const Work<T>& W, LaneRegs<T, NB>& R, int M) {
  T s = T(0);
  ES_BULGE_UNROLL
  for (int c = 0; c < NB; ++c)
    if (c < M) s = madd_conj(W.y[c], W.w[c], s);
  const T al = neg_half(R.tau2) * s;
  if (lane < M) {
    const T nw = neg_rounded(R.wr);
    const T ny = neg_rounded(madd(al, R.wr, W.y[lane]));
    ES_BULGE_UNROLL
    for (int c = 0; c < NB; ++c)
      if (c <= lane) {
        const T wc = W.w[c];
        const T yc = madd(al, wc, W.y[c]);
        T a = c == lane ? R.dg : R.a[c];
        a = madd(nw, conj(yc), a);
        a = madd(ny, conj(wc), a);
        if (c == lane)
          R.dg = real_only(a);
        else
          R.a[c] = a;
      }
  }
  R.tau = R.tau2;
}

/// The register path's store of one level's reflector (KeepRefl): lane r < m stores its w_r
/// (R.wr, after r_larfg_3) to row `row` + r of column i of V2, lane 0 the tau (R.tau2).
template <class T, int NB, class Exec>
ES_HD_INLINE void r_keep_level(const Exec& X, int lane, const LaneRegs<T, NB>& R,
                               const KeepRefl<T>& keep, index_t i, int k, index_t row, int m) {
  if (lane < m) X.store(keep.V2 + row + lane + i * keep.ldv2, R.wr);
  if (lane == 0) X.store(keep.tau2 + k + i * keep.ldt2, R.tau2);
}

/// A block order known at compile time (sweep_reg's full levels): converts to int NB.
template <int NB>
struct FullLevel {
  ES_HD constexpr operator int() const { return NB; }
};

/// One whole sweep i by the register path (Split schedule only; blocks of order <= NB <= 32).
/// rf(lane) gives that lane's LaneRegs (the device: the thread's own, the host: one per lane).
/// Waits and publishes exactly as sweep<true>.
template <int NB, class T, class Exec, class RF, bool Keep = false>
ES_HD void sweep_reg(const Exec& X, const Work<T>& W0, RF rf, index_t n, index_t b, T* AB,
                     index_t ldab, index_t i, KeepRefl<T> keep = {}) {
  Work<T> W = W0;
  auto at = [=](index_t r, index_t c) { return AB + (r - c) + c * ldab; };
  // Element (r, c0 + c) is at(r, c0) + c (ldab - 1): a lane walks its row of a block with a
  // 32-bit offset from one base pointer (the same elements as at(r, c0 + c); fewer address
  // instructions than a 64-bit at() per element).
  const int ldm1 = int(ldab - 1);
  auto load_row = [&](LaneRegs<T, NB>& R, const T* p, int cols) {
    int off = 0;
    ES_BULGE_UNROLL
    for (int c = 0; c < NB; ++c) {
      if (c < cols) R.a[c] = X.load(p + off);
      off += ldm1;
    }
  };
  auto store_row = [&](T* p, const LaneRegs<T, NB>& R, int cols) {
    int off = 0;
    ES_BULGE_UNROLL
    for (int c = 0; c < NB; ++c) {
      if (c < cols) X.store(p + off, R.a[c]);
      off += ldm1;
    }
  };
  index_t st = i + 1;
  index_t ed = i + b < n - 1 ? i + b : n - 1;
  int L = int(ed - st + 1);
  // A padded row (a full level's code on a block of `rows` < NB rows): every element +0.
  auto zero_row = [&](LaneRegs<T, NB>& R) {
    ES_BULGE_UNROLL
    for (int c = 0; c < NB; ++c)
      R.a[c] = T(0);
  };
  // task C on D = B(s0:s0+rows, s0:s0+rows), computed as a block of order m >= rows (m = NB on
  // a padded full level: rows rows .. m-1 are +0, see level below): load, sym2, store, publish.
  // The wait for sweep i-1's part 2 of level k+1 (progress >= wc) comes only before the one
  // element of D that part writes, the last diagonal D(rows-1, rows-1) (see the dependency rule
  // above sweep): the rest of D is loaded, shared and run through sym2_y's chains while sweep
  // i-1 finishes (X.early_c(); otherwise the wait comes first, as before session 32). The
  // chains and their order are the same either way.
  auto task_c = [&](index_t s0, auto m_, int rows, bool last, int k, int wc) {
    const int m = m_;  // a compile-time NB on a full level (FullLevel)
    const bool early = X.early_c();
    const int pend = early ? rows - 1 : NB;  // the lane whose diagonal waits
    if (!early) X.wait(i, wc);
    X.each([&](int lane) {
      LaneRegs<T, NB>& R = rf(lane);
      if (lane < rows) {
        load_row(R, at(s0 + lane, s0), lane);
        if (lane != pend) R.dg = X.load(at(s0 + lane, s0 + lane));
      } else if (lane < m) {
        zero_row(R);
        R.dg = T(0);
      }
      r_sym2_share(lane, W, R, m);
    });
    X.each([&](int lane) { r_sym2_y_head(lane, W, rf(lane), m, pend); });
    if (early) {
      X.wait(i, wc);
      X.each([&](int lane) {
        if (lane == pend) {
          LaneRegs<T, NB>& R = rf(lane);
          R.dg = X.load(at(s0 + pend, s0 + pend));
          r_sym2_y_tail(lane, W, R, m);
        }
      });
    }
    X.each([&](int lane) {
      LaneRegs<T, NB>& R = rf(lane);
      r_sym2_update(lane, W, R, m);
      if (lane < rows) {
        store_row(at(s0 + lane, s0), R, lane);
        X.store(at(s0 + lane, s0 + lane), R.dg);
      }
    });
    X.publish(i, last ? kDone : 2 * k + 2);
    T* t = W.v;
    W.v = W.w;
    W.w = t;
  };
  // ---- level 0, task A: larfg on the column x = B(st:ed+1, i); then task C
  {
    const bool last = ed + 1 > n - 1;
    X.wait(i, 3);
    X.each([&](int lane) {
      LaneRegs<T, NB>& R = rf(lane);
      if (lane < L) R.x = X.load(at(st + lane, i));
      r_larfg_1(lane, W, R, L);
    });
    X.each([&](int lane) { r_larfg_2(lane, W, rf(lane), L); });
    X.each([&](int lane) {
      LaneRegs<T, NB>& R = rf(lane);
      r_larfg_3(lane, W, R, L);
      if (lane < L) X.store(at(st + lane, i), R.x);
      if constexpr (Keep) r_keep_level(X, lane, R, keep, i, 0, st, L);
    });
    X.publish(i, 1);
    if (X.full_levels() && X.pad_last() && L == NB)
      task_c(st, FullLevel<NB>{}, L, last, 0, 4);
    else
      task_c(st, L, L, last, 0, 4);
  }
  // ---- levels k >= 1: task B on C = B(J1:J2+1, st:ed+1), then task C
  for (int k = 1;; ++k) {
    const index_t J1 = ed + 1;
    if (J1 > n - 1) break;
    const index_t J2 = ed + b < n - 1 ? ed + b : n - 1;
    const int Mr = int(J2 - J1 + 1);
    const bool last = J2 + 1 > n - 1;
    // The level's body with M and L as arguments: a full level (M = L = NB, every level of a
    // sweep but its last when b = NB) gets them as compile-time constants, so that the
    // unrolled loops' `c < L` / `lane < M` tests fold away; the operations and their order are
    // the same either way (EIGSOLVE_GPU_BULGE_FULL=0 on the device: the runtime form only).
    //
    // rows = Mr <= M: the block's rows in the band. A sweep's last level (Mr < NB when the band
    // ends inside it) runs as a full level too (M = NB), on a block padded with +0 rows: lanes
    // rows .. NB-1 load nothing, hold +0 and store nothing. That keeps every real element's bits:
    // each chain over rows (larfg's maximum and chunk chains, left's u_c, sym2's y_r, alpha)
    // gets its padded terms after the real ones, each an exact zero (a padded +0 times a finite
    // w_r or y_c, themselves +-0 on padded rows), and a chain that starts from +0 is never -0
    // unless a negative product underflows to zero (session 51: then a +0 term would make it
    // +0; not reached by test_gpu_bulge_chase's band scaled to 2^-560, whose chains stay at the
    // band's scale), so adding them changes nothing; larfg's trivial case (x = 0, alpha real) is
    // the same test; the padded rows' own results are never stored. The point is speed, not
    // arithmetic: the runtime-order code of a last level, run once per sweep (probably from a cold
    // instruction cache), took ~3x a full level's time (bench/NOTES.md, session 32), and the
    // chase's critical path passes through every sweep's last level.
    auto level = [&](auto M_, auto L_, int rows) {
      const int M = M_, L = L_;
      X.wait(i, 2 * k + 3);
      X.each([&](int lane) {
        LaneRegs<T, NB>& R = rf(lane);
        if (lane < rows)
          load_row(R, at(J1 + lane, st), L);
        else if (lane < M)
          zero_row(R);
        r_right(lane, W, R, M, L);
      });
      X.each([&](int lane) { r_larfg_2(lane, W, rf(lane), M); });
      X.each([&](int lane) {
        LaneRegs<T, NB>& R = rf(lane);
        r_larfg_3(lane, W, R, M);
        if constexpr (Keep) r_keep_level(X, lane, R, keep, i, k, J1, rows);
      });
      X.each([&](int lane) { r_left_u(lane, W, rf(lane), M, L); });
      X.each([&](int lane) {
        LaneRegs<T, NB>& R = rf(lane);
        r_left_update(lane, W, R, M, L);
        if (lane < rows) store_row(at(J1 + lane, st), R, L);
      });
      X.publish(i, 2 * k + 1);
      task_c(J1, M_, rows, last, k, 2 * k + 4);
    };
    if (X.full_levels() && L == NB && (Mr == NB || X.pad_last()))
      level(FullLevel<NB>{}, FullLevel<NB>{}, Mr);
    else
      level(Mr, L, Mr);
    st = J1;
    ed = J2;
    L = Mr;
  }
}

}  // namespace bulge_warp
}  // namespace eigsolve
