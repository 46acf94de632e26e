// The two-stage back-transformation on the device against the CPU, bitwise, for s, d, c, z, dd:
//   - Z := Q2 Z (apply_q2_canonical_device) == apply_q2_canonical and a literal loop of the spec
//     (docs/canonical-two-stage.md, "Z := Q2 Z"), reflectors of real chases (V2's unwritten
//     entries NaN), edge sizes and band widths, nc < n, lddz > n, every path and knob;
//   - the one-stage apply_q_canonical_device on the offset pointers of "Z := Q1 Z" (order
//     n-b+1 on dA + b-1 and dZ + b-1: columns not 16-byte aligned) == apply_q_canonical there;
//   - the whole device two-stage run with keep_reflectors: reflectors_to_host == the CPU's
//     tridiagonalize_two_stage (A, tau1, V2, tau2), both applications on the device ==
//     apply_q_two_stage.
// Without a device: the kernel's per-lane code (householder/cuda/two_stage_vectors_warp.hpp) run
// on the host, lane after lane, its tasks in ticket order and by host threads under the kernel's
// flags, against the literal loop.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/context.hpp"
#include "core/precision.hpp"
#include "householder/cuda/two_stage_vectors_warp.hpp"
#include "householder/two_stage.hpp"
#include "householder/two_stage_cuda.hpp"
#include "solver/back_transform.hpp"
#include "solver/back_transform_cuda.hpp"
#include "tests/common/env_scope.hpp"
#include "tests/common/random_scalar.hpp"
#include "tests/common/structured_zeros.hpp"
#include "tests/gpu/gpu_guard.hpp"

using namespace eigsolve;
using eigsolve::test_util::random_scalar;

namespace {

std::size_t sz(index_t k) {
  return static_cast<std::size_t>(k);
}

template <class T>
bool same_bytes(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

template <class T>
T nan_scalar() {
  using R = real_t<T>;
  const R nan = R(std::numeric_limits<double>::quiet_NaN());
  return make_scalar<T>(nan, nan);
}

using eigsolve::test_util::EnvScope;

/// Stage 2's reflectors of a real chase of a random Hermitian band (n, b): V2 (ld n + 2) and
/// tau2 (ld chase_levels + 1) as band_to_tridiagonal keeps them, every entry it does not write
/// NaN (a kernel that reads one and uses it shows).
template <class T>
struct Chase2 {
  index_t n = 0, b = 1, ldv2 = 1, ldt2 = 1;
  std::vector<T> V2, tau2;
};

template <class T>
Chase2<T> make_chase(index_t n, index_t b, std::uint64_t seed) {
  Chase2<T> c;
  c.n = n;
  c.b = b;
  c.ldv2 = n + 2;
  c.ldt2 = chase_levels(n, b) + 1;
  c.V2.assign(sz(c.ldv2 * std::max<index_t>(n, 1)), nan_scalar<T>());
  c.tau2.assign(sz(c.ldt2 * std::max<index_t>(n, 1)), nan_scalar<T>());
  const index_t ldab = 2 * b + 1;
  std::mt19937_64 g(seed);
  std::vector<T> AB(sz(ldab * std::max<index_t>(n, 1)), T(0));
  for (index_t col = 0; col < n; ++col)
    for (index_t k = 0; k <= b && col + k < n; ++k) {
      const T a = random_scalar<T>(g);
      AB[sz(k + col * ldab)] = k == 0 ? T(real_part(a)) : a;
    }
  std::vector<real_t<T>> d(sz(std::max<index_t>(n, 1))), e(sz(std::max<index_t>(n, 1)));
  if (n > 0)
    band_to_tridiagonal(Context{}, n, b, AB.data(), ldab, d.data(), e.data(), c.V2.data(), c.ldv2,
                        c.tau2.data(), c.ldt2);
  return c;
}

/// Z (ldz x nc, the padding rows too: they must come back unchanged).
template <class T>
std::vector<T> random_z(index_t ldz, index_t nc, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::vector<T> Z(sz(ldz * std::max<index_t>(nc, 1)));
  for (auto& z : Z)
    z = random_scalar<T>(g);
  return Z;
}

/// The spec's loop, literally: sweeps n-2 .. 0, in each the levels last to first, every column a
/// plain chain.
template <class T>
void literal_q2(const Chase2<T>& c, index_t nc, T* Z, index_t ldz) {
  const index_t n = c.n, b = c.b;
  for (index_t i = n - 2; i >= 0; --i) {
    const index_t levels = (n - 1 - i + b - 1) / b;
    for (index_t k = levels - 1; k >= 0; --k) {
      const index_t r0 = i + 1 + k * b, r1 = std::min(i + (k + 1) * b, n - 1);
      const T* v = c.V2.data() + r0 + i * c.ldv2;
      const T tau = c.tau2[sz(k + i * c.ldt2)];
      for (index_t j = 0; j < nc; ++j) {
        T* z = Z + r0 + j * ldz;
        T s = T(0);
        for (index_t q = 0; q <= r1 - r0; ++q)
          s = madd_conj(v[q], z[q], s);
        const T u = -test_util::rounded(tau * s);  // the rounded product, negated
        for (index_t q = 0; q <= r1 - r0; ++q)
          z[q] = madd(v[q], u, z[q]);
      }
    }
  }
}

// ---- the kernel's per-lane code on the host

/// two_stage_vectors_warp.hpp's executor on the host: the lanes one after the other; the flags
/// as host atomics (release / acquire).
template <class T>
struct HostQ2Exec {
  std::atomic<std::uint64_t>* flags = nullptr;
  template <class F>
  void each(F f) const {
    for (int lane = 0; lane < q2_warp::kLanes; ++lane)
      f(lane);
  }
  T ldz(const T* p) const { return *p; }
  void stz(T* p, const T& v) const { *p = v; }
  T ldv(const T* p) const { return *p; }
  // the async copies at once (the kernel reads them only after cpwait and a phase boundary)
  void cprow(T* dst, const T* src, index_t ld, int cols) const {
    for (int c = 0; c < q2_warp::kLanes; ++c)
      dst[c] = c < cols ? src[c * ld] : T(0);
  }
  void cp16(T* dst, const T* src) const { std::memcpy(static_cast<void*>(dst), src, 16); }
  void cpwait() const {}
  void wait(index_t idx, std::uint64_t target) const {
    while (flags[idx].load(std::memory_order_acquire) < target)
      std::this_thread::yield();
  }
  void publish(index_t idx, std::uint64_t v) const {
    flags[idx].store(v, std::memory_order_release);
    std::this_thread::yield();
  }
};

/// One emulated warp: its shared memory and its lanes' registers, NaN until written.
template <class T, int C = 1>
struct HostQ2Warp {
  std::vector<T> sm;
  std::vector<q2_warp::LaneY<T, C>> lanes;
  explicit HostQ2Warp(std::size_t elems) : sm(elems, nan_scalar<T>()), lanes(q2_warp::kLanes) {
    for (auto& l : lanes)
      for (auto& yc : l.y)
        for (auto& y : yc)
          y = nan_scalar<T>();
  }
};

/// The kernel on the host: fast path (b = 32; C columns per lane) or the generic one with G
/// sweeps per group, R flag slots per slab; tasks by `threads` host threads drawing tickets (0:
/// in ticket order).
template <class T, int C = 1>
void emulated_q2(const Chase2<T>& c, bool fast, index_t G, index_t R, index_t nc, T* Z, index_t ldz,
                 int threads, bool packed = false, bool il = false, bool async = false) {
  if (c.n <= 1 || nc == 0) return;
  q2_warp::Geo g;
  g.n = c.n;
  g.b = c.b;
  g.nc = nc;
  g.G = fast ? q2_warp::kGF : G;
  g.NG = (g.n - 1 + g.G - 1) / g.G;
  const index_t slab_cols = index_t(q2_warp::kLanes) * (fast ? C : 1);
  g.S = (nc + slab_cols - 1) / slab_cols;
  g.R = std::max<index_t>(1, std::min(R, g.NG));
  q2_warp::Args<T> a;
  a.V2 = c.V2.data();
  a.ldv2 = c.ldv2;
  a.tau2 = c.tau2.data();
  a.ldt2 = c.ldt2;
  a.Z = Z;
  a.ldz = ldz;
  // the packed V tiles (fast path), written by the device kernel's own packed_value
  std::vector<T> vp;
  constexpr bool can_pack = C == 1 && !q2_warp::VLoad<T, 1>::kLegacy;
  if (packed) {
    EXPECT_TRUE(fast && can_pack);
    vp.assign(sz(q2_warp::packed_tiles(g.NG) * q2_warp::kTileElems), nan_scalar<T>());
    for (index_t j = 0; j < g.NG; ++j) {
      EXPECT_EQ(q2_warp::group_levels(g, j), j + 1);  // the layout's premise
      for (index_t k = 0; k <= j; ++k)
        for (int e = 0; e < q2_warp::kTileElems; ++e)
          vp[sz(q2_warp::packed_tile(j, k) * q2_warp::kTileElems + e)] =
              q2_warp::packed_value(g, a.V2, a.ldv2, a.tau2, a.ldt2, j, k, e);
    }
    a.Vp = vp.data();
  }
  const std::size_t elems =
      fast ? std::size_t(q2_warp::fast_elems<T>(C)) : std::size_t(q2_warp::generic_elems(g.b, g.G));
  std::vector<std::atomic<std::uint64_t>> flags(sz(g.S * g.R));
  for (auto& f : flags)
    f.store(0);
  HostQ2Exec<T> X;
  X.flags = flags.data();
  const index_t tasks = g.S * g.NG;
  auto run = [&](HostQ2Warp<T, C>& w, index_t t) {
    const index_t j = t / g.S, slab = t % g.S;
    auto rf = [&](int lane) -> q2_warp::LaneY<T, C>& { return w.lanes[sz(lane)]; };
    if (fast && packed) {
      if constexpr (can_pack) {
        if (async)
          q2_warp::fast_task<T, C, true, false, true>(X, rf, w.sm.data(), g, a, j, slab);
        else if (il)
          q2_warp::fast_task<T, C, true, true>(X, rf, w.sm.data(), g, a, j, slab);
        else
          q2_warp::fast_task<T, C, true>(X, rf, w.sm.data(), g, a, j, slab);
      }
    } else if (fast && il)
      q2_warp::fast_task<T, C, false, true>(X, rf, w.sm.data(), g, a, j, slab);
    else if (fast)
      q2_warp::fast_task<T, C>(X, rf, w.sm.data(), g, a, j, slab);
    else
      q2_warp::generic_task<T>(X, w.sm.data(), g, a, j, slab);
  };
  if (threads == 0) {
    HostQ2Warp<T, C> w(elems);
    for (index_t t = 0; t < tasks; ++t)
      run(w, t);
    return;
  }
  std::atomic<index_t> ticket{0};
  std::vector<std::thread> pool;
  for (int th = 0; th < threads; ++th)
    pool.emplace_back([&]() {
      HostQ2Warp<T, C> w(elems);
      for (;;) {
        const index_t t = ticket.fetch_add(1);
        if (t >= tasks) break;
        run(w, t);
      }
    });
  for (auto& th : pool)
    th.join();
}

template <class T>
class GpuTwoStageVectors : public ::testing::Test {};
using Scalars = ::testing::Types<float, double, Complex<float>, Complex<double>, dd_real>;
TYPED_TEST_SUITE(GpuTwoStageVectors, Scalars);

/// The kernel's code on the host (no device needed): the fast path (b = 32) and the generic
/// path (every b, several G, b = 32 too), sequential and by 3 threads with few flag slots (slot
/// reuse), against the literal loop and the CPU's apply_q2_canonical.
TYPED_TEST(GpuTwoStageVectors, HostWarpEmulationBitwiseEqualToCpu) {
  using T = TypeParam;
  const bool dd = std::is_same<T, dd_real>::value;
  struct Case {
    index_t n, b;
  };
  std::uint64_t seed = 5;
  for (Case cs :
       {Case{2, 1}, Case{3, 2}, Case{31, 32}, Case{32, 32}, Case{33, 32}, Case{34, 1}, Case{40, 3},
        Case{70, 8}, Case{100, 32}, Case{dd ? 130 : 257, 32}, Case{150, 48}}) {
    const auto c = make_chase<T>(cs.n, cs.b, seed++);
    for (index_t nc : {index_t(1), index_t(37), index_t(70)})
      for (int zk = 0; zk < 2; ++zk) {  // random Z, then Z with exact zeros of both signs
        const index_t ldz = cs.n + 3;
        const auto Z0 =
            zk ? test_util::structured_z<T>(cs.n, nc, ldz, seed++) : random_z<T>(ldz, nc, seed++);
        auto zl = Z0;
        literal_q2(c, nc, zl.data(), ldz);
        auto zc = Z0;
        apply_q2_canonical(Context{}, cs.n, cs.b, c.V2.data(), c.ldv2, c.tau2.data(), c.ldt2, nc,
                           zc.data(), ldz);
        const std::string what = "n = " + std::to_string(cs.n) + ", b = " + std::to_string(cs.b) +
                                 ", nc = " + std::to_string(nc) + (zk ? ", structured Z" : "");
        EXPECT_TRUE(same_bytes(zc, zl)) << "CPU apply_q2_canonical vs the literal loop, " << what;
        struct Run {
          bool fast;
          index_t G, R;
          int threads;
          int cols;             ///< fast path: columns per lane
          bool packed = false;  ///< fast path: the packed V tiles
          bool il = false;      ///< fast path: the update interleaved with the next dot
          bool async = false;   ///< fast path, packed: the async loads
        };
        std::vector<Run> runs = {{false, 32, 2, 0, 1}, {false, 5, 2, 3, 1}, {false, 1, 3, 3, 1}};
        if (cs.b == q2_warp::kNB) {
          runs.push_back({true, 32, 1, 0, 1});
          runs.push_back({true, 32, 2, 3, 1});
          runs.push_back({true, 32, 5, 3, 1});
          if (q2_warp::fast_max_cols<T>() >= 2) {  // two columns per lane: slabs of 64
            runs.push_back({true, 32, 1, 0, 2});
            runs.push_back({true, 32, 3, 3, 2});
          }
          if (!q2_warp::VLoad<T, 1>::kLegacy) {  // the packed V tiles
            runs.push_back({true, 32, 1, 0, 1, true});
            runs.push_back({true, 32, 2, 3, 1, true});
          }
          runs.push_back({true, 32, 2, 3, 1, false, true});  // update and next dot interleaved
          if (!q2_warp::VLoad<T, 1>::kLegacy) {
            runs.push_back({true, 32, 1, 0, 1, true, true});
            runs.push_back({true, 32, 1, 0, 1, true, false, true});  // async loads
            runs.push_back({true, 32, 2, 3, 1, true, false, true});
          }
          if (q2_warp::fast_max_cols<T>() >= 2)  // C = 2 interleaved too (host only)
            runs.push_back({true, 32, 1, 0, 2, false, true});
        }
        for (const Run& r : runs) {
          auto z = Z0;
          if (r.cols == 2)
            emulated_q2<T, 2>(c, r.fast, r.G, r.R, nc, z.data(), ldz, r.threads, r.packed, r.il,
                              r.async);
          else
            emulated_q2<T, 1>(c, r.fast, r.G, r.R, nc, z.data(), ldz, r.threads, r.packed, r.il,
                              r.async);
          EXPECT_TRUE(same_bytes(z, zl))
              << (r.fast ? "fast" : "generic") << " G = " << r.G << ", R = " << r.R
              << ", threads = " << r.threads << ", columns per lane " << r.cols
              << (r.packed ? ", packed V tiles" : "") << (r.il ? ", interleaved" : "")
              << (r.async ? ", async loads" : "") << ", " << what;
        }
      }
  }
}

// ---- the device

template <class T>
struct DevBuf {
  T* p = nullptr;
  explicit DevBuf(std::size_t count) {
    EXPECT_EQ(cudaMalloc(&p, std::max<std::size_t>(count, 1) * sizeof(T)), cudaSuccess);
  }
  explicit DevBuf(const std::vector<T>& h) : DevBuf(h.size()) { up(h); }
  ~DevBuf() { cudaFree(p); }
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
  void up(const std::vector<T>& h) {
    EXPECT_EQ(cudaMemcpy(p, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  }
  void down(std::vector<T>& h) const {
    EXPECT_EQ(cudaMemcpy(h.data(), p, h.size() * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
  }
};

/// apply_q2_canonical_device on a copy of Z0 (device), back to the host; `packed`: with the
/// packed V tiles of pack_q2_device where q2_packed_bytes offers them.
template <class T>
std::vector<T> device_q2(const Chase2<T>& c, index_t nc, const std::vector<T>& Z0, index_t ldz,
                         bool packed = false) {
  DevBuf<T> dV2(c.V2), dtau2(c.tau2), dZ(Z0);
  const std::size_t pb = packed ? q2_packed_bytes<T>(c.n, c.b) : 0;
  DevBuf<T> dVp(pb / sizeof(T));
  if (pb) pack_q2_device<T>(c.n, c.b, dV2.p, c.ldv2, dtau2.p, c.ldt2, dVp.p, nullptr);
  apply_q2_canonical_device<T>(c.n, c.b, dV2.p, c.ldv2, dtau2.p, c.ldt2, nc, dZ.p, ldz, nullptr,
                               pb ? dVp.p : nullptr);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<T> z(Z0.size());
  dZ.down(z);
  return z;
}

/// The device's Z := Q2 Z == the CPU's for every n in {1, 2, 3, 31, 32, 33, 100, 257, 1000} and
/// b in {1, 2, 3, 8, 32, 48}, n = 4097 with b = 32 and 3 (dd: 32), nc < n (and nc = n), lddz =
/// n + 3; the literal loop too where it is quick.
TYPED_TEST(GpuTwoStageVectors, Q2BitwiseEqualToCpu) {
  EIGSOLVE_REQUIRE_DEVICE();
  using T = TypeParam;
  const bool dd = std::is_same<T, dd_real>::value;
  std::uint64_t seed = 1000;
  for (index_t n : {1, 2, 3, 31, 32, 33, 100, 257, 1000, 4097})
    for (index_t b : {1, 2, 3, 8, 32, 48}) {
      // n = 4097 for the fast path and one narrow band (the CPU chase is sequential: seconds)
      if (n > 1000 && b != 32 && (b != 3 || dd)) continue;
      const auto c = make_chase<T>(n, b, seed++);
      const index_t ldz = n + 3;
      std::vector<index_t> ncs = {std::max<index_t>(1, n - n / 3)};
      if (n <= 257) ncs.push_back(n);
      if (n > 257) ncs = {n > 1000 ? index_t(45) : index_t(70)};
      for (index_t nc : ncs) {
        const auto Z0 = random_z<T>(ldz, nc, seed++);
        auto zc = Z0;
        apply_q2_canonical(Context{}, n, b, c.V2.data(), c.ldv2, c.tau2.data(), c.ldt2, nc,
                           zc.data(), ldz);
        const std::string what = "n = " + std::to_string(n) + ", b = " + std::to_string(b) +
                                 ", nc = " + std::to_string(nc);
        if (n <= 257) {
          auto zl = Z0;
          literal_q2(c, nc, zl.data(), ldz);
          EXPECT_TRUE(same_bytes(zc, zl)) << "CPU vs literal, " << what;
        }
        EXPECT_TRUE(same_bytes(device_q2(c, nc, Z0, ldz), zc)) << what;
        if (b == q2_warp::kNB && n > 1) {  // the packed V tiles (d, z, dd; 0 bytes otherwise)
          const bool offered = q2_packed_bytes<T>(n, b) > 0;
          EXPECT_EQ(offered, (!q2_warp::VLoad<T, 1>::kLegacy)) << what;
          EXPECT_TRUE(same_bytes(device_q2(c, nc, Z0, ldz, true), zc)) << "packed, " << what;
          {  // d: the loads through registers (the default is the async-load kernel; the others
             // ignore the knob)
            EnvScope as({{"EIGSOLVE_GPU_Q2_ASYNC", "0"}});
            EXPECT_TRUE(same_bytes(device_q2(c, nc, Z0, ldz, true), zc))
                << "packed, loads through registers, " << what;
          }
          EnvScope env({{"EIGSOLVE_GPU_Q2_IL", "1"}});  // the update interleaved with the next dot
          EXPECT_TRUE(same_bytes(device_q2(c, nc, Z0, ldz), zc)) << "IL, " << what;
          EXPECT_TRUE(same_bytes(device_q2(c, nc, Z0, ldz, true), zc)) << "IL, packed, " << what;
        }
        if (b == q2_warp::kNB && q2_warp::fast_max_cols<T>() >= 2) {  // two columns per lane
          EnvScope env({{"EIGSOLVE_GPU_Q2_COLS", "2"}});
          EXPECT_TRUE(same_bytes(device_q2(c, nc, Z0, ldz), zc)) << "COLS=2, " << what;
        }
      }
    }
}

/// Every path and knob of the kernel gives the same bits: the generic path for b = 32
/// (EIGSOLVE_GPU_Q2_GENERIC=1) with its automatic G and G = 1, 5; one and three warps in flight
/// (EIGSOLVE_GPU_Q2_WARPS); one and two columns per lane (EIGSOLVE_GPU_Q2_COLS); the update
/// interleaved (EIGSOLVE_GPU_Q2_IL); d's async loads (EIGSOLVE_GPU_Q2_ASYNC, the default) and
/// its loads through registers (=0); the waits' relaxed polls plus fence (EIGSOLVE_GPU_Q2_ACQ=0;
/// the default polls with acquiring loads); repeated calls.
TYPED_TEST(GpuTwoStageVectors, EveryPathSameBits) {
  EIGSOLVE_REQUIRE_DEVICE();
  using T = TypeParam;
  const bool dd = std::is_same<T, dd_real>::value;
  std::uint64_t seed = 2000;
  for (index_t n : {33, 300, dd ? 600 : 1500}) {
    const index_t b = 32, ldz = n + 1, nc = n > 300 ? 100 : n;
    const auto c = make_chase<T>(n, b, seed++);
    const auto Z0 = random_z<T>(ldz, nc, seed++);
    auto zc = Z0;
    apply_q2_canonical(Context{}, n, b, c.V2.data(), c.ldv2, c.tau2.data(), c.ldt2, nc, zc.data(),
                       ldz);
    const auto first = device_q2(c, nc, Z0, ldz);
    EXPECT_TRUE(same_bytes(first, zc)) << "default, n = " << n;
    for (int rep = 0; rep < 3; ++rep)
      EXPECT_TRUE(same_bytes(device_q2(c, nc, Z0, ldz), zc)) << "repeat " << rep << ", n = " << n;
    struct Knob {
      const char *generic, *group, *warps, *cols, *il = nullptr, *async = nullptr;
    };
    for (Knob k :
         {Knob{"1", nullptr, nullptr, nullptr}, Knob{"1", "1", nullptr, nullptr},
          Knob{"1", "5", "3", nullptr}, Knob{nullptr, nullptr, "1", nullptr},
          Knob{nullptr, nullptr, "3", nullptr}, Knob{nullptr, nullptr, nullptr, "2"},
          Knob{nullptr, nullptr, "1", "2"}, Knob{nullptr, nullptr, "3", "2"},
          Knob{nullptr, nullptr, nullptr, nullptr, "1"}, Knob{nullptr, nullptr, "3", nullptr, "1"},
          Knob{nullptr, nullptr, nullptr, nullptr, nullptr, "1"},
          Knob{nullptr, nullptr, "3", nullptr, nullptr, "1"},
          Knob{nullptr, nullptr, "1", nullptr, nullptr, "1"},
          Knob{nullptr, nullptr, nullptr, nullptr, nullptr, "0"},
          Knob{nullptr, nullptr, "3", nullptr, nullptr, "0"}}) {
      EnvScope env({{"EIGSOLVE_GPU_Q2_GENERIC", k.generic},
                    {"EIGSOLVE_GPU_Q2_GROUP", k.group},
                    {"EIGSOLVE_GPU_Q2_WARPS", k.warps},
                    {"EIGSOLVE_GPU_Q2_COLS", k.cols},
                    {"EIGSOLVE_GPU_Q2_IL", k.il},
                    {"EIGSOLVE_GPU_Q2_ASYNC", k.async}});
      for (bool packed : {false, true})
        EXPECT_TRUE(same_bytes(device_q2(c, nc, Z0, ldz, packed), zc))
            << "GENERIC=" << (k.generic ? k.generic : "-") << " GROUP=" << (k.group ? k.group : "-")
            << " WARPS=" << (k.warps ? k.warps : "-") << " COLS=" << (k.cols ? k.cols : "-")
            << " IL=" << (k.il ? k.il : "-") << " ASYNC=" << (k.async ? k.async : "-")
            << (packed ? " packed" : "") << ", n = " << n;
    }
    {
      EnvScope env({{"EIGSOLVE_GPU_Q2_ACQ", "0"}});
      for (bool packed : {false, true})
        EXPECT_TRUE(same_bytes(device_q2(c, nc, Z0, ldz, packed), zc))
            << "ACQ=0" << (packed ? " packed" : "") << ", n = " << n;
    }
  }
  // a wider generic case: b = 48 with G = 3 and two warps
  {
    EnvScope env({{"EIGSOLVE_GPU_Q2_GROUP", "3"}, {"EIGSOLVE_GPU_Q2_WARPS", "2"}});
    const index_t n = 400, b = 48, ldz = n, nc = 50;
    const auto c = make_chase<T>(n, b, seed++);
    const auto Z0 = random_z<T>(ldz, nc, seed++);
    auto zc = Z0;
    apply_q2_canonical(Context{}, n, b, c.V2.data(), c.ldv2, c.tau2.data(), c.ldt2, nc, zc.data(),
                       ldz);
    EXPECT_TRUE(same_bytes(device_q2(c, nc, Z0, ldz), zc)) << "b = 48, G = 3, 2 warps";
  }
}

TYPED_TEST(GpuTwoStageVectors, Q2ArgumentChecks) {
  EIGSOLVE_REQUIRE_DEVICE();
  using T = TypeParam;
  T* p = reinterpret_cast<T*>(256);
  EXPECT_ANY_THROW(apply_q2_canonical_device<T>(-1, 2, p, 4, p, 4, 1, p, 4, nullptr));
  EXPECT_ANY_THROW(apply_q2_canonical_device<T>(10, 0, p, 10, p, 9, 1, p, 10, nullptr));
  EXPECT_ANY_THROW(apply_q2_canonical_device<T>(10, 4, p, 9, p, 3, 1, p, 10, nullptr));   // ldv2
  EXPECT_ANY_THROW(apply_q2_canonical_device<T>(10, 4, p, 10, p, 2, 1, p, 10, nullptr));  // ldt2
  EXPECT_ANY_THROW(apply_q2_canonical_device<T>(10, 4, p, 10, p, 3, 1, p, 9, nullptr));   // lddz
  EXPECT_ANY_THROW(apply_q2_canonical_device<T>(10, 4, p, 10, p, 3, -1, p, 10, nullptr));
  // nothing to do: no device access
  EXPECT_NO_THROW(
      apply_q2_canonical_device<T>(1, 4, nullptr, 1, nullptr, 0, 5, nullptr, 1, nullptr));
  EXPECT_NO_THROW(
      apply_q2_canonical_device<T>(9, 4, nullptr, 9, nullptr, 2, 0, nullptr, 9, nullptr));
}

/// Stage 1's half: the one-stage apply_q_canonical_device of order n' = n-b+1 on dA + (b-1) and
/// dZ + (b-1) (columns that start off 16-byte boundaries), whole and in two parts
/// (prepare / columns, as the eigenvector pipeline calls it), == the CPU's apply_q_canonical on
/// the same offset pointers; the first b-1 rows and the padding stay as they were.
TYPED_TEST(GpuTwoStageVectors, OneStageOnOffsetPointersBitwiseEqualToCpu) {
  EIGSOLVE_REQUIRE_DEVICE();
  using T = TypeParam;
  std::uint64_t seed = 3000;
  for (index_t n : {3, 40, 100, 300})
    for (index_t b : {2, 3, 32, 48}) {
      if (n - b + 1 <= 1) continue;
      // stage 1 of a random Hermitian matrix: its reflectors below the band, tau1
      const index_t lda = n + 1;
      std::mt19937_64 g(seed++);
      std::vector<T> A(sz(lda * n), T(0));
      for (index_t j = 0; j < n; ++j)
        for (index_t i = j; i < n; ++i)
          A[sz(i + lda * j)] = random_scalar<T>(g);
      std::vector<T> tau1(sz(n), T(0));
      reduce_to_band(Context{}, n, b, A.data(), lda, tau1.data());
      const index_t nq = n - b + 1, off = b - 1;
      for (index_t m : {index_t(1), index_t(33), n}) {
        const index_t ldz = n + 2;
        const auto Z0 = random_z<T>(ldz, m, seed++);
        auto zc = Z0;
        apply_q_canonical(Context{}, nq, A.data() + off, lda, tau1.data(), m, zc.data() + off, ldz);
        DevBuf<T> dA(A), dtau(tau1);
        // the smallest workspace (the reflectors packed for every call) and the one with which
        // prepare packs them once for the columns calls
        for (const bool once : {false, true}) {
          const std::size_t wb = once ? apply_q_device_workspace_bytes_pack_once<T>(nq, m)
                                      : apply_q_device_workspace_bytes<T>(nq, m);
          DevBuf<unsigned char> work(wb);
          {
            DevBuf<T> dZ(Z0);
            apply_q_canonical_device<T>(nq, dA.p + off, lda, dtau.p, m, dZ.p + off, ldz, work.p, wb,
                                        nullptr);
            EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
            std::vector<T> z(Z0.size());
            dZ.down(z);
            EXPECT_TRUE(same_bytes(z, zc))
                << "whole, once = " << once << ", n = " << n << ", b = " << b << ", m = " << m;
          }
          {
            DevBuf<T> dZ(Z0);
            apply_q_device_prepare<T>(nq, dA.p + off, lda, dtau.p, m, work.p, wb, nullptr);
            const index_t h = m / 2;
            if (h > 0)
              apply_q_device_columns<T>(nq, dA.p + off, lda, m, h, dZ.p + off, ldz, work.p, wb,
                                        nullptr);
            apply_q_device_columns<T>(nq, dA.p + off, lda, m, m - h, dZ.p + off + h * ldz, ldz,
                                      work.p, wb, nullptr);
            EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
            std::vector<T> z(Z0.size());
            dZ.down(z);
            EXPECT_TRUE(same_bytes(z, zc))
                << "parts, once = " << once << ", n = " << n << ", b = " << b << ", m = " << m;
          }
        }
      }
    }
}

/// The whole device two-stage reduction with keep_reflectors: d, e, the matrix (band and stage
/// 1's reflectors), tau1, V2 and tau2 are the CPU's tridiagonalize_two_stage's bit for bit;
/// Q2 then Q1 on the device from reflectors() == apply_q_two_stage.
TYPED_TEST(GpuTwoStageVectors, DeviceReflectorsAndBothApplicationsBitwiseEqualToCpu) {
  EIGSOLVE_REQUIRE_DEVICE();
  using T = TypeParam;
  using R = real_t<T>;
  const bool dd = std::is_same<T, dd_real>::value;
  std::uint64_t seed = 4000;
  for (index_t n : {1, 2, 3, 40, 129, dd ? 300 : 700})
    for (index_t b : {2, 8, 32}) {
      std::mt19937_64 g(seed++);
      std::vector<T> A0(sz(n * n), T(0));
      for (index_t j = 0; j < n; ++j)
        for (index_t i = j; i < n; ++i)
          A0[sz(i + n * j)] = random_scalar<T>(g);
      const std::string what = "n = " + std::to_string(n) + ", b = " + std::to_string(b);
      // CPU
      auto Ac = A0;
      std::vector<R> dc(sz(n)), ec(sz(std::max<index_t>(n, 1)), R(0));
      TwoStageReflectors<T> rc;
      tridiagonalize_two_stage(Context{}, n, b, Ac.data(), n, dc.data(), ec.data(), &rc);
      // device
      auto dev = make_two_stage_cuda<T>(n, b, A0.data(), n, false, nullptr, true);
      std::vector<R> dg(sz(n)), eg(sz(std::max<index_t>(n, 1)), R(0));
      dev->run(b, dg.data(), eg.data());
      EXPECT_TRUE(std::memcmp(dg.data(), dc.data(), sz(n) * sizeof(R)) == 0) << "d, " << what;
      if (n > 1) {
        EXPECT_TRUE(std::memcmp(eg.data(), ec.data(), sz(n - 1) * sizeof(R)) == 0) << "e, " << what;
      }
      std::vector<T> Ag(sz(n * n), T(0));
      TwoStageReflectors<T> rg;
      dev->reflectors_to_host(Ag.data(), n, rg);
      index_t bad = 0;
      for (index_t j = 0; j < n; ++j)
        for (index_t i = j; i < n; ++i)
          bad += std::memcmp(&Ag[sz(i + n * j)], &Ac[sz(i + n * j)], sizeof(T)) != 0;
      EXPECT_EQ(bad, 0) << "A (lower triangle), " << what;
      EXPECT_EQ(rg.b, rc.b) << what;
      EXPECT_EQ(rg.ldv2, rc.ldv2) << what;
      EXPECT_EQ(rg.ldt2, rc.ldt2) << what;
      EXPECT_TRUE(same_bytes(rg.tau1, rc.tau1)) << "tau1, " << what;
      EXPECT_TRUE(same_bytes(rg.V2, rc.V2)) << "V2, " << what;
      EXPECT_TRUE(same_bytes(rg.tau2, rc.tau2)) << "tau2, " << what;
      if (n < 2) continue;
      // Z := Q1 Q2 Z, on the device from reflectors(), against apply_q_two_stage
      const index_t m = std::max<index_t>(1, n - 5), ldz = n;
      const auto Z0 = random_z<T>(ldz, m, seed++);
      auto zc = Z0;
      apply_q_two_stage(Context{}, n, Ac.data(), n, rc, m, zc.data(), ldz);
      const TwoStageDeviceReflectors<T> dr = dev->reflectors();
      EXPECT_EQ(dr.n, n);
      EXPECT_EQ(dr.b, b);
      DevBuf<T> dZ(Z0);
      apply_q2_canonical_device<T>(n, dr.b, dr.dV2, dr.ldv2, dr.dtau2, dr.ldt2, m, dZ.p, ldz,
                                   nullptr);
      const index_t nq = n - dr.b + 1, off = dr.b - 1;
      if (nq > 1) {
        const std::size_t wb = apply_q_device_workspace_bytes<T>(nq, m);
        DevBuf<unsigned char> work(wb);
        apply_q_device_prepare<T>(nq, dr.dA + off, dr.ldda, dr.dtau1, m, work.p, wb, nullptr);
        apply_q_device_columns<T>(nq, dr.dA + off, dr.ldda, m, m, dZ.p + off, ldz, work.p, wb,
                                  nullptr);
      }
      EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      std::vector<T> z(Z0.size());
      dZ.down(z);
      EXPECT_TRUE(same_bytes(z, zc)) << "Q1 Q2 Z, " << what;
    }
}

/// reflectors() and reflectors_to_host() need an object made with keep_reflectors, after run().
TEST(GpuTwoStageVectorsUsage, ReflectorsNeedKeepAndRun) {
  EIGSOLVE_REQUIRE_DEVICE();
  std::vector<double> A(100, 0.5);
  auto plain = make_two_stage_cuda<double>(10, 3, A.data(), 10, false);
  std::vector<double> d(10), e(10);
  plain->run(3, d.data(), e.data());
  EXPECT_ANY_THROW(plain->reflectors());
  auto kept = make_two_stage_cuda<double>(10, 3, A.data(), 10, false, nullptr, true);
  EXPECT_ANY_THROW(kept->reflectors());  // before run()
  kept->run(3, d.data(), e.data());
  EXPECT_NO_THROW(kept->reflectors());
  EXPECT_GT(two_stage_device_bytes<double>(1000, 32, true),
            two_stage_device_bytes<double>(1000, 32, false) + 1000u * 1000u * 8u - 1u);
}

}  // namespace
