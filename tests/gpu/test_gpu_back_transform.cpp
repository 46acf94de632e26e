// Device back-transformation (solver/back_transform_cuda.hpp) == CPU apply_q_canonical bitwise,
// for every precision: reflectors of the CPU tridiagonalization of random Hermitian matrices,
// edge sizes around the block (32) and tile (64) widths, m = 1, m < n, m = n, padded leading
// dimensions; the device-pointer entry point on its own stream with padded ldda/lddz and a
// dirty workspace; reflectors with tau = 0 and Z with signed zeros; sizes where the kernels
// take several column sub-batches per thread block; each step-1 mode (EIGSOLVE_GPU_BT_SWEEP
// automatic / 0 / 1) over the same kinds of cases; structured exact zeros (-0 and +0) in the
// reflectors and in Z, the sign of every zero included.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/context.hpp"
#include "core/cuda/dmma_verified.hpp"
#include "core/errors.hpp"
#include "core/precision.hpp"
#include "householder/tridiagonalize.hpp"
#include "solver/back_transform.hpp"
#include "solver/back_transform_cuda.hpp"
#include "tests/common/env_scope.hpp"
#include "tests/common/random_scalar.hpp"
#include "tests/common/structured_zeros.hpp"
#include "tests/gpu/gpu_guard.hpp"

using namespace eigsolve;
using eigsolve::test_util::random_scalar;

namespace {

using eigsolve::test_util::EnvScope;

/// The step-1 modes (EIGSOLVE_GPU_BT_SWEEP: automatic, 0 = tile segments, 1 = the sweep).
const char* const kSweepModes[] = {nullptr, "0", "1"};

std::string sweep_name(const char* sweep) {
  return std::string("sweep=") + (sweep ? sweep : "auto");
}

template <class T>
bool same_bytes(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

/// The reflectors (lower triangle of A, ld lda) and tau of a random Hermitian matrix of order n,
/// by the CPU's canonical tridiagonalization.
template <class T>
void make_reflectors(index_t n, index_t lda, std::uint64_t seed, std::vector<T>& A,
                     std::vector<T>& tau) {
  using R = real_t<T>;
  std::mt19937_64 g(seed);
  A.assign(static_cast<std::size_t>(lda * std::max<index_t>(n, 1)), T(0));
  for (index_t j = 0; j < n; ++j)
    for (index_t i = j; i < n; ++i)
      A[i + lda * j] = random_scalar<T>(g);
  tau.assign(static_cast<std::size_t>(std::max<index_t>(n, 1)), T(0));
  std::vector<R> d(n > 0 ? n : 1), e(n > 0 ? n : 1, R(0));
  Context ctx;
  ctx.threads = 2;
  if (n > 0) tridiagonalize(ctx, n, A.data(), lda, d.data(), e.data(), tau.data());
}

/// Z of ldz x m random elements (the padding rows too: they must come back unchanged).
template <class T>
std::vector<T> random_z(index_t m, index_t ldz, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::vector<T> Z(static_cast<std::size_t>(ldz * m), T(0));
  for (auto& z : Z)
    z = random_scalar<T>(g);
  return Z;
}

/// CPU and host-pointer GPU on the same input; Z compared whole (padding rows included).
template <class T>
void check(index_t n, index_t m, index_t lda, const std::vector<T>& A, const std::vector<T>& tau,
           index_t ldz, const std::vector<T>& Z0, const std::string& what) {
  std::vector<T> z1 = Z0, z2 = Z0;
  Context ctx;
  ctx.threads = 0;
  apply_q_canonical(ctx, n, A.data(), lda, tau.data(), m, z1.data(), ldz);
  apply_q_canonical_cuda(n, A.data(), lda, tau.data(), m, z2.data(), ldz);
  EXPECT_TRUE(same_bytes(z1, z2)) << ScalarTraits<T>::name << " " << what << " n=" << n
                                  << " m=" << m << " lda=" << lda << " ldz=" << ldz;
}

template <class T>
class GpuBackTransform : public ::testing::Test {};
using Scalars = ::testing::Types<float, double, Complex<float>, Complex<double>, dd_real>;
TYPED_TEST_SUITE(GpuBackTransform, Scalars);

TYPED_TEST(GpuBackTransform, BitwiseEqualToCpu) {
  EIGSOLVE_REQUIRE_DEVICE();
  using T = TypeParam;
  std::uint64_t seed = 11;
  for (index_t n : {1, 2, 3, 31, 32, 33, 64, 65, 100, 257}) {
    std::vector<index_t> ms = {1, n, std::max<index_t>(1, n / 3), n + 7};
    std::sort(ms.begin(), ms.end());
    ms.erase(std::unique(ms.begin(), ms.end()), ms.end());
    for (index_t pad : {0, 3}) {
      const index_t lda = n + pad, ldz = n + 2 * pad;
      std::vector<T> A, tau;
      make_reflectors<T>(n, lda, seed++, A, tau);
      for (index_t m : ms)
        check<T>(n, m, lda, A, tau, ldz, random_z<T>(m, ldz, seed++), "random");
    }
  }
}

/// Every step-1 mode: sizes around the block (32), half-tile (32), tile (64) and step 3's
/// 128-row thread blocks (n - 1 = 127, 128, 129) and not multiples of them (a last block of 1 or
/// 2 reflectors: k < 32), m = 1, m < n, m > n, column counts around step 1's thread blocks (64 /
/// 32) and step 3's sub-batches, padded leading dimensions.
TYPED_TEST(GpuBackTransform, EveryStep1ModeBitwiseEqualToCpu) {
  EIGSOLVE_REQUIRE_DEVICE();
  using T = TypeParam;
  std::uint64_t seed = 301;
  for (const char* sweep : kSweepModes) {
    EnvScope env({{"EIGSOLVE_GPU_BT_SWEEP", sweep}});
    const std::string what = sweep_name(sweep);
    for (index_t n : {2, 3, 33, 34, 35, 63, 65, 66, 97, 128, 129, 130, 200, 257}) {
      std::vector<index_t> ms = {1, 3, std::max<index_t>(1, n / 3), n, 63, 65, n + 37};
      std::sort(ms.begin(), ms.end());
      ms.erase(std::unique(ms.begin(), ms.end()), ms.end());
      const index_t pad = n % 2 ? 3 : 0, lda = n + pad, ldz = n + 2 * pad + 1;
      std::vector<T> A, tau;
      make_reflectors<T>(n, lda, seed++, A, tau);
      for (index_t m : ms)
        check<T>(n, m, lda, A, tau, ldz, random_z<T>(m, ldz, seed++), what);
    }
  }
}

/// The host-form transfers: pinned chunks of 4 KiB (many chunks, both buffers, pieces wider than
/// a chunk going the plain way) and the plain cudaMemcpy2D path (EIGSOLVE_GPU_STAGED=0).
TYPED_TEST(GpuBackTransform, StagedTransfersKeepTheBits) {
  EIGSOLVE_REQUIRE_DEVICE();
  using T = TypeParam;
  std::uint64_t seed = 71;
  for (const char* mode : {"chunk", "plain"}) {
    if (mode[0] == 'c')
      setenv("EIGSOLVE_GPU_STAGED_CHUNK", "4096", 1);
    else
      setenv("EIGSOLVE_GPU_STAGED", "0", 1);
    for (index_t n : {65, 200, 257}) {
      const index_t lda = n + 1, ldz = n + 3;
      std::vector<T> A, tau;
      make_reflectors<T>(n, lda, seed++, A, tau);
      for (index_t m : {index_t(1), n / 2, n})
        check<T>(n, m, lda, A, tau, ldz, random_z<T>(m, ldz, seed++), mode);
    }
    unsetenv("EIGSOLVE_GPU_STAGED_CHUNK");
    unsetenv("EIGSOLVE_GPU_STAGED");
  }
}

/// tau = 0 reflectors (a diagonal matrix has nothing to reduce; its T factors are diagonal
/// zeros) and Z with exact and signed zeros: the explicit zero terms of V decide the signs.
TYPED_TEST(GpuBackTransform, ZeroTauAndSignedZeros) {
  EIGSOLVE_REQUIRE_DEVICE();
  using T = TypeParam;
  for (index_t n : {5, 40, 70, 131}) {
    const index_t m = 9;
    std::vector<T> A, tau;
    make_reflectors<T>(n, n, 100 + n, A, tau);
    std::vector<T> Z = random_z<T>(m, n, 200 + n);
    for (index_t i = 0; i < n; ++i) {
      Z[i + n * 0] = T(0);
      Z[i + n * 1] = -T(0);
      Z[i + n * 2] = (i % 2) ? T(0) : -T(0);
    }
    check<T>(n, m, n, A, tau, n, Z, "signed zeros");
    // Every other reflector switched off (tau = 0), and one block with all tau = 0.
    std::vector<T> tau2 = tau;
    for (index_t i = 0; i < n; i += 2)
      tau2[i] = T(0);
    for (index_t i = 32; i < std::min<index_t>(n - 1, 64); ++i)
      tau2[i] = T(0);
    check<T>(n, m, n, A, tau2, n, Z, "tau = 0");
    // A diagonal matrix: the tridiagonalization itself gives tau = 0.
    std::vector<T> D(static_cast<std::size_t>(n * n), T(0)), taud(n, T(0));
    std::vector<real_t<T>> d(n), e(n, real_t<T>(0));
    for (index_t i = 0; i < n; ++i)
      D[i + n * i] = T(double(i % 5) - 2.0);
    Context ctx;
    tridiagonalize(ctx, n, D.data(), n, d.data(), e.data(), taud.data());
    check<T>(n, m, n, D, taud, n, Z, "diagonal");
  }
}

/// Structured exact zeros (tests/common/structured_zeros.hpp) in the reflectors (the CPU
/// tridiagonalization of block-diagonal, 2 x 2-block, diagonal, zero-line, mixed +-0 and all -0
/// matrices) and in Z (test_util::structured_z: -0 columns, -0 outside a block of rows, mixed
/// +-0), every step-1 mode: the CPU's bits, the sign of every zero included. Step 2's
/// ny = -s is the rounded chain negated: -(+0) = -0.
TYPED_TEST(GpuBackTransform, StructuredZerosBitwiseEqualToCpu) {
  EIGSOLVE_REQUIRE_DEVICE();
  using T = TypeParam;
  using R = real_t<T>;
  for (const char* sweep : kSweepModes) {
    EnvScope env({{"EIGSOLVE_GPU_BT_SWEEP", sweep}});
    for (test_util::Zeros zk : test_util::all_zero_kinds())
      for (index_t n : {2, 9, 33, 40, 97, 131, 257}) {
        std::vector<T> A = test_util::structured_hermitian<T>(n, zk, 13 * n + 1);
        std::vector<T> tau(static_cast<std::size_t>(n), T(0));
        std::vector<R> d(static_cast<std::size_t>(n)), e(static_cast<std::size_t>(n));
        Context ctx;
        ctx.threads = 2;
        tridiagonalize(ctx, n, A.data(), n, d.data(), e.data(), tau.data());
        for (index_t m : {index_t(12), n}) {
          const index_t ldz = n + 1;
          check<T>(n, m, n, A, tau, ldz, test_util::structured_z<T>(n, m, ldz, 17 * n + m),
                   sweep_name(sweep) + " " + test_util::zeros_name(zk));
        }
      }
  }
}

/// The device-pointer entry point: padded ldda/lddz, its own stream, a workspace full of
/// garbage (its contents on entry do not matter), and a short workspace refused.
TYPED_TEST(GpuBackTransform, DevicePointersOwnStream) {
  EIGSOLVE_REQUIRE_DEVICE();
  using T = TypeParam;
  const index_t n = 131, m = 45, ldda = n + 5, lddz = n + 3;
  std::vector<T> A, tau;
  make_reflectors<T>(n, ldda, 77, A, tau);
  const std::vector<T> Z0 = random_z<T>(m, lddz, 78);
  std::vector<T> z1 = Z0;
  Context ctx;
  ctx.threads = 2;
  apply_q_canonical(ctx, n, A.data(), ldda, tau.data(), m, z1.data(), lddz);

  const std::size_t ws = apply_q_device_workspace_bytes<T>(n, m);
  ASSERT_GT(ws, 0u);
  T *dA = nullptr, *dt = nullptr, *dZ = nullptr;
  void* dw = nullptr;
  ASSERT_EQ(cudaMalloc(&dA, A.size() * sizeof(T)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&dt, tau.size() * sizeof(T)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&dZ, Z0.size() * sizeof(T)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&dw, ws), cudaSuccess);
  cudaStream_t st = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(dA, A.data(), A.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(dt, tau.data(), tau.size() * sizeof(T), cudaMemcpyHostToDevice),
            cudaSuccess);
  EXPECT_THROW(apply_q_canonical_device<T>(n, dA, ldda, dt, m, dZ, lddz, dw, ws - 1, st),
               DimensionError);
  ASSERT_EQ(cudaMemcpy(dZ, Z0.data(), Z0.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemset(dw, 0xff, ws), cudaSuccess);  // NaN patterns everywhere
  apply_q_canonical_device<T>(n, dA, ldda, dt, m, dZ, lddz, dw, ws, st);
  ASSERT_EQ(cudaStreamSynchronize(st), cudaSuccess);
  std::vector<T> z2(Z0.size());
  ASSERT_EQ(cudaMemcpy(z2.data(), dZ, z2.size() * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_TRUE(same_bytes(z1, z2)) << ScalarTraits<T>::name << " device pointers";
  // with the workspace that packs the reflectors once (NaN patterns again)
  const std::size_t wso = apply_q_device_workspace_bytes_pack_once<T>(n, m);
  EXPECT_GT(wso, ws);
  void* dwo = nullptr;
  ASSERT_EQ(cudaMalloc(&dwo, wso), cudaSuccess);
  ASSERT_EQ(cudaMemset(dwo, 0xff, wso), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(dZ, Z0.data(), Z0.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  apply_q_canonical_device<T>(n, dA, ldda, dt, m, dZ, lddz, dwo, wso, st);
  ASSERT_EQ(cudaStreamSynchronize(st), cudaSuccess);
  std::vector<T> z3(Z0.size());
  ASSERT_EQ(cudaMemcpy(z3.data(), dZ, z3.size() * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_TRUE(same_bytes(z1, z3)) << ScalarTraits<T>::name << " device pointers, packed once";
  cudaFree(dwo);
  cudaStreamDestroy(st);
  cudaFree(dA);
  cudaFree(dt);
  cudaFree(dZ);
  cudaFree(dw);
}

/// Trivial sizes are no-ops; bad leading dimensions are refused.
TYPED_TEST(GpuBackTransform, TrivialAndBadSizes) {
  EIGSOLVE_REQUIRE_DEVICE();
  using T = TypeParam;
  EXPECT_EQ(apply_q_device_workspace_bytes<T>(1, 10), 0u);
  EXPECT_EQ(apply_q_device_workspace_bytes<T>(10, 0), 0u);
  std::vector<T> A(16, T(0)), tau(4, T(0)), Z(16, T(1));
  const std::vector<T> Z0 = Z;
  apply_q_canonical_cuda<T>(4, A.data(), 4, tau.data(), 0, Z.data(), 4);
  apply_q_canonical_cuda<T>(1, A.data(), 1, tau.data(), 4, Z.data(), 1);
  EXPECT_TRUE(same_bytes(Z, Z0));
  EXPECT_THROW(apply_q_canonical_cuda<T>(4, A.data(), 3, tau.data(), 2, Z.data(), 4),
               DimensionError);
  EXPECT_THROW(apply_q_canonical_cuda<T>(4, A.data(), 4, tau.data(), 2, Z.data(), 3),
               DimensionError);
}

/// Larger problems: many 64-row tiles and several column sub-batches per thread block (the
/// kernels' column loops), in double and complex double.
/// --back-transform cusolver (cuSOLVER's ?ormtr / ?unmtr, not canonical): Q Z to rounding, from
/// the same reflectors as the canonical order; Z's padding rows untouched; dd refused.
TYPED_TEST(GpuBackTransform, CusolverOrmtrAgreesToRounding) {
  EIGSOLVE_REQUIRE_DEVICE();
  using T = TypeParam;
  using R = real_t<T>;
  Context ctx;
  ctx.threads = 0;
  if constexpr (std::is_same_v<T, dd_real>) {
    std::vector<T> A, tau;
    make_reflectors<T>(40, 40, 91, A, tau);
    std::vector<T> Z = random_z<T>(40, 40, 92);
    EXPECT_THROW(back_transform(ctx, 40, A.data(), 40, tau.data(), 40, Z.data(), 40,
                                BackTransformMethod::cusolver),
                 UsageError);
  } else {
    std::uint64_t seed = 71;
    for (index_t n : {1, 2, 33, 100, 257}) {
      for (index_t m : {index_t(1), std::max<index_t>(1, n / 3), n}) {
        const index_t lda = n + 3, ldz = n + 5;
        std::vector<T> A, tau;
        make_reflectors<T>(n, lda, seed++, A, tau);
        const std::vector<T> Z0 = random_z<T>(m, ldz, seed++);
        std::vector<T> zc = Z0, zs = Z0;
        apply_q_canonical(ctx, n, A.data(), lda, tau.data(), m, zc.data(), ldz);
        back_transform(ctx, n, A.data(), lda, tau.data(), m, zs.data(), ldz,
                       BackTransformMethod::cusolver);
        // Both are Q Z for an orthogonal Q: |Z| <= sqrt(n) per element for entries in [-1, 1),
        // and each result is within ~n u |Z| of the exact one.
        const double u = double(std::numeric_limits<R>::epsilon());
        double err = 0;
        for (index_t j = 0; j < m; ++j) {
          for (index_t i = 0; i < n; ++i)
            err = std::max(err, to_double(abs1(zs[i + ldz * j] - zc[i + ldz * j])));
          for (index_t i = n; i < ldz; ++i)  // padding rows: never written
            EXPECT_EQ(std::memcmp(&zs[i + ldz * j], &Z0[i + ldz * j], sizeof(T)), 0);
        }
        EXPECT_LE(err, 50.0 * double(n) * u) << ScalarTraits<T>::name << " n=" << n << " m=" << m;
      }
    }
  }
}

TEST(GpuBackTransformLarge, SeveralSubBatchesPerBlock) {
  EIGSOLVE_REQUIRE_DEVICE();
  {
    const index_t n = 1500, m = 6000;  // d: 24 tiles x 188 sub-batches of 32 columns
    std::vector<double> A, tau;
    make_reflectors<double>(n, n, 5, A, tau);
    check<double>(n, m, n, A, tau, n, random_z<double>(m, n, 6), "large");
  }
  {
    const index_t n = 1100, m = 2000;  // z: 18 tiles x 250 sub-batches of 8 columns
    std::vector<cdouble> A, tau;
    make_reflectors<cdouble>(n, n, 7, A, tau);
    check<cdouble>(n, m, n, A, tau, n, random_z<cdouble>(m, n, 8), "large");
  }
}

/// Steps 1 and 3 of double on the FP64 tensor cores (core/cuda/dmma.cuh; opt-in,
/// EIGSOLVE_GPU_BT_DMMA=1) against the CUDA-core kernels and the CPU, in every step-1 mode: edge
/// sizes around the block (32), tile (64) and step-3 row block (128) widths, then many 128-row
/// blocks, several 32-column sub-batches per thread block, a short last block (n - 1 = 1498)
/// and last tiles with partial chunks, padded leading dimensions, m > n. On sm_80 .. sm_90
/// (where session 51 measured the property) the self-check must pass, or the tensor-core path
/// would silently never run; EIGSOLVE_GPU_DMMA=0 turns it off.
TEST(GpuBackTransformLarge, TensorCoresSameBitsAsCudaCores) {
  EIGSOLVE_REQUIRE_DEVICE();
  int dev = 0, major = 0;
  ASSERT_EQ(cudaGetDevice(&dev), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev), cudaSuccess);
  if (major >= 8 && major <= 9) {
    EnvScope env({{"EIGSOLVE_GPU_DMMA", nullptr}});
    EXPECT_TRUE(dmma::dmma_chain_verified()) << "the FP64 tensor cores failed the fma-chain check";
  }
  {
    EnvScope env({{"EIGSOLVE_GPU_DMMA", "0"}});
    EXPECT_FALSE(dmma::dmma_chain_verified());
  }
  std::uint64_t seed = 41;
  for (auto [n, m] : std::initializer_list<std::pair<index_t, index_t>>{
           {34, 5}, {65, 70}, {97, 33}, {130, 130}, {257, 100}, {1499, 2100}}) {
    const index_t lda = n + 3, ldz = n + 7;
    std::vector<double> A, tau;
    make_reflectors<double>(n, lda, seed++, A, tau);
    const std::vector<double> Z = random_z<double>(m, ldz, seed++);
    std::vector<double> z0 = Z;
    Context ctx;
    ctx.threads = 0;
    apply_q_canonical(ctx, n, A.data(), lda, tau.data(), m, z0.data(), ldz);
    for (const char* flag : {"1", "0"})
      for (const char* sweep : kSweepModes) {
        EnvScope env({{"EIGSOLVE_GPU_BT_DMMA", flag}, {"EIGSOLVE_GPU_BT_SWEEP", sweep}});
        std::vector<double> z = Z;
        apply_q_canonical_cuda(n, A.data(), lda, tau.data(), m, z.data(), ldz);
        EXPECT_TRUE(same_bytes(z0, z))
            << "n=" << n << " m=" << m << " EIGSOLVE_GPU_BT_DMMA=" << flag << " "
            << sweep_name(sweep);
      }
  }
}

/// Larger problems in every step-1 mode: many tiles, the partial split with several tiles per
/// segment, the sweep over all tiles, many column blocks, several step-3 sub-batches per thread
/// block (d 3000 x 8900: 140 column blocks, in segments by the fitted count, a sweep by the old
/// rule), many 128-row blocks; n - 1 not a multiple of 32 (a short last block) and of 64; m < n
/// and m > n; every precision; the segment counts of EIGSOLVE_GPU_BT_FIT=0 and
/// EIGSOLVE_GPU_BT_SEGS=32; the reflectors packed for every column panel instead of once
/// (EIGSOLVE_GPU_BT_PACK_ONCE=0).
template <class T>
void large_modes(index_t n, index_t m, std::uint64_t seed) {
  const index_t lda = n + 1, ldz = n + 5;
  std::vector<T> A, tau;
  make_reflectors<T>(n, lda, seed, A, tau);
  const std::vector<T> Z = random_z<T>(m, ldz, seed + 1);
  std::vector<T> z1 = Z;
  Context ctx;
  ctx.threads = 0;
  apply_q_canonical(ctx, n, A.data(), lda, tau.data(), m, z1.data(), ldz);
  for (const char* sweep : kSweepModes) {
    EnvScope env({{"EIGSOLVE_GPU_BT_SWEEP", sweep}});
    std::vector<T> z2 = Z;
    apply_q_canonical_cuda(n, A.data(), lda, tau.data(), m, z2.data(), ldz);
    EXPECT_TRUE(same_bytes(z1, z2))
        << ScalarTraits<T>::name << " large n=" << n << " m=" << m << " " << sweep_name(sweep);
  }
  // the segment count of the rule before session 29 (EIGSOLVE_GPU_BT_FIT=0) and the most
  // segments (32) instead of the fitted count; the reflectors packed again for every column
  // panel instead of once by the T factors (EIGSOLVE_GPU_BT_PACK_ONCE=0)
  for (const auto& kv : {std::pair<const char*, const char*>{"EIGSOLVE_GPU_BT_FIT", "0"},
                         std::pair<const char*, const char*>{"EIGSOLVE_GPU_BT_SEGS", "32"},
                         std::pair<const char*, const char*>{"EIGSOLVE_GPU_BT_PACK_ONCE", "0"}}) {
    EnvScope env({{kv.first, kv.second}});
    std::vector<T> z2 = Z;
    apply_q_canonical_cuda(n, A.data(), lda, tau.data(), m, z2.data(), ldz);
    EXPECT_TRUE(same_bytes(z1, z2)) << ScalarTraits<T>::name << " large n=" << n << " m=" << m
                                    << " " << kv.first << "=" << kv.second;
  }
}

TEST(GpuBackTransformLarge, EveryStep1Mode) {
  EIGSOLVE_REQUIRE_DEVICE();
  large_modes<double>(1501, 6000, 21);  // 24 tiles, 94 column blocks: partial when automatic
  large_modes<double>(1100, 300, 23);   // m < n: 5 column blocks, many segments
  large_modes<float>(1234, 2000, 25);
  large_modes<cdouble>(1100, 2000, 27);
  large_modes<dd_real>(700, 500, 29);
  large_modes<double>(3000, 8900, 41);
  large_modes<float>(2049, 8000, 45);
  large_modes<cfloat>(1234, 2000, 47);
  large_modes<cdouble>(700, 500, 49);
}

}  // namespace
