// Device residuals (app/residuals_cuda.hpp) against the host's (app/residuals.hpp): on a solve
// whose eigenvectors were spoiled on purpose both must give the same large numbers (to 1e-6
// relative: only the summation order differs), and on a good solve both must be tiny.
// dd (our own dd products on the device): the same against the host's dd loops, and a
// constructed decomposition exact to dd rounding whose residuals must stay at the dd level.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "app/residuals.hpp"
#include "app/residuals_cuda.hpp"
#include "core/context.hpp"
#include "io/matrix_io.hpp"
#include "solver/eigensolve.hpp"
#include "tests/gpu/gpu_guard.hpp"

using namespace eigsolve;

namespace {

template <class T>
void check(const HostMatrix<T>& A0, const char* what) {
  HostMatrix<T> A = A0;
  SolveOptions opt;
  opt.vectors = true;
  Context cpu, gpu;
  gpu.backend = Backend::cuda;
  auto r = eigensolve(cpu, A, opt);
  const Residuals h = compute_residuals(cpu, A0, r), d = compute_residuals(gpu, A0, r);
  const double u = double(std::numeric_limits<real_t<T>>::epsilon());
  EXPECT_LT(h.backward, 100 * u) << what;
  EXPECT_LT(d.backward, 100 * u) << what;
  EXPECT_LT(h.orthogonality, 100 * u) << what;
  EXPECT_LT(d.orthogonality, 100 * u) << what;
  // Spoil one eigenvector (z3 += 0.1 z_{n-1}, far apart in the spectrum): both residuals grow
  // far above the rounding level and must agree up to the summation order (float: the
  // rounding-level sums of the other entries, ~n u, are a visible part).
  const index_t n = r.n;
  for (index_t i = 0; i < n; ++i)
    r.z[i + 3 * n] = madd(T(real_t<T>(0.1)), r.z[i + (n - 1) * n], r.z[i + 3 * n]);
  const Residuals h2 = compute_residuals(cpu, A0, r), d2 = compute_residuals(gpu, A0, r);
  const double tol = sizeof(real_t<T>) == 4 ? 2e-2 : 1e-6;
  // ||I - Z^H Z||_F / n: the spoiled column alone gives ~0.14 / n.
  EXPECT_GT(h2.orthogonality, 1e-2 / double(n)) << what;
  EXPECT_GT(h2.backward, 100 * h.backward) << what;
  EXPECT_NEAR(d2.backward / h2.backward, 1.0, tol) << what;
  EXPECT_NEAR(d2.orthogonality / h2.orthogonality, 1.0, tol) << what;
}

TEST(GpuResiduals, AgreeWithTheHost) {
  EIGSOLVE_REQUIRE_DEVICE();
  unsetenv("EIGSOLVE_GPU_RESIDUALS");  // the device path is the default for a cuda context
  const std::string dir = std::string(EIGSOLVE_TEST_DATA) + "/matrices/";
  check(read_matrix<double>(dir + "494_bus.mtx"), "494_bus d");
  check(read_matrix<float>(dir + "bcsstk13.mtx"), "bcsstk13 s");
  check(read_matrix<Complex<double>>(dir + "mhd1280b.mtx"), "mhd1280b z");
  check(read_matrix<Complex<float>>(dir + "mhd1280b.mtx"), "mhd1280b c");
  // The uploads through pinned chunks (default) with small chunks, so that both buffers take
  // turns; then the plain copies (EIGSOLVE_GPU_RESIDUALS_STAGED=0).
  setenv("EIGSOLVE_GPU_STAGED_CHUNK", "65536", 1);
  check(read_matrix<double>(dir + "494_bus.mtx"), "494_bus d, staged uploads, small chunks");
  check(read_matrix<Complex<float>>(dir + "mhd1280b.mtx"), "mhd1280b c, staged, small chunks");
  unsetenv("EIGSOLVE_GPU_STAGED_CHUNK");
  setenv("EIGSOLVE_GPU_RESIDUALS_STAGED", "0", 1);
  check(read_matrix<double>(dir + "494_bus.mtx"), "494_bus d, plain uploads");
  check(read_matrix<Complex<float>>(dir + "mhd1280b.mtx"), "mhd1280b c, plain uploads");
  unsetenv("EIGSOLVE_GPU_RESIDUALS_STAGED");
}

// --- dd ------------------------------------------------------------------------------------
//
// The device computes every entry of A Z with the host's chain (madd, k ascending: the same
// dd bits), and the entries of Z^T Z in and below the diagonal tiles likewise (above them it
// uses G_ji = G_ij, whose product a*b is b*a with the two cross fmas swapped: a difference at
// u_dd^2 of a product). Each |entry| becomes a double the same way; only the double sums per
// column run in another order (tiles, then their partial sums): a relative difference below
// 2 (n + n/64) 2^-53 < 1e-13 for n <= 300 on sums of nonnegative terms. kDdRel = 1e-12 is that
// with a margin; it holds for the backward error always and for the orthogonality whenever the
// spoiled entries dominate (the dd-level parts are then ~1e-30 of the sums). On a good solve
// the orthogonality's sums are themselves dd rounding errors: the swapped products can move
// them, so there only the order of magnitude is compared (a factor kDdFactor).
constexpr double kDdRel = 1e-12, kDdFactor = 4;
// n ||A|| u_dd-scale residuals (u_dd = 2^-104 = 4.9e-32) are below 1e-28 for these n; a double
// product (or the hi parts alone) gives ~1e-17.
constexpr double kDdTiny = 1e-28;

/// Deterministic values in [-1, 1) from (i, j, seed).
double hash_unit(std::uint64_t i, std::uint64_t j, std::uint64_t seed) {
  std::uint64_t x = i * 0x9E3779B97F4A7C15ULL ^
                    (j + 0x632BE59BD9B4E019ULL) * 0xD1B54A32D192ED03ULL ^
                    seed * 0xBF58476D1CE4E5B9ULL;
  x ^= x >> 31;
  x *= 0x94D049BB133111EBULL;
  x ^= x >> 29;
  return double(x >> 11) * 0x1p-52 - 1.0;
}

/// A full symmetric dd matrix with dd entries (a nonzero lo part).
HostMatrix<dd_real> random_dd(index_t n, std::uint64_t seed) {
  HostMatrix<dd_real> A(n);
  for (index_t j = 0; j < n; ++j)
    for (index_t i = j; i < n; ++i) {
      const double h = hash_unit(std::uint64_t(i), std::uint64_t(j), seed);
      const dd_real v =
          dd_real::from_sum(h, 0x1p-60 * hash_unit(std::uint64_t(j), std::uint64_t(i), seed));
      A(i, j) = v;
      A(j, i) = v;
    }
  return A;
}

void expect_dd_agree(const Residuals& h, const Residuals& d, bool orth_exact,
                     const std::string& what) {
  EXPECT_NEAR(d.backward / h.backward, 1.0, kDdRel)
      << what << ": backward " << d.backward << " vs " << h.backward;
  if (orth_exact) {
    EXPECT_NEAR(d.orthogonality / h.orthogonality, 1.0, kDdRel)
        << what << ": orthogonality " << d.orthogonality << " vs " << h.orthogonality;
  } else {
    EXPECT_GT(d.orthogonality, h.orthogonality / kDdFactor) << what;
    EXPECT_LT(d.orthogonality, h.orthogonality * kDdFactor) << what;
  }
}

/// Solve (all eigenpairs, or [il, iu]) on the CPU; good vectors must give dd-level residuals
/// on both sides, then three spoils on both sides must agree to kDdRel:
///   1. z_3 += 0.1 z_{m-1}: column 3 of Z^T Z - I is the largest (lower triangle);
///   2. z_{m-1} += 0.1 z_0: column m-1 is the largest, 0.1 of it above the diagonal (the
///      device's row sums of the tile (J(m-1), 0), or the diagonal tile's upper part when m <= 64);
///   3. z_j += 1e-8 (j + 1) h_ij (dense): every entry counts, the last columns most.
void check_dd(index_t n, index_t il, index_t iu, std::uint64_t seed) {
  const std::string what =
      "dd n = " + std::to_string(n) + " [" + std::to_string(il) + ", " + std::to_string(iu) + "]";
  const HostMatrix<dd_real> A0 = random_dd(n, seed);
  HostMatrix<dd_real> A = A0;
  SolveOptions opt;
  opt.vectors = true;
  if (iu >= 0) {
    opt.subset.kind = Subset::Kind::index;
    opt.subset.il = il;
    opt.subset.iu = iu;
  }
  Context cpu, gpu;
  gpu.backend = Backend::cuda;
  auto r = eigensolve(cpu, A, opt);
  const index_t m = r.m;
  ASSERT_EQ(m, iu >= 0 ? iu - il + 1 : n) << what;
  const Residuals h = compute_residuals(cpu, A0, r), d = compute_residuals(gpu, A0, r);
  EXPECT_LT(h.backward, kDdTiny) << what;
  EXPECT_LT(d.backward, kDdTiny) << what;
  EXPECT_LT(h.orthogonality, kDdTiny) << what;
  EXPECT_LT(d.orthogonality, kDdTiny) << what;
  expect_dd_agree(h, d, false, what + ", good vectors");

  const auto spoiled = [&](int mode) {
    SolveResult<dd_real> s = r;
    for (index_t i = 0; i < n; ++i) {
      if (mode == 1) s.z[i + 3 * n] = madd(dd_real(0.1), r.z[i + (m - 1) * n], r.z[i + 3 * n]);
      if (mode == 2) s.z[i + (m - 1) * n] = madd(dd_real(0.1), r.z[i], r.z[i + (m - 1) * n]);
      if (mode == 3)
        for (index_t j = 0; j < m; ++j)
          s.z[i + j * n] = madd(dd_real(1e-8 * double(j + 1)),
                                dd_real(hash_unit(std::uint64_t(i), std::uint64_t(j), seed + 7)),
                                r.z[i + j * n]);
    }
    return s;
  };
  for (int mode = 1; mode <= 3; ++mode) {
    const SolveResult<dd_real> s = spoiled(mode);
    const Residuals h2 = compute_residuals(cpu, A0, s), d2 = compute_residuals(gpu, A0, s);
    const std::string w2 = what + ", spoil " + std::to_string(mode);
    EXPECT_GT(h2.orthogonality, mode == 3 ? 1e-12 : 1e-2 / double(n)) << w2;
    EXPECT_GT(h2.backward, 1e10 * kDdTiny) << w2;
    expect_dd_agree(h2, d2, true, w2);
  }
}

TEST(GpuResiduals, DdAgreesWithTheHost) {
  EIGSOLVE_REQUIRE_DEVICE();
  unsetenv("EIGSOLVE_GPU_RESIDUALS");
  check_dd(48, 0, -1, 1);     // one tile, partly filled
  check_dd(100, 0, -1, 2);    // 2 x 2 tiles, the last ones partly filled
  check_dd(200, 10, 149, 3);  // m = 140 < n = 200: A Z 4 x 3 tiles, Z^T Z 3 x 3
  check_dd(257, 0, 63, 4);    // n = 4 * 64 + 1, m = 64: one Z^T Z tile, 5 row tiles
  check_dd(300, 0, -1, 5);    // 5 x 5 tiles, 15 lower Z^T Z tiles
  // The plain uploads (EIGSOLVE_GPU_RESIDUALS_STAGED=0) and small staging chunks.
  setenv("EIGSOLVE_GPU_RESIDUALS_STAGED", "0", 1);
  check_dd(130, 0, -1, 6);
  unsetenv("EIGSOLVE_GPU_RESIDUALS_STAGED");
  setenv("EIGSOLVE_GPU_STAGED_CHUNK", "65536", 1);
  check_dd(130, 5, 100, 7);
  unsetenv("EIGSOLVE_GPU_STAGED_CHUNK");
}

/// A = Z diag(lambda) Z with Z = I - 2 v v^T / (v^T v) (v integer, v^T v not a power of two:
/// Z exactly orthogonal and symmetric, its entries rounded to dd) and non-dyadic lambda_k:
/// the exact eigenvectors to dd rounding, no solver involved. Both sides must see dd-level
/// residuals; the same Z rounded to doubles (lo = 0) must give ~1e-17 on both sides, which is
/// what a double product on the device would also report for the exact Z.
TEST(GpuResiduals, DdKeepsDdPrecision) {
  EIGSOLVE_REQUIRE_DEVICE();
  unsetenv("EIGSOLVE_GPU_RESIDUALS");
  const index_t n = 150;
  std::vector<dd_real> v(static_cast<std::size_t>(n)), lam(static_cast<std::size_t>(n));
  dd_real vv(0.0);
  for (index_t i = 0; i < n; ++i) {
    v[std::size_t(i)] = dd_real(int((i * 7) % 11) - 5);
    vv = madd(v[std::size_t(i)], v[std::size_t(i)], vv);
    lam[std::size_t(i)] = dd_real(int(i) - 75) / dd_real(7.0);
  }
  ASSERT_NE(std::fmod(std::log2(vv.hi), 1.0), 0.0);
  const dd_real beta = dd_real(2.0) / vv;
  std::vector<dd_real> Z(static_cast<std::size_t>(n * n));
  for (index_t j = 0; j < n; ++j)
    for (index_t i = 0; i < n; ++i)
      Z[std::size_t(i + j * n)] =
          (i == j ? dd_real(1.0) : dd_real(0.0)) - beta * v[std::size_t(i)] * v[std::size_t(j)];
  HostMatrix<dd_real> A(n);
  for (index_t j = 0; j < n; ++j)
    for (index_t i = j; i < n; ++i) {
      dd_real a(0.0);
      for (index_t k = 0; k < n; ++k)
        a = madd(Z[std::size_t(i + k * n)] * lam[std::size_t(k)], Z[std::size_t(j + k * n)], a);
      A(i, j) = a;
      A(j, i) = a;
    }
  Context cpu, gpu;
  gpu.backend = Backend::cuda;
  for (index_t m : {n, index_t(100)}) {
    SolveResult<dd_real> r;
    r.n = n;
    r.m = m;
    r.w.assign(lam.begin(), lam.begin() + m);
    r.z.assign(Z.begin(), Z.begin() + m * n);
    const std::string what = "Householder Z, m = " + std::to_string(m);
    const Residuals h = compute_residuals(cpu, A, r), d = compute_residuals(gpu, A, r);
    EXPECT_LT(h.backward, kDdTiny) << what;
    EXPECT_LT(d.backward, kDdTiny) << what;
    EXPECT_LT(h.orthogonality, kDdTiny) << what;
    EXPECT_LT(d.orthogonality, kDdTiny) << what;
    EXPECT_GT(h.backward, 0.0) << what;
    expect_dd_agree(h, d, false, what);
    // Z to doubles: the residuals jump to the double level on both sides, and agree.
    for (dd_real& z : r.z)
      z = dd_real(z.hi);
    const Residuals h2 = compute_residuals(cpu, A, r), d2 = compute_residuals(gpu, A, r);
    EXPECT_GT(h2.backward, 1e-19) << what << ", hi parts";
    EXPECT_GT(h2.orthogonality, 1e-19) << what << ", hi parts";
    expect_dd_agree(h2, d2, true, what + ", hi parts");
  }
}

}  // namespace
