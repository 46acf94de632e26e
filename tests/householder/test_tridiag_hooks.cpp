// The device protocol of tridiagonalize() (householder/tridiagonalize.hpp, TridiagDevice) checked
// on the CPU: a host "device" that keeps its own copy of the matrix and answers the SYMV with
// symv_reference and the trailing update with a literal loop of the canonical chain must give
// exactly the bits of the plain CPU path. This guards the driver logic the CUDA backend relies on
// (which panel-start matrix the SYMV sees, when the update runs, what the tail fetches) on
// machines without a GPU.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "core/context.hpp"
#include "core/precision.hpp"
#include "householder/tridiagonalize.hpp"
#include "symv/reference.hpp"
#include "tests/common/random_scalar.hpp"

using namespace eigsolve;
using eigsolve::test_util::random_scalar;

namespace {

template <class T>
class HostDevice final : public TridiagDevice<T> {
 public:
  HostDevice(index_t n, const T* A, index_t lda) : n_(n), M_(static_cast<std::size_t>(n * n)) {
    for (index_t j = 0; j < n; ++j)
      for (index_t i = 0; i < n; ++i)
        M_[i + n * j] = A[i + lda * j];
  }
  void fetch_panel(index_t j0, index_t nb, T* A, index_t lda) override {
    for (index_t j = j0; j < j0 + nb; ++j)
      for (index_t i = j0; i < n_; ++i)
        A[i + lda * j] = M_[i + n_ * j];
  }
  void symv(index_t g0, index_t m, const T* v, T* w) override {
    Context ctx;
    ctx.threads = 1;
    symv_reference(ctx, m, T(1), M_.data() + g0 + n_ * g0, n_, v, T(0), w);
  }
  void update(index_t s, index_t m, index_t kb, const T* V, index_t ldv, const T* W,
              index_t ldw) override {
    for (index_t j = 0; j < m; ++j)
      for (index_t i = j; i < m; ++i) {
        T c = M_[(s + i) + n_ * (s + j)];
        for (index_t k = 0; k < kb; ++k) {
          c = madd(V[i + ldv * k], -conj(W[j + ldw * k]), c);
          c = madd(W[i + ldw * k], -conj(V[j + ldv * k]), c);
        }
        if (i == j) {
          if constexpr (is_complex_v<T>) c.im = real_t<T>(0);
        }
        M_[(s + i) + n_ * (s + j)] = c;
      }
  }
  void fetch_tail(index_t j0, T* A, index_t lda) override {
    for (index_t j = j0; j < n_; ++j)
      for (index_t i = j0; i < n_; ++i)
        A[i + lda * j] = M_[i + n_ * j];
  }

 private:
  index_t n_;
  std::vector<T> M_;
};

template <class T>
class TridiagHooks : public ::testing::Test {};
using Scalars = ::testing::Types<float, double, Complex<float>, Complex<double>, dd_real>;
TYPED_TEST_SUITE(TridiagHooks, Scalars);

TYPED_TEST(TridiagHooks, HostDeviceGivesTheCpuBits) {
  using T = TypeParam;
  using R = real_t<T>;
  std::mt19937_64 g(11);
  for (index_t n : {1, 2, 33, 64, 65, 150}) {
    for (int nb : {32, 8, 1}) {
      const index_t lda = n + 2;
      std::vector<T> A1(static_cast<std::size_t>(lda * n), T(0));
      for (index_t j = 0; j < n; ++j)
        for (index_t i = j; i < n; ++i)
          A1[i + lda * j] = random_scalar<T>(g);
      std::vector<T> A2 = A1;
      std::vector<R> d1(n), e1(n, R(0)), d2(n), e2(n, R(0));
      std::vector<T> t1(n, T(0)), t2(n, T(0));
      Context ctx;
      ctx.threads = 2;
      TridiagOptions o;
      o.nb = nb;
      tridiagonalize(ctx, n, A1.data(), lda, d1.data(), e1.data(), t1.data(), o);
      HostDevice<T> dev(n, A2.data(), lda);
      // The host copy's trailing part is stale on purpose: only what the protocol fetches counts.
      for (index_t j = 0; j < n; ++j)
        for (index_t i = j; i < n; ++i)
          A2[i + lda * j] = T(7);
      tridiagonalize(ctx, n, A2.data(), lda, d2.data(), e2.data(), t2.data(), o, &dev);
      auto same = [](const auto& a, const auto& b) {
        return std::memcmp(a.data(), b.data(), a.size() * sizeof(a[0])) == 0;
      };
      EXPECT_TRUE(same(d1, d2)) << ScalarTraits<T>::name << " n=" << n << " nb=" << nb;
      EXPECT_TRUE(same(e1, e2)) << ScalarTraits<T>::name << " n=" << n << " nb=" << nb;
      EXPECT_TRUE(same(t1, t2)) << ScalarTraits<T>::name << " n=" << n << " nb=" << nb;
      bool lower = true;
      for (index_t j = 0; j < n; ++j)
        for (index_t i = j; i < n; ++i)
          lower = lower && std::memcmp(&A1[i + lda * j], &A2[i + lda * j], sizeof(T)) == 0;
      EXPECT_TRUE(lower) << ScalarTraits<T>::name << " n=" << n << " nb=" << nb;
    }
  }
}

}  // namespace
