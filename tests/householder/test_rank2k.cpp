// The canonical update chains of householder/rank2k.hpp against literal loops of
// docs/canonical-tridiagonalization.md, bitwise, for every scalar: the trailing rank-2k update
// (one chain per element of the lower triangle, the strict upper triangle never touched, a
// complex diagonal made real) and the panel's column update. The sizes cross the kernels' row
// blocks (8 or 16 rows, dd_real's groups of up to 4 blocks on AVX-512), their column blocks
// (64) and the thread splits. ctest runs it again with EIGSOLVE_NO_AVX512=1.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/precision.hpp"
#include "householder/rank2k.hpp"
#include "tests/common/random_scalar.hpp"

using namespace eigsolve;
using eigsolve::test_util::random_scalar;

namespace {

template <class T>
using Vec = std::vector<T>;

template <class T>
bool same_bits(const Vec<T>& a, const Vec<T>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

template <class T>
Vec<T> random_vec(std::size_t len, std::mt19937_64& g) {
  Vec<T> v(len);
  for (T& x : v)
    x = random_scalar<T>(g);
  return v;
}

template <class T>
class Rank2kTest : public ::testing::Test {};
using Scalars = ::testing::Types<float, double, cfloat, cdouble, dd_real>;
TYPED_TEST_SUITE(Rank2kTest, Scalars);

TYPED_TEST(Rank2kTest, TrailingUpdateBitwiseTheLiteralChains) {
  using T = TypeParam;
  for (index_t m : {0, 1, 5, 8, 9, 16, 17, 31, 33, 63, 64, 65, 100, 137})
    for (index_t kb : {1, 2, 3, 8, 32}) {
      std::mt19937_64 g(static_cast<unsigned>(1000 * m + kb));
      const index_t ldv = m + 1, ldw = m + 2, lda = m + 3;
      const Vec<T> V = random_vec<T>(static_cast<std::size_t>(ldv * kb), g);
      const Vec<T> W = random_vec<T>(static_cast<std::size_t>(ldw * kb), g);
      Vec<T> A0 = random_vec<T>(static_cast<std::size_t>(lda * m), g);
      for (index_t j = 0; j < m; ++j)
        for (index_t i = 0; i < j; ++i)
          A0[i + lda * j] = T(std::nan(""));  // the strict upper triangle: never touched
      // The literal chains of the spec.
      Vec<T> ref = A0;
      for (index_t j = 0; j < m; ++j)
        for (index_t i = j; i < m; ++i) {
          T c = ref[i + lda * j];
          for (index_t k = 0; k < kb; ++k) {
            c = madd(-V[i + ldv * k], conj(W[j + ldw * k]), c);
            c = madd(-W[i + ldw * k], conj(V[j + ldv * k]), c);
          }
          if constexpr (is_complex_v<T>)
            if (i == j) c.im = real_t<T>(0);
          ref[i + lda * j] = c;
        }
      for (int threads : {1, 2, 3}) {
        Vec<T> A = A0;
        Vec<T> NW(static_cast<std::size_t>(kb * m)), NV(NW.size());
        hh_detail::rank2k_update(threads, m, kb, V.data(), ldv, W.data(), ldw, A.data(), lda,
                                 NW.data(), NV.data());
        EXPECT_TRUE(same_bits(A, ref))
            << "m = " << m << ", kb = " << kb << ", threads = " << threads;
      }
    }
}

TYPED_TEST(Rank2kTest, ColumnUpdateBitwiseTheLiteralChains) {
  using T = TypeParam;
  for (index_t len : {0, 1, 7, 8, 9, 15, 16, 24, 31, 32, 33, 40, 41, 65, 100, 257})
    for (index_t kb : {1, 3, 8, 31}) {
      std::mt19937_64 g(static_cast<unsigned>(7000 * len + kb));
      const index_t ldv = len + 5, ldw = len + 2;
      const Vec<T> V = random_vec<T>(static_cast<std::size_t>(ldv * kb), g);
      const Vec<T> W = random_vec<T>(static_cast<std::size_t>(ldw * kb), g);
      const Vec<T> nw = random_vec<T>(static_cast<std::size_t>(kb), g);
      const Vec<T> nv = random_vec<T>(static_cast<std::size_t>(kb), g);
      // The column sits inside a longer buffer: nothing outside its len rows may change.
      Vec<T> a0 = random_vec<T>(static_cast<std::size_t>(len + 16), g);
      Vec<T> ref = a0;
      for (index_t r = 0; r < len; ++r) {
        T c = ref[r + 3];
        for (index_t k = 0; k < kb; ++k) {
          c = madd(V[r + ldv * k], nw[k], c);
          c = madd(W[r + ldw * k], nv[k], c);
        }
        ref[r + 3] = c;
      }
      for (int threads : {1, 2, 3}) {
        Vec<T> a = a0;
        hh_detail::column_update(threads, len, kb, V.data(), ldv, W.data(), ldw, nw.data(),
                                 nv.data(), a.data() + 3);
        EXPECT_TRUE(same_bits(a, ref))
            << "len = " << len << ", kb = " << kb << ", threads = " << threads;
      }
    }
}

}  // namespace
