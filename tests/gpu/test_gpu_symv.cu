// GPU SYMV/HEMV == symv_reference bitwise (docs/canonical-symv.md), for every precision, every
// configuration of the tuning space, edge sizes, leading dimensions, submatrix offsets,
// increments, alpha/beta special values, beta == 0 never reading y, non-finite data, and runs.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <random>
#include <vector>

#include "core/context.hpp"
#include "core/errors.hpp"
#include "core/precision.hpp"
#include "symv/reference.hpp"
#include "symv/symv_gpu.hpp"
#include "tests/common/random_scalar.hpp"
#include "tests/gpu/gpu_guard.hpp"
#include "tests/gpu/gpu_test_util.hpp"

using namespace eigsolve;
using eigsolve::test_util::DevBuf;
using eigsolve::test_util::nan_scalar;
using eigsolve::test_util::random_scalar;
using eigsolve::test_util::same_bits;
using eigsolve::test_util::special;

namespace {

struct Case {
  index_t n = 0, lda = 0, off = 0, incx = 1, incy = 1;
  int alpha_kind = 0, beta_kind = 0;  // 0 random, 1 one, 2 zero, 3 minus one
  bool poison_upper = true;
  int nonfinite = 0;       // 0 none, 1 an Inf in A, 2 a NaN in x
  bool misalign8 = false;  // A 8 bytes past a 16-byte line (complex double: component loads)
  bool underflow = false;  // A = -tiny, x = tiny: every product underflows to -0
};

/// Runs one case for every configuration in `configs` and reports the first mismatching row of
/// each configuration.
template <class T>
void run_case(const Case& c, const std::vector<SymvConfig>& configs, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  const index_t n = c.n, lda = std::max<index_t>(1, c.lda), off = c.off;
  const index_t big = n + off;
  std::vector<T> A(std::size_t(std::max<index_t>(1, lda * big + off)));
  for (auto& v : A)
    v = random_scalar<T>(g);
  if (c.poison_upper)
    for (index_t j = 0; j < n; ++j)
      for (index_t i = 0; i < j; ++i)
        A[(off + i) + lda * (off + j)] = nan_scalar<T>();
  const index_t ax = std::abs(c.incx), ay = std::abs(c.incy);
  std::vector<T> xs(std::size_t(std::max<index_t>(1, n * ax))),
      ys(std::size_t(std::max<index_t>(1, n * ay)));
  for (auto& v : xs)
    v = random_scalar<T>(g);
  for (auto& v : ys)
    v = random_scalar<T>(g);
  if (c.underflow) {  // products 2^-160 (float) or 2^-1080 (double, dd)
    const double tiny = std::ldexp(1.0, sizeof(real_t<T>) == 4 ? -80 : -540);
    for (index_t j = 0; j < n; ++j)
      for (index_t i = j; i < n; ++i)
        A[(off + i) + lda * (off + j)] = make_scalar<T>(real_t<T>(-tiny), real_t<T>(-0.0));
    for (auto& v : xs)  // complex: as tests/symv/test_symv.cpp's underflow test
      v = make_scalar<T>(real_t<T>(tiny), real_t<T>(0));
  }
  if (c.nonfinite == 1 && n > 3)
    A[(off + n - 1) + lda * (off + 1)] = T(std::numeric_limits<double>::infinity());
  if (c.nonfinite == 2 && n > 2) xs[std::size_t(ax * (n / 2))] = nan_scalar<T>();
  const T alpha = special<T>(c.alpha_kind, g), beta = special<T>(c.beta_kind, g);
  // beta == 0: y must not be read -> poison it (the reference would propagate NaN if it read it).
  if (c.beta_kind == 2)
    for (auto& v : ys)
      v = nan_scalar<T>();
  // Reference on the logical vectors.
  auto xi = [&](index_t i) { return c.incx > 0 ? i * c.incx : (n - 1 - i) * ax; };
  auto yi = [&](index_t i) { return c.incy > 0 ? i * c.incy : (n - 1 - i) * ay; };
  std::vector<T> x(std::size_t(std::max<index_t>(1, n))), y(std::size_t(std::max<index_t>(1, n)));
  for (index_t i = 0; i < n; ++i) {
    x[i] = xs[xi(i)];
    y[i] = ys[yi(i)];
  }
  Context ctx;
  ctx.threads = 2;
  symv_reference<T>(ctx, n, alpha, A.data() + off + lda * off, lda, x.data(), beta, y.data());

  DevBuf<T> dA(A.size()), dx(xs.size()), dy(ys.size());
  DevBuf<unsigned char> raw(c.misalign8 ? A.size() * sizeof(T) + 8 : 0);
  const T* Ap = dA.p;
  if (c.misalign8) {
    CUDA_OK(cudaMemcpy(raw.p + 8, A.data(), A.size() * sizeof(T), cudaMemcpyHostToDevice));
    Ap = reinterpret_cast<const T*>(raw.p + 8);
  } else {
    dA.put(A);
  }
  dx.put(xs);
  const std::size_t wsb = symv_workspace_bytes<T>(std::max<index_t>(n, 1));
  void* ws = nullptr;
  CUDA_OK(cudaMalloc(&ws, wsb));
  symv_workspace_init(ws, wsb, nullptr);
  // Every configuration with the tiles visited first to last and last to first (the
  // tridiagonalization alternates the two): the same bits.
  for (int visit = 0; visit < 2 * int(configs.size()); ++visit) {
    const SymvConfig& cfg = configs[std::size_t(visit / 2)];
    const bool reverse = visit % 2 == 1;
    dy.put(ys);
    symv_gpu<T>(cfg, n, alpha, Ap + off + lda * off, lda, dx.p, c.incx, beta, dy.p, c.incy, ws, wsb,
                nullptr, SymvRunOptions{reverse});
    CUDA_OK(cudaDeviceSynchronize());
    const std::vector<T> out = dy.get();
    for (index_t i = 0; i < n; ++i) {
      if (!same_bits(out[yi(i)], y[i])) {
        ADD_FAILURE() << ScalarTraits<T>::name << " n=" << n << " lda=" << lda << " off=" << off
                      << " incx=" << c.incx << " incy=" << c.incy << " alpha_kind=" << c.alpha_kind
                      << " beta_kind=" << c.beta_kind << " nonfinite=" << c.nonfinite << " config "
                      << cfg.name() << (reverse ? " (reverse)" : "") << ": first mismatch at row "
                      << i << " of " << n << " (GPU " << to_double(real_part(out[yi(i)]))
                      << ", CPU " << to_double(real_part(y[i])) << ")";
        break;
      }
    }
    // Elements between the strided y entries are untouched.
    for (std::size_t k = 0; k < ys.size(); ++k)
      if (ay > 1 && k % std::size_t(ay) != 0 && !same_bits(out[k], ys[k])) {
        ADD_FAILURE() << "symv_gpu wrote y outside its stride at " << k;
        break;
      }
  }
  cudaFree(ws);
}

std::vector<SymvConfig> three_configs() {
  std::vector<SymvConfig> v;
  for (const char* c :
       {"ticket-t2-m4-w-ldg", "twopass-t1-m2-n-st", "ticket-t4-m16-w-st", "twopass-t4-m8-n-cs",
        "ticket-t1-m2-w-cg", "twopass-t2-m8-w-xs", "ticket-t4-m4-n-xs"})
    v.push_back(parse_symv_config(c));
  return v;
}

template <class T>
class GpuSymv : public ::testing::Test {};
using Scalars = ::testing::Types<float, double, Complex<float>, Complex<double>, dd_real>;
TYPED_TEST_SUITE(GpuSymv, Scalars);

TYPED_TEST(GpuSymv, EverySizeEdgeEveryConfig) {
  EIGSOLVE_REQUIRE_DEVICE();
  const auto all = symv_tune_space(ScalarTraits<TypeParam>::name);
  std::uint64_t seed = 1;
  for (index_t n : {0, 1, 2, 7, 8, 9, 31, 32, 33, 63, 64, 65, 127, 128, 129, 200, 257}) {
    Case c;
    c.n = n;
    c.lda = n + (n % 2 == 0 ? 1 : 0);  // odd leading dimensions
    run_case<TypeParam>(c, all, seed++);
    if (::testing::Test::HasFailure()) return;
  }
}

TYPED_TEST(GpuSymv, LeadingDimensionsOffsetsIncrements) {
  EIGSOLVE_REQUIRE_DEVICE();
  const auto cfgs = three_configs();
  std::uint64_t seed = 100;
  for (index_t n : {1, 33, 64, 65, 130, 333}) {
    for (index_t extra : {0, 1, 3, 8}) {
      for (index_t off : {0, 1, 5, 64}) {
        Case c;
        c.n = n;
        c.lda = n + off + extra;
        c.off = off;
        run_case<TypeParam>(c, cfgs, seed++);
      }
    }
    for (auto inc : {std::pair<index_t, index_t>{2, 1}, {1, 3}, {-1, 1}, {2, -2}, {-3, -1}}) {
      Case c;
      c.n = n;
      c.lda = n + 2;
      c.incx = inc.first;
      c.incy = inc.second;
      run_case<TypeParam>(c, cfgs, seed++);
    }
    if (::testing::Test::HasFailure()) return;
  }
}

TYPED_TEST(GpuSymv, AlphaBetaSpecialValuesAndBetaZeroNeverReadsY) {
  EIGSOLVE_REQUIRE_DEVICE();
  const auto cfgs = three_configs();
  std::uint64_t seed = 300;
  for (index_t n : {5, 64, 100}) {
    for (int ak = 0; ak < 4; ++ak) {
      for (int bk = 0; bk < 4; ++bk) {
        Case c;
        c.n = n;
        c.lda = n;
        c.alpha_kind = ak;
        c.beta_kind = bk;
        run_case<TypeParam>(c, cfgs, seed++);
      }
    }
  }
}

TYPED_TEST(GpuSymv, NonFiniteValuesFlowThrough) {
  EIGSOLVE_REQUIRE_DEVICE();
  const auto cfgs = three_configs();
  for (int nf : {1, 2}) {
    Case c;
    c.n = 200;
    c.lda = 203;
    c.nonfinite = nf;
    run_case<TypeParam>(c, cfgs, 400 + nf);
  }
}

/// Every product underflows to -0, so the CPU's rows are -0 when the last tile has all 8
/// chunks (n mod 64 >= 57): a kernel that pads the short last chunk with 0 * 0 terms instead
/// of leaving them absent gives +0 there (test_gpu_symm.cu's UnderflowedChunksKeepTheirSign).
/// Session 52 (H100): failed for s, d, c and z before the real types padded x with -0 and the
/// complex ones recomputed the cut chunks without the padded rows (fix_absent_rows).
Case underflow_case(index_t n) {
  Case c;
  c.n = n;
  c.lda = n + 3;
  c.alpha_kind = 1;
  c.beta_kind = 2;
  c.underflow = true;
  return c;
}
std::vector<Case> underflow_cases() {
  std::vector<Case> v;
  for (index_t n : {60, 63, 100, 121, 185, 250})
    v.push_back(underflow_case(n));
  return v;
}

TYPED_TEST(GpuSymv, UnderflowedChunksKeepTheirSign) {
  EIGSOLVE_REQUIRE_DEVICE();
  const auto all = symv_tune_space(ScalarTraits<TypeParam>::name);
  std::uint64_t seed = 800;
  for (const Case& c : underflow_cases()) {
    run_case<TypeParam>(c, all, seed++);
    if (::testing::Test::HasFailure()) return;
  }
}

/// Columns 16 bytes apart that do not start on a 16-byte line (the tridiagonalization's trailing
/// matrices): the wide configurations take the shifted loads (every shift of s, d and c: offsets
/// 1..3 with lda a multiple of 4 elements), against the narrow ones and the CPU.
TYPED_TEST(GpuSymv, ShiftedWideLoads) {
  EIGSOLVE_REQUIRE_DEVICE();
  std::vector<SymvConfig> cfgs;
  for (const char* c : {"ticket-t2-m4-w-ldg", "twopass-t4-m16-w-cs", "ticket-t1-m8-w-cg",
                        "twopass-t2-m32-w-ldg", "ticket-t4-m32-w-cs"})
    cfgs.push_back(parse_symv_config(c));
  std::uint64_t seed = 900;
  for (index_t n : {64, 65, 128, 130, 333, 1000}) {
    for (index_t off : {1, 2, 3, 6}) {
      Case c;
      c.n = n;
      c.lda = (n + off + 3) / 4 * 4 + 4 * (off % 2);  // a multiple of 4 elements
      c.off = off;
      run_case<TypeParam>(c, off == 1 && n == 130 ? symv_config_space() : cfgs, seed++);
    }
    if (::testing::Test::HasFailure()) return;
  }
}

TYPED_TEST(GpuSymv, LargeSizes) {
  EIGSOLVE_REQUIRE_DEVICE();
  const auto cfgs = three_configs();
  // 8257: 130 tile partials per row, several rounds of the row-sum kernel's warps
  for (index_t n : {1000, 4097, 8257}) {
    Case c;
    c.n = n;
    c.lda = n + 1;
    c.off = 3;
    c.poison_upper = false;
    run_case<TypeParam>(c, cfgs, 500 + std::uint64_t(n));
  }
}

/// Many runs of one problem on the same buffers give one result (the workspace tickets are left
/// zero by every call, whatever the configuration).
TYPED_TEST(GpuSymv, RunToRunOneResult) {
  EIGSOLVE_REQUIRE_DEVICE();
  using T = TypeParam;
  const index_t n = 3001;
  std::mt19937_64 g(7);
  std::vector<T> A(static_cast<std::size_t>(n * n)), x(static_cast<std::size_t>(n));
  for (auto& v : A)
    v = random_scalar<T>(g);
  for (auto& v : x)
    v = random_scalar<T>(g);
  DevBuf<T> dA(A.size()), dx(x.size()), dy(x.size());
  dA.put(A);
  dx.put(x);
  const std::size_t wsb = symv_workspace_bytes<T>(n);
  void* ws = nullptr;
  CUDA_OK(cudaMalloc(&ws, wsb));
  symv_workspace_init(ws, wsb, nullptr);
  std::vector<T> first;
  int distinct = 1;
  for (const SymvConfig& cfg : symv_tune_space(ScalarTraits<T>::name)) {
    for (int run = 0; run < 2; ++run) {
      symv_gpu<T>(cfg, n, T(1), dA.p, n, dx.p, 1, T(0), dy.p, 1, ws, wsb, nullptr);
      CUDA_OK(cudaDeviceSynchronize());
      std::vector<T> out = dy.get();
      if (first.empty())
        first = out;
      else if (std::memcmp(first.data(), out.data(), out.size() * sizeof(T)) != 0)
        ++distinct;
    }
  }
  EXPECT_EQ(distinct, 1) << "different results over configurations and runs";
  cudaFree(ws);
}

/// The configurations with the xs load path.
std::vector<SymvConfig> xs_configs() {
  std::vector<SymvConfig> xs;
  for (const SymvConfig& c : symv_config_space())
    if (c.load == SymvLoad::xs) xs.push_back(c);
  return xs;
}

/// The cases of the kernel-mode tests: 0 plain (odd lda), 1 offset 3 with increments -2 / 3 and
/// beta == 0, 2 an A only 8-byte aligned, 3 a whole tile of offset with alpha = -1 and an Inf
/// in A or a NaN in x.
Case mode_case(index_t n, int kind) {
  Case c;
  c.n = n;
  c.lda = n + (n % 2 == 0 ? 1 : 0);
  if (kind == 1) {
    c.off = 3;
    c.lda = n + 5;
    c.incx = -2;
    c.incy = 3;
    c.beta_kind = 2;
  }
  c.misalign8 = kind == 2;
  if (kind == 3) {
    c.off = 64;
    c.lda = n + 64 + 3;
    c.alpha_kind = 3;
    c.nonfinite = 1 + int(n % 2);
  }
  return c;
}

/// Unsets an environment variable when the test that set it ends, however it ends.
struct UnsetAtExit {
  const char* name;
  ~UnsetAtExit() { unsetenv(name); }
};

/// EIGSOLVE_GPU_SYMV_ZXS=0, 1, 2, 3, 4 (the default), 5 (complex double's generic xs kernel, the
/// zxs kernel's modes and the zr kernel's, symv/cuda/symv_xs.cuh): every xs
/// configuration in every mode, edge sizes, offsets, increments, beta == 0, an A only 8-byte
/// aligned (the component loads), against the CPU bitwise; the variable is unset afterwards.
TEST(GpuSymvZxs, EveryModeEveryXsConfig) {
  EIGSOLVE_REQUIRE_DEVICE();
  using T = Complex<double>;
  const UnsetAtExit unset{"EIGSOLVE_GPU_SYMV_ZXS"};
  const std::vector<SymvConfig> xs = xs_configs();
  ASSERT_FALSE(xs.empty());
  for (const char* mode : {"0", "1", "2", "3", "4", "5"}) {
    ASSERT_EQ(setenv("EIGSOLVE_GPU_SYMV_ZXS", mode, 1), 0);
    std::uint64_t seed = 2000;
    for (index_t n : {1, 7, 8, 9, 63, 64, 65, 128, 129, 200, 257, 1000, 4097}) {
      for (int kind = 0; kind < (n > 1000 ? 1 : 3); ++kind) {
        run_case<T>(mode_case(n, kind), xs, seed++);
      }
      if (::testing::Test::HasFailure()) return;
    }
  }
}

/// For each n of `sizes`: the kernel-mode cases (kinds 0..3; above 1001 only the first
/// `big_kinds`), and up to 256 underflow_case(n), each against the CPU bitwise on `cfgs`; seeds
/// from seed0. Stops at the first size with a failure.
template <class T>
void mode_cases_and_underflow(std::initializer_list<index_t> sizes, int big_kinds,
                              std::uint64_t seed0, const std::vector<SymvConfig>& cfgs) {
  std::uint64_t seed = seed0;
  for (index_t n : sizes) {
    for (int kind = 0; kind < (n > 1001 ? big_kinds : 4); ++kind)
      run_case<T>(mode_case(n, kind), cfgs, seed++);
    if (n <= 256) run_case<T>(underflow_case(n), cfgs, seed++);
    if (::testing::Test::HasFailure()) return;
  }
}

/// EIGSOLVE_GPU_SYMV_ZXS_NOCUT=0 and 1 (the zxs kernel without the cut-block code where
/// n % 8 == 0, symv/cuda/symv_launch.cuh; 1 is the default) under ZXS mode 1: every xs
/// configuration, sizes that are multiples of 8 (the kernel without that code) and sizes that are
/// not (the kernel with it, whose recomputation is gated on a zero component), the kernel-mode
/// cases and the underflow cases (every product -0) at both kinds of size, against the CPU
/// bitwise; the variables are unset afterwards.
TEST(GpuSymvZxs, NoCutKernelWhereNIsAMultipleOfEight) {
  EIGSOLVE_REQUIRE_DEVICE();
  using T = Complex<double>;
  const UnsetAtExit unset{"EIGSOLVE_GPU_SYMV_ZXS_NOCUT"};
  const UnsetAtExit unset_mode{"EIGSOLVE_GPU_SYMV_ZXS"};
  ASSERT_EQ(setenv("EIGSOLVE_GPU_SYMV_ZXS", "1", 1), 0);
  const std::vector<SymvConfig> xs = xs_configs();
  ASSERT_FALSE(xs.empty());
  for (const char* mode : {"0", "1"}) {
    ASSERT_EQ(setenv("EIGSOLVE_GPU_SYMV_ZXS_NOCUT", mode, 1), 0);
    mode_cases_and_underflow<T>({8, 64, 72, 120, 128, 256, 1000, 4096, 7, 65, 127, 1001, 4097}, 1,
                                5000, xs);
    if (::testing::Test::HasFailure()) return;
  }
}

/// EIGSOLVE_GPU_SYMV_ZXS=4 and 5 (symv_tiles_zr: the tile's columns through a ring of shared
/// buffers, the transposed trees by warp shuffles; symv/cuda/symv_xs.cuh), where the kernel runs
/// (A 16-byte aligned, two-pass; mode 1 elsewhere): every xs configuration at sizes with several
/// tiles per group (4096, 8192: the ring runs across tiles) and few, multiples of 8 (the kernel
/// without the cut-block code) and not, the kernel-mode cases and the underflow cases (every
/// product -0), against the CPU bitwise; the variable is unset afterwards.
TEST(GpuSymvZxs, RingKernelModes) {
  EIGSOLVE_REQUIRE_DEVICE();
  using T = Complex<double>;
  const UnsetAtExit unset{"EIGSOLVE_GPU_SYMV_ZXS"};
  const std::vector<SymvConfig> xs = xs_configs();
  ASSERT_FALSE(xs.empty());
  for (const char* mode : {"4", "5"}) {
    ASSERT_EQ(setenv("EIGSOLVE_GPU_SYMV_ZXS", mode, 1), 0);
    mode_cases_and_underflow<T>({8, 64, 72, 128, 256, 1000, 4096, 8192, 7, 65, 127, 1001, 4097}, 2,
                                7000, xs);
    if (::testing::Test::HasFailure()) return;
  }
}

/// EIGSOLVE_GPU_SYMV_C3=0 and 1 (complex float's plain 4-tile kernels without and with the bound
/// of 3 blocks per SM, symv/cuda/symv_launch.cuh; 1 is the default): every configuration with 4
/// tiles per block and a plain load path, the kernel-mode cases plus even leading dimensions with
/// an odd offset (the shifted 16-byte loads), against the CPU bitwise; the variable is unset
/// afterwards.
TEST(GpuSymvC3, PlainFourTileConfigs) {
  EIGSOLVE_REQUIRE_DEVICE();
  using T = Complex<float>;
  const UnsetAtExit unset{"EIGSOLVE_GPU_SYMV_C3"};
  std::vector<SymvConfig> four;
  for (const SymvConfig& c : symv_config_space())
    if (c.tiles_per_block == 4 &&
        (c.load == SymvLoad::ldg || c.load == SymvLoad::cg || c.load == SymvLoad::cs))
      four.push_back(c);
  ASSERT_FALSE(four.empty());
  for (const char* mode : {"0", "1"}) {
    ASSERT_EQ(setenv("EIGSOLVE_GPU_SYMV_C3", mode, 1), 0);
    std::uint64_t seed = 4000;
    for (index_t n : {1, 7, 8, 9, 63, 64, 65, 128, 129, 200, 257, 1000, 4097}) {
      for (int kind = 0; kind < (n > 1000 ? 1 : 4); ++kind)
        run_case<T>(mode_case(n, kind), four, seed++);
      Case sh;  // A one element past a 16-byte line, columns 16 bytes apart: shifted loads
      sh.n = n;
      sh.lda = n + 64 + (n % 2);
      sh.off = 1;
      run_case<T>(sh, four, seed++);
      if (::testing::Test::HasFailure()) return;
    }
  }
}

/// EIGSOLVE_GPU_SYMV_DDXS=0..4, 7, 8 and 9 (double-double's symv_tiles_ddxs,
/// symv/cuda/symv_xs.cuh): modes 1 and 3 run it for the xs configurations, 2, 4, 7, 8 and 9 (the
/// default) for every configuration (ldg, cg, cs, st, xs with their tiles per block), 1-2, 3-4,
/// 7, 8 and 9 its five variants; 0 is the generic kernels. Every mode,
/// its configurations, both visiting orders (run_case), edge sizes, offsets, leading dimensions,
/// increments, beta == 0, alpha == -1, non-finite values, an A only 8-byte aligned (the component
/// loads), against the CPU bitwise; the variable is unset afterwards.
TEST(GpuSymvDdxs, EveryModeEveryConfig) {
  EIGSOLVE_REQUIRE_DEVICE();
  using T = dd_real;
  const UnsetAtExit unset{"EIGSOLVE_GPU_SYMV_DDXS"};
  const std::vector<SymvConfig> all = symv_config_space(), xs = xs_configs();
  ASSERT_FALSE(xs.empty());
  for (const char* mode : {"0", "1", "2", "3", "4", "7", "8", "9"}) {
    ASSERT_EQ(setenv("EIGSOLVE_GPU_SYMV_DDXS", mode, 1), 0);
    const bool every = mode[0] == '2' || mode[0] == '4' || mode[0] >= '7';
    std::uint64_t seed = 3000;
    for (index_t n : {1, 2, 7, 8, 9, 63, 64, 65, 127, 128, 129, 200, 257, 1000, 4097}) {
      for (int kind = 0; kind < (n > 1000 ? 1 : 4); ++kind) {
        run_case<T>(mode_case(n, kind), every ? all : xs, seed++);
      }
      if (::testing::Test::HasFailure()) return;
    }
  }
}

/// EIGSOLVE_GPU_SYMV_DDXS=5 and 6 (symv_tiles_zr<dd_real> for the two-pass configurations with A
/// 16-byte aligned, Var 3 elsewhere; symv/cuda/symv_launch.cuh): every xs configuration (tiles per
/// block 1, 2, 4, both variants, w and n), sizes with one and with several tiles per group (4096,
/// 8192: the ring runs across tiles), the kernel-mode cases, against the CPU bitwise; the
/// variable is unset afterwards.
TEST(GpuSymvDdxs, RingKernelModes) {
  EIGSOLVE_REQUIRE_DEVICE();
  using T = dd_real;
  const UnsetAtExit unset{"EIGSOLVE_GPU_SYMV_DDXS"};
  const std::vector<SymvConfig> xs = xs_configs();
  ASSERT_FALSE(xs.empty());
  for (const char* mode : {"5", "6"}) {
    ASSERT_EQ(setenv("EIGSOLVE_GPU_SYMV_DDXS", mode, 1), 0);
    std::uint64_t seed = 7500;
    for (index_t n : {1, 7, 8, 9, 64, 65, 127, 128, 200, 1000, 1001, 4096, 8192, 4097}) {
      for (int kind = 0; kind < (n > 1001 ? 2 : 4); ++kind)
        run_case<T>(mode_case(n, kind), xs, seed++);
      if (::testing::Test::HasFailure()) return;
    }
  }
}

/// EIGSOLVE_GPU_SYMV_HOIST 0 and 1 (the 16-byte kernels take the loads of a whole off-diagonal
/// tile from a source worked out once per tile, or work every load out at every step;
/// symv/cuda/symv_xs.cuh x16_src): double-double under DDXS 4 (x16_tiles, the default) and 5
/// (symv_tiles_zr), complex double under ZXS 4 (symv_tiles_zr, the default from 6144 up; its
/// zxs kernels, ZXS 1, keep the per-step form either way and serve as a control),
/// every xs configuration, sizes with whole tiles, a cut last row panel and several tiles per
/// group, the kernel-mode cases (offsets, leading dimensions, increments, an A only 8-byte
/// aligned), against the CPU bitwise; the variables are unset afterwards.
template <class T>
void hoist_modes(const char* var, std::initializer_list<const char*> kernels, std::uint64_t seed0) {
  const UnsetAtExit unset{"EIGSOLVE_GPU_SYMV_HOIST"};
  const UnsetAtExit unset_kernel{var};
  const std::vector<SymvConfig> xs = xs_configs();
  ASSERT_FALSE(xs.empty());
  for (const char* kernel : kernels) {
    ASSERT_EQ(setenv(var, kernel, 1), 0);
    for (const char* hoist : {"0", "1"}) {
      ASSERT_EQ(setenv("EIGSOLVE_GPU_SYMV_HOIST", hoist, 1), 0);
      std::uint64_t seed = seed0;
      for (index_t n : {65, 128, 200, 1000, 1001, 4096, 4097}) {
        for (int kind = 0; kind < (n > 1001 ? 2 : 4); ++kind)
          run_case<T>(mode_case(n, kind), xs, seed++);
        if (::testing::Test::HasFailure()) return;
      }
    }
  }
}

TEST(GpuSymvModes, HoistedLoadsSameBits) {
  EIGSOLVE_REQUIRE_DEVICE();
  hoist_modes<dd_real>("EIGSOLVE_GPU_SYMV_DDXS", {"4", "5"}, 9100);
  hoist_modes<Complex<double>>("EIGSOLVE_GPU_SYMV_ZXS", {"1", "4"}, 9200);
}

/// The switches of float and double's two-pass plain 16-byte kernels (`var` set to each of
/// `modes`, unset afterwards): every such configuration (tiles per block 1, 2, 4; ldg, cg, cs;
/// every grid) at `sizes`, with A on 16-byte lines, offsets, increments, beta == 0, alpha == -1,
/// non-finite values, the underflow cases and (mode_cases) the kernel-mode cases, against the
/// CPU bitwise; seeds from seed0.
/// as_config: `var` stays unset and each mode (an early-column count) is every configuration's
/// own (SymvConfig::early) instead.
template <class T>
void plain_wide_modes(const char* var, std::initializer_list<const char*> modes,
                      const std::vector<index_t>& sizes, std::uint64_t seed0, bool mode_cases,
                      bool as_config = false) {
  const UnsetAtExit unset{var};
  std::vector<SymvConfig> base;
  for (const SymvConfig& c : symv_config_space())
    if (c.variant == SymvVariant::twopass && c.wide &&
        (c.load == SymvLoad::ldg || c.load == SymvLoad::cg || c.load == SymvLoad::cs))
      base.push_back(c);
  ASSERT_FALSE(base.empty());
  std::vector<SymvConfig> cfg = base;
  // Leading dimensions of whole 16-byte lines and offsets that keep A on one (mode_case's odd
  // leading dimensions and offsets take the other kernels).
  auto lda16 = [](index_t m) { return (m + 3) / 4 * 4 + 4; };
  for (const char* mode : modes) {
    if (as_config) {
      ASSERT_EQ(unsetenv(var), 0);
      for (SymvConfig& c : cfg)
        c.early = std::atoi(mode);
    } else {
      ASSERT_EQ(setenv(var, mode, 1), 0);
    }
    std::uint64_t seed = seed0;
    for (index_t n : sizes) {
      Case plain;
      plain.n = n;
      plain.lda = lda16(n);
      run_case<T>(plain, cfg, seed++);
      Case inc = plain;  // offset 4, increments -2 / 3, beta == 0
      inc.off = 4;
      inc.lda = lda16(n + 4) + 4;
      inc.incx = -2;
      inc.incy = 3;
      inc.beta_kind = 2;
      run_case<T>(inc, cfg, seed++);
      if (n <= 1001) {
        Case nf = plain;  // a whole tile of offset, alpha = -1, an Inf in A or a NaN in x
        nf.off = 64;
        nf.lda = lda16(n + 64);
        nf.alpha_kind = 3;
        nf.nonfinite = 1 + int(n % 2);
        run_case<T>(nf, cfg, seed++);
        for (int kind = 0; mode_cases && kind < 4; ++kind)
          run_case<T>(mode_case(n, kind), cfg, seed++);
      }
      if (n <= 256) {
        Case uf = underflow_case(n);
        uf.lda = lda16(n);
        run_case<T>(uf, cfg, seed++);
      }
      if (::testing::Test::HasFailure()) return;
    }
  }
}

/// EIGSOLVE_GPU_SYMV_RR=2, 3, 4 and 6 (symv_tiles_rr for float and double: the tile's columns
/// through a ring of S shared buffers per warp, the transposed trees by warp shuffles;
/// symv/cuda/symv_xs.cuh), where the kernel runs (two-pass plain configurations with 16-byte
/// loads; symv_tiles elsewhere): every such configuration (tiles per block 1, 2, 4; ldg, cg, cs;
/// every grid) at sizes with one and with several tiles per group (4096, 8192: the ring runs
/// across tiles), cut 8-row blocks and cut tiles, plain_wide_modes' cases without the kernel-mode
/// ones (the underflow cases: every product -0, x padded with -0), against the CPU bitwise.
template <class T>
void rr_modes() {
  plain_wide_modes<T>(
      "EIGSOLVE_GPU_SYMV_RR", {"2", "3", "4", "6"},
      {1, 4, 7, 8, 9, 60, 63, 64, 65, 127, 128, 200, 250, 1000, 1001, 4096, 8192, 4097}, 7700,
      false);
}

TEST(GpuSymvRr, RingKernelModesFloat) {
  EIGSOLVE_REQUIRE_DEVICE();
  rr_modes<float>();
}

TEST(GpuSymvRr, RingKernelModesDouble) {
  EIGSOLVE_REQUIRE_DEVICE();
  rr_modes<double>();
}

/// EIGSOLVE_GPU_SYMV_OCC=W (float 40, 48; double 24, 28, 32: the two-pass plain 16-byte tile
/// kernels built for W warps per SM, symv/cuda/symv_launch.cuh occ_mode) and
/// EIGSOLVE_GPU_SYMV_PF=256 / 128 (their cs loads with an L2 prefetch-size hint, pf_mode), through
/// plain_wide_modes at these sizes (one and several tiles per group, cut 8-row blocks and tiles).
const std::vector<index_t> kPlainWideSizes = {1,   7,   8,    9,    63,   64,   65,
                                              128, 200, 1000, 1001, 4096, 8192, 4097};

TEST(GpuSymvOcc, BoundKernelsFloat) {
  EIGSOLVE_REQUIRE_DEVICE();
  plain_wide_modes<float>("EIGSOLVE_GPU_SYMV_OCC", {"40", "48"}, kPlainWideSizes, 7900, true);
}

TEST(GpuSymvOcc, BoundKernelsDouble) {
  EIGSOLVE_REQUIRE_DEVICE();
  plain_wide_modes<double>("EIGSOLVE_GPU_SYMV_OCC", {"24", "28", "32"}, kPlainWideSizes, 7900,
                           true);
}

TEST(GpuSymvOcc, PrefetchHintFloat) {
  EIGSOLVE_REQUIRE_DEVICE();
  plain_wide_modes<float>("EIGSOLVE_GPU_SYMV_PF", {"256", "128"}, kPlainWideSizes, 7900, true);
}

TEST(GpuSymvOcc, PrefetchHintDouble) {
  EIGSOLVE_REQUIRE_DEVICE();
  plain_wide_modes<double>("EIGSOLVE_GPU_SYMV_PF", {"256", "128"}, kPlainWideSizes, 7900, true);
}

/// EIGSOLVE_GPU_SYMV_EARLY=1, 2, 4, 8 (symv_launch.cuh early_mode: the first 1, 2, 4 or all 8
/// columns of a block loaded at the end of the previous tile; double's default 8, float's 8 from
/// n = 6144 and 1 below), as the bound kernels above.
TEST(GpuSymvOcc, EarlyColumnsFloat) {
  EIGSOLVE_REQUIRE_DEVICE();
  plain_wide_modes<float>("EIGSOLVE_GPU_SYMV_EARLY", {"1", "2", "4", "8"}, kPlainWideSizes, 7950,
                          true);
}

TEST(GpuSymvOcc, EarlyColumnsDouble) {
  EIGSOLVE_REQUIRE_DEVICE();
  plain_wide_modes<double>("EIGSOLVE_GPU_SYMV_EARLY", {"1", "2", "4", "8"}, kPlainWideSizes, 7950,
                           true);
}

/// The early columns as the configuration's own count ("-e1", "-e8": SymvConfig::early, what the
/// tuner measures for s and d; EIGSOLVE_GPU_SYMV_EARLY unset), as above; float at sizes on both
/// sides of the default rule's n = 6144.
TEST(GpuSymvOcc, EarlyColumnsByConfigFloat) {
  EIGSOLVE_REQUIRE_DEVICE();
  std::vector<index_t> sizes = kPlainWideSizes;
  sizes.push_back(6400);
  plain_wide_modes<float>("EIGSOLVE_GPU_SYMV_EARLY", {"1", "8"}, sizes, 7960, true, true);
}

TEST(GpuSymvOcc, EarlyColumnsByConfigDouble) {
  EIGSOLVE_REQUIRE_DEVICE();
  plain_wide_modes<double>("EIGSOLVE_GPU_SYMV_EARLY", {"1", "8"}, kPlainWideSizes, 7960, true,
                           true);
}

/// The underflow cases (UnderflowedChunksKeepTheirSign) under the kernel switches of the
/// complex and double-double kernels: EIGSOLVE_GPU_SYMV_ZXS 0..5 (xs configurations),
/// EIGSOLVE_GPU_SYMV_C3 0 and 1 (the plain 4-tile configurations) and EIGSOLVE_GPU_SYMV_DDXS
/// 1..9 (modes 2, 4, 5, 7 (the default), 8 and 9: every configuration); each variable is unset
/// afterwards.
template <class T>
void underflow_under_modes(const char* name, std::initializer_list<const char*> modes,
                           const std::vector<SymvConfig>& cfgs) {
  const UnsetAtExit unset{name};
  for (const char* mode : modes) {
    ASSERT_EQ(setenv(name, mode, 1), 0);
    std::uint64_t seed = 850;
    for (const Case& c : underflow_cases()) {
      run_case<T>(c, cfgs, seed++);
      if (::testing::Test::HasFailure()) return;
    }
  }
}

TEST(GpuSymvModes, UnderflowedChunksKeepTheirSign) {
  EIGSOLVE_REQUIRE_DEVICE();
  std::vector<SymvConfig> four;
  for (const SymvConfig& c : symv_config_space())
    if (c.tiles_per_block == 4 &&
        (c.load == SymvLoad::ldg || c.load == SymvLoad::cg || c.load == SymvLoad::cs))
      four.push_back(c);
  underflow_under_modes<Complex<double>>("EIGSOLVE_GPU_SYMV_ZXS", {"0", "1", "2", "3", "4", "5"},
                                         xs_configs());
  underflow_under_modes<Complex<float>>("EIGSOLVE_GPU_SYMV_C3", {"0", "1"}, four);
  underflow_under_modes<dd_real>("EIGSOLVE_GPU_SYMV_DDXS", {"1", "3", "6"}, xs_configs());
  underflow_under_modes<dd_real>("EIGSOLVE_GPU_SYMV_DDXS", {"2", "4", "5", "7", "8", "9"},
                                 symv_config_space());
}

/// The row sums' A/B switches (`name` = "0", then "1"; the variable is unset afterwards): every
/// precision, seven configurations of both variants and load paths in both visiting orders
/// (run_case reuses one workspace across them), the kernel-mode cases at each of `sizes`,
/// against the CPU bitwise; seeds from `seed`.
template <class T>
void row_sums_switch_same_bits(const char* name, std::initializer_list<index_t> sizes,
                               std::uint64_t seed0,
                               const std::vector<SymvConfig>& cfgs = three_configs(),
                               std::initializer_list<const char*> modes = {"0", "1"}) {
  const UnsetAtExit unset{name};
  for (const char* mode : modes) {
    ASSERT_EQ(setenv(name, mode, 1), 0);
    std::uint64_t seed = seed0;
    for (index_t n : sizes) {
      for (int kind = 0; kind < (n > 1000 ? 1 : 4); ++kind)
        run_case<T>(mode_case(n, kind), cfgs, seed++);
      if (::testing::Test::HasFailure()) return;
    }
  }
}

/// The same switch with lda == n (the wide loads; mode_case's lda is odd for even n): `name` set
/// to each of `modes`, a plain case at each of `sizes` on `cfgs`, against the CPU bitwise; one
/// seed sequence from `seed` across the modes; the variable is unset afterwards.
template <class T>
void switch_same_bits_lda_n(const char* name, std::initializer_list<const char*> modes,
                            std::initializer_list<index_t> sizes, std::uint64_t seed,
                            const std::vector<SymvConfig>& cfgs) {
  const UnsetAtExit unset{name};
  for (const char* mode : modes) {
    ASSERT_EQ(setenv(name, mode, 1), 0);
    for (index_t n : sizes) {
      Case c;
      c.n = n;
      c.lda = n;
      run_case<T>(c, cfgs, seed++);
      if (::testing::Test::HasFailure()) return;
    }
  }
}

/// EIGSOLVE_GPU_SYMV_DISCARD=0 and 1 (the row sums' discard of the partials' L2 lines,
/// symv/cuda/symv_kernels.cuh rowsums_discard; 1 is the default): a discarded line is always
/// written again before it is read, since run_case's calls share one workspace.
TYPED_TEST(GpuSymv, PartialsDiscardSameBits) {
  EIGSOLVE_REQUIRE_DEVICE();
  row_sums_switch_same_bits<TypeParam>("EIGSOLVE_GPU_SYMV_DISCARD",
                                       {1, 2, 63, 64, 65, 129, 257, 1000, 2049, 4097}, 5000);
}

/// EIGSOLVE_GPU_SYMV_ROWS16=0 and 1 (the row sums stage the partials element by element or by
/// 16-byte copies, symv/cuda/symv_kernels.cuh rowsums_stage; 1 is the default): sizes with whole
/// 32-row blocks only and with a last block cut short (which stages element by element either
/// way).
TYPED_TEST(GpuSymv, PartialsStagedEitherWidthSameBits) {
  EIGSOLVE_REQUIRE_DEVICE();
  row_sums_switch_same_bits<TypeParam>(
      "EIGSOLVE_GPU_SYMV_ROWS16", {1, 31, 32, 33, 64, 96, 97, 129, 256, 1000, 2048, 4097, 8192},
      6000);
}

/// EIGSOLVE_GPU_SYMV_ROWS_PDL=0 and 1 (the two-pass row sums launched after the tile kernel, or
/// as a programmatic dependent launch that waits for it, symv/cuda/symv_launch.cuh
/// rows_pdl_mode; 1 is the default): the plain, staged and xs kernels of three_configs and more
/// plain two-pass ones (the H200's tuned d 16384 one among them), with lda == n even too (the
/// wide loads; mode_case's lda is odd there).
TYPED_TEST(GpuSymv, RowSumsDependentLaunchSameBits) {
  EIGSOLVE_REQUIRE_DEVICE();
  std::vector<SymvConfig> cfgs = three_configs();
  for (const char* c : {"twopass-t4-m32-w-cs", "twopass-t2-m4-w-ldg", "twopass-t1-m64-n-cg"})
    cfgs.push_back(parse_symv_config(c));
  row_sums_switch_same_bits<TypeParam>(
      "EIGSOLVE_GPU_SYMV_ROWS_PDL", {1, 31, 32, 33, 64, 65, 97, 129, 1000, 2049, 4097}, 7000, cfgs);
  switch_same_bits_lda_n<TypeParam>("EIGSOLVE_GPU_SYMV_ROWS_PDL", {"0", "1"}, {64, 96, 2048, 4096},
                                    7500, cfgs);
}

/// EIGSOLVE_GPU_SYMV_ROWSK=1, 2, 3 (the row-sum kernel with 64 rows per block and 2 or 4
/// buffers, or 32 rows and 4 buffers, symv/cuda/symv_launch.cuh rowsk_mode; unset is the
/// default kernel): sizes with whole blocks, blocks cut short by n, one and several chunks of
/// columns (2049, 8192: dd and z 16 columns per chunk at 64 rows), lda == n too.
TYPED_TEST(GpuSymv, RowSumsKernelVariantsSameBits) {
  EIGSOLVE_REQUIRE_DEVICE();
  std::vector<SymvConfig> cfgs = three_configs();
  for (const char* c : {"twopass-t4-m8-w-cs", "twopass-t2-m64-w-cs"})
    cfgs.push_back(parse_symv_config(c));
  row_sums_switch_same_bits<TypeParam>("EIGSOLVE_GPU_SYMV_ROWSK",
                                       {1, 31, 32, 33, 64, 65, 97, 129, 1000, 2049, 4097}, 7700,
                                       cfgs, {"1", "2", "3"});
  switch_same_bits_lda_n<TypeParam>("EIGSOLVE_GPU_SYMV_ROWSK", {"1", "2", "3"},
                                    {64, 96, 2048, 8192}, 7800, cfgs);
}

TEST(GpuSymvApi, BadArgumentsThrow) {
  EIGSOLVE_REQUIRE_DEVICE();
  SymvConfig cfg;
  double* p = nullptr;
  EXPECT_THROW(symv_gpu<double>(cfg, -1, 1.0, p, 1, p, 1, 0.0, p, 1, nullptr, 0, nullptr),
               DimensionError);
  EXPECT_THROW(symv_gpu<double>(cfg, 10, 1.0, p, 9, p, 1, 0.0, p, 1, nullptr, 0, nullptr),
               DimensionError);
  EXPECT_THROW(symv_gpu<double>(cfg, 10, 1.0, p, 10, p, 0, 0.0, p, 1, nullptr, 0, nullptr),
               DimensionError);
  EXPECT_THROW(symv_gpu<double>(cfg, 10, 1.0, p, 10, p, 1, 0.0, p, 1, nullptr, 0, nullptr),
               DimensionError);  // no workspace
  EXPECT_THROW(parse_symv_config("ticket-t3-m4-w-ldg"), UsageError);
  EXPECT_THROW(parse_symv_config("ticket-t2-m4-w"), UsageError);
  EXPECT_THROW(parse_symv_config("ticket-t2-m0-w-st"), UsageError);
  for (const char* prec : {"s", "d", "c", "z", "dd"})
    for (const SymvConfig& c : symv_tune_space(prec))
      EXPECT_EQ(parse_symv_config(c.name()), c) << c.name();
  SymvConfig e3 = cfg;
  e3.early = 3;
  EXPECT_THROW(symv_gpu<double>(e3, 10, 1.0, p, 10, p, 1, 0.0, p, 1, p, 1 << 20, nullptr),
               DimensionError);
}

}  // namespace
