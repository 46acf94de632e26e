// Stage 1's panel QR alone on the device (householder/two_stage_cuda.hpp,
// panel_qr_cuda_for_test): EIGSOLVE_GPU_QR1=2's panel_qr_rf_kernel (the column in registers,
// householder/cuda/panel_qr_rf.cuh) and =1's panel_qr_kernel against a literal transcription of
// docs/canonical-two-stage.md step 1 (as tests/householder/test_band_reduce.cpp has it), the
// whole panel and every tau bitwise, for s, d, c, z, dd. The sizes reach 1, 2, 3 and 4 row
// batches of 4096 (s, d, c: m <= 16384; z, dd: 1 and 2, m <= 8192) and the fallback past them;
// the inputs include exact zeros, -0, columns with tau = 0 and values near underflow and
// overflow. Mode 2 runs twice: the same bits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "core/canonical.hpp"
#include "core/neg_rounded.hpp"
#include "core/precision.hpp"
#include "gpu_guard.hpp"
#include "householder/larfg.hpp"
#include "householder/two_stage_cuda.hpp"

namespace eigsolve {
namespace {

/// The spec's panel QR of the m x b panel P (lda): P(i, i) := beta_i, v_i below, tau[0 .. k).
template <class T>
void spec_panel_qr(index_t m, index_t b, std::vector<T>& Pv, index_t lda, std::vector<T>& tau) {
  const index_t k = std::min(b, m);
  auto P = [&](index_t r, index_t c) -> T& { return Pv[std::size_t(r + lda * c)]; };
  std::vector<T> v(std::size_t(m), T(0));
  tau.assign(std::size_t(k), T(0));
  for (index_t i = 0; i < k; ++i) {
    T alpha = P(i, i);
    tau[i] = hh_detail::larfg(m - i, alpha, &P(std::min(i + 1, m - 1), i));
    P(i, i) = alpha;
    for (index_t r = i; r < m; ++r)
      v[r] = r == i ? T(1) : P(r, i);
    for (index_t c = i + 1; c < b; ++c) {
      const T w = canonical_dot<true>(m - i, &v[i], 1, &P(i, c), 1);
      const T u = neg_rounded(conj(tau[i]) * w);  // the rounded product, negated
      for (index_t r = i; r < m; ++r)
        P(r, c) = madd(v[r], u, P(r, c));
    }
  }
}

/// Input kinds: 0 random; 1 exact zeros (rows r % 3 == 0, column 2: tau_2 = 0); 2 -0 at
/// (r + c) % 5 == 0; 3 column 0 zero below its real alpha (tau_0 = 0, alpha's imaginary -0
/// kept) and column 2 all +-0; 4 random scaled near underflow (subnormal products); 5 random
/// scaled near overflow; 6 the whole panel +-0 (every tau = 0).
constexpr int kKinds = 7;

template <class T>
T input(std::mt19937_64& g, int kind, index_t r, index_t c) {
  using R = real_t<T>;
  using L = std::numeric_limits<std::conditional_t<std::is_same_v<R, float>, float, double>>;
  std::uniform_real_distribution<double> u(-1, 1);
  double x = u(g), y = u(g), lo = u(g) * 0x1p-60;
  if (kind == 1 && (r % 3 == 0 || c == 2)) x = y = lo = 0.0;
  if (kind == 2 && (r + c) % 5 == 0) x = y = lo = -0.0;
  if (kind == 3 && ((c == 0 && r > 0) || c == 2)) x = y = lo = (r % 2 ? -0.0 : 0.0);
  if (kind == 3 && c == 0 && r == 0) y = -0.0;
  if (kind == 4) {
    const int e = L::min_exponent - 12;
    x = std::ldexp(x, e), y = std::ldexp(y, e), lo = std::ldexp(lo, e);
  }
  if (kind == 5) {
    const int e = L::max_exponent - 24;
    x = std::ldexp(x, e), y = std::ldexp(y, e), lo = std::ldexp(lo, e);
  }
  if (kind == 6) x = y = lo = ((r + c) % 2 ? -0.0 : 0.0);
  if constexpr (std::is_same_v<T, dd_real>)
    return dd_real::from_sum(x, lo);
  else if constexpr (is_complex_v<T>)
    return T(R(x), R(y));
  else
    return T(R(x));
}

template <class T>
bool same(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

/// The first difference of the m x b panels (lda) and the taus, as text ("" when none).
template <class T>
std::string diff(index_t m, index_t b, index_t lda, const std::vector<T>& P1,
                 const std::vector<T>& t1, const std::vector<T>& P2, const std::vector<T>& t2) {
  index_t bad = 0, fr = -1, fc = -1;
  for (index_t c = 0; c < b; ++c)
    for (index_t r = 0; r < m; ++r)
      if (!same(P1[std::size_t(r + lda * c)], P2[std::size_t(r + lda * c)]) && bad++ == 0)
        fr = r, fc = c;
  index_t badt = 0, ft = -1;
  for (std::size_t q = 0; q < t1.size(); ++q)
    if (!same(t1[q], t2[q]) && badt++ == 0) ft = index_t(q);
  if (bad == 0 && badt == 0) return "";
  return std::to_string(bad) + " elements (first (" + std::to_string(fr) + ", " +
         std::to_string(fc) + ")), " + std::to_string(badt) + " taus (first " + std::to_string(ft) +
         ")";
}

template <class T>
class GpuPanelQr : public ::testing::Test {};
using Scalars = ::testing::Types<float, double, Complex<float>, Complex<double>, dd_real>;
TYPED_TEST_SUITE(GpuPanelQr, Scalars);

TYPED_TEST(GpuPanelQr, RegisterKernelBitwiseEqualToSpecAndPanelQrKernel) {
  EIGSOLVE_REQUIRE_DEVICE();
  using T = TypeParam;
  const bool wide = sizeof(T) > 8;  // z, dd: NB <= 2 (m <= 8192), then the fallback
  std::vector<index_t> ms = {1,    2,    3,    7,    8,     9,     31,    32,   33,
                             63,   64,   65,   511,  512,   513,   4095,  4096, 4097,
                             4128, 8191, 8192, 8193, 12288, 16383, 16384, 16385};
  if (wide)
    ms = {1,   2,   3,   7,    8,    9,    31,   32,   33,   63,   64,   65,
          511, 512, 513, 4095, 4096, 4097, 4128, 8191, 8192, 8193, 16385};
  int cases = 0;
  for (index_t m : ms) {
    // all b and kinds where the CPU side is cheap; b = 3 and 32 (and fewer kinds) above
    std::vector<index_t> bs = {1, 3, 8, 32, 64};
    if (m > 600) bs = {3, 32};
    if (m > 5000) bs = {32};
    for (index_t b : bs)
      for (int kind = 0; kind < kKinds; ++kind) {
        if (m > 5000 && kind != 0 && kind != 2 && kind != 3) continue;
        const std::string what = "m = " + std::to_string(m) + ", b = " + std::to_string(b) +
                                 ", kind " + std::to_string(kind);
        const index_t lda = m + 3;
        std::mt19937_64 g(std::uint64_t(m) * 131 + std::uint64_t(b) * 7 + std::uint64_t(kind));
        std::vector<T> P0(std::size_t(lda * b), T(0));
        for (index_t c = 0; c < b; ++c)
          for (index_t r = 0; r < m; ++r)
            P0[std::size_t(r + lda * c)] = input<T>(g, kind, r, c);
        auto Ps = P0;
        std::vector<T> ts;
        spec_panel_qr(m, b, Ps, lda, ts);
        const std::size_t k = ts.size();
        auto P1 = P0, P2 = P0, P3 = P0;
        std::vector<T> t1(k), t2(k), t3(k);
        panel_qr_cuda_for_test<T>(m, b, P1.data(), lda, t1.data(), 1);
        panel_qr_cuda_for_test<T>(m, b, P2.data(), lda, t2.data(), 2);
        panel_qr_cuda_for_test<T>(m, b, P3.data(), lda, t3.data(), 2);
        const std::string d1 = diff(m, b, lda, P1, t1, Ps, ts);
        const std::string d2 = diff(m, b, lda, P2, t2, Ps, ts);
        const std::string d21 = diff(m, b, lda, P2, t2, P1, t1);
        const std::string d22 = diff(m, b, lda, P3, t3, P2, t2);
        EXPECT_EQ(d1, "") << "QR1=1 against the spec, " << what;
        EXPECT_EQ(d2, "") << "QR1=2 against the spec, " << what;
        EXPECT_EQ(d21, "") << "QR1=2 against QR1=1, " << what;
        EXPECT_EQ(d22, "") << "QR1=2 rerun, " << what;
        ++cases;
        if (::testing::Test::HasFailure()) return;  // one case's messages are enough
      }
  }
  EXPECT_GT(cases, 0);
}

}  // namespace
}  // namespace eigsolve
