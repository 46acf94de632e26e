// The C API (include/eigsolve/symv.h) on a device == symv_reference bitwise, for s, d, c, z, dd:
// 'L' and 'U' ('U' storage = the conjugate transpose of the 'L' storage, other triangle poisoned
// with NaN), leading dimensions, negative and non-unit increments, alpha/beta special values
// (alpha == 0 never reads A, beta == 0 never reads y, alpha == 0 and beta == 1 touches nothing),
// plain and handle entry points on a user stream with growing and shrinking n, and the status
// codes of bad arguments and host pointers. CTest label gpu.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "core/context.hpp"
#include "core/precision.hpp"
#include "eigsolve/symv.h"
#include "symv/reference.hpp"
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

template <class T>
T conj_scalar(const T& v) {
  if constexpr (is_complex_v<T>)
    return T(v.re, -v.im);
  else
    return v;
}

// The C API per scalar type.
template <class T>
struct CApi;
#define EIGSOLVE_CAPI_BIND(T, C, NAME)                                                           \
  template <>                                                                                    \
  struct CApi<T> {                                                                               \
    using CT = C;                                                                                \
    static int call(eigsolve_handle_t h, char uplo, index_t n, T alpha, const T* A, index_t lda, \
                    const T* x, index_t incx, T beta, T* y, index_t incy) {                      \
      CT a, b;                                                                                   \
      std::memcpy(&a, &alpha, sizeof(T));                                                        \
      std::memcpy(&b, &beta, sizeof(T));                                                         \
      const CT* cA = reinterpret_cast<const CT*>(A);                                             \
      const CT* cx = reinterpret_cast<const CT*>(x);                                             \
      CT* cy = reinterpret_cast<CT*>(y);                                                         \
      return h ? eigsolve_##NAME##_h(h, uplo, n, a, cA, lda, cx, incx, b, cy, incy)              \
               : eigsolve_##NAME(uplo, n, a, cA, lda, cx, incx, b, cy, incy);                    \
    }                                                                                            \
  };
EIGSOLVE_CAPI_BIND(float, float, ssymv)
EIGSOLVE_CAPI_BIND(double, double, dsymv)
EIGSOLVE_CAPI_BIND(Complex<float>, eigsolve_complex_float, chemv)
EIGSOLVE_CAPI_BIND(Complex<double>, eigsolve_complex_double, zhemv)
EIGSOLVE_CAPI_BIND(dd_real, eigsolve_dd, ddsymv)
#undef EIGSOLVE_CAPI_BIND

struct Case {
  index_t n = 0, lda = 0, incx = 1, incy = 1;
  char uplo = 'L';
  int alpha_kind = 0, beta_kind = 0;  // 0 random, 1 one, 2 zero, 3 minus one
  bool null_a_when_unused = false;    // alpha == 0: pass A = x = NULL
};

/// Runs one case through the C API (handle h, or the plain entry point when h == nullptr) and
/// compares with symv_reference on the 'L' storage (alpha == 0: with beta*y).
template <class T>
void run_case(const Case& c, eigsolve_handle_t h, cudaStream_t stream, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  const index_t n = c.n, lda = std::max<index_t>({1, c.lda, n});
  // L: the lower storage; S: what the caller passes ('L': L itself, 'U': its conj transpose).
  std::vector<T> L(std::size_t(lda * std::max<index_t>(n, 1)));
  for (auto& v : L)
    v = random_scalar<T>(g);
  std::vector<T> S(L.size(), nan_scalar<T>());
  for (index_t j = 0; j < n; ++j)
    for (index_t i = 0; i < n; ++i) {
      if (i < j) L[i + lda * j] = nan_scalar<T>();  // never read by 'L'
      if (c.uplo == 'L' || c.uplo == 'l') {
        if (i >= j) S[i + lda * j] = L[i + lda * j];
      } else if (i >= j) {
        S[j + lda * i] = conj_scalar(L[i + lda * j]);  // 'U' storage; the strict lower stays NaN
      }
    }
  const index_t ax = std::abs(c.incx), ay = std::abs(c.incy);
  std::vector<T> xs(std::size_t(std::max<index_t>(1, n * ax))),
      ys(std::size_t(std::max<index_t>(1, n * ay)));
  for (auto& v : xs)
    v = random_scalar<T>(g);
  for (auto& v : ys)
    v = random_scalar<T>(g);
  const T alpha = special<T>(c.alpha_kind, g), beta = special<T>(c.beta_kind, g);
  if (c.beta_kind == 2)
    for (auto& v : ys)
      v = nan_scalar<T>();  // beta == 0: y must not be read
  auto xi = [&](index_t i) { return c.incx > 0 ? i * c.incx : (n - 1 - i) * ax; };
  auto yi = [&](index_t i) { return c.incy > 0 ? i * c.incy : (n - 1 - i) * ay; };
  std::vector<T> x(std::size_t(std::max<index_t>(1, n))), y(std::size_t(std::max<index_t>(1, n)));
  for (index_t i = 0; i < n; ++i) {
    x[i] = xs[xi(i)];
    y[i] = ys[yi(i)];
  }
  const bool alpha_zero = c.alpha_kind == 2;
  if (!alpha_zero) {
    Context ctx;
    ctx.threads = 2;
    symv_reference<T>(ctx, n, alpha, L.data(), lda, x.data(), beta, y.data());
  } else if (!(c.beta_kind == 1)) {
    for (index_t i = 0; i < n; ++i)
      y[i] = c.beta_kind == 2 ? T(0) : beta * y[i];
  }
  DevBuf<T> dA(S.size()), dx(xs.size()), dy(ys.size());
  dA.put(S);
  dx.put(xs);
  dy.put(ys);
  const bool pass_null = alpha_zero && c.null_a_when_unused;
  const int st = CApi<T>::call(h, c.uplo, n, alpha, pass_null ? nullptr : dA.p, lda,
                               pass_null ? nullptr : dx.p, c.incx, beta, dy.p, c.incy);
  ASSERT_EQ(st, 0) << eigsolve_status_string(st) << ": " << eigsolve_last_error();
  CUDA_OK(cudaStreamSynchronize(stream));
  CUDA_OK(cudaDeviceSynchronize());
  const std::vector<T> out = dy.get();
  for (index_t i = 0; i < n; ++i)
    if (!same_bits(out[yi(i)], y[i])) {
      ADD_FAILURE() << ScalarTraits<T>::name << " uplo=" << c.uplo << " n=" << n << " lda=" << lda
                    << " incx=" << c.incx << " incy=" << c.incy << " alpha_kind=" << c.alpha_kind
                    << " beta_kind=" << c.beta_kind << " handle=" << (h != nullptr)
                    << ": first mismatch at row " << i << " (GPU "
                    << to_double(real_part(out[yi(i)])) << ", CPU " << to_double(real_part(y[i]))
                    << ")";
      break;
    }
  for (std::size_t k = 0; k < ys.size(); ++k)
    if (ay > 1 && k % std::size_t(ay) != 0 && !same_bits(out[k], ys[k])) {
      ADD_FAILURE() << "wrote y outside its stride at " << k;
      break;
    }
}

template <class T>
class GpuSymvCapi : public ::testing::Test {};
using Scalars = ::testing::Types<float, double, Complex<float>, Complex<double>, dd_real>;
TYPED_TEST_SUITE(GpuSymvCapi, Scalars);

TYPED_TEST(GpuSymvCapi, LowerAndUpperEqualReference) {
  EIGSOLVE_REQUIRE_DEVICE();
  std::uint64_t seed = 1;
  for (char uplo : {'L', 'U', 'l', 'u'})
    for (index_t n : {1, 2, 31, 64, 65, 129, 300}) {
      Case c;
      c.n = n;
      c.uplo = uplo;
      c.lda = n + (n % 2 ? 0 : 3);
      run_case<TypeParam>(c, nullptr, nullptr, seed++);
      if (::testing::Test::HasFailure()) return;
    }
}

TYPED_TEST(GpuSymvCapi, IncrementsAndLeadingDimensions) {
  EIGSOLVE_REQUIRE_DEVICE();
  std::uint64_t seed = 100;
  for (char uplo : {'L', 'U'})
    for (index_t n : {33, 200})
      for (auto inc : {std::pair<index_t, index_t>{2, 1}, {1, 3}, {-1, 1}, {2, -2}, {-3, -1}}) {
        Case c;
        c.n = n;
        c.uplo = uplo;
        c.lda = n + 5;
        c.incx = inc.first;
        c.incy = inc.second;
        run_case<TypeParam>(c, nullptr, nullptr, seed++);
        if (::testing::Test::HasFailure()) return;
      }
}

TYPED_TEST(GpuSymvCapi, AlphaBetaSpecialValues) {
  EIGSOLVE_REQUIRE_DEVICE();
  std::uint64_t seed = 300;
  for (char uplo : {'L', 'U'})
    for (int ak = 0; ak < 4; ++ak)
      for (int bk = 0; bk < 4; ++bk)
        for (bool null_a : {false, true}) {
          if (null_a && ak != 2) continue;
          Case c;
          c.n = 70;
          c.lda = 71;
          c.uplo = uplo;
          c.alpha_kind = ak;
          c.beta_kind = bk;
          c.incy = bk == 0 ? -2 : 1;
          c.null_a_when_unused = null_a;
          run_case<TypeParam>(c, nullptr, nullptr, seed++);
          if (::testing::Test::HasFailure()) return;
        }
}

TYPED_TEST(GpuSymvCapi, HandleOnAStreamGrowingAndShrinking) {
  EIGSOLVE_REQUIRE_DEVICE();
  cudaStream_t s = nullptr;
  CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  eigsolve_handle_t h = nullptr;
  ASSERT_EQ(eigsolve_create(&h), 0) << eigsolve_last_error();
  ASSERT_EQ(eigsolve_set_stream(h, s), 0);
  struct CUstream_st* got = nullptr;
  ASSERT_EQ(eigsolve_get_stream(h, &got), 0);
  EXPECT_EQ(got, s);
  std::uint64_t seed = 500;
  for (index_t n : {10, 700, 65, 1500, 1, 640}) {
    for (char uplo : {'L', 'U'}) {
      Case c;
      c.n = n;
      c.lda = n + 1;
      c.uplo = uplo;
      run_case<TypeParam>(c, h, s, seed++);
      // The same handle serves another precision in between.
      Case d = c;
      d.n = n / 2 + 1;
      run_case<double>(d, h, s, seed++);
    }
    if (::testing::Test::HasFailure()) break;
  }
  EXPECT_EQ(eigsolve_destroy(h), 0);
  cudaStreamDestroy(s);
}

TEST(GpuSymvCapiStatus, QuickReturnTouchesNothing) {
  EIGSOLVE_REQUIRE_DEVICE();
  const std::vector<double> y0 = {1.5, -2.0, 3.25};
  DevBuf<double> dy(3);
  dy.put(y0);
  EXPECT_EQ(eigsolve_dsymv('U', 3, 0.0, nullptr, 3, nullptr, 1, 1.0, dy.p, 1), 0);
  EXPECT_EQ(eigsolve_dsymv('L', 0, 2.0, nullptr, 1, nullptr, 1, 0.0, nullptr, 1), 0);
  CUDA_OK(cudaDeviceSynchronize());
  EXPECT_EQ(dy.get(), y0);
}

TEST(GpuSymvCapiStatus, BadArgumentsAndHostPointers) {
  EIGSOLVE_REQUIRE_DEVICE();
  DevBuf<double> dA(16), dx(4), dy(4);
  EXPECT_EQ(eigsolve_dsymv('T', 4, 1.0, dA.p, 4, dx.p, 1, 0.0, dy.p, 1), -1);
  EXPECT_EQ(eigsolve_dsymv('L', -4, 1.0, dA.p, 4, dx.p, 1, 0.0, dy.p, 1), -2);
  EXPECT_EQ(eigsolve_dsymv('L', 4, 1.0, nullptr, 4, dx.p, 1, 0.0, dy.p, 1), -4);
  EXPECT_EQ(eigsolve_dsymv('U', 4, 1.0, dA.p, 3, dx.p, 1, 0.0, dy.p, 1), -5);
  EXPECT_EQ(eigsolve_dsymv('L', 4, 1.0, dA.p, 4, nullptr, 1, 0.0, dy.p, 1), -6);
  EXPECT_EQ(eigsolve_dsymv('L', 4, 1.0, dA.p, 4, dx.p, 0, 0.0, dy.p, 1), -7);
  EXPECT_EQ(eigsolve_dsymv('L', 4, 1.0, dA.p, 4, dx.p, 1, 0.0, nullptr, 1), -9);
  EXPECT_EQ(eigsolve_dsymv('L', 4, 1.0, dA.p, 4, dx.p, 1, 0.0, dy.p, 0), -10);
  EXPECT_EQ(eigsolve_dsymv_h(nullptr, 'L', 4, 1.0, dA.p, 4, dx.p, 1, 0.0, dy.p, 1),
            EIGSOLVE_STATUS_INVALID_HANDLE);
  int dev = 0, pageable = 0;
  CUDA_OK(cudaGetDevice(&dev));
  CUDA_OK(cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, dev));
  if (!pageable) {
    std::vector<double> host(16, 1.0);
    EXPECT_EQ(eigsolve_dsymv('L', 4, 1.0, host.data(), 4, dx.p, 1, 0.0, dy.p, 1), -4);
    EXPECT_EQ(eigsolve_dsymv('L', 4, 1.0, dA.p, 4, host.data(), 1, 0.0, dy.p, 1), -6);
    EXPECT_EQ(eigsolve_dsymv('L', 4, 1.0, dA.p, 4, dx.p, 1, 0.0, host.data(), 1), -9);
  }
  // Nothing above left a CUDA error behind.
  CUDA_OK(cudaDeviceSynchronize());
  CUDA_OK(cudaGetLastError());
}

}  // namespace
