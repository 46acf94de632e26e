// compute_residuals<dd_real> bitwise against a literal transcription of the scalar loop it
// replaced (app/residuals_dd512.hpp runs the same chains 8 at a time in AVX-512 lanes): the
// backward error and orthogonality for n = 1 .. 70 (n and m not multiples of 8, m < n subsets,
// more than one chunk of columns), 1, 2 and 3 threads; and every column's two sums through
// residuals_detail::residual_columns for several column ranges. Registered a second time with
// EIGSOLVE_NO_AVX512=1 (the scalar fallback).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "app/residuals.hpp"
#include "app/residuals_dd512.hpp"
#include "core/context.hpp"
#include "core/cpu_features.hpp"
#include "core/dd_real.hpp"
#include "solver/eigensolve.hpp"

using namespace eigsolve;

namespace {

std::uint64_t bits(double x) {
  std::uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

/// A dd value with a full low part; about one in 16 is +0 or -0 (signed-zero selects).
dd_real random_dd(std::mt19937_64& g) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const int kind = static_cast<int>(g() % 32);
  if (kind == 0) return dd_real(0.0);
  if (kind == 1) return dd_real(-0.0, 0.0);
  const double hi = std::ldexp(u(g), static_cast<int>(g() % 7) - 3);
  return dd_real::from_sum(hi, hi * 0x1p-53 * u(g));
}

struct Problem {
  HostMatrix<dd_real> A;
  SolveResult<dd_real> r;
};

/// A full symmetric n x n dd matrix (both triangles) of random_dd entries.
HostMatrix<dd_real> random_symmetric(index_t n, std::mt19937_64& g) {
  HostMatrix<dd_real> A(n);
  for (index_t j = 0; j < n; ++j)
    for (index_t i = j; i < n; ++i)
      A(i, j) = A(j, i) = random_dd(g);
  return A;
}

/// Full symmetric A (both triangles) and m eigenpairs of it computed in dd (eigenvalues il ..
/// il+m-1): A z - w z and the off-diagonal dots are dd rounding errors, so a residual shows
/// every bit of the dd chains (a swapped product or a reordered chain changes it).
Problem make_eigen_problem(index_t n, index_t m, unsigned seed) {
  std::mt19937_64 g(seed);
  Problem p;
  p.A = random_symmetric(n, g);
  HostMatrix<dd_real> work = p.A;
  SolveOptions opt;
  opt.vectors = true;
  if (m < n) {
    opt.subset.kind = Subset::Kind::index;
    opt.subset.il = (n - m) / 2;
    opt.subset.iu = opt.subset.il + m - 1;
  }
  Context ctx;
  ctx.threads = 1;
  p.r = eigensolve(ctx, work, opt);
  return p;
}

/// Full symmetric A and an n x m block that is no eigenvector block: zeros of both signs, and
/// z near the first columns of I.
Problem make_random_problem(index_t n, index_t m, unsigned seed) {
  std::mt19937_64 g(seed);
  Problem p;
  p.A = random_symmetric(n, g);
  p.r.n = n;
  p.r.m = m;
  p.r.w.resize(static_cast<std::size_t>(m));
  for (auto& w : p.r.w)
    w = random_dd(g);
  p.r.z.resize(static_cast<std::size_t>(n * m));
  // Near the first m columns of I (small off-diagonal entries, scaled exactly), so that
  // dot(j, j) - 1 cancels as it does for computed eigenvectors.
  for (auto& z : p.r.z) {
    const dd_real x = random_dd(g);
    z = dd_real(std::ldexp(x.hi, -8), std::ldexp(x.lo, -8));
  }
  for (index_t j = 0; j < std::min(n, m); ++j)
    p.r.z[j + j * n] = dd_real::from_sum(1.0, std::ldexp(p.r.z[j + j * n].hi, -40));
  return p;
}

/// The loop of compute_residuals before the AVX-512 kernels, as it was written.
struct Reference {
  std::vector<double> rcol, ocol;
  Residuals res;
};
Reference reference(const HostMatrix<dd_real>& A, const SolveResult<dd_real>& r) {
  using T = dd_real;
  using R = real_t<T>;
  const index_t n = r.n, m = r.m;
  Reference out;
  out.rcol.resize(static_cast<std::size_t>(m));
  out.ocol.resize(static_cast<std::size_t>(m));
  double anorm = 0;
  for (index_t j = 0; j < n; ++j) {
    double s = 0;
    for (index_t i = 0; i < n; ++i)
      s += std::sqrt(to_double(abs2(A(i, j))));
    anorm = std::max(anorm, s);
  }
  const T* Z = r.z.data();
  std::vector<T> az(static_cast<std::size_t>(n));
  for (index_t j = 0; j < m; ++j) {
    const T* zj = Z + j * n;
    std::fill(az.begin(), az.end(), T(0));
    for (index_t k = 0; k < n; ++k) {
      const T zk = zj[k];
      const T* ak = &A(0, k);
      for (index_t i = 0; i < n; ++i)
        az[i] = madd(ak[i], zk, az[i]);
    }
    double s = 0;
    const T lam = T(r.w[j]);
    for (index_t i = 0; i < n; ++i)
      s += std::sqrt(to_double(abs2(az[i] - lam * zj[i])));
    out.rcol[j] = s;
    double o = 0;
    for (index_t k = 0; k < m; ++k) {
      const T* zk = Z + k * n;
      T dot = T(0);
      for (index_t i = 0; i < n; ++i)
        dot = madd_conj(zk[i], zj[i], dot);
      if (k == j) dot = dot - T(R(1));
      o += std::sqrt(to_double(abs2(dot)));
    }
    out.ocol[j] = o;
  }
  double rmax = *std::max_element(out.rcol.begin(), out.rcol.end());
  double omax = *std::max_element(out.ocol.begin(), out.ocol.end());
  out.res.backward = anorm > 0 ? rmax / (static_cast<double>(n) * anorm) : rmax;
  out.res.orthogonality = omax / static_cast<double>(n);
  return out;
}

struct Case {
  index_t n, m;
};
const Case kCases[] = {{1, 1},   {2, 2},   {3, 1},   {7, 7},   {8, 8},   {8, 3},   {9, 9},
                       {9, 5},   {13, 13}, {16, 16}, {16, 9},  {17, 17}, {23, 11}, {24, 24},
                       {31, 31}, {33, 33}, {40, 17}, {41, 41}, {57, 57}, {64, 64}, {64, 33},
                       {67, 67}, {69, 40}, {70, 70}, {70, 1}};

std::vector<Problem> problems(const Case& c, unsigned seed) {
  std::vector<Problem> ps;
  ps.push_back(make_eigen_problem(c.n, c.m, seed));
  ps.push_back(make_random_problem(c.n, c.m, seed + 1));
  return ps;
}

TEST(ResidualsDd, BitwiseAsTheScalarLoop) {
  std::printf("AVX-512 kernels: %s\n", has_avx512f() ? "yes" : "no (scalar loop)");
  for (const Case& c : kCases)
    for (const Problem& p : problems(c, static_cast<unsigned>(1000 * c.n + c.m))) {
      ASSERT_EQ(p.r.m, c.m);
      const Reference ref = reference(p.A, p.r);
      for (int threads : {1, 2, 3}) {
        Context ctx;
        ctx.threads = threads;
        const Residuals got = compute_residuals(ctx, p.A, p.r);
        EXPECT_EQ(bits(got.backward), bits(ref.res.backward))
            << "n " << c.n << " m " << c.m << " threads " << threads << ": " << got.backward
            << " vs " << ref.res.backward;
        EXPECT_EQ(bits(got.orthogonality), bits(ref.res.orthogonality))
            << "n " << c.n << " m " << c.m << " threads " << threads << ": " << got.orthogonality
            << " vs " << ref.res.orthogonality;
      }
    }
}

// The maxima above hide all but one column: every column's sums, over splits of the columns
// that start and end anywhere (as the threads' ranges do).
TEST(ResidualsDd, EveryColumnBitwiseForAnySplit) {
  for (const Case& c : kCases)
    for (const Problem& p : problems(c, static_cast<unsigned>(7 * c.n + c.m))) {
      const Reference ref = reference(p.A, p.r);
      for (index_t parts : {1, 2, 3, 5}) {
        std::vector<double> rcol(static_cast<std::size_t>(c.m), -1.0), ocol(rcol);
        for (index_t q = 0; q < parts; ++q) {
          const index_t j0 = c.m * q / parts, j1 = c.m * (q + 1) / parts;
          if (j0 < j1)
            residuals_detail::residual_columns(p.A, p.r, j0, j1, rcol.data(), ocol.data());
        }
        for (index_t j = 0; j < c.m; ++j) {
          EXPECT_EQ(bits(rcol[j]), bits(ref.rcol[j]))
              << "n " << c.n << " m " << c.m << " parts " << parts << " column " << j;
          EXPECT_EQ(bits(ocol[j]), bits(ref.ocol[j]))
              << "n " << c.n << " m " << c.m << " parts " << parts << " column " << j;
        }
      }
    }
}

}  // namespace
