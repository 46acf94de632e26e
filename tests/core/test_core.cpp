// Tier 1: the canonical arithmetic of core/ on exact cases.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "core/canonical.hpp"
#include "core/errors.hpp"
#include "core/huge_pages.hpp"
#include "core/matrix.hpp"
#include "core/parallel.hpp"
#include "core/precision.hpp"

using namespace eigsolve;

TEST(Complex, ProductFollowsTheFixedFmaFormula) {
  // (a+bi)(c+di): re = fma(a, c, -(b*d)), im = fma(a, d, b*c).
  const double a = 1.0 + 0x1p-30, b = 3.0 - 0x1p-29, c = 1.0 - 0x1p-31, d = 7.0 + 0x1p-28;
  cdouble p = cdouble(a, b) * cdouble(c, d);
  EXPECT_EQ(p.re, std::fma(a, c, -(b * d)));
  EXPECT_EQ(p.im, std::fma(a, d, b * c));
  cdouble m = madd(cdouble(a, b), cdouble(c, d), cdouble(0.5, 0.25));
  double re = std::fma(a, c, 0.5);
  re = std::fma(-b, d, re);
  double im = std::fma(a, d, 0.25);
  im = std::fma(b, c, im);
  EXPECT_EQ(m.re, re);
  EXPECT_EQ(m.im, im);
}

TEST(Complex, DivisionIsExactOnExactCases) {
  cdouble q = cdouble(11.0, 7.0) / cdouble(1.0, 2.0);  // (11+7i)/(1+2i) = 5 - 3i
  EXPECT_EQ(q.re, 5.0);
  EXPECT_EQ(q.im, -3.0);
  EXPECT_EQ(abs2(cdouble(3.0, 4.0)), 25.0);
  EXPECT_EQ(conj(cdouble(1.0, 2.0)).im, -2.0);
}

TEST(CanonicalDot, MatchesTheWrittenShapeBitwise) {
  // A length that leaves a partial tile and a partial chunk.
  const index_t n = 64 * 2 + 13;
  std::vector<double> x(n), y(n);
  for (index_t i = 0; i < n; ++i) {
    x[i] = 1.0 / (1.0 + i) + 0x1p-40 * i;
    y[i] = (i % 3 ? 1.0 : -1.0) * (1.0 + 0x1p-20 * i);
  }
  double acc = 0;
  for (index_t t0 = 0; t0 < n; t0 += 64) {
    double c[8];
    for (int k = 0; k < 8; ++k) {
      double s = 0.0;
      for (index_t i = t0 + 8 * k; i < t0 + 8 * k + 8 && i < n; ++i)
        s = std::fma(x[i], y[i], s);
      c[k] = s;
    }
    double p = ((c[0] + c[1]) + (c[2] + c[3])) + ((c[4] + c[5]) + (c[6] + c[7]));
    acc = t0 == 0 ? p : acc + p;
  }
  EXPECT_EQ(canonical_dot(n, x.data(), 1, y.data(), 1), acc);
}

TEST(CanonicalDot, ExactOnSmallIntegers) {
  std::vector<float> x(200), y(200);
  float want = 0;
  for (int i = 0; i < 200; ++i) {
    x[i] = float(i % 7 - 3);
    y[i] = float(i % 5);
    want += x[i] * y[i];
  }
  EXPECT_EQ(canonical_dot(200, x.data(), 1, y.data(), 1), want);
  EXPECT_EQ((canonical_dot<false, float>(0, nullptr, 1, nullptr, 1)), 0.0f);
}

TEST(CanonicalDot, ConjugatesTheFirstArgumentWhenAsked) {
  std::vector<cdouble> x = {{1, 2}, {3, -1}}, y = {{2, 0}, {0, 1}};
  cdouble d = canonical_dot<true>(2, x.data(), 1, y.data(), 1);  // (1-2i)*2 + (3+i)*i = 1 - i
  EXPECT_EQ(d.re, 1.0);
  EXPECT_EQ(d.im, -1.0);
}

TEST(Precision, ParseAndDispatch) {
  EXPECT_EQ(parse_precision("dd"), Precision::dd);
  EXPECT_THROW(parse_precision("q"), UsageError);
  EXPECT_STREQ(dispatch(Precision::z,
                        [](auto tag) { return ScalarTraits<typename decltype(tag)::type>::name; }),
               "z");
  EXPECT_TRUE(is_complex_v<cfloat>);
  EXPECT_FALSE(has_vendor_lapack_v<dd_real>);
}

TEST(Errors, InputErrorNamesFileAndLine) {
  InputError e("a.mtx", 12, "index out of range");
  EXPECT_STREQ(e.what(), "a.mtx:12: index out of range");
  EXPECT_EQ(e.exit_code(), kExitInput);
}

// core/huge_pages.hpp only advises the kernel: every buffer keeps its values. HostMatrix's copies
// go through reserve_huge (its own copy constructor and assignment), so they are checked here.
/// The check of the GPU stages before they allocate (core/errors.hpp): nothing when the bytes fit
/// (equal included), else DeviceError (exit kExitDevice) naming the subject, the bytes needed
/// (`more` when on top of what the stage holds), free and total.
TEST(Errors, RequireDeviceMemoryNamesBytesNeededAndAvailable) {
  EXPECT_NO_THROW(require_device_memory("this problem: order 4 in d", 100, 100, 200));
  try {
    require_device_memory("this problem: order 4 in d", 101, 100, 200);
    FAIL() << "no DeviceError";
  } catch (const DeviceError& e) {
    EXPECT_STREQ(e.what(),
                 "the GPU cannot hold this problem: order 4 in d needs 101 bytes of device memory, "
                 "100 are available (of 200)");
    EXPECT_EQ(e.exit_code(), kExitDevice);
  }
  try {
    require_device_memory("these eigenvectors: order 4 with 2 vectors in z", 7, 5, 9, true);
    FAIL() << "no DeviceError";
  } catch (const DeviceError& e) {
    EXPECT_STREQ(e.what(),
                 "the GPU cannot hold these eigenvectors: order 4 with 2 vectors in z needs 7 more "
                 "bytes of device memory, 5 are available (of 9)");
  }
}

TEST(HugePages, AdviceNeverFailsAndKeepsValues) {
  advise_huge_pages(nullptr, std::size_t(64) << 20);  // no buffer: nothing to advise
  char small[16] = {};
  advise_huge_pages(small, sizeof small);  // under 4 MiB: nothing
  std::vector<double> v = {1, 2, 3};
  reserve_huge(v, std::size_t(1) << 20);  // 8 MiB: advised
  EXPECT_TRUE(v.empty());
  EXPECT_GE(v.capacity(), std::size_t(1) << 20);
  v.assign(std::size_t(1) << 20, -0.0);
  EXPECT_TRUE(std::signbit(v.back()));
  assign_zeros_parallel(v, std::size_t(9) << 20, 2);  // 72 MiB: the parallel path
  ASSERT_EQ(v.size(), std::size_t(9) << 20);
  EXPECT_EQ(v.front(), 0.0);
  EXPECT_EQ(v.back(), 0.0);
  EXPECT_FALSE(std::signbit(v[v.size() / 2]));
}

TEST(HugePages, HostMatrixCopiesAreDeepAndExact) {
  for (index_t n : {index_t(0), index_t(3), index_t(1100)}) {  // 1100: 9.7 MB, advised
    HostMatrix<double> a(n);
    for (index_t j = 0; j < n; ++j)
      for (index_t i = 0; i < n; ++i)
        a(i, j) = (i == j) ? -0.0 : double(i) - 0.5 * double(j);
    HostMatrix<double> b(a);
    ASSERT_EQ(b.n, n);
    ASSERT_EQ(b.data.size(), a.data.size());
    EXPECT_EQ(0, n == 0 ? 0 : std::memcmp(b.ptr(), a.ptr(), a.data.size() * sizeof(double)));
    if (n > 0) {
      b(0, 0) = 7;  // deep: a keeps its -0
      EXPECT_TRUE(std::signbit(a(0, 0)));
    }
    HostMatrix<double> c(5);
    c = a;
    ASSERT_EQ(c.n, n);
    EXPECT_EQ(0, n == 0 ? 0 : std::memcmp(c.ptr(), a.ptr(), a.data.size() * sizeof(double)));
    const HostMatrix<double>& self = c;
    c = self;  // self-assignment keeps everything
    ASSERT_EQ(c.n, n);
    EXPECT_EQ(0, n == 0 ? 0 : std::memcmp(c.ptr(), a.ptr(), a.data.size() * sizeof(double)));
    HostMatrix<double> d(std::move(c));  // moves stay moves
    ASSERT_EQ(d.n, n);
    EXPECT_EQ(d.data.size(), a.data.size());
  }
}
