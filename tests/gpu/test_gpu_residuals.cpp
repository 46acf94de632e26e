// Device residuals (app/residuals_cuda.hpp) against the host's (app/residuals.hpp): on a solve
// whose eigenvectors were spoiled on purpose both must give the same large numbers (to 1e-6
// relative: only the summation order differs), and on a good solve both must be tiny.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

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

}  // namespace
