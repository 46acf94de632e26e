// The canonical scalar arithmetic (core/complex.hpp, core/dd_real.hpp) compiled for the device
// gives the same bits as on the host: the premise of backend-independent results. Also the
// negation of a rounded result (an exact +0 gives -0) as the device kernels write it.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include <cmath>
#include <cstring>

#include "core/precision.hpp"
#include "core/dd_real.hpp"
#include "core/neg_rounded.hpp"
#include "gpu_guard.hpp"

using eigsolve::cdouble;
using eigsolve::dd_real;

namespace {

constexpr int kOps = 10;

__host__ __device__ void dd_ops(const dd_real& a, const dd_real& b, dd_real* out) {
  out[0] = a + b;
  out[1] = a - b;
  out[2] = a * b;
  out[3] = a / b;
  out[4] = eigsolve::sqrt_(eigsolve::abs(a));
  out[5] = eigsolve::madd(a, b, out[0]);
  out[6] = eigsolve::scale2(a, -7) * b + a;
  out[7] = (a * a - b * b) / (a + b);
  out[8] = eigsolve::madd_branchy(a, b, out[0]);  // the rank-2k's madd: the same bits as [5]
  out[9] = eigsolve::madd_hiword(a, b, out[0]);   // the dd SYMV's: the same bits as [5]
}

__host__ __device__ void complex_ops(const cdouble& a, const cdouble& b, cdouble* out) {
  out[0] = a * b;
  out[1] = eigsolve::madd(a, b, out[0]);
  out[2] = eigsolve::madd_conj(a, b, a);
  out[3] = a / b;
  out[4] = cdouble(eigsolve::abs2(a), eigsolve::abs1(b));
  out[5] = a + b * a - b;
  out[6] = eigsolve::conj(a) * b;
  out[7] = (a * b) / (a + b);
  out[8] = a - b;
  out[9] = eigsolve::madd(b, a, b);
}

__global__ void run_dd(int n, const dd_real* a, const dd_real* b, dd_real* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dd_ops(a[i], b[i], out + kOps * i);
}
__global__ void run_complex(int n, const cdouble* a, const cdouble* b, cdouble* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) complex_ops(a[i], b[i], out + kOps * i);
}

template <class T>
T* to_device(const std::vector<T>& v) {
  T* p = nullptr;
  EXPECT_EQ(cudaMalloc(&p, v.size() * sizeof(T)), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  return p;
}

/// Bitwise equal; a dd NaN (high word NaN) matches any dd NaN: NaN payloads are not in the
/// contract (the host's default NaN is negative, the device's positive).
bool same(const dd_real& x, const dd_real& y) {
  if (std::isnan(x.hi) || std::isnan(y.hi)) return std::isnan(x.hi) && std::isnan(y.hi);
  return std::memcmp(&x, &y, sizeof(dd_real)) == 0;
}
bool same(const cdouble& x, const cdouble& y) {
  return std::memcmp(&x, &y, sizeof(cdouble)) == 0;
}

template <class T, class Kernel, class HostOp>
void check(const std::vector<T>& a, const std::vector<T>& b, Kernel kernel, HostOp host) {
  const int n = static_cast<int>(a.size());
  T *da = to_device(a), *db = to_device(b), *dout = nullptr;
  ASSERT_EQ(cudaMalloc(&dout, sizeof(T) * kOps * n), cudaSuccess);
  kernel<<<(n + 127) / 128, 128>>>(n, da, db, dout);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  std::vector<T> got(static_cast<std::size_t>(kOps) * n);
  ASSERT_EQ(cudaMemcpy(got.data(), dout, got.size() * sizeof(T), cudaMemcpyDeviceToHost),
            cudaSuccess);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dout);
  int mismatches = 0;
  for (int i = 0; i < n; ++i) {
    T want[kOps];
    host(a[i], b[i], want);
    for (int k = 0; k < kOps; ++k)
      if (!same(want[k], got[kOps * i + k])) ++mismatches;
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(GpuArith, DoubleDoubleBitwiseEqualToHost) {
  EIGSOLVE_REQUIRE_DEVICE();
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<dd_real> a, b;
  for (int i = 0; i < 100000; ++i) {
    double ah = std::ldexp(u(rng), static_cast<int>(rng() % 200) - 100);
    double bh = std::ldexp(u(rng), static_cast<int>(rng() % 200) - 100);
    a.push_back(dd_real::from_sum(ah, std::ldexp(u(rng), -60) * ah));
    b.push_back(dd_real::from_sum(bh, std::ldexp(u(rng), -60) * bh));
  }
  check(a, b, run_dd, dd_ops);
}

/// Zeros of both signs, subnormals whose high word is zero (0x1p-1074: the device's signed-zero
/// tests look at the two 32-bit words), exact cancellation, huge and tiny magnitudes: every
/// pair, so the zero-sign selects of +, * and / take both branches with every sign.
TEST(GpuArith, DoubleDoubleSignedZerosAndSubnormalsBitwiseEqualToHost) {
  EIGSOLVE_REQUIRE_DEVICE();
  const double hs[] = {0.0,       1.0,         0x1p-1074, 3 * 0x1p-1074, 0x1p-1042,
                       0x1p-1022, 0x1.8p-1000, 0.1,       1.5,           0x1p+1000};
  std::vector<dd_real> v;
  for (double h : hs)
    for (double sg : {1.0, -1.0}) {
      v.push_back(dd_real(sg * h, 0.0));
      v.push_back(dd_real(sg * h, -0.0));
      if (h >= 0x1p-1000) {  // a low word below the high word's half ulp
        v.push_back(dd_real::from_sum(sg * h, sg * h * 0x1p-60));
        v.push_back(dd_real::from_sum(sg * h, -sg * h * 0x1p-70));
      }
    }
  std::vector<dd_real> a, b;
  for (const dd_real& x : v)
    for (const dd_real& y : v) {
      a.push_back(x);
      b.push_back(y);
    }
  for (const dd_real& x : v) {  // x + (-x) and x - x: exact zeros from cancellation
    a.push_back(x);
    b.push_back(-x);
  }
  check(a, b, run_dd, dd_ops);
}

TEST(GpuArith, ComplexBitwiseEqualToHost) {
  EIGSOLVE_REQUIRE_DEVICE();
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<cdouble> a, b;
  for (int i = 0; i < 100000; ++i) {
    a.emplace_back(u(rng), u(rng));
    b.emplace_back(u(rng) * 1e3, u(rng) * 1e-3);
  }
  check(a, b, run_complex, complex_ops);
}

/// The negations of rounded results as the device kernels write them: a plain -(...) of a complex
/// product or an fma (householder/cuda/two_stage_device.cu u = -(conj(tau) * w), solver/cuda/
/// back_transform_kernels.cuh ny = -s, the bulge chase's t and u), relying on nvcc (-fmad=false)
/// to negate the rounded value. Outputs 5 and 6 hold float results, widened (exact).
__global__ void run_neg(int n, const cdouble* a, const cdouble* b, cdouble* out) {
  using eigsolve::cfloat;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const cdouble x = a[i], y = b[i];
  cdouble* o = out + kOps * i;
  o[0] = -(x * y);
  o[1] = -(eigsolve::conj(x) * y);
  o[2] = -eigsolve::madd(x, y, x);
  o[3] = -eigsolve::madd_conj(x, y, y);
  o[4] = cdouble(-eigsolve::madd(x.re, y.re, x.im), -eigsolve::madd(x.im, y.im, y.re));
  const cfloat xf(float(x.re), float(x.im)), yf(float(y.re), float(y.im));
  const cfloat pf = -(xf * yf), mf = -eigsolve::madd(xf, yf, xf);
  o[5] = cdouble(pf.re, pf.im);
  o[6] = cdouble(mf.re, mf.im);
  o[7] = -(y * x);
  o[8] = -(x - y);
}

/// The same on the host through neg_rounded (core/neg_rounded.hpp): the spec's value.
void neg_ops(const cdouble& x, const cdouble& y, cdouble* o) {
  using eigsolve::cfloat;
  using eigsolve::neg_rounded;
  o[0] = neg_rounded(x * y);
  o[1] = neg_rounded(eigsolve::conj(x) * y);
  o[2] = neg_rounded(eigsolve::madd(x, y, x));
  o[3] = neg_rounded(eigsolve::madd_conj(x, y, y));
  o[4] = cdouble(neg_rounded(eigsolve::madd(x.re, y.re, x.im)),
                 neg_rounded(eigsolve::madd(x.im, y.im, y.re)));
  const cfloat xf(float(x.re), float(x.im)), yf(float(y.re), float(y.im));
  const cfloat pf = neg_rounded(xf * yf), mf = neg_rounded(eigsolve::madd(xf, yf, xf));
  o[5] = cdouble(pf.re, pf.im);
  o[6] = cdouble(mf.re, mf.im);
  o[7] = neg_rounded(y * x);
  o[8] = neg_rounded(x - y);
}

/// Components from {+-0, +-0.5, +-1, +-2} in every combination: products and fmas that cancel
/// exactly, with every sign of their terms. The device's plain negation must give the host's
/// neg_rounded bits (-0 for an exact +0; a negated fma folded into fnmsub would give +0).
TEST(GpuArith, NegatedRoundedResultsBitwiseEqualToHost) {
  EIGSOLVE_REQUIRE_DEVICE();
  const double vals[] = {0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.0, -2.0};
  std::vector<cdouble> c;
  for (double re : vals)
    for (double im : vals)
      c.emplace_back(re, im);
  std::vector<cdouble> a, b;
  for (const cdouble& x : c)
    for (const cdouble& y : c) {
      a.push_back(x);
      b.push_back(y);
    }
  check(a, b, run_neg, neg_ops);
  // and the host's own check that these operands do produce exact zeros of both kinds
  int zeros = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    cdouble o[kOps];
    neg_ops(a[i], b[i], o);
    for (const cdouble& z : o)
      zeros += (z.re == 0.0 && std::signbit(z.re)) + (z.im == 0.0 && std::signbit(z.im));
  }
  EXPECT_GT(zeros, 1000);
}

}  // namespace
