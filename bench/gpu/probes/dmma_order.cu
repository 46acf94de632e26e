// Probe (session 51): what does the FP64 tensor-core MMA (mma.sync.m8n8k4.f64, DMMA) compute,
// bit for bit? Each output element d = c + a0*b0 + a1*b1 + a2*b2 + a3*b3. The canonical kernels
// need each element to be one fma chain in a fixed order (docs/reproducibility.md); DMMA could
// only replace the CUDA-core chains if it equals such a chain on every input. This compares the
// device's DMMA results against, on the host: the fma chain k = 0..3, the chain k = 3..0, and
// the exact sum rounded once (MPFR). Prints the match counts; exit 0 always (a measurement).
// build: the target dmma_order (EIGSOLVE_BUILD_BENCH=ON), or nvcc -O2 -arch=sm_90 -o dmma_order
// dmma_order.cu -lmpfr -lgmp (the device runs took the static libmpfr.a and libgmp.a)
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mpfr.h>
#include <random>
#include <vector>

__global__ void dmma_kernel(const double* a, const double* b, const double* c, double* d,
                            int tiles) {
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (warp >= tiles) return;
  const double* A = a + warp * 32;  // 8 x 4, row-major
  const double* B = b + warp * 32;  // 4 x 8, column-major (col.k)
  const double* C = c + warp * 64;  // 8 x 8, row-major
  double* D = d + warp * 64;
  const int g = lane / 4, t = lane % 4;
  double ra = A[g * 4 + t];
  double rb = B[g * 4 + t];  // B(k = t, col = g)
  double c0 = C[g * 8 + 2 * t], c1 = C[g * 8 + 2 * t + 1];
  double d0, d1;
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%4,%5};\n"
               : "=d"(d0), "=d"(d1)
               : "d"(ra), "d"(rb), "d"(c0), "d"(c1));
  D[g * 8 + 2 * t] = d0;
  D[g * 8 + 2 * t + 1] = d1;
}

// emax < 0: special values mixed in (signed zeros, subnormals, infinities, NaN, near-overflow)
static double draw(std::mt19937_64& r, int emax) {
  if (emax < 0) {
    static const double sp[] = {0.0,       -0.0,   4.9e-324, -4.9e-324, 2.2e-308,
                                -1.1e-308, 1e308,  -1e308,   1.0 / 0.0, -1.0 / 0.0,
                                0.0 / 0.0, 1e-300, -1e-300,  1.0,       -1.0};
    const unsigned pick = r() % 24;
    if (pick < 15) return sp[pick];
    std::uniform_real_distribution<double> m(1.0, 2.0);
    double v = std::ldexp(m(r), int(r() % 41) - 20);
    return (r() & 1) ? -v : v;
  }
  std::uniform_real_distribution<double> m(1.0, 2.0);
  std::uniform_int_distribution<int> e(-emax, emax);
  double v = std::ldexp(m(r), e(r));
  return (r() & 1) ? -v : v;
}

int main(int argc, char** argv) {
  const int tiles = argc > 1 ? std::atoi(argv[1]) : 200000;
  for (int emax : {0, 4, 30, 60, -1}) {
    int fails = 0;
    std::mt19937_64 rng(12345 + emax);
    std::vector<double> a(tiles * 32), b(tiles * 32), c(tiles * 64), d(tiles * 64);
    for (auto& v : a)
      v = draw(rng, emax);
    for (auto& v : b)
      v = draw(rng, emax);
    for (auto& v : c)
      v = draw(rng, emax);
    // a share of tiles made to cancel: c = -(a0*b0) rounded, so the rest decides
    for (int w = 0; w < tiles && emax >= 0; w += 3)
      for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 8; ++j)
          c[w * 64 + i * 8 + j] = -(a[w * 32 + i * 4] * b[w * 32 + j * 4]);
    double *da, *db, *dc, *dd;
    cudaMalloc(&da, a.size() * 8);
    cudaMalloc(&db, b.size() * 8);
    cudaMalloc(&dc, c.size() * 8);
    cudaMalloc(&dd, d.size() * 8);
    cudaMemcpy(da, a.data(), a.size() * 8, cudaMemcpyHostToDevice);
    cudaMemcpy(db, b.data(), b.size() * 8, cudaMemcpyHostToDevice);
    cudaMemcpy(dc, c.data(), c.size() * 8, cudaMemcpyHostToDevice);
    dmma_kernel<<<(tiles * 32 + 255) / 256, 256>>>(da, db, dc, dd, tiles);
    cudaError_t err = cudaMemcpy(d.data(), dd, d.size() * 8, cudaMemcpyDeviceToHost);
    if (err != cudaSuccess) {
      std::printf("CUDA error: %s\n", cudaGetErrorString(err));
      return 2;
    }
    cudaFree(da);
    cudaFree(db);
    cudaFree(dc);
    cudaFree(dd);
    long n = 0, fwd = 0, rev = 0, exact = 0, pair = 0, none = 0;
    mpfr_t s, p;
    mpfr_init2(s, 4000);
    mpfr_init2(p, 4000);
    for (int w = 0; w < tiles; ++w)
      for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 8; ++j) {
          const double* A = &a[w * 32 + i * 4];
          const double* B = &b[w * 32 + j * 4];
          double cc = c[w * 64 + i * 8 + j], got = d[w * 64 + i * 8 + j];
          double f = cc, r = cc;
          for (int k = 0; k < 4; ++k)
            f = std::fma(A[k], B[k], f);
          for (int k = 3; k >= 0; --k)
            r = std::fma(A[k], B[k], r);
          double pr = std::fma(A[3], B[3], A[2] * B[2]);
          pr = std::fma(A[1], B[1], pr);
          pr = std::fma(A[0], B[0], pr) + cc;
          mpfr_set_d(s, cc, MPFR_RNDN);
          for (int k = 0; k < 4; ++k) {
            mpfr_set_d(p, A[k], MPFR_RNDN);
            mpfr_mul_d(p, p, B[k], MPFR_RNDN);
            mpfr_add(s, s, p, MPFR_RNDN);
          }
          double ex = mpfr_get_d(s, MPFR_RNDN);
          // NaN equals NaN here (payloads are not part of the contract)
          auto same = [](double x, double y) {
            return (std::isnan(x) && std::isnan(y)) || std::memcmp(&x, &y, 8) == 0;
          };
          ++n;
          bool m1 = same(got, f), m2 = same(got, r), m3 = same(got, ex), m4 = same(got, pr);
          fwd += m1;
          rev += m2;
          exact += m3;
          pair += m4;
          none += !(m1 || m2 || m3 || m4);
          if (!m1 && fails < 6) {
            ++fails;
            std::printf(
                "  differs from the chain 0..3: c=%a a.b=(%a*%a, %a*%a, %a*%a, %a*%a) mma=%a "
                "chain=%a exact=%a\n",
                cc, A[0], B[0], A[1], B[1], A[2], B[2], A[3], B[3], got, f, ex);
          }
        }
    mpfr_clear(s);
    mpfr_clear(p);
    std::printf(
        "exponents +-%d: %ld elements; equal to chain 0..3: %ld, chain 3..0: %ld, exact sum "
        "rounded once: %ld, "
        "pairwise: %ld, none of these: %ld\n",
        emax, n, fwd, rev, exact, pair, none);
  }
  return 0;
}
