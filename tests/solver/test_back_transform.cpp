// The canonical blocked back-transformation (docs/canonical-backtransform.md): bitwise against a
// literal scalar loop of the documented order, thread-count independence, and numerical
// quality (residual, orthogonality) of whole solves on real and generated matrices.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "core/context.hpp"
#include "core/errors.hpp"
#include "householder/tridiagonalize.hpp"
#include "io/matrix_io.hpp"
#include "solver/back_transform.hpp"
#include "solver/eigensolve.hpp"
#include "solver/lapack.hpp"
#include "solver_test_util.hpp"
#include "tests/common/structured_zeros.hpp"

namespace eigsolve {
namespace {

/// Bytewise equality of two vectors (memcmp with a null pointer, as an empty vector's data() may
/// be, is undefined even for zero bytes: UBSan flags it).
template <class V>
bool same_bytes(const V& a, const V& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(a[0])) == 0);
}

/// The canonical reduction written out: chunks of 8 (madd chain), tree, tiles of 64 ascending.
template <class T>
T literal_dot_conj(index_t L, const T* x, const T* y) {
  T acc = T(0);
  for (index_t t0 = 0; t0 < L; t0 += 64) {
    T c[8];
    for (int ch = 0; ch < 8; ++ch) {
      T s = T(0);
      for (index_t i = t0 + 8 * ch; i < t0 + 8 * ch + 8 && i < L; ++i)
        s = madd(conj(x[i]), y[i], s);
      c[ch] = s;
    }
    const T p = ((c[0] + c[1]) + (c[2] + c[3])) + ((c[4] + c[5]) + (c[6] + c[7]));
    acc = t0 == 0 ? p : acc + p;
  }
  return acc;
}

/// The documented order, literally: blocks of 32 reflectors, last to first; V with explicit
/// zeros and unit; T by the recurrence; W = V^H Z; NY = -(T W); z += V NY.
template <class T>
void literal_apply_q(index_t n, const T* A, index_t lda, const T* tau, index_t m, T* Z,
                     index_t ldz) {
  if (n <= 1) return;
  const index_t nrefl = n - 1;
  for (index_t i0 = ((nrefl - 1) / 32) * 32; i0 >= 0; i0 -= 32) {
    const index_t k = std::min<index_t>(32, nrefl - i0), L = n - i0 - 1;
    std::vector<T> V(L * k), Tm(k * k, T(0)), x(k), w(k), ny(k);
    for (index_t c = 0; c < k; ++c)
      for (index_t r = 0; r < L; ++r)
        V[r + L * c] = r < c ? T(0) : (r == c ? T(1) : A[(i0 + 1 + r) + (i0 + c) * lda]);
    for (index_t c = 0; c < k; ++c) {
      Tm[c + k * c] = tau[i0 + c];
      if (tau[i0 + c] == T(0)) continue;
      for (index_t q = 0; q < c; ++q)
        x[q] = (-tau[i0 + c]) * literal_dot_conj(L, &V[L * q], &V[L * c]);
      for (index_t r = 0; r < c; ++r) {
        T s = T(0);
        for (index_t q = r; q < c; ++q)
          s = madd(Tm[r + k * q], x[q], s);
        Tm[r + k * c] = s;
      }
    }
    for (index_t j = 0; j < m; ++j) {
      T* z = Z + (i0 + 1) + ldz * j;
      for (index_t c = 0; c < k; ++c)
        w[c] = literal_dot_conj(L, &V[L * c], z);
      for (index_t c = 0; c < k; ++c) {
        T s = T(0);
        for (index_t q = c; q < k; ++q)
          s = madd(Tm[c + k * q], w[q], s);
        ny[c] = -test_util::rounded(s);  // the rounded chain, negated (-(+0) = -0)
      }
      for (index_t r = 0; r < L; ++r) {
        T s = z[r];
        for (index_t c = 0; c < k; ++c)
          s = madd(V[r + L * c], ny[c], s);
        z[r] = s;
      }
    }
  }
}

/// Reflectors of a random Hermitian matrix (the canonical tridiagonalization) and a random Z.
template <class T>
struct Problem {
  index_t n, m, ldz;
  std::vector<T> A, tau, Z;
  Problem(index_t n_, index_t m_, index_t pad, std::uint64_t seed) : n(n_), m(m_), ldz(n_ + pad) {
    using R = real_t<T>;
    A.assign(n * n, T(0));
    tau.assign(std::max<index_t>(n, 1), T(0));
    Z.assign(ldz * m, T(0));
    std::uint64_t s = seed;
    for (index_t j = 0; j < n; ++j)
      for (index_t i = j; i < n; ++i)
        A[i + n * j] =
            i == j ? T(R(test::rnd(s))) : make_scalar<T>(R(test::rnd(s)), R(test::rnd(s)));
    for (auto& z : Z)
      z = make_scalar<T>(R(test::rnd(s)), R(test::rnd(s)));
    if (n > 0) {
      Context ctx;
      std::vector<R> d(n), e(n);
      TridiagOptions topt;
      tridiagonalize(ctx, n, A.data(), n, d.data(), e.data(), tau.data(), topt);
    }
  }
};

template <class T>
class BackTransformTyped : public ::testing::Test {};
using Scalars = ::testing::Types<float, double, Complex<float>, Complex<double>, dd_real>;
TYPED_TEST_SUITE(BackTransformTyped, Scalars);

TYPED_TEST(BackTransformTyped, BitwiseLiteralOrderAndThreads) {
  using T = TypeParam;
  const bool dd = std::is_same_v<T, dd_real>;
  const index_t sizes[] = {0, 1, 2, 3, 5, 8, 13, 31, 32, 33, 34, 40, 64, 65, 66, 97, 130, 200};
  for (index_t n : sizes) {
    if (dd && n > 130) continue;
    for (index_t m : {index_t(1), index_t(7), n}) {
      if (m == 0) continue;
      SCOPED_TRACE("n=" + std::to_string(n) + " m=" + std::to_string(m));
      Problem<T> p(n, m, n % 3, 1000 + n + m);
      auto ref = p.Z;
      literal_apply_q(n, p.A.data(), n, p.tau.data(), m, ref.data(), p.ldz);
      for (int threads : {1, 2, 3}) {
        auto z = p.Z;
        Context ctx;
        ctx.threads = threads;
        apply_q_canonical(ctx, n, p.A.data(), n, p.tau.data(), m, z.data(), p.ldz);
        ASSERT_TRUE(same_bytes(z, ref)) << "threads=" << threads;
      }
    }
  }
}

/// Orders large enough that step 1 splits a block's rows into several L2-sized slabs (~256 KiB
/// of packed reflectors: 256 rows in z, 512 in c, 1024 in d, 2048 in s) with a partial last
/// slab: each (c, j) sum continues from slab to slab, so the bits must stay the literal order's
/// (dd, whose step 1 has no slabs, at 293 and 613 rows).
TYPED_TEST(BackTransformTyped, BitwiseLiteralOrderAcrossRowSlabs) {
  using T = TypeParam;
  const index_t slab = std::is_same_v<T, dd_real>
                           ? 256
                           : (index_t(256) << 10) / (index_t(is_complex_v<T> ? 4 : 1) * 32 *
                                                     index_t(sizeof(real_t<T>)));
  for (index_t n : {slab + 37, 2 * slab + 101}) {
    const index_t m = 5;
    SCOPED_TRACE("n=" + std::to_string(n));
    Problem<T> p(n, m, 3, 7000 + n);
    auto ref = p.Z;
    literal_apply_q(n, p.A.data(), n, p.tau.data(), m, ref.data(), p.ldz);
    for (int threads : {1, 2}) {
      auto z = p.Z;
      Context ctx;
      ctx.threads = threads;
      apply_q_canonical(ctx, n, p.A.data(), n, p.tau.data(), m, z.data(), p.ldz);
      ASSERT_TRUE(same_bytes(z, ref)) << "threads=" << threads;
    }
  }
}

/// Structured exact zeros (tests/common/structured_zeros.hpp) in the reflectors (the canonical
/// tridiagonalization of block-diagonal, 2 x 2-block, diagonal, zero-line, mixed +-0 and all -0
/// matrices) and in Z (test_util::structured_z): bitwise the literal order, the sign of every zero
/// included, on 1, 2 and 3 threads (the AVX2 kernels and the scalar tail). Step 2's ny = -s is the
/// rounded chain negated; a negation folded into the chain's last fma (fnmsub) would give +0 for
/// -0.
TYPED_TEST(BackTransformTyped, StructuredZerosBitwiseLiteralOrder) {
  using T = TypeParam;
  using R = real_t<T>;
  const bool dd = std::is_same_v<T, dd_real>;
  for (test_util::Zeros zk : test_util::all_zero_kinds())
    for (index_t n : {index_t(2), index_t(9), index_t(33), index_t(40), index_t(97)}) {
      if (dd && n > 40) continue;
      const index_t m = std::max<index_t>(n, 4), ldz = n + 1;
      std::vector<T> A = test_util::structured_hermitian<T>(n, zk, 7 * n + 3);
      std::vector<T> tau(static_cast<size_t>(n), T(0));
      std::vector<R> d(static_cast<size_t>(n)), e(static_cast<size_t>(n));
      Context ctx;
      tridiagonalize(ctx, n, A.data(), n, d.data(), e.data(), tau.data(), TridiagOptions{});
      const std::vector<T> Z = test_util::structured_z<T>(n, m, ldz, 11 * n + 5);
      auto ref = Z;
      literal_apply_q(n, A.data(), n, tau.data(), m, ref.data(), ldz);
      for (int threads : {1, 2, 3}) {
        auto z = Z;
        ctx.threads = threads;
        apply_q_canonical(ctx, n, A.data(), n, tau.data(), m, z.data(), ldz);
        EXPECT_TRUE(same_bytes(z, ref))
            << test_util::zeros_name(zk) << ", n = " << n << ", threads = " << threads;
      }
    }
}

/// Q from the canonical order against LAPACK ?ormtr (s/d/c/z) and ||I - Q^H Q|| (all).
TYPED_TEST(BackTransformTyped, UnitaryAndCloseToOrmtr) {
  using T = TypeParam;
  const double u = ScalarTraits<T>::unit_roundoff();
  for (index_t n : {index_t(37), index_t(100), index_t(161)}) {
    Problem<T> p(n, n, 0, 7 + n);
    std::vector<T> Q(n * n, T(0));
    for (index_t i = 0; i < n; ++i)
      Q[i + n * i] = T(1);
    Context ctx;
    ctx.threads = 2;
    auto Qc = Q;
    apply_q_canonical(ctx, n, p.A.data(), n, p.tau.data(), n, Qc.data(), n);
    double orth = 0;
    for (index_t j = 0; j < n; ++j)
      for (index_t i = 0; i < n; ++i) {
        T s = T(0);
        for (index_t r = 0; r < n; ++r)
          s = madd_conj(Qc[r + n * i], Qc[r + n * j], s);
        if (i == j) s = s - T(1);
        orth = std::max(orth, to_double(abs1(s)));
      }
    EXPECT_LE(orth / double(n), 50 * 2 * u) << n;
    if constexpr (has_vendor_lapack_v<T>) {
      lapack::ormtr(n, n, p.A.data(), n, p.tau.data(), Q.data(), n);
      double err = 0;
      for (index_t k = 0; k < n * n; ++k)
        err = std::max(err, to_double(abs1(Q[k] - Qc[k])));
      EXPECT_LE(err, 20.0 * n * u) << n;
      auto Ql = p.Z;  // the lapack method of back_transform is ?ormtr
      auto Zl = p.Z;
      back_transform(ctx, n, p.A.data(), n, p.tau.data(), n, Ql.data(), n,
                     BackTransformMethod::lapack);
      lapack::ormtr(n, n, p.A.data(), n, p.tau.data(), Zl.data(), n);
      EXPECT_TRUE(same_bytes(Ql, Zl));
    } else {
      EXPECT_THROW(back_transform(ctx, n, p.A.data(), n, p.tau.data(), n, Q.data(), n,
                                  BackTransformMethod::lapack),
                   UsageError);
    }
  }
}

TEST(BackTransform, Names) {
  EXPECT_EQ(parse_back_transform("canonical"), BackTransformMethod::canonical);
  EXPECT_EQ(parse_back_transform("lapack"), BackTransformMethod::lapack);
  EXPECT_STREQ(back_transform_name(BackTransformMethod::lapack), "lapack");
  EXPECT_EQ(parse_back_transform("cusolver"), BackTransformMethod::cusolver);
  EXPECT_STREQ(back_transform_name(BackTransformMethod::cusolver), "cusolver");
  EXPECT_STREQ(back_transform_name(BackTransformMethod::canonical), "canonical");
  EXPECT_THROW(parse_back_transform("ormtr"), UsageError);
}

/// max |A Z - Z diag(w)| / (n ||A||_max-ish) and max |I - Z^H Z| / n, in double.
/// max over k >= j of |(Z^H Z - I)(j, k)| for the n x n column-major Z.
template <class T>
double orthogonality_column(index_t n, const T* Z, index_t j) {
  double orth = 0;
  for (index_t k = j; k < n; ++k) {
    T s = T(0);
    for (index_t i = 0; i < n; ++i)
      s = madd_conj(Z[i + j * n], Z[i + k * n], s);
    if (j == k) s = s - T(1);
    orth = std::max(orth, to_double(abs1(s)));
  }
  return orth;
}

template <class T>
void check_solve(const HostMatrix<T>& A0, int threads, const std::string& what) {
  SCOPED_TRACE(what);
  const index_t n = A0.n;
  double anorm = 0;
  for (index_t j = 0; j < n; ++j) {
    double s = 0;
    for (index_t i = 0; i < n; ++i)
      s += to_double(abs1(i >= j ? A0(i, j) : conj(A0(j, i))));
    anorm = std::max(anorm, s);
  }
  auto A = A0;
  Context ctx;
  ctx.threads = threads;
  SolveOptions opt;
  opt.vectors = true;
  auto r = eigensolve(ctx, A, opt);
  ASSERT_EQ(r.m, n);
  double res = 0, orth = 0;
  for (index_t j = 0; j < n; ++j) {
    const T* z = r.z.data() + j * n;
    for (index_t i = 0; i < n; ++i) {
      T s = T(0);
      for (index_t k = 0; k < n; ++k)
        s = madd(i >= k ? A0(i, k) : conj(A0(k, i)), z[k], s);
      s = s - z[i] * T(r.w[j]);
      res = std::max(res, to_double(abs1(s)));
    }
    orth = std::max(orth, orthogonality_column(n, r.z.data(), j));
  }
  const double u = ScalarTraits<T>::unit_roundoff();
  EXPECT_LE(res / (double(n) * anorm), 50 * u);
  EXPECT_LE(orth / double(n), 50 * u);
  // Thread counts: identical eigenvector bytes.
  for (int t : {1, 3}) {
    auto B = A0;
    ctx.threads = t;
    auto r2 = eigensolve(ctx, B, opt);
    EXPECT_TRUE(same_bytes(r.z, r2.z)) << t;
  }
}

TEST(BackTransform, RealMatricesResidualOrthogonality) {
  for (const char* f : {"bcsstk01.mtx", "can_24.mtx", "494_bus.mtx", "plat362.mtx", "lund_b.mtx"}) {
    const std::string path = std::string(EIGSOLVE_TEST_DATA) + "/matrices/" + f;
    check_solve(read_matrix<double>(path), 2, std::string(f) + " d");
    check_solve(read_matrix<float>(path), 2, std::string(f) + " s");
  }
  check_solve(
      read_matrix<Complex<double>>(std::string(EIGSOLVE_TEST_DATA) + "/matrices/bcsstk01.mtx"), 2,
      "bcsstk01 z");
}

template <class T>
HostMatrix<T> random_hermitian(index_t n, std::uint64_t seed) {
  using R = real_t<T>;
  HostMatrix<T> A(n);
  std::uint64_t s = seed;
  for (index_t j = 0; j < n; ++j)
    for (index_t i = j; i < n; ++i) {
      A(i, j) = i == j ? T(R(test::rnd(s))) : make_scalar<T>(R(test::rnd(s)), R(test::rnd(s)));
      A(j, i) = conj(A(i, j));
    }
  return A;
}

TYPED_TEST(BackTransformTyped, GeneratedResidualOrthogonality) {
  using T = TypeParam;
  const index_t n = std::is_same_v<T, dd_real> ? 70 : 150;
  check_solve(random_hermitian<T>(n, 42), 2, "random " + std::to_string(n));
}

/// The whole pipeline with eigenvectors (one-stage and two-stage reductions) on the
/// structured-zero matrices of tests/common/structured_zeros.hpp: the same bytes for 1, 2 and 3
/// threads (the sign of every zero included), and the residual and orthogonality bounds of
/// check_solve where A is not zero. The GPU tests compare these results with the device's.
TYPED_TEST(BackTransformTyped, StructuredZerosPipelineThreadsAndResiduals) {
  using T = TypeParam;
  const index_t n = std::is_same_v<T, dd_real> ? 40 : 70;
  const double u = ScalarTraits<T>::unit_roundoff();
  for (test_util::Zeros zk : test_util::all_zero_kinds())
    for (Reduction red : {Reduction::one_stage, Reduction::two_stage}) {
      const std::string what =
          test_util::zeros_name(zk) + (red == Reduction::one_stage ? ", one-stage" : ", two-stage");
      HostMatrix<T> A0(n);
      A0.data = test_util::structured_hermitian<T>(n, zk, 5 * n + 1);
      SolveOptions opt;
      opt.vectors = true;
      opt.reduction = red;
      opt.band = 8;
      Context ctx;
      ctx.threads = 1;
      auto A = A0;
      const auto r = eigensolve(ctx, A, opt);
      ASSERT_EQ(r.m, n) << what;
      for (int t : {2, 3}) {
        auto B = A0;
        ctx.threads = t;
        const auto r2 = eigensolve(ctx, B, opt);
        EXPECT_TRUE(same_bytes(r.w, r2.w)) << what << ", threads " << t;
        EXPECT_TRUE(same_bytes(r.z, r2.z)) << what << ", threads " << t;
      }
      double anorm = 0, res = 0, orth = 0;
      for (index_t j = 0; j < n; ++j) {
        double s = 0;
        for (index_t i = 0; i < n; ++i)
          s += to_double(abs1(A0(i, j)));
        anorm = std::max(anorm, s);
      }
      for (index_t j = 0; j < n; ++j) {
        const T* z = r.z.data() + j * n;
        for (index_t i = 0; i < n; ++i) {
          T s = T(0);
          for (index_t k = 0; k < n; ++k)
            s = madd(A0(i, k), z[k], s);
          res = std::max(res, to_double(abs1(s - z[i] * T(r.w[j]))));
        }
        orth = std::max(orth, orthogonality_column(n, r.z.data(), j));
      }
      if (anorm > 0) {
        EXPECT_LE(res / (double(n) * anorm), 50 * u) << what;
      }
      EXPECT_LE(orth / double(n), 50 * u) << what;
    }
}

}  // namespace
}  // namespace eigsolve
