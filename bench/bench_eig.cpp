// bench_eig: the full eigenvalue solve (eigensolve<double>, bisection) against LAPACKE_dsyevd on
// the same matrix in the same process. Prints per-stage times, the ratio and one JSON line per
// case. Usage: bench_eig [threads=2] [n ...]   (default n = 512 1024 2048; vectors at 1024)
#include <lapacke.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <nlohmann/json.hpp>

#include "solver/bisection.hpp"
#include "solver/eigensolve.hpp"

extern "C" void openblas_set_num_threads(int);

namespace {

using eigsolve::index_t;
using Clock = std::chrono::steady_clock;

eigsolve::HostMatrix<double> random_symmetric(index_t n) {
  eigsolve::HostMatrix<double> A(n);
  std::uint64_t s = 12345;
  for (index_t j = 0; j < n; ++j)
    for (index_t i = j; i < n; ++i) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      A(i, j) = A(j, i) = static_cast<double>(s >> 11) * 0x1p-52 - 1.0;
    }
  return A;
}

void run_case(index_t n, int threads, bool vectors) {
  const auto A0 = random_symmetric(n);
  // LAPACK reference.
  auto B = A0;
  std::vector<double> wl(n);
  auto t0 = Clock::now();
  int info = LAPACKE_dsyevd(LAPACK_COL_MAJOR, vectors ? 'V' : 'N', 'L', n, B.ptr(), n, wl.data());
  const double t_lapack = std::chrono::duration<double>(Clock::now() - t0).count();
  if (info != 0) std::fprintf(stderr, "dsyevd info = %d\n", info);
  // Ours.
  auto A = A0;
  eigsolve::Context ctx;
  ctx.threads = threads;
  eigsolve::SolveOptions opt;
  opt.vectors = vectors;
  t0 = Clock::now();
  auto r = eigsolve::eigensolve(ctx, A, opt);
  const double t_ours = std::chrono::duration<double>(Clock::now() - t0).count();
  double err = 0, wmax = 0;
  for (index_t k = 0; k < n; ++k) {
    err = std::max(err, std::fabs(r.w[k] - wl[k]));
    wmax = std::max(wmax, std::fabs(wl[k]));
  }
  const double rel = err / (wmax * double(n) * 0x1p-53);
  std::printf(
      "n=%5lld vectors=%d threads=%d  ours %.3f s (tridiag %.3f, eig %.3f, back %.3f)  "
      "dsyevd %.3f s  ratio %.2f  max|dw|/(n u ||A||) = %.2f\n",
      static_cast<long long>(n), vectors, threads, t_ours, r.times.tridiagonalize,
      r.times.tridiag_eigen, r.times.back_transform, t_lapack, t_ours / t_lapack, rel);
  const nlohmann::ordered_json js = {{"bench", "eig"},
                                     {"n", static_cast<long long>(n)},
                                     {"vectors", vectors},
                                     {"threads", threads},
                                     {"ours_s", t_ours},
                                     {"tridiagonalize_s", r.times.tridiagonalize},
                                     {"tridiag_eigen_s", r.times.tridiag_eigen},
                                     {"back_transform_s", r.times.back_transform},
                                     {"dsyevd_s", t_lapack},
                                     {"ratio", t_ours / t_lapack},
                                     {"max_err_over_n_u_norm", rel}};
  std::printf("%s\n", js.dump().c_str());
  std::fflush(stdout);
}

double seconds(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// The tridiagonal stage alone on T from LAPACKE_dsytrd: bisection vs dsterf vs dstedc('N').
void run_tridiag_case(index_t n, int threads) {
  auto A = random_symmetric(n);
  std::vector<double> d(n), e(n), tau(n);
  LAPACKE_dsytrd(LAPACK_COL_MAJOR, 'L', n, A.ptr(), n, d.data(), e.data(), tau.data());
  eigsolve::Context ctx;
  ctx.threads = threads;
  std::vector<double> w(n), d1(d), e1(e), d2(d), e2(e), naive(n);
  auto t0 = Clock::now();
  eigsolve::bisection_eigenvalues(ctx, n, d.data(), e.data(), 0, n - 1, w.data());
  const double t_bis = seconds(t0);
  t0 = Clock::now();
  LAPACKE_dsterf(n, d1.data(), e1.data());
  const double t_sterf = seconds(t0);
  t0 = Clock::now();
  LAPACKE_dstedc(LAPACK_COL_MAJOR, 'N', n, d2.data(), e2.data(), nullptr, 1);
  const double t_stedc = seconds(t0);
  double err = 0;
  for (index_t k = 0; k < n; ++k)
    err = std::max(err, std::fabs(w[k] - d1[k]));
  std::printf("T-stage n=%5lld: bisection %.4f s  dsterf %.4f s  dstedc(N) %.4f s  max|dw| %.2e\n",
              static_cast<long long>(n), t_bis, t_sterf, t_stedc, err);
  const nlohmann::ordered_json js = {{"bench", "eig_tridiag"}, {"n", static_cast<long long>(n)},
                                     {"threads", threads},     {"bisection_s", t_bis},
                                     {"dsterf_s", t_sterf},    {"dstedc_s", t_stedc}};
  std::printf("%s\n", js.dump().c_str());
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 2;
  openblas_set_num_threads(threads);
  std::vector<index_t> sizes;
  for (int i = 2; i < argc; ++i)
    sizes.push_back(std::atoll(argv[i]));
  const bool defaults = sizes.empty();
  if (defaults) sizes = {512, 1024, 2048};
  for (index_t n : sizes)
    run_tridiag_case(n, threads);
  for (index_t n : sizes)
    run_case(n, threads, false);
  if (defaults) run_case(1024, threads, true);
  return 0;
}
