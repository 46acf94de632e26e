// Probe (session 53): the device bisection's modes timed on one tridiagonal, without the rest of
// the pipeline (bench eig at n = 16384 in dd spends ~35 s per call on the matrix and the whole
// solve; this takes ~1 s per mode). T is Dumitriu-Edelman's tridiagonal model of a GOE matrix
// (fixed seed), so its spectrum is the semicircle of the random matrices bench eig draws. Each
// argument after the first three is a mode (EIGSOLVE_GPU_BISECT); every result is compared
// bitwise with the first mode's. Session 53 also timed a mode 6 here (L = 2, 3 or 4 per
// eigenvalue), slower in dd and removed (bench/NOTES.md).
// usage: bisect_modes PRECISION(s|d|dd) N REPS MODE...     (exit 1 when bits differ)
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/dd_real.hpp"
#include "core/precision.hpp"
#include "solver/bisection_cuda.hpp"

using namespace eigsolve;

namespace {

template <class R>
int run(index_t n, int reps, int nm, char** modes) {
  std::mt19937_64 g(53);
  std::normal_distribution<double> nd(0.0, std::sqrt(2.0));
  std::vector<R> d(static_cast<std::size_t>(n)), e(static_cast<std::size_t>(n > 1 ? n - 1 : 1));
  for (index_t i = 0; i < n; ++i)
    d[std::size_t(i)] = R(nd(g));
  for (index_t i = 0; i + 1 < n; ++i) {
    std::chi_squared_distribution<double> chi(double(n - 1 - i));
    e[std::size_t(i)] = R(std::sqrt(chi(g)));
  }
  std::vector<R> ref(static_cast<std::size_t>(n)), w(static_cast<std::size_t>(n));
  int bad = 0;
  for (int m = 0; m < nm; ++m) {
    setenv("EIGSOLVE_GPU_BISECT", modes[m], 1);
    std::printf("mode %-6s", modes[m]);
    for (int r = 0; r < reps; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      bisection_eigenvalues_cuda(n, d.data(), e.data(), index_t(0), n - 1, w.data());
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::printf(" %.4f s", s);
      if (m == 0 && r == 0) ref = w;
      if (std::memcmp(ref.data(), w.data(), sizeof(R) * ref.size()) != 0) ++bad;
    }
    std::printf("%s\n", bad ? "  BITS DIFFER from the first mode" : "");
    std::fflush(stdout);
  }
  return bad ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: bisect_modes s|d|dd N REPS MODE...\n");
    return 2;
  }
  const std::string p = argv[1];
  const index_t n = std::atol(argv[2]);
  const int reps = std::atoi(argv[3]);
  std::printf("bisect_modes %s n = %ld, %d runs each (seconds, wall)\n", p.c_str(), long(n), reps);
  if (p == "dd") return run<dd_real>(n, reps, argc - 4, argv + 4);
  if (p == "d") return run<double>(n, reps, argc - 4, argv + 4);
  if (p == "s") return run<float>(n, reps, argc - 4, argv + 4);
  std::fprintf(stderr, "bisect_modes: precision must be s, d or dd\n");
  return 2;
}
