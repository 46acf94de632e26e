// GPU canonical SYMM / HEMM == symv_reference column by column, bitwise (docs/canonical-symv.md,
// docs/canonical-two-stage.md step 3), for every precision and every kernel configuration:
// edge sizes around the 64-row tiles, k from 1 to 64 (partial vector blocks), odd and aligned
// leading dimensions (component and 16-byte copies), V random or shaped as stage 1 uses it
// (zeros above a unit diagonal), the strict upper triangle poisoned with NaN (never read),
// complex diagonals with nonzero imaginary parts (ignored), Inf / NaN propagation, X rows past m
// untouched, repeated runs identical.
//
// NaN: results are compared with same_bits (gpu_test_util.hpp): a NaN equals any NaN (the
// device produces the canonical NaN where the CPU may propagate an input's payload), every other
// bit must agree. Repeated device runs are compared byte for byte, NaN payloads included.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <thread>
#include <vector>

#include "core/context.hpp"
#include "core/errors.hpp"
#include "core/precision.hpp"
#include "symv/reference.hpp"
#include "symv/symm_gpu.hpp"
#include "tests/common/random_scalar.hpp"
#include "tests/gpu/gpu_guard.hpp"
#include "tests/gpu/gpu_test_util.hpp"

using namespace eigsolve;
using eigsolve::test_util::DevBuf;
using eigsolve::test_util::nan_scalar;
using eigsolve::test_util::random_scalar;
using eigsolve::test_util::same_bits;

namespace {

struct Case {
  index_t m = 0, k = 0;
  bool aligned = false;    // leading dimensions multiples of 8 elements (16-byte copies)
  bool stage1_v = false;   // V(r, q) = 0 for r < q, 1 for r == q (stage 1 of the reduction)
  bool nonfinite = false;  // an Inf in A, a NaN in V
  bool underflow = false;  // A = -2^-540, V = 2^-540: every product underflows to -0
};

index_t ld_for(index_t m, bool aligned, index_t extra) {
  if (aligned) return (m + 7) / 8 * 8 + 8;
  const index_t ld = m + extra;
  return ld % 2 == 1 ? ld : ld + 1;  // > m and odd
}

template <class T>
void run_case(const Case& c, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  const index_t m = c.m, k = c.k;
  const index_t lda = ld_for(m, c.aligned, 1), ldv = ld_for(m, c.aligned, 4),
                ldx = ld_for(m, c.aligned, 2);
  const index_t mc = std::max<index_t>(m, 1);
  std::vector<T> A(std::size_t(lda * mc)), V(std::size_t(ldv * std::max<index_t>(k, 1)));
  for (auto& v : A)
    v = random_scalar<T>(g);
  for (index_t j = 0; j < m; ++j)
    for (index_t i = 0; i < j; ++i)
      A[i + lda * j] = nan_scalar<T>();  // strict upper triangle: never read
  for (auto& v : V)
    v = random_scalar<T>(g);
  if (c.stage1_v)
    for (index_t q = 0; q < k; ++q)
      for (index_t r = 0; r <= std::min(q, m - 1); ++r)
        V[r + ldv * q] = r == q ? T(1) : T(0);
  if (c.underflow) {
    // products of 2^-160 (float) or 2^-1080 (double, dd): below half the smallest subnormal
    const double tiny = std::ldexp(1.0, sizeof(real_t<T>) == 4 ? -80 : -540);
    // complex: -tiny - 0i against tiny + 0i keeps a -0 real part in both the direct madd and
    // the transposed madd_conj (tests/symv/test_symv.cpp)
    for (auto& v : A)
      v = make_scalar<T>(real_t<T>(-tiny), real_t<T>(-0.0));
    for (auto& v : V)
      v = make_scalar<T>(real_t<T>(tiny), real_t<T>(0));
    for (index_t j = 0; j < m; ++j)
      for (index_t i = 0; i < j; ++i)
        A[i + lda * j] = nan_scalar<T>();
  }
  if (c.nonfinite && m > 3) {
    A[(m - 1) + lda * 1] = T(std::numeric_limits<double>::infinity());
    A[2 + lda * 2] = nan_scalar<T>();
    if (k > 1) V[(m / 2) + ldv * (k - 1)] = nan_scalar<T>();
  }
  // The reference: one canonical SYMV per column, beta = 0.
  Context ctx;
  ctx.threads = std::max(1, int(std::thread::hardware_concurrency()));
  std::vector<T> Xr(std::size_t(std::max<index_t>(m * k, 1)));
  for (index_t q = 0; q < k; ++q)
    symv_reference<T>(ctx, m, T(1), A.data(), lda, V.data() + ldv * q, T(0), Xr.data() + m * q);

  std::vector<T> X0(std::size_t(ldx * std::max<index_t>(k, 1)), nan_scalar<T>());
  for (std::size_t e = 0; e < X0.size(); ++e)
    if (e % 3 == 0) X0[e] = T(7);  // a poison with sign bits and payloads of its own
  DevBuf<T> dA(A.size()), dV(V.size()), dX(X0.size());
  ASSERT_TRUE(dA.p && dV.p && dX.p);
  dA.put(A);
  dV.put(V);
  const int nconf = symm_config_count<T>();
  std::vector<T> first;
  for (int cfg = -1; cfg < nconf; ++cfg) {
    for (int rep = 0; rep < (cfg == -1 ? 2 : 1); ++rep) {
      dX.put(X0);
      symm_canonical_gpu<T>(m, k, dA.p, lda, dV.p, ldv, dX.p, ldx, nullptr, cfg);
      CUDA_OK(cudaDeviceSynchronize());
      const std::vector<T> X = dX.get();
      const std::string what = std::string(ScalarTraits<T>::name) + " m=" + std::to_string(m) +
                               " k=" + std::to_string(k) + " lda=" + std::to_string(lda) +
                               " ldv=" + std::to_string(ldv) + (c.stage1_v ? " stage1-V" : "") +
                               (c.nonfinite ? " nonfinite" : "") +
                               (c.underflow ? " underflow" : "") + " config " +
                               (cfg < 0 ? std::string("auto") : symm_config_name<T>(cfg));
      bool bad = false;
      for (index_t q = 0; q < k && !bad; ++q)
        for (index_t i = 0; i < ldx && !bad; ++i) {
          const T got = X[std::size_t(i + ldx * q)];
          if (i < m) {
            const T want = Xr[std::size_t(i + m * q)];
            if (!same_bits(got, want)) {
              ADD_FAILURE() << what << ": first mismatch at row " << i << ", vector " << q
                            << " (GPU " << to_double(real_part(got)) << ", CPU "
                            << to_double(real_part(want)) << ")";
              bad = true;
            }
          } else if (std::memcmp(&got, &X0[std::size_t(i + ldx * q)], sizeof(T)) != 0) {
            ADD_FAILURE() << what << ": wrote X past row m at row " << i << ", vector " << q;
            bad = true;
          }
        }
      for (std::size_t e = std::size_t(ldx * k); e < X.size() && !bad; ++e)
        if (std::memcmp(&X[e], &X0[e], sizeof(T)) != 0) {
          ADD_FAILURE() << what << ": wrote X past column k";
          bad = true;
        }
      // Every configuration and every run: the same bytes (NaN payloads included).
      if (first.empty())
        first = X;
      else if (std::memcmp(first.data(), X.data(), X.size() * sizeof(T)) != 0)
        ADD_FAILURE() << what << ": bytes differ from the first run";
    }
  }
}

template <class T>
class GpuSymm : public ::testing::Test {};
using Scalars = ::testing::Types<float, double, Complex<float>, Complex<double>, dd_real>;
TYPED_TEST_SUITE(GpuSymm, Scalars);

TYPED_TEST(GpuSymm, EdgeSizesEveryKEveryConfig) {
  EIGSOLVE_REQUIRE_DEVICE();
  std::uint64_t seed = 1;
  for (index_t m : {0, 1, 7, 63, 64, 65, 127, 200, 1000})
    for (index_t k : {1, 3, 8, 32, 33, 64})
      for (int variant = 0; variant < 3; ++variant) {
        Case c;
        c.m = m;
        c.k = k;
        c.aligned = variant == 1;
        c.stage1_v = variant == 2;
        run_case<TypeParam>(c, seed++);
      }
}

TYPED_TEST(GpuSymm, LargeOrder) {
  EIGSOLVE_REQUIRE_DEVICE();
  Case c;
  c.m = 4097;
  c.k = 33;
  c.stage1_v = true;
  run_case<TypeParam>(c, 101);
  c.k = 32;
  c.aligned = true;
  c.stage1_v = false;
  run_case<TypeParam>(c, 102);
}

TYPED_TEST(GpuSymm, NonFinitePropagates) {
  EIGSOLVE_REQUIRE_DEVICE();
  for (index_t m : {7, 65, 200})
    for (bool aligned : {false, true}) {
      Case c;
      c.m = m;
      c.k = 8;
      c.aligned = aligned;
      c.nonfinite = true;
      run_case<TypeParam>(c, 500 + std::uint64_t(m) + (aligned ? 1 : 0));
    }
}

/// A chunk chain that starts from +0 reaches -0 only by underflow (an exact result at most half
/// the smallest subnormal in magnitude, negative, rounds to -0); a 0 * 0 term after it gives +0 (+0
/// + -0 = +0), so a kernel that pads a short last chunk with zero terms instead of leaving them
/// absent turns the CPU's -0 into +0 (session 51's reading of the zero fill). Here every product
/// underflows negative, and m mod 64 >= 57 puts a partly filled chunk 7 in the last tile, the one
/// case where the -0 survives the tree on the CPU (100, 250: a chunk cut in the middle of the
/// tile). Session 52 (H100): failed for s, d, c and z until V was padded with -0 (s, d) and the
/// complex stages of the last tile column left the columns past m absent (compute_stage's Edge).
TYPED_TEST(GpuSymm, UnderflowedChunksKeepTheirSign) {
  EIGSOLVE_REQUIRE_DEVICE();
  for (index_t m : {60, 63, 100, 121, 185, 250})
    for (bool aligned : {false, true}) {
      Case c;
      c.m = m;
      c.k = 3;
      c.aligned = aligned;
      c.underflow = true;
      run_case<TypeParam>(c, 700 + std::uint64_t(m) + (aligned ? 1 : 0));
    }
}

TYPED_TEST(GpuSymm, BadArguments) {
  using T = TypeParam;
  EXPECT_THROW(symm_canonical_gpu<T>(-1, 1, nullptr, 1, nullptr, 1, nullptr, 1, nullptr),
               DimensionError);
  EXPECT_THROW(symm_canonical_gpu<T>(4, 65, nullptr, 4, nullptr, 4, nullptr, 4, nullptr),
               DimensionError);
  EXPECT_THROW(symm_canonical_gpu<T>(4, 2, nullptr, 3, nullptr, 4, nullptr, 4, nullptr),
               DimensionError);
  EXPECT_THROW(symm_canonical_gpu<T>(4, 2, nullptr, 4, nullptr, 4, nullptr, 4, nullptr, 99),
               DimensionError);
  // m == 0 or k == 0: nothing to do, nothing touched.
  EXPECT_NO_THROW(symm_canonical_gpu<T>(0, 3, nullptr, 1, nullptr, 1, nullptr, 1, nullptr));
}

}  // namespace
