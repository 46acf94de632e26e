// CPU emulation of the prototype of householder/cuda/panel_qr_rf.cuh (session 22): 512 "threads" in
// lockstep, the prototype's ownership (e = 4096 B + 8 t + u), shift1 (shfl_down + the lane-31 /
// thread-511 exchange through xs), tree8_down (shfl_down 1, 2, 4 with out-of-range lanes keeping
// their own value), chain_all, larfg on registers, the write-back -- against the spec's panel QR
// (docs/canonical-two-stage.md step 1, as tests/householder/test_band_reduce.cpp transcribes it:
// hh_detail::larfg, canonical_dot<conj>, -(rounded conj(tau) w), madd). Blocks run in ticket
// order c = 0, 1, ... (what the flags enforce).
#ifndef MUT
#define MUT 0
#endif
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "core/canonical.hpp"
#include "core/neg_rounded.hpp"
#include "core/precision.hpp"
#include "householder/larfg.hpp"

using namespace eigsolve;

constexpr int NT = 512, CH = 8, BATCH = NT * CH;

template <class T>
struct Emu {
  using R = real_t<T>;
  index_t m, b, k, lda;
  std::vector<T>& P;  // m x b, ld lda
  std::vector<T> tau;
  std::vector<R> beta, aim;
  int NB;
  Emu(index_t m_, index_t b_, std::vector<T>& P_, index_t lda_) : m(m_), b(b_), lda(lda_), P(P_) {
    k = std::min(b, m);
    tau.assign(b, T(0));
    beta.assign(b, R(0));
    aim.assign(b, R(0));
    NB = int((m + BATCH - 1) / BATCH);
    if (NB < 1) NB = 1;
  }
  // a[t][B][u]
  std::vector<T> a;
  T& A(int t, int B, int u) { return a[(size_t(t) * NB + B) * CH + u]; }

  // shfl_down semantics on a per-lane array: lane l gets v[l + d] if l + d < 32, else v[l].
  template <class S>
  static void shfl_down(const std::vector<S>& in, std::vector<S>& out, int d) {
    out.resize(in.size());
    for (int t = 0; t < NT; ++t) {
      const int lane = t & 31;
      out[t] = lane + d < 32 ? in[t + d] : in[t];
    }
  }
  template <class S>
  static std::vector<S> tree8_down(std::vector<S> v) {
    std::vector<S> s;
#if MUT == 1
    std::vector<S> o(v);
    for (int t = 0; t < NT; t += 8) { S a = v[t]; for (int q = 1; q < 8; ++q) a = a + v[t + q]; o[t] = a; }
    return o;
#endif
    for (int d : {1, 2, 4}) {
      shfl_down(v, s, d);
      for (int t = 0; t < NT; ++t) v[t] = v[t] + s[t];
    }
    return v;  // valid at lanes 8g
  }
  template <class S>
  static S chain_all(const std::vector<S>& p, int nt) {
#if MUT == 2
    if (nt >= 2) { S x = p[0] + (p[1] + S(0)); S acc = p[0]; for (int j = nt - 1; j >= 1; --j) acc = acc + p[j]; (void)x; return acc; }
#endif
    S acc = p[0];
    for (int j = 1; j < nt; ++j) acc = acc + p[j];
    return acc;
  }
  void shift1() {
    std::vector<T> nx(size_t(NT) * NB);
    std::vector<T> xs(size_t(NB) * 16);
    for (int B = 0; B < NB; ++B) {
      std::vector<T> in(NT), out;
      for (int t = 0; t < NT; ++t) in[t] = A(t, B, 0);
      shfl_down(in, out, 1);
      for (int t = 0; t < NT; ++t) nx[size_t(t) * NB + B] = out[t];
      for (int t = 0; t < NT; t += 32) xs[B * 16 + t / 32] = A(t, B, 0);  // lane 0 writes
    }
    // barrier
    for (int t = 31; t < NT; t += 32) {
      const int w = t >> 5;
      for (int B = 0; B < NB; ++B)
        nx[size_t(t) * NB + B] = (MUT == 3) ? T(0) : w < 15 ? xs[B * 16 + w + 1] : (MUT == 4 ? xs[B * 16] : (B + 1 < NB ? xs[(B + 1) * 16] : T(0)));
    }
    for (int t = 0; t < NT; ++t)
      for (int B = 0; B < NB; ++B) {
        for (int u = 0; u < CH - 1; ++u) A(t, B, u) = A(t, B, u + 1);
        A(t, B, CH - 1) = nx[size_t(t) * NB + B];
      }
  }
  void block(index_t c) {
    T* col = P.data() + lda * c;
    a.assign(size_t(NT) * NB * CH, T(0));
    for (int t = 0; t < NT; ++t)
      for (int B = 0; B < NB; ++B)
        for (int u = 0; u < CH; ++u) {
          const index_t e = index_t(B) * BATCH + 8 * t + u;
          A(t, B, u) = e < m ? col[e] : T(0);
        }
    const index_t napply = c < k ? c : k;
    for (index_t i = 0; i < napply; ++i) {
      const int L = int(m - i);
      const T* v = P.data() + i + lda * i;  // published (P(i,i) == 1)
      const T ti = tau[i];
      const int ntl = (L + 63) / 64;
      std::vector<T> part(size_t(NB) * 64, T(0));
      for (int B = 0; B < NB; ++B) {
        std::vector<T> s(NT);
        for (int t = 0; t < NT; ++t) {
          T acc = T(0);
          const int e0 = B * BATCH + 8 * t;
          for (int u = 0; u < CH; ++u)
            if (e0 + u < L) acc = madd_conj(v[e0 + u], A(t, B, u), acc);
          s[t] = acc;
        }
        auto p = tree8_down(s);
        for (int t = 0; t < NT; ++t)
          if ((t & 7) == 0 && B * 64 + (t >> 3) < ntl) part[B * 64 + (t >> 3)] = p[t];
      }
      const T wsum = chain_all(part, ntl);
      const T uu = neg_rounded(conj(ti) * wsum);  // device: -(conj(ti) * wsum)
      for (int t = 0; t < NT; ++t)
        for (int B = 0; B < NB; ++B)
          for (int u = 0; u < CH; ++u) {
            const int e = B * BATCH + 8 * t + u;
            if (e < L) A(t, B, u) = madd(v[e], uu, A(t, B, u));
          }
      col[i] = A(0, 0, 0);
      shift1();
    }
    const index_t o = napply;
    const int L = int(m - o);
    bool publish = false;
    int nout = L;
    if (c < k) {
      publish = true;
      const bool trivial = is_complex_v<T> ? (L <= 0) : (L <= 1);
      R xmax = R(0);
      for (int t = 0; t < NT; ++t)
        for (int B = 0; B < NB; ++B)
          for (int u = 0; u < CH; ++u) {
            const int e = B * BATCH + 8 * t + u;
            if (e >= 1 && e < L) {
              const R av = abs1(A(t, B, u));
              if (av > xmax) xmax = av;
            }
          }
      const T alpha = A(0, 0, 0);
      const R ar = real_part(alpha), ai = imag_part(alpha);
      aim[c] = ai;
      bool done = trivial;
      int ex = 0;
      if (!trivial) {
        done = (xmax == R(0) && ai == R(0));
        R amax = xmax;
        if (eigsolve::abs(ar) > amax) amax = eigsolve::abs(ar);
        if (eigsolve::abs(ai) > amax) amax = eigsolve::abs(ai);
        ex = hh_detail::exponent_of(amax);
      }
      if (MUT != 5) shift1();
      const int nx = L - 1;
      nout = nx;
      if (done) {
        beta[c] = real_part(alpha);
        tau[c] = T(0);
      } else {
        const int ntl = (nx + 63) / 64;
        std::vector<R> part(size_t(NB) * 64, R(0));
        for (int B = 0; B < NB; ++B) {
          std::vector<R> s(NT);
          for (int t = 0; t < NT; ++t) {
            R acc = R(0);
            const int e0 = B * BATCH + 8 * t;
            for (int u = 0; u < CH; ++u)
              if (e0 + u < nx) {
                T xs;
                if constexpr (is_complex_v<T>)
                  xs = T(scale2(A(t, B, u).re, -ex), scale2(A(t, B, u).im, -ex));
                else
                  xs = scale2(A(t, B, u), -ex);
                acc = madd(real_part(xs), real_part(xs), acc);
                if constexpr (is_complex_v<T>) acc = madd(xs.im, xs.im, acc);
              }
            s[t] = acc;
          }
          auto p = tree8_down(s);
          for (int t = 0; t < NT; ++t)
            if ((t & 7) == 0 && B * 64 + (t >> 3) < ntl) part[B * 64 + (t >> 3)] = p[t];
        }
        const R ss = nx > 0 ? chain_all(part, ntl) : R(0);
        // larfg_beta (panel_kernels.cuh), host transcription
        R tt = ss;
        const R ars = scale2(ar, -ex), ais = scale2(ai, -ex);
        if constexpr (is_complex_v<T>) tt = madd(ais, ais, tt);
        tt = madd(ars, ars, tt);
        const R bn = sqrt_(tt);
        const R bs = (ars >= R(0)) ? -bn : bn;
        T tg, as;
        if constexpr (is_complex_v<T>) {
          tg = T((bs - ars) / bs, -ais / bs);
          as = T(ars, ais);
        } else {
          tg = (bs - ars) / bs;
          as = T(ars);
        }
        const T r = T(1) / (as - T(bs));
        tau[c] = tg;
        beta[c] = real_part(T(scale2(bs, ex)));
        for (int t = 0; t < NT; ++t)
          for (int B = 0; B < NB; ++B)
            for (int u = 0; u < CH; ++u) {
              const int e = B * BATCH + 8 * t + u;
              if (e < nx) {
                T xs;
                if constexpr (is_complex_v<T>)
                  xs = T(scale2(A(t, B, u).re, -ex), scale2(A(t, B, u).im, -ex));
                else
                  xs = scale2(A(t, B, u), -ex);
                A(t, B, u) = xs * r;
              }
            }
      }
      col[c] = T(1);
    }
    const index_t row0 = publish ? c + 1 : o;
    for (int t = 0; t < NT; ++t)
      for (int B = 0; B < NB; ++B)
        for (int u = 0; u < CH; ++u) {
          const int e = B * BATCH + 8 * t + u;
          if (e < nout) col[row0 + e] = A(t, B, u);
        }
  }
  void run() {
    for (index_t c = 0; c < b; ++c) block(c);
    // form_v_kernel's P(q, q) := beta (complex with tau = 0: (beta, alpha_im))
    for (index_t q = 0; q < k; ++q) {
      T d = T(beta[q]);
      if constexpr (is_complex_v<T>)
        if (tau[q].re == R(0) && tau[q].im == R(0)) d = T(beta[q], aim[q]);
      P[q + lda * q] = d;
    }
  }
};

// The spec's panel QR (test_band_reduce.cpp's transcription), in place on P (m x b, ld lda).
template <class T>
void spec_panel_qr(index_t m, index_t b, std::vector<T>& Pv, index_t lda, std::vector<T>& tau) {
  const index_t k = std::min(b, m);
  auto P = [&](index_t r, index_t c) -> T& { return Pv[r + lda * c]; };
  std::vector<T> v(m);
  tau.assign(b, T(0));
  for (index_t i = 0; i < k; ++i) {
    T alpha = P(i, i);
    tau[i] = hh_detail::larfg(m - i, alpha, &P(std::min(i + 1, m - 1), i));
    P(i, i) = alpha;
    for (index_t r = 0; r < m; ++r) v[r] = r < i ? T(0) : (r == i ? T(1) : P(r, i));
    for (index_t c = i + 1; c < b; ++c) {
      const T w = canonical_dot<true>(m - i, &v[i], 1, &P(i, c), 1);
      const T u = neg_rounded(conj(tau[i]) * w);
      for (index_t r = i; r < m; ++r) P(r, c) = madd(v[r], u, P(r, c));
    }
  }
}

template <class T>
T rnd(std::mt19937_64& g, int kind, index_t r, index_t c) {
  using R = real_t<T>;
  std::uniform_real_distribution<double> u(-1, 1);
  double x = u(g), y = u(g);
  if (kind == 1 && (r % 3 == 0 || c == 2)) x = y = 0.0;              // exact zeros
  if (kind == 2 && (r + c) % 5 == 0) { x = -0.0; y = -0.0; }          // -0
  if (kind == 3 && c == 1 && r > 1) { x = 0.0; y = 0.0; }             // zero column below
  if (kind == 4) { x = std::ldexp(x, -1060); y = std::ldexp(y, -1060); }  // subnormal range
  if (kind == 5) { x = std::ldexp(x, 1000); y = std::ldexp(y, 1000); }    // near overflow
  if constexpr (is_complex_v<T>)
    return T(R(x), R(y));
  else
    return T(R(x));
}

template <class T>
int check(index_t m, index_t b, int kind, unsigned seed) {
  const index_t lda = m + 3;
  std::mt19937_64 g(seed);
  std::vector<T> P0(size_t(lda) * b, T(0));
  for (index_t c = 0; c < b; ++c)
    for (index_t r = 0; r < m; ++r) P0[r + lda * c] = rnd<T>(g, kind, r, c);
  auto Ps = P0;
  std::vector<T> taus;
  spec_panel_qr(m, b, Ps, lda, taus);
  auto Pe = P0;
  Emu<T> e(m, b, Pe, lda);
  e.run();
  index_t bad = 0, fr = -1, fc = -1;
  for (index_t c = 0; c < b; ++c)
    for (index_t r = 0; r < m; ++r)
      if (std::memcmp(&Ps[r + lda * c], &Pe[r + lda * c], sizeof(T))) {
        if (bad++ == 0) fr = r, fc = c;
      }
  index_t badt = 0;
  for (index_t q = 0; q < std::min(b, m); ++q)
    if (std::memcmp(&taus[q], &e.tau[q], sizeof(T))) ++badt;
  if (bad || badt)
    std::printf("FAIL m=%lld b=%lld kind=%d: %lld elements (first %lld,%lld), %lld taus\n",
                (long long)m, (long long)b, kind, (long long)bad, (long long)fr, (long long)fc,
                (long long)badt);
  return (bad || badt) ? 1 : 0;
}

int main() {
  int fails = 0, cases = 0;
  const index_t ms[] = {1, 2, 3, 7, 8, 9, 31, 32, 33, 63, 64, 65, 127, 511, 512, 513, 4095, 4096, 4097, 4100, 4128, 8191, 8192, 8193, 12288, 16383, 16384};
  for (index_t m : ms)
    for (index_t b : {1, 3, 8, 32, 64}) {
      if (m > 5000 && b != 32) continue;
      for (int kind = 0; kind < 6; ++kind) {
        if (m > 5000 && kind != 0 && kind != 2) continue;
        fails += check<double>(m, b, kind, unsigned(m * 131 + b * 7 + kind));
        ++cases;
        if (m <= 8192) {
          fails += check<Complex<double>>(m, b, kind, unsigned(m * 137 + b * 5 + kind));
          ++cases;
        }
      }
    }
  std::printf("%d passed, %d failed\n", cases - fails, fails);
  return fails != 0;
}
