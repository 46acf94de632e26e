// GPU tridiagonalization (householder/tridiag_cuda.hpp) == CPU bitwise: d, e, tau and the whole
// lower triangle (reflectors) for every precision, several panel widths, edge sizes; end to end
// the eigenvalues of --device cuda equal --device cpu bitwise on real matrices and generated ones;
// matrices with structured exact zeros (-0 and +0), the sign of every zero included.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <random>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/context.hpp"
#include "core/errors.hpp"
#include "core/precision.hpp"
#include "householder/tridiag_cuda.hpp"
#include "householder/tridiagonalize.hpp"
#include "io/matrix_io.hpp"
#include "solver/eigensolve.hpp"
#include "tests/common/random_scalar.hpp"
#include "tests/common/structured_zeros.hpp"
#include "tests/gpu/gpu_guard.hpp"

using namespace eigsolve;
using eigsolve::test_util::random_scalar;

namespace {

template <class V>
bool same_bytes(const V& a, const V& b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), a.size() * sizeof(typename V::value_type)) == 0;
}

/// Whether the lower triangles (reflectors and what is left of A) have the same bytes.
template <class T>
bool same_lower(const std::vector<T>& A1, const std::vector<T>& A2, index_t n, index_t lda) {
  for (index_t j = 0; j < n; ++j)
    for (index_t i = j; i < n; ++i)
      if (std::memcmp(&A1[i + lda * j], &A2[i + lda * j], sizeof(T)) != 0) return false;
  return true;
}

template <class T>
std::vector<T> random_hermitian(index_t n, index_t lda, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::vector<T> A(static_cast<std::size_t>(lda * std::max<index_t>(n, 1)), T(0));
  for (index_t j = 0; j < n; ++j)
    for (index_t i = j; i < n; ++i)
      A[i + lda * j] = random_scalar<T>(g);
  return A;
}

template <class T>
class GpuTridiag : public ::testing::Test {};
using Scalars = ::testing::Types<float, double, Complex<float>, Complex<double>, dd_real>;
TYPED_TEST_SUITE(GpuTridiag, Scalars);

/// Every device mode: whole panels on the device (the cooperative column kernel, also with a
/// grid of 1 and 3 blocks so that blocks stride over several 256-row slices; the separate
/// fused kernels; the step-by-step kernels), and host panels with the device's SYMV and update.
TYPED_TEST(GpuTridiag, BitwiseEqualToCpu) {
  EIGSOLVE_REQUIRE_DEVICE();
  struct Mode {
    bool device_panels;
    const char *coop, *coop_blocks, *fused, *rank2k, *rows_w, *k12;
    const char* r2k_async = "1";  // "0": rank2k_wide_kernel stages by registers, not cp.async
    const char* r2k_vec = "1";    // "0": rank2k_wide_kernel moves A by element, not by vectors
  };
  // rank2k "0": the unbounded 4x4 rank-2k kernel in every precision (the defaults: 8x4 elements
  // per thread for s, d and c, 2 blocks per SM for z); rows_w "0": the SYMV's own row sums,
  // then K5 (instead of rowsums_w_kernel); k12 "1": K1 with K2's partials unscaled
  // (panel_fused_k12.cuh; dd runs K1 and K2 as usual)
  for (const Mode& md :
       {Mode{true, "1", "", "1", "1", "1", "0"}, Mode{true, "1", "1", "1", "1", "1", "0"},
        Mode{true, "1", "3", "1", "1", "1", "0"}, Mode{true, "0", "", "1", "1", "1", "0"},
        Mode{true, "0", "", "1", "1", "0", "0"}, Mode{true, "0", "", "1", "1", "1", "1"},
        Mode{true, "0", "", "1", "0", "1", "0"}, Mode{true, "0", "", "0", "1", "1", "0"},
        Mode{false, "1", "", "1", "1", "1", "0"}, Mode{false, "1", "", "1", "0", "1", "0"},
        Mode{true, "0", "", "1", "1", "1", "0", "0"},
        Mode{true, "0", "", "1", "1", "1", "0", "1", "0"},
        Mode{false, "1", "", "1", "1", "1", "0", "0", "0"}}) {
    setenv("EIGSOLVE_GPU_COOP", md.coop, 1);
    setenv("EIGSOLVE_GPU_COOP_BLOCKS", md.coop_blocks, 1);
    setenv("EIGSOLVE_GPU_FUSED", md.fused, 1);
    setenv("EIGSOLVE_GPU_RANK2K", md.rank2k, 1);
    setenv("EIGSOLVE_GPU_ROWS_W", md.rows_w, 1);
    setenv("EIGSOLVE_GPU_K12", md.k12, 1);
    setenv("EIGSOLVE_GPU_RANK2K_ASYNC", md.r2k_async, 1);
    setenv("EIGSOLVE_GPU_RANK2K_VEC", md.r2k_vec, 1);
    const bool device_panels = md.device_panels;
    const std::string mode = std::string(" coop=") + md.coop + " blocks=" + md.coop_blocks +
                             " fused=" + md.fused + " rank2k=" + md.rank2k +
                             " rows_w=" + md.rows_w + " k12=" + md.k12 +
                             " r2k_async=" + md.r2k_async + " r2k_vec=" + md.r2k_vec;
    using T = TypeParam;
    using R = real_t<T>;
    Context ctx;
    ctx.threads = 2;
    std::uint64_t seed = 1;
    for (index_t n : {1, 2, 3, 40, 64, 65, 130, 257, 300, 700}) {
      for (int nb : {32, 8, 1, 64}) {
        const index_t lda = n + 3;
        std::vector<T> A1 = random_hermitian<T>(n, lda, seed++), A2 = A1;
        std::vector<R> d1(n), e1(n, R(0)), d2(n), e2(n, R(0));
        std::vector<T> t1(n, T(0)), t2(n, T(0));
        TridiagOptions o;
        o.nb = nb;
        tridiagonalize(ctx, n, A1.data(), lda, d1.data(), e1.data(), t1.data(), o);
        auto dev = make_cuda_tridiag<T>(n, A2.data(), lda, nb, nullptr, device_panels);
        tridiagonalize(ctx, n, A2.data(), lda, d2.data(), e2.data(), t2.data(), o, dev.get());
        EXPECT_TRUE(same_bytes(d1, d2)) << ScalarTraits<T>::name << " n=" << n << " nb=" << nb
                                        << " device panels " << device_panels << mode << ": d";
        EXPECT_TRUE(same_bytes(e1, e2))
            << ScalarTraits<T>::name << " n=" << n << " nb=" << nb << mode << ": e";
        EXPECT_TRUE(same_bytes(t1, t2))
            << ScalarTraits<T>::name << " n=" << n << " nb=" << nb << mode << ": tau";
        EXPECT_TRUE(same_lower(A1, A2, n, lda))
            << ScalarTraits<T>::name << " n=" << n << " nb=" << nb << mode << ": reflectors";
        if (::testing::Test::HasFailure()) break;
      }
      if (::testing::Test::HasFailure()) break;
    }
    unsetenv("EIGSOLVE_GPU_COOP");
    unsetenv("EIGSOLVE_GPU_COOP_BLOCKS");
    unsetenv("EIGSOLVE_GPU_FUSED");
    unsetenv("EIGSOLVE_GPU_RANK2K");
    unsetenv("EIGSOLVE_GPU_ROWS_W");
    unsetenv("EIGSOLVE_GPU_K12");
    unsetenv("EIGSOLVE_GPU_RANK2K_ASYNC");
    unsetenv("EIGSOLVE_GPU_RANK2K_VEC");
    if (::testing::Test::HasFailure()) return;
  }
}

/// EIGSOLVE_GPU_K12=1 (householder/cuda/panel_fused_k12.cuh) where its shortcut must not be
/// taken: columns whose squares underflow (tiny entries) or overflow (huge ones), and columns
/// mixing entries near 1 with ones whose squares underflow. Both the shortcut and its fallback
/// (block 0 alone sums and scales) must give the CPU's bits; the default mode is checked too.
TYPED_TEST(GpuTridiag, K12ScalingEdgesBitwiseEqualToCpu) {
  EIGSOLVE_REQUIRE_DEVICE();
  using T = TypeParam;
  using R = real_t<T>;
  const bool single = std::is_same_v<R, float>;
  auto scaled = [](const T& a, int k) {
    if constexpr (is_complex_v<T>)
      return T(scale2(a.re, k), scale2(a.im, k));
    else
      return scale2(a, k);
  };
  struct Case {
    const char* name;
    int all, some;  // every entry scaled by 2^all; entries with (i + j) % 7 == 0 by 2^some more
  };
  const Case cases[] = {{"plain", 0, 0},
                        {"tiny", single ? -70 : -600, 0},
                        {"huge", single ? 60 : 500, 0},
                        {"mixed", 0, single ? -66 : -520}};
  Context ctx;
  ctx.threads = 2;
  std::uint64_t seed = 77;
  for (const char* k12 : {"1", "0"}) {
    setenv("EIGSOLVE_GPU_K12", k12, 1);
    for (const Case& c : cases) {
      for (index_t n : {3, 65, 300, 700}) {
        for (int nb : {32, 8}) {
          const index_t lda = n + 1;
          std::vector<T> A1 = random_hermitian<T>(n, lda, seed++);
          for (index_t j = 0; j < n; ++j)
            for (index_t i = j; i < n; ++i) {
              T& a = A1[i + lda * j];
              a = scaled(a, c.all + ((i + j) % 7 == 0 ? c.some : 0));
            }
          std::vector<T> A2 = A1;
          std::vector<R> d1(n), e1(n, R(0)), d2(n), e2(n, R(0));
          std::vector<T> t1(n, T(0)), t2(n, T(0));
          TridiagOptions o;
          o.nb = nb;
          tridiagonalize(ctx, n, A1.data(), lda, d1.data(), e1.data(), t1.data(), o);
          auto dev = make_cuda_tridiag<T>(n, A2.data(), lda, nb, nullptr, true);
          tridiagonalize(ctx, n, A2.data(), lda, d2.data(), e2.data(), t2.data(), o, dev.get());
          const std::string what = std::string(ScalarTraits<T>::name) + " " + c.name +
                                   " k12=" + k12 + " n=" + std::to_string(n) +
                                   " nb=" + std::to_string(nb);
          EXPECT_TRUE(same_bytes(d1, d2)) << what << ": d";
          EXPECT_TRUE(same_bytes(e1, e2)) << what << ": e";
          EXPECT_TRUE(same_bytes(t1, t2)) << what << ": tau";
          EXPECT_TRUE(same_lower(A1, A2, n, lda)) << what << ": reflectors";
          if (::testing::Test::HasFailure()) break;
        }
        if (::testing::Test::HasFailure()) break;
      }
    }
    unsetenv("EIGSOLVE_GPU_K12");
    if (::testing::Test::HasFailure()) return;
  }
}

/// eigensolve_device on a device copy of A (leading dimension n + 5).
template <class T>
SolveResult<T> solve_from_device(const HostMatrix<T>& A, const SolveOptions& opt) {
  const index_t n = A.n, ld = n + 5;
  T* dA = nullptr;
  EXPECT_EQ(cudaMalloc(&dA, sizeof(T) * std::size_t(ld) * std::size_t(std::max<index_t>(n, 1))),
            cudaSuccess);
  EXPECT_EQ(cudaMemcpy2D(dA, sizeof(T) * ld, A.ptr(), sizeof(T) * n, sizeof(T) * n, n,
                         cudaMemcpyHostToDevice),
            cudaSuccess);
  Context ctx;  // backend cpu: eigensolve_device runs on the device regardless
  auto r = eigensolve_device(ctx, n, static_cast<const T*>(dA), ld, opt);
  std::vector<T> back(static_cast<std::size_t>(n * n));
  EXPECT_EQ(cudaMemcpy2D(back.data(), sizeof(T) * n, dA, sizeof(T) * ld, sizeof(T) * n, n,
                         cudaMemcpyDeviceToHost),
            cudaSuccess);
  EXPECT_EQ(std::memcmp(back.data(), A.ptr(), back.size() * sizeof(T)), 0)
      << "eigensolve_device modified its input";
  cudaFree(dA);
  return r;
}

/// --device cuda through the whole pipeline: eigenvalues (all, and a subset) bitwise equal;
/// also from a matrix already on the device (eigensolve_device).
template <class T>
void pipeline_equal(HostMatrix<T> A, const std::string& what, SolveOptions opt) {
  const bool vectors = opt.vectors;
  HostMatrix<T> B = A;
  {
    const auto r3 = solve_from_device(A, opt);
    HostMatrix<T> C = A;
    Context cpu;
    const auto r1 = eigensolve(cpu, C, opt);
    EXPECT_TRUE(same_bytes(r1.w, r3.w)) << what << ": eigensolve_device eigenvalues differ";
    if (vectors) {
      EXPECT_TRUE(same_bytes(r1.z, r3.z)) << what << ": eigensolve_device vectors";
    }
  }
  Context cpu, gpu;
  cpu.threads = gpu.threads = 4;
  gpu.backend = Backend::cuda;
  const auto r1 = eigensolve(cpu, A, opt);
  const auto r2 = eigensolve(gpu, B, opt);
  EXPECT_TRUE(same_bytes(r1.w, r2.w)) << what << ": eigenvalues differ between cpu and cuda";
  if (vectors) {
    EXPECT_TRUE(same_bytes(r1.z, r2.z)) << what << ": eigenvectors differ";
    EXPECT_EQ(r1.z.size(), std::size_t(r1.n) * std::size_t(r1.m)) << what;
  }
}

/// The one-stage pipeline (this file's; since session 47 `auto` takes the two-stage one in s
/// and d at every order, test_gpu_two_stage's).
template <class T>
void pipeline_equal(HostMatrix<T> A, const std::string& what, bool vectors) {
  SolveOptions opt;
  opt.vectors = vectors;
  opt.reduction = Reduction::one_stage;
  pipeline_equal(std::move(A), what, opt);
}

/// Structured exact zeros (tests/common/structured_zeros.hpp: block diagonal, a 2 x 2 block in a
/// zero matrix, diagonal, zero rows and columns, +0 and -0 mixed, all -0), one-stage: d, e, tau
/// and the reflectors with panels on the device and on the host (nb = 32, 8), then the pipeline
/// with eigenvectors (eigensolve and eigensolve_device, --device cuda against cpu): the CPU's
/// bits, the sign of every zero included (the back-transformation's ny = -s is the rounded chain
/// negated).
TYPED_TEST(GpuTridiag, StructuredZerosBitwiseEqualToCpu) {
  EIGSOLVE_REQUIRE_DEVICE();
  using T = TypeParam;
  using R = real_t<T>;
  Context ctx;
  ctx.threads = 2;
  for (test_util::Zeros zk : test_util::all_zero_kinds()) {
    for (index_t n : {9, 40, 130, 300})
      for (int nb : {32, 8})
        for (bool device_panels : {true, false}) {
          const std::string what = test_util::zeros_name(zk) + " n=" + std::to_string(n) +
                                   " nb=" + std::to_string(nb) +
                                   (device_panels ? " device panels" : " host panels");
          const std::vector<T> F = test_util::structured_hermitian<T>(n, zk, 7 * n + nb);
          std::vector<T> A1 = F, A2 = F;
          std::vector<R> d1(n), e1(n, R(0)), d2(n), e2(n, R(0));
          std::vector<T> t1(n, T(0)), t2(n, T(0));
          TridiagOptions o;
          o.nb = nb;
          tridiagonalize(ctx, n, A1.data(), n, d1.data(), e1.data(), t1.data(), o);
          auto dev = make_cuda_tridiag<T>(n, A2.data(), n, nb, nullptr, device_panels);
          tridiagonalize(ctx, n, A2.data(), n, d2.data(), e2.data(), t2.data(), o, dev.get());
          EXPECT_TRUE(same_bytes(d1, d2)) << what << ": d";
          EXPECT_TRUE(same_bytes(e1, e2)) << what << ": e";
          EXPECT_TRUE(same_bytes(t1, t2)) << what << ": tau";
          EXPECT_TRUE(same_lower(A1, A2, n, n)) << what << ": reflectors";
        }
    const index_t n = std::is_same<T, dd_real>::value ? 90 : 200;
    HostMatrix<T> A(n);
    A.data = test_util::structured_hermitian<T>(n, zk, 99);
    SolveOptions opt;
    opt.vectors = true;
    opt.reduction = Reduction::one_stage;
    pipeline_equal(A, test_util::zeros_name(zk) + " vectors", opt);
  }
}

TEST(GpuPipeline, RealMatricesAllPrecisions) {
  EIGSOLVE_REQUIRE_DEVICE();
  const std::string dir = std::string(EIGSOLVE_TEST_DATA) + "/matrices/";
  // Both reductions by name: the default (`auto`) takes the two-stage one for s and d (from
  // n = 1024 since session 42, at every n since session 47), and this file is the one-stage's.
  for (const char* f : {"bcsstk13.mtx", "1138_bus.mtx", "plat362.mtx", "bcsstm01.mtx"})
    for (Reduction red : {Reduction::one_stage, Reduction::two_stage}) {
      SolveOptions opt;
      opt.reduction = red;
      const std::string what =
          std::string(f) + (red == Reduction::one_stage ? " one-stage" : " two-stage");
      pipeline_equal(read_matrix<double>(dir + f), what + " d", opt);
      pipeline_equal(read_matrix<float>(dir + f), what + " s", opt);
    }
  pipeline_equal(read_matrix<dd_real>(dir + "plat362.mtx"), "plat362 dd", false);
  pipeline_equal(read_matrix<Complex<double>>(dir + "mhd1280b.mtx"), "mhd1280b z", false);
  pipeline_equal(read_matrix<Complex<float>>(dir + "mhd1280b.mtx"), "mhd1280b c", false);
  pipeline_equal(read_matrix<double>(dir + "494_bus.mtx"), "494_bus d vectors", true);
}

/// A = H diag(lambda) H^T / n (Sylvester Hadamard H, small-integer lambda): entries exact in
/// every precision, spectrum exactly lambda.
template <class T>
HostMatrix<T> hadamard_matrix(index_t n, std::vector<double>& lambda) {
  lambda.resize(static_cast<std::size_t>(n));
  for (index_t k = 0; k < n; ++k)
    lambda[k] = double((k % 7) - 3) * (k % 5 == 0 ? 8.0 : 1.0);  // clusters, signs, repeats
  HostMatrix<T> A(n);
  for (index_t j = 0; j < n; ++j)
    for (index_t i = j; i < n; ++i) {
      double s = 0;
      for (index_t k = 0; k < n; ++k) {
        const int hi = __builtin_popcountll(static_cast<unsigned long long>(i & k)) & 1;
        const int hj = __builtin_popcountll(static_cast<unsigned long long>(j & k)) & 1;
        s += (hi == hj ? 1.0 : -1.0) * lambda[k];
      }
      A(i, j) = A(j, i) = T(s / double(n));
    }
  return A;
}

/// The subsets the pipeline tests use: kind 0 the indices [10, 99], kind 1 the values (-2.5, 1.5].
Subset test_subset(int kind) {
  Subset s;
  if (kind == 0) {
    s.kind = Subset::Kind::index;
    s.il = 10;
    s.iu = 99;
  } else {
    s.kind = Subset::Kind::value;
    s.vl = -2.5;
    s.vu = 1.5;
  }
  return s;
}

TEST(GpuPipeline, HadamardSpectraAndSubsets) {
  EIGSOLVE_REQUIRE_DEVICE();
  std::vector<double> lambda;
  pipeline_equal(hadamard_matrix<double>(256, lambda), "hadamard 256 d", false);
  pipeline_equal(hadamard_matrix<float>(256, lambda), "hadamard 256 s", false);
  pipeline_equal(hadamard_matrix<dd_real>(128, lambda), "hadamard 128 dd", false);
  pipeline_equal(hadamard_matrix<Complex<double>>(128, lambda), "hadamard 128 z", true);
  // Subsets: index and value ranges through the GPU pipeline equal the CPU's.
  for (int kind = 0; kind < 2; ++kind) {
    HostMatrix<double> A = hadamard_matrix<double>(256, lambda), B = A;
    SolveOptions opt;
    opt.subset = test_subset(kind);
    Context cpu, gpu;
    gpu.backend = Backend::cuda;
    const auto r1 = eigensolve(cpu, A, opt);
    const auto r2 = eigensolve(gpu, B, opt);
    EXPECT_TRUE(same_bytes(r1.w, r2.w)) << "subset kind " << kind;
    EXPECT_FALSE(r1.w.empty());
  }
}

/// The host route of the vectors (EIGSOLVE_GPU_RESIDENT=0): the reflectors come home through
/// pinned chunks (the default; 64 KiB here, so a 2-4 MiB matrix takes many of them and both
/// buffers); vectors from the host and from device input equal the CPU's.
TEST(GpuPipeline, StagedFetchOfTheReflectors) {
  EIGSOLVE_REQUIRE_DEVICE();
  setenv("EIGSOLVE_GPU_RESIDENT", "0", 1);
  setenv("EIGSOLVE_GPU_STAGED_CHUNK", "65536", 1);
  std::vector<double> lambda;
  pipeline_equal(hadamard_matrix<double>(512, lambda), "staged fetch hadamard 512 d", true);
  pipeline_equal(hadamard_matrix<float>(1024, lambda), "staged fetch hadamard 1024 s", true);
  pipeline_equal(hadamard_matrix<Complex<double>>(256, lambda), "staged fetch hadamard 256 z",
                 true);
  unsetenv("EIGSOLVE_GPU_RESIDENT");
  unsetenv("EIGSOLVE_GPU_STAGED_CHUNK");
}

/// The vectors resident on the device (the default route: inverse iteration into device memory,
/// the back-transformation on the tridiagonalization's own matrix with the host's tail put back,
/// one download): bitwise the CPU's in every precision, for subsets, with the inverse iteration
/// on the host and uploaded (EIGSOLVE_GPU_INVIT_B=0), T = 0 (unit vectors from the host), tiny
/// orders, the plain download (EIGSOLVE_GPU_STAGED=0) and small pinned chunks.
TEST(GpuPipeline, ResidentVectorsAllPrecisions) {
  EIGSOLVE_REQUIRE_DEVICE();
  std::vector<double> lambda;
  for (const char* mode : {"default", "invit-b-host", "plain", "chunks"}) {
    const std::string m(mode);
    if (m == "invit-b-host") setenv("EIGSOLVE_GPU_INVIT_B", "0", 1);
    if (m == "plain") setenv("EIGSOLVE_GPU_STAGED", "0", 1);
    if (m == "chunks") setenv("EIGSOLVE_GPU_STAGED_CHUNK", "65536", 1);
    pipeline_equal(hadamard_matrix<double>(300, lambda), "resident 300 d " + m, true);
    pipeline_equal(hadamard_matrix<float>(257, lambda), "resident 257 s " + m, true);
    pipeline_equal(hadamard_matrix<Complex<float>>(200, lambda), "resident 200 c " + m, true);
    pipeline_equal(hadamard_matrix<Complex<double>>(129, lambda), "resident 129 z " + m, true);
    pipeline_equal(hadamard_matrix<dd_real>(100, lambda), "resident 100 dd " + m, true);
    unsetenv("EIGSOLVE_GPU_INVIT_B");
    unsetenv("EIGSOLVE_GPU_STAGED");
    unsetenv("EIGSOLVE_GPU_STAGED_CHUNK");
    if (::testing::Test::HasFailure()) return;
  }
  const std::string dir = std::string(EIGSOLVE_TEST_DATA) + "/matrices/";
  pipeline_equal(read_matrix<Complex<double>>(dir + "mhd1280b.mtx"), "mhd1280b z vectors", true);
  pipeline_equal(read_matrix<float>(dir + "bcsstk13.mtx"), "bcsstk13 s vectors", true);
  for (int kind = 0; kind < 2; ++kind) {  // subsets: the vectors of an index / value range
    SolveOptions opt;
    opt.vectors = true;
    opt.reduction = Reduction::one_stage;
    opt.subset = test_subset(kind);
    pipeline_equal(hadamard_matrix<double>(256, lambda), "resident subset d", opt);
    pipeline_equal(hadamard_matrix<Complex<double>>(128, lambda), "resident subset z", opt);
  }
  for (index_t n : {1, 2, 3, 33}) {
    HostMatrix<double> Z(n);  // T = 0: the unit vectors
    pipeline_equal(Z, "zero matrix d n = " + std::to_string(n), true);
    pipeline_equal(hadamard_matrix<double>(n == 33 ? 32 : n, lambda),
                   "tiny d n = " + std::to_string(n), true);
  }
}

/// The back-transformation overlapping phase B of the inverse iteration (solver/cuda/
/// vectors_device.cu): with groups of any size (EIGSOLVE_GPU_BT_CHUNK=1: every column phase B
/// reports finished is sent at once) and without the overlap, the vectors are the CPU's. Random
/// matrices: one big cluster of eigenvalues, many blocks of 32, so phase B reports at several of
/// its checks (every 16 blocks). Then the two-stage reduction with Q1 deferred to wider groups.
TEST(GpuPipeline, BackTransformOverlapsInverseIteration) {
  EIGSOLVE_REQUIRE_DEVICE();
  const auto random_matrix = [](auto tag, index_t n, std::uint64_t seed) {
    using T = decltype(tag);
    const std::vector<T> a = random_hermitian<T>(n, n, seed);
    HostMatrix<T> A(n);
    for (index_t j = 0; j < n; ++j) {  // a's lower triangle; the diagonal real
      T djj = a[j + n * j];
      if constexpr (is_complex_v<T>) djj.im = real_t<T>(0);
      A(j, j) = djj;
      for (index_t i = j + 1; i < n; ++i) {
        A(i, j) = a[i + n * j];
        A(j, i) = conj(a[i + n * j]);
      }
    }
    return A;
  };
  // Each group is downloaded once back-transformed: groups of 1 column and more also through
  // the plain copy, groups of 700 through small pinned chunks (several per group).
  for (const char* chunk : {"1", "1 plain", "700", "default", "off"}) {
    const std::string c(chunk);
    if (c == "off")
      setenv("EIGSOLVE_GPU_BT_OVERLAP", "0", 1);
    else if (c != "default")
      setenv("EIGSOLVE_GPU_BT_CHUNK", chunk, 1);  // atoll: "1 plain" is 1
    if (c == "1 plain") setenv("EIGSOLVE_GPU_STAGED", "0", 1);
    if (c == "700") setenv("EIGSOLVE_GPU_STAGED_CHUNK", "65536", 1);
    pipeline_equal(random_matrix(double(), 2500, 31), "overlap d 2500 chunk " + c, true);
    if (c == "1") {
      pipeline_equal(random_matrix(float(), 2100, 32), "overlap s 2100 chunk " + c, true);
      pipeline_equal(random_matrix(Complex<double>(), 1100, 33), "overlap z 1100 chunk " + c, true);
      pipeline_equal(random_matrix(Complex<float>(), 1100, 34), "overlap c 1100 chunk " + c, true);
      pipeline_equal(random_matrix(dd_real(), 700, 35), "overlap dd 700 chunk " + c, true);
    }
    unsetenv("EIGSOLVE_GPU_BT_CHUNK");
    unsetenv("EIGSOLVE_GPU_BT_OVERLAP");
    unsetenv("EIGSOLVE_GPU_STAGED");
    unsetenv("EIGSOLVE_GPU_STAGED_CHUNK");
    if (::testing::Test::HasFailure()) return;
  }
  // The two-stage reflectors with Q1 deferred (EIGSOLVE_GPU_BT_Q1_BATCH: Q2 per group, Q1 once
  // that many columns wait, or at the last): groups of 1 and 256 columns, batches of 1 (Q1 with
  // every group), 700 (several groups a batch, a short last batch) and all the columns.
  SolveOptions two;
  two.vectors = true;
  two.reduction = Reduction::two_stage;
  for (const char* cb : {"1:700", "256:700", "256:1", "256:100000"}) {
    const std::string c(cb);
    setenv("EIGSOLVE_GPU_BT_CHUNK", c.substr(0, c.find(':')).c_str(), 1);
    setenv("EIGSOLVE_GPU_BT_Q1_BATCH", c.substr(c.find(':') + 1).c_str(), 1);
    pipeline_equal(random_matrix(double(), 2500, 41), "two-stage d 2500, chunk:Q1 batch " + c, two);
    if (c == "256:700") {
      pipeline_equal(random_matrix(float(), 2100, 42), "two-stage s 2100 " + c, two);
      pipeline_equal(random_matrix(Complex<double>(), 1100, 43), "two-stage z 1100 " + c, two);
      pipeline_equal(random_matrix(dd_real(), 700, 45), "two-stage dd 700 " + c, two);
    }
    unsetenv("EIGSOLVE_GPU_BT_CHUNK");
    unsetenv("EIGSOLVE_GPU_BT_Q1_BATCH");
    if (::testing::Test::HasFailure()) return;
  }
}

/// Matrices scaled by the pipeline's exact power of two (entries near overflow / underflow):
/// the device's maximum decides the same exponent as the host's.
TEST(GpuPipeline, PreScaledMatricesFromDevice) {
  EIGSOLVE_REQUIRE_DEVICE();
  std::vector<double> lambda;
  for (double f : {0x1p600, 0x1p-600, 1.0}) {
    HostMatrix<double> A = hadamard_matrix<double>(128, lambda);
    for (auto& a : A.data)
      a *= f;
    pipeline_equal(A, "hadamard 128 d scaled", false);
  }
  for (float f : {0x1p80f, 0x1p-80f}) {
    HostMatrix<float> A = hadamard_matrix<float>(64, lambda);
    for (auto& a : A.data)
      a *= f;
    pipeline_equal(A, "hadamard 64 s scaled", false);
  }
  HostMatrix<double> N = hadamard_matrix<double>(64, lambda);
  N(5, 3) = std::numeric_limits<double>::quiet_NaN();  // NaN never decides the scale
  N(7, 7) = 0x1p700;
  SolveOptions opt;
  Context cpu;
  HostMatrix<double> C = N;
  try {
    const auto r1 = eigensolve(cpu, C, opt);
    const auto r3 = solve_from_device(N, opt);
    EXPECT_TRUE(same_bytes(r1.w, r3.w)) << "NaN matrix";
  } catch (const NumericalError&) {
    EXPECT_THROW(solve_from_device(N, opt), NumericalError);
  }
}

TEST(GpuPipeline, OutOfMemoryNamesTheBytes) {
  EIGSOLVE_REQUIRE_DEVICE();
  // Order 2^21 in double needs ~35 TB: refused before any allocation, with the numbers.
  const index_t n = index_t(1) << 21;
  double dummy = 0;
  try {
    make_cuda_tridiag<double>(n, &dummy, n, 32);
    FAIL() << "expected a DeviceError";
  } catch (const DeviceError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(std::to_string(tridiag_device_bytes<double>(n, 32))), std::string::npos)
        << msg;
    EXPECT_NE(msg.find("available"), std::string::npos) << msg;
  }
}

}  // namespace

/// --back-transform cusolver (cuSOLVER's ?ormtr / ?unmtr, not canonical) through the pipeline:
/// the same eigenvalues as the canonical back-transformation (the reduction is the same
/// one-stage one), eigenvectors equal to rounding (both sign-normalized); with the CPU backend a
/// UsageError before any work.
TEST(GpuPipeline, CusolverBackTransform) {
  EIGSOLVE_REQUIRE_DEVICE();
  const auto run = [](auto tag, index_t n, std::uint64_t seed) {
    using T = decltype(tag);
    using R = real_t<T>;
    const std::vector<T> a = random_hermitian<T>(n, n, seed);
    HostMatrix<T> A(n);
    for (index_t j = 0; j < n; ++j)
      for (index_t i = j; i < n; ++i)
        A(i, j) = a[i + n * j];
    SolveOptions opt;
    opt.vectors = true;
    opt.reduction = Reduction::one_stage;
    Context gpu;
    gpu.backend = Backend::cuda;
    HostMatrix<T> B = A, C = A;
    const auto r1 = eigensolve(gpu, B, opt);
    opt.back_transform = BackTransformMethod::cusolver;
    const auto r2 = eigensolve(gpu, C, opt);
    const std::string what = std::string(ScalarTraits<T>::name) + " n=" + std::to_string(n);
    ASSERT_EQ(r1.w.size(), r2.w.size()) << what;
    EXPECT_EQ(std::memcmp(r1.w.data(), r2.w.data(), r1.w.size() * sizeof(R)), 0) << what;
    ASSERT_EQ(r1.z.size(), r2.z.size()) << what;
    // Column by column, after aligning the phase (the sign normalization picks the largest
    // component, which rounding can move between near-equal ones): unit columns of
    // well-separated eigenvalues (random matrices), ~n u apart at most.
    double err = 0;
    for (index_t j = 0; j < r1.m; ++j) {
      const T* z1 = r1.z.data() + n * j;
      const T* z2 = r2.z.data() + n * j;
      T s = T(0);
      for (index_t i = 0; i < n; ++i)
        s = madd_conj(z1[i], z2[i], s);  // z1^H z2
      const R as = sqrt_(abs2(s));
      ASSERT_GT(as, R(0.5)) << what << " column " << j;
      const T ph = s / as;
      for (index_t i = 0; i < n; ++i)
        err = std::max(err, to_double(abs1(z2[i] - z1[i] * ph)));
    }
    EXPECT_LE(err, 100.0 * double(n) * double(std::numeric_limits<R>::epsilon())) << what;
    HostMatrix<T> D = A;
    EXPECT_THROW(eigensolve(Context{}, D, opt), UsageError) << what;
  };
  run(double(), 300, 61);
  run(float(), 200, 62);
  run(Complex<double>(), 150, 63);
  run(Complex<float>(), 120, 64);
}
