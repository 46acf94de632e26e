// symv_reference: the canonical order (bitwise against a literal scalar loop), accuracy against
// an independent plain loop, exact results on small integers, thread-count independence.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>
#include <random>
#include <vector>

#include "core/canonical.hpp"
#include "core/errors.hpp"
#include "core/precision.hpp"
#include "tests/common/random_scalar.hpp"
#include "symv/reference.hpp"
#include "symv/tile_kernels.hpp"

using namespace eigsolve;

namespace {

const index_t kSizes[] = {0, 1, 2, 7, 63, 64, 65, 127, 128, 129, 200};

using eigsolve::test_util::random_scalar;

template <class T>
T int_scalar(std::mt19937_64& g) {
  std::uniform_int_distribution<int> u(-8, 8);
  using R = real_t<T>;
  return make_scalar<T>(R(u(g)), R(u(g)));
}

/// |a| in double.
template <class T>
double mag(const T& a) {
  if constexpr (is_complex_v<T>)
    return std::sqrt(to_double(abs2(a)));
  else
    return std::fabs(to_double(a));
}

template <class T>
T row_elem(const std::vector<T>& A, index_t lda, index_t i, index_t j) {
  if (j < i) return A[i + lda * j];
  if (j > i) return conj(A[j + lda * i]);
  return make_scalar<T>(real_part(A[i + lda * i]), real_t<T>(0));
}

/// The canonical dot over [0, len) written as a literal scalar loop: tiles of 64 from 0, chunks
/// of 8 (s = +0; s = term(i, s) over the chunk's present i, past len absent), the fixed tree,
/// tiles summed ascending.
template <class T, class Term>
T literal_dot(index_t len, Term&& term) {
  T acc = T(0);
  for (index_t t0 = 0; t0 < len; t0 += 64) {
    T c[8];
    for (int k = 0; k < 8; ++k) {
      T s = T(0);
      for (index_t i = t0 + 8 * k; i < t0 + 8 * k + 8 && i < len; ++i)
        s = term(i, s);
      c[k] = s;
    }
    T p = ((c[0] + c[1]) + (c[2] + c[3])) + ((c[4] + c[5]) + (c[6] + c[7]));
    acc = t0 == 0 ? p : acc + p;
  }
  return acc;
}

/// The canonical order of docs/canonical-symv.md written as a literal scalar loop.
template <class T>
void canonical_loop(index_t n, T alpha, const std::vector<T>& A, index_t lda,
                    const std::vector<T>& x, T beta, std::vector<T>& y) {
  for (index_t i = 0; i < n; ++i) {
    const T acc =
        literal_dot<T>(n, [&](index_t j, T s) { return madd(row_elem(A, lda, i, j), x[j], s); });
    y[i] = beta == T(0) ? alpha * acc : madd(alpha, acc, beta * y[i]);
  }
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  // memcmp must not see the null data() of an empty vector (UBSan: nonnull argument).
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

template <class T>
struct Problem {
  index_t n, lda;
  std::vector<T> A, x, y;
};

template <class T>
Problem<T> make_problem(index_t n, std::uint64_t seed, bool integers) {
  std::mt19937_64 g(seed);
  Problem<T> p{n, n + 3, {}, {}, {}};
  p.A.assign(static_cast<size_t>(p.lda * std::max<index_t>(n, 1)), T(0));
  for (index_t j = 0; j < n; ++j)
    for (index_t i = 0; i < p.lda; ++i) {
      // The strict upper triangle and the padding hold garbage that must not be read.
      p.A[i + p.lda * j] = (i >= j && i < n) ? (integers ? int_scalar<T>(g) : random_scalar<T>(g))
                                             : T(std::numeric_limits<double>::quiet_NaN());
    }
  p.x.resize(n);
  p.y.resize(n);
  for (index_t i = 0; i < n; ++i) {
    p.x[i] = integers ? int_scalar<T>(g) : random_scalar<T>(g);
    p.y[i] = integers ? int_scalar<T>(g) : random_scalar<T>(g);
  }
  return p;
}

template <class T>
class SymvTest : public ::testing::Test {};
using Scalars = ::testing::Types<float, double, cfloat, cdouble, dd_real>;
TYPED_TEST_SUITE(SymvTest, Scalars);

TYPED_TEST(SymvTest, MatchesTheCanonicalLoopBitwise) {
  using T = TypeParam;
  const T alphas[] = {T(1), make_scalar<T>(real_t<T>(0.75), real_t<T>(-0.5))};
  const T betas[] = {T(0), make_scalar<T>(real_t<T>(-1.25), real_t<T>(0.5))};
  std::vector<index_t> sizes(std::begin(kSizes), std::end(kSizes));
  sizes.push_back(700);  // 66 tiles: split across the 2 threads (cost-cut runs, row sums)
  for (index_t n : sizes) {
    for (int ab = 0; ab < 4; ++ab) {
      auto p = make_problem<T>(n, 1000 + n, false);
      const T alpha = alphas[ab & 1], beta = betas[ab >> 1];
      std::vector<T> ref = p.y;
      canonical_loop(n, alpha, p.A, p.lda, p.x, beta, ref);
      std::vector<T> y = p.y;
      if (beta == T(0))
        for (auto& v : y)
          v = T(std::numeric_limits<double>::quiet_NaN());  // not read
      Context ctx;
      ctx.threads = 2;
      symv_reference(ctx, n, alpha, p.A.data(), p.lda, p.x.data(), beta, y.data());
      EXPECT_TRUE(same_bits(y, ref)) << "n = " << n << " case " << ab;
    }
  }
}

/// Every product underflows to -0 (A = -tiny, x = tiny): a chunk chain from +0 then ends at
/// -0, and with all 8 chunks of the last tile present (n mod 64 >= 57) the row's sum is -0. A
/// kernel that pads the short last chunk with 0 * 0 terms instead of leaving them absent turns
/// that chunk into +0 (+0 + -0 = +0), and the row into +0 (session 51).
TYPED_TEST(SymvTest, MatchesTheCanonicalLoopWhenProductsUnderflow) {
  using T = TypeParam;
  const double tiny = std::ldexp(1.0, sizeof(real_t<T>) == 4 ? -80 : -540);
  for (index_t n : {57, 60, 63, 121, 127, 700}) {
    auto p = make_problem<T>(n, 3000 + n, false);
    // complex: A = -tiny - 0i and x = tiny + 0i, so that row 0's real chains stay -0 in both
    // the diagonal's madd (-a.im * x.im = -0) and the transposed madd_conj (a.im * x.im = -0)
    for (index_t j = 0; j < n; ++j)
      for (index_t i = j; i < n; ++i)
        p.A[i + p.lda * j] = make_scalar<T>(real_t<T>(-tiny), real_t<T>(-0.0));
    for (auto& v : p.x)
      v = make_scalar<T>(real_t<T>(tiny), real_t<T>(0));
    std::vector<T> ref = p.y;
    canonical_loop(n, T(1), p.A, p.lda, p.x, T(0), ref);
    std::vector<T> y(std::size_t(n), T(std::numeric_limits<double>::quiet_NaN()));
    Context ctx;
    ctx.threads = 2;
    symv_reference(ctx, n, T(1), p.A.data(), p.lda, p.x.data(), T(0), y.data());
    EXPECT_TRUE(same_bits(y, ref))
        << "n = " << n << ": row 0 " << to_double(real_part(y[0])) << " (sign "
        << std::signbit(to_double(real_part(y[0]))) << "), the loop's sign "
        << std::signbit(to_double(real_part(ref[0])));
  }
}

TYPED_TEST(SymvTest, BitwiseIndependentOfThreadCount) {
  using T = TypeParam;
  std::vector<index_t> sizes(std::begin(kSizes), std::end(kSizes));
  // Sizes with enough tiles (>= 16) for the tiles to be split across threads, and (2900) for
  // the row sums too.
  for (index_t n : {index_t(519), index_t(700), index_t(1100), index_t(2900)})
    sizes.push_back(n);
  for (index_t n : sizes) {
    auto p = make_problem<T>(n, 77 + n, false);
    std::vector<T> y1 = p.y;
    Context ctx;
    ctx.threads = 1;
    const T alpha = make_scalar<T>(real_t<T>(1.5), real_t<T>(0.25));
    symv_reference(ctx, n, alpha, p.A.data(), p.lda, p.x.data(), T(1), y1.data());
    for (int t : {2, 3, 7}) {
      std::vector<T> yt = p.y;
      ctx.threads = t;
      symv_reference(ctx, n, alpha, p.A.data(), p.lda, p.x.data(), T(1), yt.data());
      EXPECT_TRUE(same_bits(y1, yt)) << "n = " << n << " threads = " << t;
    }
  }
}

TYPED_TEST(SymvTest, AgreesWithAPlainLoopWithinTheErrorBound) {
  using T = TypeParam;
  const double u = ScalarTraits<T>::unit_roundoff();
  for (index_t n : kSizes) {
    auto p = make_problem<T>(n, 5 + n, false);
    const T alpha = make_scalar<T>(real_t<T>(0.5), real_t<T>(1.0));
    const T beta = make_scalar<T>(real_t<T>(2.0), real_t<T>(0.0));
    std::vector<T> y = p.y;
    Context ctx;
    symv_reference(ctx, n, alpha, p.A.data(), p.lda, p.x.data(), beta, y.data());
    for (index_t i = 0; i < n; ++i) {
      T s = T(0);
      double bound = 0;
      for (index_t j = 0; j < n; ++j) {
        const T a = row_elem(p.A, p.lda, i, j);
        s = s + a * p.x[j];
        bound += mag(a) * mag(p.x[j]);
      }
      const T ref = alpha * s + beta * p.y[i];
      bound = 8.0 * (n + 2) * u * (mag(alpha) * bound + mag(beta) * mag(p.y[i]));
      EXPECT_LE(mag(y[i] - ref), bound) << "n = " << n << " i = " << i;
    }
  }
}

TYPED_TEST(SymvTest, ExactOnSmallIntegers) {
  using T = TypeParam;
  for (index_t n : kSizes) {
    auto p = make_problem<T>(n, 9 + n, true);
    std::vector<T> y = p.y;
    Context ctx;
    symv_reference(ctx, n, T(2), p.A.data(), p.lda, p.x.data(), T(-3), y.data());
    for (index_t i = 0; i < n; ++i) {
      // Exact integer arithmetic in long long on the real and imaginary parts.
      long long re = 0, im = 0;
      for (index_t j = 0; j < n; ++j) {
        const T a = row_elem(p.A, p.lda, i, j);
        const long long ar = (long long)to_double(real_part(a)),
                        ai = (long long)to_double(imag_part(a));
        const long long xr = (long long)to_double(real_part(p.x[j])),
                        xi = (long long)to_double(imag_part(p.x[j]));
        re += ar * xr - ai * xi;
        im += ar * xi + ai * xr;
      }
      re = 2 * re - 3 * (long long)to_double(real_part(p.y[i]));
      im = 2 * im - 3 * (long long)to_double(imag_part(p.y[i]));
      EXPECT_EQ(to_double(real_part(y[i])), double(re)) << "n = " << n << " i = " << i;
      EXPECT_EQ(to_double(imag_part(y[i])), double(im)) << "n = " << n << " i = " << i;
    }
  }
}

// col_dots (the panel's t1 = W^H v, t2 = V^H v; columns in vector lanes for float, double and
// the complex types) against a literal conjugated canonical dot per column.
TYPED_TEST(SymvTest, ColDotsMatchTheCanonicalConjDotBitwise) {
  using T = TypeParam;
  std::mt19937_64 g(77);
  for (index_t m : {0, 1, 7, 8, 9, 63, 64, 65, 129, 200}) {
    const index_t ldm = m + 3;
    for (index_t nq : {1, 2, 3, 4, 5, 7, 8, 9, 16, 17}) {
      std::vector<T> M(static_cast<size_t>(ldm * nq)), v(static_cast<size_t>(m));
      for (auto& a : M)
        a = random_scalar<T>(g);
      for (auto& a : v)
        a = random_scalar<T>(g);
      std::vector<T> out(static_cast<size_t>(nq)), ref(static_cast<size_t>(nq));
      symv_detail::col_dots(m, nq, M.data(), ldm, v.data(), out.data());
      for (index_t q = 0; q < nq; ++q)
        ref[q] =
            literal_dot<T>(m, [&](index_t r, T s) { return madd(conj(M[r + ldm * q]), v[r], s); });
      EXPECT_TRUE(same_bits(out, ref)) << "m = " << m << " nq = " << nq;
    }
  }
}

// row_dots (the panel's V t1 and W t2; float on AVX-512: masked 64-row blocks) against the
// literal canonical dot over k per row (tiles of k from 0, chunks of 8, fixed tree).
TYPED_TEST(SymvTest, RowDotsMatchTheCanonicalDotBitwise) {
  using T = TypeParam;
  std::mt19937_64 g(78);
  for (index_t rows : {1, 15, 16, 17, 63, 64, 65, 130}) {
    const index_t ldm = rows + 5;
    for (index_t kc : {1, 5, 8, 9, 31, 64, 65}) {
      std::vector<T> M(static_cast<size_t>(ldm * kc)), t(static_cast<size_t>(kc));
      for (auto& a : M)
        a = random_scalar<T>(g);
      for (auto& a : t)
        a = random_scalar<T>(g);
      std::vector<T> out(static_cast<size_t>(rows) + 1, T(7)), ref(static_cast<size_t>(rows));
      symv_detail::row_dots(rows, kc, M.data(), ldm, t.data(), out.data());
      EXPECT_EQ(to_double(real_part(out[rows])), 7.0) << "wrote past rows";
      out.pop_back();
      for (index_t r = 0; r < rows; ++r)
        ref[r] = literal_dot<T>(kc, [&](index_t j, T s) { return madd(M[r + ldm * j], t[j], s); });
      EXPECT_TRUE(same_bits(out, ref)) << "rows = " << rows << " kc = " << kc;
    }
  }
}

/// col_dots and row_dots when every product underflows to -0 (the -0 chunk sums survive the
/// tree when the last tile has all 8 chunks: lengths mod 64 >= 57), against the literal
/// canonical dots: a short last chunk must not be padded with +0 * +0 terms (session 51).
TYPED_TEST(SymvTest, ColAndRowDotsWhenProductsUnderflow) {
  using T = TypeParam;
  const double tiny = std::ldexp(1.0, sizeof(real_t<T>) == 4 ? -80 : -540);
  for (index_t m : {57, 60, 63, 121, 127}) {
    const index_t ldm = m + 3;
    for (index_t nq : {1, 3, 8, 9}) {
      // complex: conj(M) v keeps a -0 real part with M = -tiny - 0i, v = tiny + 0i
      std::vector<T> M(static_cast<size_t>(ldm * nq),
                       make_scalar<T>(real_t<T>(-tiny), real_t<T>(-0.0))),
          v(static_cast<size_t>(m), make_scalar<T>(real_t<T>(tiny), real_t<T>(0)));
      std::vector<T> out(static_cast<size_t>(nq)), ref(static_cast<size_t>(nq));
      symv_detail::col_dots(m, nq, M.data(), ldm, v.data(), out.data());
      for (index_t q = 0; q < nq; ++q)
        ref[q] =
            literal_dot<T>(m, [&](index_t r, T s) { return madd(conj(M[r + ldm * q]), v[r], s); });
      EXPECT_TRUE(same_bits(out, ref)) << "col_dots m = " << m << " nq = " << nq;
    }
  }
  for (index_t rows : {1, 17, 64, 65}) {
    const index_t ldm = rows + 5;
    for (index_t kc : {57, 60, 63, 121}) {
      std::vector<T> M(static_cast<size_t>(ldm * kc), T(-tiny)),
          t(static_cast<size_t>(kc), T(tiny));
      std::vector<T> out(static_cast<size_t>(rows)), ref(static_cast<size_t>(rows));
      symv_detail::row_dots(rows, kc, M.data(), ldm, t.data(), out.data());
      for (index_t r = 0; r < rows; ++r)
        ref[r] = literal_dot<T>(kc, [&](index_t j, T s) { return madd(M[r + ldm * j], t[j], s); });
      EXPECT_TRUE(same_bits(out, ref)) << "row_dots rows = " << rows << " kc = " << kc;
    }
  }
}

TYPED_TEST(SymvTest, SymmEqualsItsSymvCallsBitwise) {
  // symm_reference(k vectors) == k calls of symv_reference(alpha = 1, beta = 0), bit for bit,
  // whatever the vectors per pass over A (group), the thread count and the leading dimensions.
  using T = TypeParam;
  std::vector<index_t> sizes(std::begin(kSizes), std::end(kSizes));
  sizes.push_back(700);  // 66 tiles: split across the threads
  for (index_t n : sizes) {
    auto p = make_problem<T>(n, 4242 + n, false);
    for (index_t k : {index_t(1), index_t(3), index_t(8), index_t(11)}) {
      const index_t ldv = n + 5, ldx = n + 2;
      std::mt19937_64 g(99 + n + k);
      std::vector<T> V(static_cast<std::size_t>(ldv * k));
      for (auto& v : V)
        v = random_scalar<T>(g);
      std::vector<T> ref(static_cast<std::size_t>(ldx * k), T(-7));  // padding rows stay -7
      Context ctx;
      ctx.threads = 1;
      for (index_t q = 0; q < k; ++q)
        symv_reference(ctx, n, T(1), p.A.data(), p.lda, V.data() + ldv * q, T(0),
                       ref.data() + ldx * q);
      for (index_t group : {index_t(0), index_t(1), index_t(2), index_t(4), index_t(8), k})
        for (int t : {1, 2, 3}) {
          std::vector<T> X(ref.size(), T(-7));
          for (index_t q = 0; q < k; ++q)  // not read
            for (index_t i = 0; i < n; ++i)
              X[static_cast<std::size_t>(i + ldx * q)] =
                  T(std::numeric_limits<double>::quiet_NaN());
          ctx.threads = t;
          symm_reference(ctx, n, k, p.A.data(), p.lda, V.data(), ldv, X.data(), ldx, group);
          EXPECT_TRUE(same_bits(X, ref))
              << "n = " << n << " k = " << k << " group = " << group << " threads = " << t;
        }
    }
  }
}

TEST(Symv, SymmRejectsBadDimensions) {
  Context ctx;
  double a[4] = {1, 0, 0, 1}, v[4] = {1, 1, 1, 1}, x[4] = {};
  EXPECT_THROW(symm_reference(ctx, -1, 1, a, 2, v, 2, x, 2), DimensionError);
  EXPECT_THROW(symm_reference(ctx, 2, 1, a, 1, v, 2, x, 2), DimensionError);
  EXPECT_THROW(symm_reference(ctx, 2, -1, a, 2, v, 2, x, 2), DimensionError);
  EXPECT_THROW(symm_reference(ctx, 2, 2, a, 2, v, 1, x, 2), DimensionError);
  EXPECT_THROW(symm_reference(ctx, 2, 2, a, 2, v, 2, x, 1), DimensionError);
  EXPECT_NO_THROW(symm_reference(ctx, 2, 0, a, 2, v, 1, x, 1));  // no vectors: nothing read
}

TEST(Symv, RejectsBadDimensions) {
  Context ctx;
  double a = 1, x = 1, y = 0;
  EXPECT_THROW(symv_reference(ctx, -1, 1.0, &a, 1, &x, 0.0, &y), DimensionError);
  EXPECT_THROW(symv_reference(ctx, 2, 1.0, &a, 1, &x, 0.0, &y), DimensionError);
}

}  // namespace
