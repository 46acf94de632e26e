// The two-stage reduction on the device (householder/two_stage_cuda.hpp) against the CPU's
// (householder/two_stage.hpp, docs/canonical-two-stage.md): stage 1 bitwise (the band and the
// reflectors), d and e bitwise, and the eigenvalues of the whole pipeline (eigensolve and
// eigensolve_device with --device cuda) bitwise, for s, d, c, z, dd; also on matrices with
// structured exact zeros (-0 and +0), the sign of every zero included.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <random>
#include <vector>

#include "core/context.hpp"
#include "gpu_guard.hpp"
#include "householder/two_stage.hpp"
#include "householder/two_stage_cuda.hpp"
#include "solver/eigensolve.hpp"
#include "tests/common/env_scope.hpp"
#include "tests/common/structured_zeros.hpp"

namespace eigsolve {
namespace {

using eigsolve::test_util::EnvScope;

template <class T>
HostMatrix<T> random_hermitian(index_t n, unsigned seed) {
  using R = real_t<T>;
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  HostMatrix<T> A(n);
  for (index_t j = 0; j < n; ++j)
    for (index_t i = j; i < n; ++i) {
      if constexpr (is_complex_v<T>)
        A(i, j) = T(R(u(g)), R(u(g)));  // the diagonal's imaginary part must be ignored
      else
        A(i, j) = T(R(u(g)));
    }
  return A;
}

template <class T>
bool same_bits(const T* a, const T* b, std::size_t count) {
  return std::memcmp(a, b, count * sizeof(T)) == 0;
}

/// Stage 1 of A0 on the CPU (reduce_to_band) and on the device: how many elements of the lower
/// triangle differ in their bits (the strict upper is not the reduction's), and the first one.
struct Stage1Diff {
  index_t bad = 0, i = -1, j = -1;
};
template <class T>
Stage1Diff lower_diff(index_t n, const HostMatrix<T>& A, const HostMatrix<T>& B) {
  Stage1Diff d;
  for (index_t j = 0; j < n; ++j)
    for (index_t i = j; i < n; ++i)
      if (!same_bits(&A(i, j), &B(i, j), 1) && d.bad++ == 0) d.i = i, d.j = j;
  return d;
}
template <class T>
Stage1Diff stage1_diff(index_t n, index_t b, const HostMatrix<T>& A0) {
  auto Ac = A0;
  std::vector<T> tau(static_cast<std::size_t>(n));
  reduce_to_band(Context{}, n, b, Ac.ptr(), n, tau.data());
  HostMatrix<T> Ag(n);
  auto dev = make_two_stage_cuda<T>(n, b, A0.ptr(), n, false);
  dev->stage1(b, Ag.ptr(), n);
  return lower_diff(n, Ag, Ac);
}
/// Stage 1 of A0 on the device with the environment variable var = v1, then = v2: where the two
/// differ (GPU against GPU, for sizes where the CPU reduction is too slow).
template <class T>
Stage1Diff stage1_env_diff(index_t n, index_t b, const HostMatrix<T>& A0, const char* var,
                           const char* v1, const char* v2) {
  HostMatrix<T> A1(n), A2(n);
  {
    EnvScope env({{var, v1}});
    make_two_stage_cuda<T>(n, b, A0.ptr(), n, false)->stage1(b, A1.ptr(), n);
  }
  {
    EnvScope env({{var, v2}});
    make_two_stage_cuda<T>(n, b, A0.ptr(), n, false)->stage1(b, A2.ptr(), n);
  }
  return lower_diff(n, A2, A1);
}

template <class T>
class GpuTwoStage : public ::testing::Test {};
using Scalars = ::testing::Types<float, double, Complex<float>, Complex<double>, dd_real>;
TYPED_TEST_SUITE(GpuTwoStage, Scalars);

// Stage 1: the device leaves in A exactly what reduce_to_band leaves (the band, the reflectors).
TYPED_TEST(GpuTwoStage, Stage1BitwiseEqualToCpu) {
  EIGSOLVE_REQUIRE_DEVICE();
  using T = TypeParam;
  // z and dd: also with their rank-2k unbounded (EIGSOLVE_GPU_R2K_BOUND=0; same chains)
  constexpr bool bounded = std::is_same_v<T, Complex<double>> || std::is_same_v<T, dd_real>;
  // and with the per-panel small kernels both ways (EIGSOLVE_GPU_STAGE1_SMALL; b = 40 > 32 runs
  // the old ones either way)
  for (const char* small : {"0", "1"})
    for (const char* bound : {"1", "0"}) {
      if (bound[0] == '0' && !bounded) continue;
      EnvScope env({{"EIGSOLVE_GPU_R2K_BOUND", bound}, {"EIGSOLVE_GPU_STAGE1_SMALL", small}});
      for (index_t n : {1, 2, 5, 33, 64, 65, 130, 300})
        for (index_t b : {1, 3, 8, 32, 40}) {
          const Stage1Diff d = stage1_diff(n, b, random_hermitian<T>(n, unsigned(n * 100 + b)));
          EXPECT_EQ(d.bad, 0) << "n = " << n << ", b = " << b << ", R2K_BOUND = " << bound
                              << ", STAGE1_SMALL = " << small << ": first difference at (" << d.i
                              << ", " << d.j << ")";
        }
    }
}

// Stage 1 with the panel's Gram matrix, T factor, Z and M by session 49's kernels (dots_kernel:
// batches of 32 tiles, so 1, 2 and 3 batches and partial tiles at this n; tfactor_block_kernel,
// m_smem_kernel; EIGSOLVE_GPU_STAGE1_SMALL=1) against the kernels before them (=0, the default:
// the new ones were slower in session 50), both tied to the CPU by Stage1BitwiseEqualToCpu: the
// whole stage-1 matrix bitwise. GPU against GPU: no CPU reduction at this n.
TYPED_TEST(GpuTwoStage, SmallKernelsSameBitsAtLargeN) {
  EIGSOLVE_REQUIRE_DEVICE();
  using T = TypeParam;
  for (index_t b : {32, 17}) {
    const index_t n = 4500 + b;
    const Stage1Diff d = stage1_env_diff(n, b, random_hermitian<T>(n, unsigned(777 + b)),
                                         "EIGSOLVE_GPU_STAGE1_SMALL", "0", "1");
    EXPECT_EQ(d.bad, 0) << "n = " << n << ", b = " << b << ": first difference at (" << d.i << ", "
                        << d.j << ")";
  }
}

// Stage 1 at sizes where the panels reach every row-batch count of EIGSOLVE_GPU_QR1=2's
// panel_qr_rf_kernel (NB = ceil(m / 4096): 1 .. 4 for s, d, c, 1 .. 2 for z, dd) and the first
// panels its fallback (panel_qr_kernel): the whole stage-1 matrix bitwise panel_qr_kernel's
// everywhere (QR1=1, which SameBitsForEverySchedule ties to the CPU at small n). GPU against GPU:
// no CPU reduction at this n.
TYPED_TEST(GpuTwoStage, RegisterPanelQrSameBitsAtLargeN) {
  EIGSOLVE_REQUIRE_DEVICE();
  using T = TypeParam;
  const index_t n = sizeof(T) <= 8 ? 16500 : 8300, b = 32;
  const Stage1Diff d =
      stage1_env_diff(n, b, random_hermitian<T>(n, 4242), "EIGSOLVE_GPU_QR1", "1", "2");
  EXPECT_EQ(d.bad, 0) << "n = " << n << ": first difference at (" << d.i << ", " << d.j << ")";
}

// Both stages: d and e bitwise the CPU's tridiagonalize_two_stage.
TYPED_TEST(GpuTwoStage, TridiagonalBitwiseEqualToCpu) {
  EIGSOLVE_REQUIRE_DEVICE();
  using T = TypeParam;
  using R = real_t<T>;
  const std::vector<index_t> sizes = std::is_same<T, dd_real>::value
                                         ? std::vector<index_t>{1, 2, 3, 40, 129, 400}
                                         : std::vector<index_t>{1, 2, 3, 40, 129, 400, 1100};
  for (index_t n : sizes)
    for (index_t b : {2, 8, 32}) {
      const auto A0 = random_hermitian<T>(n, unsigned(n + 7 * b));
      auto Ac = A0;
      std::vector<R> dc(n), ec(n, R(0)), dg(n), eg(n, R(0));
      tridiagonalize_two_stage(Context{}, n, b, Ac.ptr(), n, dc.data(), ec.data());
      auto dev = make_two_stage_cuda<T>(n, b, A0.ptr(), n, false);
      dev->run(b, dg.data(), eg.data());
      EXPECT_TRUE(same_bits(dg.data(), dc.data(), std::size_t(n)))
          << "d: n = " << n << ", b = " << b;
      EXPECT_TRUE(same_bits(eg.data(), ec.data(), std::size_t(n - 1)))
          << "e: n = " << n << ", b = " << b;
      // again: the same bits
      std::vector<R> d2(n), e2(n, R(0));
      dev = make_two_stage_cuda<T>(n, b, A0.ptr(), n, false);
      dev->run(b, d2.data(), e2.data());
      EXPECT_TRUE(same_bits(d2.data(), dg.data(), std::size_t(n))) << "rerun, n = " << n;
    }
}

// The pipeline: eigensolve (host matrix) and eigensolve_device (device matrix) with the CUDA
// backend give the CPU backend's eigenvalues bit for bit.
TYPED_TEST(GpuTwoStage, EigenvaluesBitwiseEqualToCpu) {
  EIGSOLVE_REQUIRE_DEVICE();
  using T = TypeParam;
  const index_t n = std::is_same<T, dd_real>::value ? 200 : 700;
  const auto A0 = random_hermitian<T>(n, 99);
  SolveOptions opt;
  opt.reduction = Reduction::two_stage;
  auto Ac = A0;
  const auto cpu = eigensolve(Context{}, Ac, opt);
  Context gctx;
  gctx.backend = Backend::cuda;
  auto Ag = A0;
  const auto gpu = eigensolve(gctx, Ag, opt);
  ASSERT_EQ(gpu.w.size(), cpu.w.size());
  EXPECT_TRUE(same_bits(gpu.w.data(), cpu.w.data(), cpu.w.size()));
  T* dA = nullptr;
  ASSERT_EQ(cudaSuccess, cudaMalloc(&dA, sizeof(T) * std::size_t(n) * std::size_t(n)));
  ASSERT_EQ(cudaSuccess, cudaMemcpy(dA, A0.ptr(), sizeof(T) * std::size_t(n) * std::size_t(n),
                                    cudaMemcpyHostToDevice));
  const auto dev = eigensolve_device(gctx, n, static_cast<const T*>(dA), n, opt);
  cudaFree(dA);
  ASSERT_EQ(dev.w.size(), cpu.w.size());
  EXPECT_TRUE(same_bits(dev.w.data(), cpu.w.data(), cpu.w.size()));
}

// The pipeline with eigenvectors (docs/canonical-two-stage.md, "Eigenvectors"): eigensolve with
// the CUDA backend (the vectors resident on the device; and the host route,
// EIGSOLVE_GPU_RESIDENT=0, where apply_q_two_stage_cuda transforms host Z) and eigensolve_device
// give the CPU backend's eigenvalues and eigenvectors bit for bit; with --tridiag-solver stedc too
// (s/d/c/z: LAPACK's Z of T on the host, then both products on the device).
TYPED_TEST(GpuTwoStage, EigenvectorsBitwiseEqualToCpu) {
  EIGSOLVE_REQUIRE_DEVICE();
  using T = TypeParam;
  const index_t n = std::is_same<T, dd_real>::value ? 150 : 500;
  const auto A0 = random_hermitian<T>(n, 77);
  std::vector<TridiagSolver> solvers = {TridiagSolver::bisection};
  if (has_vendor_lapack_v<T>) solvers.push_back(TridiagSolver::stedc);
  for (TridiagSolver sv : solvers)
    for (const char* resident : {"1", "0"}) {
      const std::string what =
          std::string(tridiag_solver_name(sv)) + ", EIGSOLVE_GPU_RESIDENT=" + resident;
      SolveOptions opt;
      opt.reduction = Reduction::two_stage;
      opt.vectors = true;
      opt.solver = sv;
      auto Ac = A0;
      const auto cpu = eigensolve(Context{}, Ac, opt);
      ASSERT_EQ(cpu.reduction, Reduction::two_stage);
      EnvScope env({{"EIGSOLVE_GPU_RESIDENT", resident}});
      Context gctx;
      gctx.backend = Backend::cuda;
      auto Ag = A0;
      const auto gpu = eigensolve(gctx, Ag, opt);
      T* dA = nullptr;
      ASSERT_EQ(cudaSuccess, cudaMalloc(&dA, sizeof(T) * std::size_t(n) * std::size_t(n)));
      ASSERT_EQ(cudaSuccess, cudaMemcpy(dA, A0.ptr(), sizeof(T) * std::size_t(n) * std::size_t(n),
                                        cudaMemcpyHostToDevice));
      const auto dev = eigensolve_device(gctx, n, static_cast<const T*>(dA), n, opt);
      cudaFree(dA);
      for (const auto* r : {&gpu, &dev}) {
        ASSERT_EQ(r->w.size(), cpu.w.size()) << what;
        ASSERT_EQ(r->z.size(), cpu.z.size()) << what;
        EXPECT_TRUE(same_bits(r->w.data(), cpu.w.data(), cpu.w.size())) << what;
        EXPECT_TRUE(same_bits(r->z.data(), cpu.z.data(), cpu.z.size())) << what;
      }
    }
}

/// A structured-zero Hermitian matrix (tests/common/structured_zeros.hpp) as a HostMatrix.
template <class T>
HostMatrix<T> structured(index_t n, test_util::Zeros z, std::uint64_t seed) {
  HostMatrix<T> A(n);
  A.data = test_util::structured_hermitian<T>(n, z, seed);
  return A;
}

// Structured exact zeros (block diagonal, a 2 x 2 block in a zero matrix, diagonal, zero rows and
// columns, +0 and -0 mixed, all -0): stage 1's whole lower triangle and d, e the CPU's bit for
// bit, the sign of every zero included. Stage 1's u = -(conj(tau) * w) and the chase's
// t = -(tau * s), u = -(conj(tau') * s) are the rounded products negated (-(+0) = -0).
TYPED_TEST(GpuTwoStage, StructuredZerosBitwiseEqualToCpu) {
  EIGSOLVE_REQUIRE_DEVICE();
  using T = TypeParam;
  using R = real_t<T>;
  for (test_util::Zeros zk : test_util::all_zero_kinds())
    for (index_t n : {9, 40, 130, 300})
      for (index_t b : {1, 3, 8, 32}) {
        const std::string what =
            test_util::zeros_name(zk) + ", n = " + std::to_string(n) + ", b = " + std::to_string(b);
        const auto A0 = structured<T>(n, zk, std::uint64_t(n * 100 + b));
        const Stage1Diff d = stage1_diff(n, b, A0);
        EXPECT_EQ(d.bad, 0) << "stage 1, " << what << ": first difference at (" << d.i << ", "
                            << d.j << ")";
        auto At = A0;
        std::vector<R> dc(n), ec(n, R(0)), dg(n), eg(n, R(0));
        tridiagonalize_two_stage(Context{}, n, b, At.ptr(), n, dc.data(), ec.data());
        auto dev = make_two_stage_cuda<T>(n, b, A0.ptr(), n, false);
        dev->run(b, dg.data(), eg.data());
        EXPECT_TRUE(same_bits(dg.data(), dc.data(), std::size_t(n))) << "d, " << what;
        EXPECT_TRUE(same_bits(eg.data(), ec.data(), std::size_t(n - 1))) << "e, " << what;
      }
}

// The pipeline with eigenvectors on structured-zero matrices: eigensolve with the CUDA backend
// (vectors resident and the host route) and eigensolve_device give the CPU backend's eigenvalues
// and eigenvectors bit for bit, the sign of every zero included.
TYPED_TEST(GpuTwoStage, StructuredZerosEigenvectorsBitwiseEqualToCpu) {
  EIGSOLVE_REQUIRE_DEVICE();
  using T = TypeParam;
  const index_t n = std::is_same<T, dd_real>::value ? 90 : 200;
  for (test_util::Zeros zk : test_util::all_zero_kinds())
    for (index_t b : {3, 32})
      for (const char* resident : {"1", "0"}) {
        const std::string what = test_util::zeros_name(zk) + ", b = " + std::to_string(b) +
                                 ", EIGSOLVE_GPU_RESIDENT=" + resident;
        const auto A0 = structured<T>(n, zk, std::uint64_t(31 + b));
        SolveOptions opt;
        opt.reduction = Reduction::two_stage;
        opt.band = int(b);
        opt.vectors = true;
        auto Ac = A0;
        const auto cpu = eigensolve(Context{}, Ac, opt);
        EnvScope env({{"EIGSOLVE_GPU_RESIDENT", resident}});
        Context gctx;
        gctx.backend = Backend::cuda;
        auto Ag = A0;
        const auto gpu = eigensolve(gctx, Ag, opt);
        T* dA = nullptr;
        ASSERT_EQ(cudaSuccess, cudaMalloc(&dA, sizeof(T) * std::size_t(n) * std::size_t(n)));
        ASSERT_EQ(cudaSuccess, cudaMemcpy(dA, A0.ptr(), sizeof(T) * std::size_t(n) * std::size_t(n),
                                          cudaMemcpyHostToDevice));
        const auto dev = eigensolve_device(gctx, n, static_cast<const T*>(dA), n, opt);
        cudaFree(dA);
        for (const auto* r : {&gpu, &dev}) {
          ASSERT_EQ(r->w.size(), cpu.w.size()) << what;
          ASSERT_EQ(r->z.size(), cpu.z.size()) << what;
          EXPECT_TRUE(same_bits(r->w.data(), cpu.w.data(), cpu.w.size())) << "w, " << what;
          EXPECT_TRUE(same_bits(r->z.data(), cpu.z.data(), cpu.z.size())) << "z, " << what;
        }
      }
}

// The schedules that must not change a bit: the next panel's QR beside the update (default),
// in order (EIGSOLVE_GPU_LOOKAHEAD=0), serialised with events (EIGSOLVE_GPU_PROFILE=1), plain
// launches (EIGSOLVE_GPU_PDL=0), the panel QR as two kernels per column (EIGSOLVE_GPU_QR1=0), as
// panel_qr_kernel everywhere (EIGSOLVE_GPU_QR1=1; also in order, without lookahead) or with the
// column in registers set explicitly (EIGSOLVE_GPU_QR1=2, the default), the rank-2k staged
// through registers instead of by cp.async (EIGSOLVE_GPU_RANK2K_ASYNC=0), the rank-2k's A by
// element instead of by 16-byte vectors (EIGSOLVE_GPU_RANK2K_VEC=0).
TEST(GpuTwoStageSchedules, SameBitsForEverySchedule) {
  EIGSOLVE_REQUIRE_DEVICE();
  struct Setting {
    const char* name;
    const char* value;
    const char* name2;  // a second variable, or nullptr
    const char* value2;
  };
  const Setting settings[] = {{"EIGSOLVE_GPU_LOOKAHEAD", "0", nullptr, nullptr},
                              {"EIGSOLVE_GPU_PROFILE", "1", nullptr, nullptr},
                              {"EIGSOLVE_GPU_PDL", "0", nullptr, nullptr},
                              {"EIGSOLVE_GPU_QR1", "0", nullptr, nullptr},
                              {"EIGSOLVE_GPU_QR1", "1", nullptr, nullptr},
                              {"EIGSOLVE_GPU_QR1", "1", "EIGSOLVE_GPU_LOOKAHEAD", "0"},
                              {"EIGSOLVE_GPU_QR1", "2", nullptr, nullptr},
                              {"EIGSOLVE_GPU_RANK2K_ASYNC", "0", nullptr, nullptr},
                              {"EIGSOLVE_GPU_RANK2K_VEC", "0", nullptr, nullptr}};
  for (index_t b : {8, 32, 64}) {
    const index_t n = 777;
    const auto A0 = random_hermitian<double>(n, unsigned(b));
    auto Ac = A0;
    std::vector<double> dc(n), ec(n, 0.0);
    tridiagonalize_two_stage(Context{}, n, b, Ac.ptr(), n, dc.data(), ec.data());
    for (const Setting& s : settings) {
      const std::string what = std::string(s.name) + "=" + s.value +
                               (s.name2 ? std::string(", ") + s.name2 + "=" + s.value2 : "") +
                               ", b = " + std::to_string(b);
      std::vector<double> dg(n), eg(n, 0.0);
      {
        EnvScope env({{s.name, s.value}});
        std::optional<EnvScope> env2;
        if (s.name2)
          env2.emplace(
              std::initializer_list<std::pair<const char*, const char*>>{{s.name2, s.value2}});
        auto dev = make_two_stage_cuda<double>(n, b, A0.ptr(), n, false);
        dev->run(b, dg.data(), eg.data());
      }
      EXPECT_TRUE(same_bits(dg.data(), dc.data(), std::size_t(n))) << what;
      EXPECT_TRUE(same_bits(eg.data(), ec.data(), std::size_t(n - 1))) << what;
    }
  }
}

// A matrix scaled near overflow: the same exact pre-scaling on both backends.
TEST(GpuTwoStageScaling, HugeMatrixSameBits) {
  EIGSOLVE_REQUIRE_DEVICE();
  auto A0 = random_hermitian<double>(150, 3);
  for (index_t j = 0; j < 150; ++j)
    for (index_t i = j; i < 150; ++i)
      A0(i, j) = std::ldexp(A0(i, j), 1000);
  SolveOptions opt;
  opt.reduction = Reduction::two_stage;
  auto Ac = A0;
  const auto cpu = eigensolve(Context{}, Ac, opt);
  Context gctx;
  gctx.backend = Backend::cuda;
  auto Ag = A0;
  const auto gpu = eigensolve(gctx, Ag, opt);
  EXPECT_TRUE(same_bits(gpu.w.data(), cpu.w.data(), cpu.w.size()));
}

}  // namespace
}  // namespace eigsolve
