// Device bulge chase (householder/bulge_chase_cuda.hpp) == the CPU's band_to_tridiagonal
// bitwise: d and e for s, d, c, z, dd over edge sizes and band widths, repeated calls, a band
// with a NaN (must finish); with V2/tau2 the kept reflectors too (register path and not).
// Without a device: the warp's per-lane code (householder/cuda/bulge_chase_warp.hpp) run on the
// host, one lane after the other, in the sequential order and by host threads under the
// kernel's dependency rule, against the CPU (d, e, and V2/tau2).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/context.hpp"
#include "core/precision.hpp"
#include "householder/bulge_chase_cuda.hpp"
#include "householder/cuda/bulge_chase_warp.hpp"
#include "householder/two_stage.hpp"
#include "tests/common/env_scope.hpp"
#include "tests/common/random_scalar.hpp"
#include "tests/common/structured_zeros.hpp"
#include "tests/gpu/gpu_guard.hpp"

using namespace eigsolve;
using eigsolve::test_util::random_scalar;
using eigsolve::test_util::Zeros;

namespace {

size_t sz(index_t k) {
  return static_cast<size_t>(k);
}

template <class V>
bool same_bytes(const V& a, const V& b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), a.size() * sizeof(typename V::value_type)) == 0;
}

/// A random Hermitian band of half-width b (ldab = 2b + 1 unless given); what the chase must not
/// read (the bulge rows, entries past row n-1) is NaN.
template <class T>
std::vector<T> random_band(index_t n, index_t b, index_t ldab, std::uint64_t seed) {
  using R = real_t<T>;
  std::mt19937_64 g(seed);
  const R nan = R(std::numeric_limits<double>::quiet_NaN());
  std::vector<T> AB(sz(ldab * std::max<index_t>(n, 1)), make_scalar<T>(nan, nan));
  for (index_t c = 0; c < n; ++c)
    for (index_t k = 0; k <= b && c + k < n; ++k) {
      const T a = random_scalar<T>(g);
      AB[sz(k + c * ldab)] = k == 0 ? T(real_part(a)) : a;
    }
  return AB;
}

template <class T>
struct DE {
  std::vector<real_t<T>> d, e;
  bool operator==(const DE& o) const { return same_bytes(d, o.d) && same_bytes(e, o.e); }
};

/// The chase's kept reflectors: V2 (ld n + 2, n columns) and tau2 (ld chase_levels + 1), every
/// entry NaN first, so that an entry written where none should be (or missed) shows.
template <class T>
struct Refl {
  index_t ldv2 = 0, ldt2 = 0;
  std::vector<T> V2, tau2;
  Refl(index_t n, index_t b) : ldv2(n + 2), ldt2(chase_levels(n, b) + 1) {
    using R = real_t<T>;
    const R nan = R(std::numeric_limits<double>::quiet_NaN());
    V2.assign(sz(ldv2 * std::max<index_t>(n, 1)), make_scalar<T>(nan, nan));
    tau2.assign(sz(ldt2 * std::max<index_t>(n, 1)), make_scalar<T>(nan, nan));
  }
  bool operator==(const Refl& o) const { return same_bytes(V2, o.V2) && same_bytes(tau2, o.tau2); }
  bulge_warp::KeepRefl<T> keep() { return {V2.data(), ldv2, tau2.data(), ldt2}; }
};

template <class T>
DE<T> cpu_chase(index_t n, index_t b, std::vector<T> AB, index_t ldab, Refl<T>* refl = nullptr) {
  DE<T> r{std::vector<real_t<T>>(sz(n)), std::vector<real_t<T>>(sz(std::max<index_t>(n - 1, 0)))};
  Context ctx;
  if (refl)
    band_to_tridiagonal(ctx, n, b, AB.data(), ldab, r.d.data(), r.e.data(), refl->V2.data(),
                        refl->ldv2, refl->tau2.data(), refl->ldt2);
  else
    band_to_tridiagonal(ctx, n, b, AB.data(), ldab, r.d.data(), r.e.data());
  return r;
}

/// refl (optional): the device keeps the reflectors in a copy of refl's arrays (their NaN
/// included), which comes back into refl.
template <class T>
DE<T> gpu_chase(index_t n, index_t b, const std::vector<T>& AB, index_t ldab,
                Refl<T>* refl = nullptr) {
  using R = real_t<T>;
  DE<T> r{std::vector<R>(sz(n)), std::vector<R>(sz(std::max<index_t>(n - 1, 0)))};
  T* dAB = nullptr;
  R *dd = nullptr, *de = nullptr;
  T *dV2 = nullptr, *dtau2 = nullptr;
  EXPECT_EQ(cudaMalloc(&dAB, std::max<size_t>(1, AB.size()) * sizeof(T)), cudaSuccess);
  EXPECT_EQ(cudaMalloc(&dd, std::max<size_t>(1, r.d.size()) * sizeof(R)), cudaSuccess);
  EXPECT_EQ(cudaMalloc(&de, std::max<size_t>(1, r.e.size()) * sizeof(R)), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(dAB, AB.data(), AB.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  if (refl) {
    EXPECT_EQ(cudaMalloc(&dV2, refl->V2.size() * sizeof(T)), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&dtau2, refl->tau2.size() * sizeof(T)), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(dV2, refl->V2.data(), refl->V2.size() * sizeof(T), cudaMemcpyHostToDevice),
              cudaSuccess);
    EXPECT_EQ(
        cudaMemcpy(dtau2, refl->tau2.data(), refl->tau2.size() * sizeof(T), cudaMemcpyHostToDevice),
        cudaSuccess);
    band_to_tridiagonal_cuda<T>(n, b, dAB, ldab, dd, de, nullptr, dV2, refl->ldv2, dtau2,
                                refl->ldt2);
  } else {
    band_to_tridiagonal_cuda<T>(n, b, dAB, ldab, dd, de, nullptr);
  }
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  if (refl) {
    EXPECT_EQ(cudaMemcpy(refl->V2.data(), dV2, refl->V2.size() * sizeof(T), cudaMemcpyDeviceToHost),
              cudaSuccess);
    EXPECT_EQ(
        cudaMemcpy(refl->tau2.data(), dtau2, refl->tau2.size() * sizeof(T), cudaMemcpyDeviceToHost),
        cudaSuccess);
    cudaFree(dV2);
    cudaFree(dtau2);
  }
  if (n > 0) {
    EXPECT_EQ(cudaMemcpy(r.d.data(), dd, r.d.size() * sizeof(R), cudaMemcpyDeviceToHost),
              cudaSuccess);
  }
  if (n > 1) {
    EXPECT_EQ(cudaMemcpy(r.e.data(), de, r.e.size() * sizeof(R), cudaMemcpyDeviceToHost),
              cudaSuccess);
  }
  cudaFree(dAB);
  cudaFree(dd);
  cudaFree(de);
  return r;
}

// ---- the warp's code on the host

/// bulge_warp::sweep's executor on the host: the lanes one after the other; with prog, the
/// kernel's waits and releases on host atomics.
template <class T>
struct HostExec {
  std::atomic<int>* prog = nullptr;
  bool full = true;   ///< sweep_reg's full levels with compile-time block orders
  bool pad = true;    ///< sweep_reg's last levels as padded full levels
  bool early = true;  ///< sweep_reg's task C reads its block before its wait
  bool full_levels() const { return full; }
  bool pad_last() const { return pad; }
  bool early_c() const { return early; }
  template <class F>
  void each(F f) const {
    for (int lane = 0; lane < bulge_warp::kLanes; ++lane)
      f(lane);
  }
  template <class F>
  void one(F f) const {
    f();
  }
  T load(const T* p) const { return *p; }
  void store(T* p, const T& v) const { *p = v; }
  void wait(index_t i, int k) const {
    if (prog && i > 0)
      while (prog[i - 1].load(std::memory_order_acquire) < k)
        std::this_thread::yield();
  }
  void publish(index_t i, int k) const {
    if (prog) {
      prog[i].store(k, std::memory_order_release);
      std::this_thread::yield();
    }
  }
};

template <class T>
struct HostWarp {
  using R = real_t<T>;
  std::vector<T> mem;
  std::vector<R> part;
  bulge_warp::Scalars<T> sc{};
  bulge_warp::Work<T> W{};
  /// the register path's lanes: NaN until written (a value read before it is written shows)
  std::vector<bulge_warp::LaneRegs<T, 32>> regs;
  explicit HostWarp(int bb)
      : mem(sz(2 * bb * (bb + 1) + 4 * bb)), part(2 * bulge_warp::kLanes), regs(32) {
    const R nan = R(std::numeric_limits<double>::quiet_NaN());
    const T tn = make_scalar<T>(nan, nan);
    for (auto& g : regs) {
      for (auto& a : g.a)
        a = tn;
      g.dg = g.x = g.wr = g.tau = g.tau2 = g.rr = g.beta = tn;
      g.ex = -12345;
      g.mode = -1;
    }
    const int P = bb + 1;
    W.P = P;
    W.C = mem.data();
    W.D = W.C + bb * P;
    W.x = W.D + bb * P;
    W.v = W.x + bb;
    W.w = W.v + bb;
    W.y = W.w + bb;
    W.part = part.data();
    W.part2 = part.data() + bulge_warp::kLanes;
    W.s = &sc;
  }
};

/// The chase by the warp's per-lane code on the host: sequentially (threads = 0) or by that
/// many threads drawing sweeps in order and waiting as the kernel's warps do.
/// One sweep by the host warp: the register path (Reg, blocks of order <= 32, split schedule)
/// or the shared-memory phases.
template <bool Split, bool Reg, class T>
void emulated_sweep(HostWarp<T>& hw, const HostExec<T>& X, index_t n, index_t b, T* AB,
                    index_t ldab, index_t i, Refl<T>* refl) {
  auto rf = [&](int lane) -> bulge_warp::LaneRegs<T, 32>& { return hw.regs[sz(lane)]; };
  if constexpr (Reg) {
    static_assert(Split, "the register path runs the split schedule");
    if (refl)
      bulge_warp::sweep_reg<32, T, HostExec<T>, decltype(rf), true>(X, hw.W, rf, n, b, AB, ldab, i,
                                                                    refl->keep());
    else
      bulge_warp::sweep_reg<32>(X, hw.W, rf, n, b, AB, ldab, i);
  } else {
    if (refl)
      bulge_warp::sweep<Split, T, HostExec<T>, true>(X, hw.W, n, b, AB, ldab, i, refl->keep());
    else
      bulge_warp::sweep<Split>(X, hw.W, n, b, AB, ldab, i);
  }
}

template <bool Split, class T, bool Reg = false>
DE<T> emulated_chase(index_t n, index_t b, std::vector<T> AB, index_t ldab, int threads,
                     Refl<T>* refl = nullptr) {
  DE<T> r{std::vector<real_t<T>>(sz(n)), std::vector<real_t<T>>(sz(std::max<index_t>(n - 1, 0)))};
  for (index_t c = 0; c < n; ++c)
    for (index_t q = b + 1; q < ldab; ++q)
      AB[sz(q + c * ldab)] = T(0);
  const int bb = int(std::max<index_t>(1, std::min<index_t>(b, n - 1)));
  if (threads == 0) {
    HostWarp<T> hw(bb);
    HostExec<T> X;
    for (index_t i = 0; i + 1 < n; ++i) {
      X.full = i % 2 == 0;  // the register path's full levels both ways (the same bits)
      X.pad = i % 4 != 1;   // and its last levels padded or by the runtime-order code
      emulated_sweep<Split, Reg>(hw, X, n, b, AB.data(), ldab, i, refl);
    }
  } else {
    std::vector<std::atomic<int>> prog(sz(std::max<index_t>(n, 1)));
    for (auto& p : prog)
      p.store(0);
    std::atomic<index_t> next{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&]() {
        HostWarp<T> hw(bb);
        HostExec<T> X;
        X.prog = prog.data();
        for (;;) {
          const index_t i = next.fetch_add(1);
          if (i + 1 >= n) break;
          X.early = i % 3 != 2;  // task C's early reads and the wait first, mixed
          emulated_sweep<Split, Reg>(hw, X, n, b, AB.data(), ldab, i, refl);
        }
      });
    for (auto& th : pool)
      th.join();
  }
  for (index_t i = 0; i < n; ++i)
    r.d[sz(i)] = real_part(AB[sz(i * ldab)]);
  for (index_t i = 0; i + 1 < n; ++i)
    r.e[sz(i)] = real_part(AB[sz(1 + i * ldab)]);
  return r;
}

struct Case {
  index_t n, b;
};

/// Sizes of the device comparisons: every edge size for every band width, the large ones for a
/// few (dd: fewer, it is slow on the host).
template <class T>
std::vector<Case> cases() {
  std::vector<Case> cs;
  for (index_t b : {1, 2, 3, 8, 32, 64})
    for (index_t n :
         {index_t(0), index_t(1), index_t(2), index_t(3), b, b + 1, 2 * b + 1, index_t(100)})
      cs.push_back({n, b});
  const bool dd = std::is_same<T, dd_real>::value;
  for (index_t b : {3, 32, 64})
    cs.push_back({1000, b});
  if (!dd) {
    cs.push_back({3000, 32});
    cs.push_back({3000, 8});
  }
  return cs;
}

template <class T>
class GpuBulgeChase : public ::testing::Test {};
using Scalars = ::testing::Types<float, double, Complex<float>, Complex<double>, dd_real>;
TYPED_TEST_SUITE(GpuBulgeChase, Scalars);

/// The warp's code run on the host, lane by lane, sequentially and by 4 threads under the
/// kernel's dependency rule: the CPU's bits (no device needed).
TYPED_TEST(GpuBulgeChase, HostWarpEmulationBitwiseEqualToCpu) {
  using T = TypeParam;
  for (Case c :
       {Case{0, 3}, Case{1, 3}, Case{2, 1}, Case{3, 2}, Case{9, 8}, Case{17, 8}, Case{40, 1},
        Case{40, 2}, Case{100, 3}, Case{100, 8}, Case{130, 32}, Case{200, 64}}) {
    for (index_t ldab : {2 * c.b, 2 * c.b + 1, 2 * c.b + 3}) {
      const auto AB = random_band<T>(c.n, c.b, ldab, 7 + std::uint64_t(c.n * 131 + c.b));
      const auto ref = cpu_chase<T>(c.n, c.b, AB, ldab);
      EXPECT_TRUE((emulated_chase<true, T>(c.n, c.b, AB, ldab, 0) == ref))
          << "sequential, n = " << c.n << ", b = " << c.b << ", ldab = " << ldab;
      EXPECT_TRUE((emulated_chase<true, T>(c.n, c.b, AB, ldab, 4) == ref))
          << "4 threads, split, n = " << c.n << ", b = " << c.b << ", ldab = " << ldab;
      EXPECT_TRUE((emulated_chase<false, T>(c.n, c.b, AB, ldab, 4) == ref))
          << "4 threads, n = " << c.n << ", b = " << c.b << ", ldab = " << ldab;
      if (c.b <= 32) {
        EXPECT_TRUE((emulated_chase<true, T, true>(c.n, c.b, AB, ldab, 0) == ref))
            << "register path, sequential, n = " << c.n << ", b = " << c.b << ", ldab = " << ldab;
        EXPECT_TRUE((emulated_chase<true, T, true>(c.n, c.b, AB, ldab, 4) == ref))
            << "register path, 4 threads, n = " << c.n << ", b = " << c.b << ", ldab = " << ldab;
      }
    }
  }
}

/// A band so small that products of two of its entries underflow (scaled by 2^-520 .. 2^-560,
/// float 2^-70 .. 2^-90): chains then reach -0 through underflow, where a padded last level's
/// +0 terms would make them +0 (session 51: "a chain that starts from +0 is never -0" does not
/// hold under underflow). The host emulation of every path against the CPU.
TYPED_TEST(GpuBulgeChase, HostWarpEmulationUnderflowingBandBitwiseEqualToCpu) {
  using T = TypeParam;
  const bool single = sizeof(real_t<T>) == 4;
  // e = 3..5: entries a few units of the smallest subnormal (session 52's audit: there a
  // product with an O(1) reflector element can underflow to -0 inside a chain)
  const int exps_s[] = {-70, -80, -90, -140, -145, -148};
  const int exps_d[] = {-520, -540, -560, -1060, -1068, -1072};
  for (int e = 0; e < 6; ++e)
    for (Case c : {Case{40, 8}, Case{100, 3}, Case{130, 32}}) {
      const index_t ldab = 2 * c.b + 1;
      auto AB = random_band<T>(c.n, c.b, ldab, 29 + std::uint64_t(c.n * 131 + c.b + e));
      const int ex = single ? exps_s[e] : exps_d[e];
      for (auto& a : AB)  // two steps: 2^ex alone is not representable for the lowest ex
        a = (a * T(std::ldexp(1.0, ex / 2))) * T(std::ldexp(1.0, ex - ex / 2));
      const auto ref = cpu_chase<T>(c.n, c.b, AB, ldab);
      const std::string what = "n = " + std::to_string(c.n) + ", b = " + std::to_string(c.b) +
                               ", scale 2^" + std::to_string(ex);
      EXPECT_TRUE((emulated_chase<true, T>(c.n, c.b, AB, ldab, 0) == ref)) << "split, " << what;
      EXPECT_TRUE((emulated_chase<false, T>(c.n, c.b, AB, ldab, 4) == ref)) << what;
      if (c.b <= 32) {
        EXPECT_TRUE((emulated_chase<true, T, true>(c.n, c.b, AB, ldab, 0) == ref))
            << "register path, " << what;
      }
    }
}

/// The warp's code with the reflectors kept (bulge_warp::KeepRefl), on the host: V2 and tau2 are
/// the CPU's bit for bit (and nothing else is written), d and e unchanged; every path.
TYPED_TEST(GpuBulgeChase, HostWarpEmulationKeepsTheCpuReflectors) {
  using T = TypeParam;
  for (Case c : {Case{1, 3}, Case{2, 1}, Case{3, 2}, Case{9, 8}, Case{17, 8}, Case{40, 1},
                 Case{40, 2}, Case{100, 3}, Case{100, 8}, Case{130, 32}, Case{200, 64}}) {
    const index_t ldab = 2 * c.b + 1;
    const auto AB = random_band<T>(c.n, c.b, ldab, 17 + std::uint64_t(c.n * 131 + c.b));
    Refl<T> rc(c.n, c.b);
    const auto ref = cpu_chase<T>(c.n, c.b, AB, ldab, &rc);
    EXPECT_TRUE((ref == cpu_chase<T>(c.n, c.b, AB, ldab))) << "CPU d, e with V2";
    const std::string what = " n = " + std::to_string(c.n) + ", b = " + std::to_string(c.b);
    {
      Refl<T> r(c.n, c.b);
      EXPECT_TRUE((emulated_chase<true, T>(c.n, c.b, AB, ldab, 4, &r) == ref)) << "split" << what;
      EXPECT_TRUE(r == rc) << "V2/tau2, split, 4 threads" << what;
    }
    {
      Refl<T> r(c.n, c.b);
      EXPECT_TRUE((emulated_chase<false, T>(c.n, c.b, AB, ldab, 4, &r) == ref)) << what;
      EXPECT_TRUE(r == rc) << "V2/tau2, not split, 4 threads" << what;
    }
    if (c.b <= 32) {
      Refl<T> r(c.n, c.b);
      EXPECT_TRUE((emulated_chase<true, T, true>(c.n, c.b, AB, ldab, 4, &r) == ref))
          << "register path" << what;
      EXPECT_TRUE(r == rc) << "V2/tau2, register path, 4 threads" << what;
      Refl<T> r0(c.n, c.b);
      emulated_chase<true, T, true>(c.n, c.b, AB, ldab, 0, &r0);
      EXPECT_TRUE(r0 == rc) << "V2/tau2, register path, sequential" << what;
    }
  }
}

/// The structured-zero cases (tests/common/structured_zeros.hpp: block diagonal, a 2 x 2 block in
/// a zero band, diagonal, zero rows and columns, +0 and -0 mixed, all -0) of the zero-sign tests.
struct ZCase {
  Zeros z;
  index_t n, b;
};
std::vector<ZCase> zero_cases(bool dd) {
  std::vector<ZCase> cs;
  for (Zeros z : test_util::all_zero_kinds())
    for (Case c : {Case{2, 1}, Case{40, 1}, Case{40, 3}, Case{100, 8}, Case{130, 32},
                   Case{dd ? 200 : 600, 32}, Case{200, 64}})
      cs.push_back({z, c.n, c.b});
  return cs;
}
std::string zcase_name(const ZCase& c) {
  return test_util::zeros_name(c.z) + ", n = " + std::to_string(c.n) +
         ", b = " + std::to_string(c.b);
}

/// Structured exact zeros, the warp's code on the host (every path, sequential and 4 threads): d,
/// e and V2/tau2 the CPU's bit for bit, the sign of every zero included. right's t = -(tau * s)
/// and left's u = -(conj(tau') * s) negate the rounded product (core/neg_rounded.hpp); compiled
/// for the host without it, GCC folds the negation into fnmsub (c, z) and gets +0 for -0.
TYPED_TEST(GpuBulgeChase, HostWarpEmulationStructuredZerosBitwiseEqualToCpu) {
  using T = TypeParam;
  for (const ZCase& c : zero_cases(std::is_same<T, dd_real>::value)) {
    if (c.n > 200) continue;  // the host emulation is slow
    const index_t ldab = 2 * c.b + 1;
    const auto AB = test_util::structured_band<T>(c.n, c.b, ldab, c.z, 23 + c.n * 131 + c.b);
    Refl<T> rc(c.n, c.b);
    const auto ref = cpu_chase<T>(c.n, c.b, AB, ldab, &rc);
    const std::string what = zcase_name(c);
    {
      Refl<T> r(c.n, c.b);
      EXPECT_TRUE((emulated_chase<true, T>(c.n, c.b, AB, ldab, 0, &r) == ref)) << "split, " << what;
      EXPECT_TRUE(r == rc) << "V2/tau2, split, " << what;
    }
    {
      Refl<T> r(c.n, c.b);
      EXPECT_TRUE((emulated_chase<false, T>(c.n, c.b, AB, ldab, 4, &r) == ref)) << what;
      EXPECT_TRUE(r == rc) << "V2/tau2, not split, 4 threads, " << what;
    }
    if (c.b <= 32) {
      Refl<T> r(c.n, c.b);
      EXPECT_TRUE((emulated_chase<true, T, true>(c.n, c.b, AB, ldab, 4, &r) == ref))
          << "register path, " << what;
      EXPECT_TRUE(r == rc) << "V2/tau2, register path, " << what;
    }
  }
}

/// Structured exact zeros on the device: d, e and the kept V2/tau2 the CPU's bit for bit (the
/// sign of every zero included) with every kernel: the default, the register path forced
/// (EIGSOLVE_GPU_BULGE_REG=1), the shared-memory phases (REG=0), one progress step per level
/// (SPLIT=0); and d, e without V2/tau2.
TYPED_TEST(GpuBulgeChase, StructuredZerosBitwiseEqualToCpu) {
  EIGSOLVE_REQUIRE_DEVICE();
  using T = TypeParam;
  for (const ZCase& c : zero_cases(std::is_same<T, dd_real>::value)) {
    const index_t ldab = 2 * c.b + 1;
    const auto AB = test_util::structured_band<T>(c.n, c.b, ldab, c.z, 29 + c.n * 7 + c.b);
    Refl<T> rc(c.n, c.b);
    const auto ref = cpu_chase<T>(c.n, c.b, AB, ldab, &rc);
    EXPECT_TRUE((gpu_chase<T>(c.n, c.b, AB, ldab) == ref)) << "d, e, " << zcase_name(c);
    for (const char* mode : {"default", "REG=1", "REG=0", "SPLIT=0"}) {
      const std::string m(mode);
      test_util::EnvScope env({{"EIGSOLVE_GPU_BULGE_REG", m == "REG=1"   ? "1"
                                                          : m == "REG=0" ? "0"
                                                                         : nullptr},
                               {"EIGSOLVE_GPU_BULGE_SPLIT", m == "SPLIT=0" ? "0" : nullptr}});
      Refl<T> rg(c.n, c.b);
      EXPECT_TRUE((gpu_chase<T>(c.n, c.b, AB, ldab, &rg) == ref))
          << mode << ": d, e, " << zcase_name(c);
      EXPECT_TRUE(rg == rc) << mode << ": V2/tau2, " << zcase_name(c);
    }
  }
}

TYPED_TEST(GpuBulgeChase, BitwiseEqualToCpu) {
  EIGSOLVE_REQUIRE_DEVICE();
  using T = TypeParam;
  for (Case c : cases<T>()) {
    const index_t ldab = 2 * c.b + 1;
    const auto AB = random_band<T>(c.n, c.b, ldab, 1000 + std::uint64_t(c.n * 7 + c.b));
    const auto ref = cpu_chase<T>(c.n, c.b, AB, ldab);
    const auto got = gpu_chase<T>(c.n, c.b, AB, ldab);
    EXPECT_TRUE(got == ref) << "n = " << c.n << ", b = " << c.b;
  }
  // ldab = 2b (the smallest allowed) and a wider one
  for (index_t ldab : {index_t(16), index_t(21)}) {
    const auto AB = random_band<T>(300, 8, ldab, 77);
    EXPECT_TRUE(gpu_chase<T>(300, 8, AB, ldab) == cpu_chase<T>(300, 8, AB, ldab))
        << "ldab = " << ldab;
  }
}

/// The other kernels (EIGSOLVE_GPU_BULGE_REG=0: the shared-memory phases; SPLIT=0: one progress
/// step per level), the waits' relaxed polls plus fence (ACQ=0), every warp drawing its own
/// sweep (GROUP=0), a block's group of consecutive sweeps at gpu scope (GROUP=1) and with the
/// hand-offs inside the block at CTA scope (GROUP=2, the default), blocks of 1, 2 (the default)
/// and 4 warps (WPB), and the schedule before session 35 (GROUP=0 in blocks of 4) give the same
/// bits as the CPU too.
TYPED_TEST(GpuBulgeChase, EveryKernelBitwiseEqualToCpu) {
  EIGSOLVE_REQUIRE_DEVICE();
  using T = TypeParam;
  const bool dd = std::is_same<T, dd_real>::value;
  struct Mode {
    const char *var, *value, *var2, *value2;  // var2: a second variable, or null
  };
  for (Mode m : {Mode{"EIGSOLVE_GPU_BULGE_REG", "0", nullptr, nullptr},
                 Mode{"EIGSOLVE_GPU_BULGE_SPLIT", "0", nullptr, nullptr},
                 Mode{"EIGSOLVE_GPU_BULGE_ACQ", "0", nullptr, nullptr},
                 Mode{"EIGSOLVE_GPU_BULGE_GROUP", "0", nullptr, nullptr},
                 Mode{"EIGSOLVE_GPU_BULGE_GROUP", "1", nullptr, nullptr},
                 Mode{"EIGSOLVE_GPU_BULGE_GROUP", "2", nullptr, nullptr},
                 Mode{"EIGSOLVE_GPU_BULGE_WPB", "1", nullptr, nullptr},
                 Mode{"EIGSOLVE_GPU_BULGE_WPB", "4", nullptr, nullptr},
                 Mode{"EIGSOLVE_GPU_BULGE_GROUP", "0", "EIGSOLVE_GPU_BULGE_WPB", "4"}}) {
    ASSERT_EQ(setenv(m.var, m.value, 1), 0);
    if (m.var2) {
      ASSERT_EQ(setenv(m.var2, m.value2, 1), 0);
    }
    const std::string what = std::string(m.var) + "=" + m.value +
                             (m.var2 ? std::string(" ") + m.var2 + "=" + m.value2 : std::string());
    for (Case c : {Case{2, 1}, Case{40, 1}, Case{100, 3}, Case{33, 32}, Case{1000, 32},
                   Case{dd ? 300 : 3000, 32}}) {
      const index_t ldab = 2 * c.b + 1;
      const auto AB = random_band<T>(c.n, c.b, ldab, 5000 + std::uint64_t(c.n * 7 + c.b));
      EXPECT_TRUE((gpu_chase<T>(c.n, c.b, AB, ldab) == cpu_chase<T>(c.n, c.b, AB, ldab)))
          << what << ", n = " << c.n << ", b = " << c.b;
    }
    unsetenv(m.var);
    if (m.var2) unsetenv(m.var2);
  }
}

/// With V2/tau2 the device keeps exactly the CPU's reflectors (and writes nothing else: the NaN
/// of the unwritten entries come back), d and e unchanged; the default kernel, the register
/// path forced (EIGSOLVE_GPU_BULGE_REG=1, also for z and dd), the shared-memory phases
/// (REG=0) and one progress step per level (SPLIT=0).
TYPED_TEST(GpuBulgeChase, KeptReflectorsBitwiseEqualToCpu) {
  EIGSOLVE_REQUIRE_DEVICE();
  using T = TypeParam;
  const bool dd = std::is_same<T, dd_real>::value;
  struct Mode {
    const char* var;
    const char* value;
  };
  for (Case c : {Case{1, 3}, Case{2, 1}, Case{3, 2}, Case{33, 32}, Case{40, 1}, Case{100, 3},
                 Case{100, 8}, Case{257, 32}, Case{300, 48}, Case{1000, 32},
                 Case{dd ? 600 : 3000, 32}, Case{dd ? 500 : 2000, 8}}) {
    const index_t ldab = 2 * c.b + 1;
    const auto AB = random_band<T>(c.n, c.b, ldab, 9000 + std::uint64_t(c.n * 7 + c.b));
    Refl<T> rc(c.n, c.b);
    const auto ref = cpu_chase<T>(c.n, c.b, AB, ldab, &rc);
    for (Mode m : {Mode{nullptr, nullptr}, Mode{"EIGSOLVE_GPU_BULGE_REG", "1"},
                   Mode{"EIGSOLVE_GPU_BULGE_REG", "0"}, Mode{"EIGSOLVE_GPU_BULGE_SPLIT", "0"}}) {
      if (m.var) {
        ASSERT_EQ(setenv(m.var, m.value, 1), 0);
      }
      const std::string mode = m.var ? std::string(m.var) + "=" + m.value : std::string("default");
      Refl<T> rg(c.n, c.b);
      EXPECT_TRUE((gpu_chase<T>(c.n, c.b, AB, ldab, &rg) == ref))
          << mode << ": d, e, n = " << c.n << ", b = " << c.b;
      EXPECT_TRUE(rg == rc) << mode << ": V2/tau2, n = " << c.n << ", b = " << c.b;
      if (m.var) unsetenv(m.var);
    }
  }
}

TYPED_TEST(GpuBulgeChase, RepeatedRunsSameBits) {
  EIGSOLVE_REQUIRE_DEVICE();
  using T = TypeParam;
  const index_t n = std::is_same<T, dd_real>::value ? 600 : 2000, b = 32, ldab = 2 * b + 1;
  const auto AB = random_band<T>(n, b, ldab, 4242);
  const auto first = gpu_chase<T>(n, b, AB, ldab);
  for (int rep = 0; rep < 4; ++rep)
    EXPECT_TRUE(gpu_chase<T>(n, b, AB, ldab) == first) << "repetition " << rep;
  // one progress step per level instead of one per part; few warps (each draws many sweeps)
  setenv("EIGSOLVE_GPU_BULGE_SPLIT", "0", 1);
  EXPECT_TRUE(gpu_chase<T>(n, b, AB, ldab) == first) << "EIGSOLVE_GPU_BULGE_SPLIT=0";
  unsetenv("EIGSOLVE_GPU_BULGE_SPLIT");
  for (const char* w : {"1", "3"}) {
    setenv("EIGSOLVE_GPU_BULGE_WARPS", w, 1);
    EXPECT_TRUE(gpu_chase<T>(n, b, AB, ldab) == first) << "EIGSOLVE_GPU_BULGE_WARPS=" << w;
  }
  unsetenv("EIGSOLVE_GPU_BULGE_WARPS");
  // a block's group of consecutive sweeps with CTA-scope hand-offs, repeated, and with one
  // block (its warps draw many groups)
  setenv("EIGSOLVE_GPU_BULGE_GROUP", "2", 1);
  for (int rep = 0; rep < 3; ++rep)
    EXPECT_TRUE(gpu_chase<T>(n, b, AB, ldab) == first) << "GROUP=2, repetition " << rep;
  for (const char* w : {"1", "5"}) {
    setenv("EIGSOLVE_GPU_BULGE_WARPS", w, 1);
    EXPECT_TRUE(gpu_chase<T>(n, b, AB, ldab) == first) << "GROUP=2, WARPS=" << w;
  }
  unsetenv("EIGSOLVE_GPU_BULGE_WARPS");
  // pairs of consecutive sweeps per block (two warps), CTA-scope hand-offs (the default),
  // repeated with the variables set
  setenv("EIGSOLVE_GPU_BULGE_WPB", "2", 1);
  for (int rep = 0; rep < 2; ++rep)
    EXPECT_TRUE(gpu_chase<T>(n, b, AB, ldab) == first) << "GROUP=2, WPB=2, repetition " << rep;
  unsetenv("EIGSOLVE_GPU_BULGE_WPB");
  unsetenv("EIGSOLVE_GPU_BULGE_GROUP");
}

/// A NaN in the band: the kernel finishes (counters are counts, never data); the result may be
/// NaN.
TYPED_TEST(GpuBulgeChase, NaNFinishes) {
  EIGSOLVE_REQUIRE_DEVICE();
  using T = TypeParam;
  using R = real_t<T>;
  const index_t n = 500, b = 16, ldab = 2 * b + 1;
  auto AB = random_band<T>(n, b, ldab, 99);
  const R nan = R(std::numeric_limits<double>::quiet_NaN());
  AB[sz(3 + 40 * ldab)] = make_scalar<T>(nan, nan);
  AB[sz(0 + 7 * ldab)] = T(R(std::numeric_limits<double>::infinity()));
  const auto got = gpu_chase<T>(n, b, AB, ldab);
  EXPECT_EQ(got.d.size(), size_t(n));
  // and a correct run afterwards (counters reset)
  const auto AB2 = random_band<T>(n, b, ldab, 100);
  EXPECT_TRUE(gpu_chase<T>(n, b, AB2, ldab) == cpu_chase<T>(n, b, AB2, ldab));
}

TYPED_TEST(GpuBulgeChase, ArgumentChecks) {
  EIGSOLVE_REQUIRE_DEVICE();
  using T = TypeParam;
  EXPECT_ANY_THROW(band_to_tridiagonal_cuda<T>(-1, 2, nullptr, 4, nullptr, nullptr, nullptr));
  EXPECT_ANY_THROW(band_to_tridiagonal_cuda<T>(10, 0, nullptr, 4, nullptr, nullptr, nullptr));
  EXPECT_ANY_THROW(band_to_tridiagonal_cuda<T>(10, 4, nullptr, 7, nullptr, nullptr, nullptr));
  EXPECT_NO_THROW(band_to_tridiagonal_cuda<T>(0, 4, nullptr, 8, nullptr, nullptr, nullptr));
  // V2 and tau2 together, ldv2 >= n, ldt2 >= chase_levels
  T* p = reinterpret_cast<T*>(16);
  EXPECT_ANY_THROW(
      band_to_tridiagonal_cuda<T>(10, 4, p, 8, nullptr, nullptr, nullptr, p, 10, nullptr, 3));
  EXPECT_ANY_THROW(band_to_tridiagonal_cuda<T>(10, 4, p, 8, nullptr, nullptr, nullptr, p, 9, p, 3));
  EXPECT_ANY_THROW(
      band_to_tridiagonal_cuda<T>(10, 4, p, 8, nullptr, nullptr, nullptr, p, 10, p, 2));
}

}  // namespace
