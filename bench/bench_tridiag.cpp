// bench_tridiag: the canonical CPU tridiagonalization and SYMV against LAPACKE_dsytrd and
// cblas_dsymv (OpenBLAS) in the same process, on the same matrices and thread count.
//
//   bench_tridiag [--threads T] [--sizes n1,n2,...] [--dd-sizes n1,...] [--sz-sizes n1,...]
//                 [--sz-prec szc] [--hemv-sizes n1,...] [--reps R]
//
// --hemv-sizes: the SYMV / HEMV alone, symv_reference<float / double / Complex<float> /
// Complex<double>> against cblas_ssymv / dsymv / chemv / zhemv (best of R batches; --sz-prec
// picks any of s, d, c, z; default none).
// --sz-sizes: tridiagonalize<float> / <Complex<double>> / <Complex<float>> against
// LAPACKE_ssytrd / zhetrd / chetrd; --sz-prec: which of them (default szc, e.g. c for chetrd only)
// (median of R runs each; empty list skips them).
// Prints one human line per measurement and a final JSON line. Results are verified (the
// eigenvalues of both tridiagonal forms agree within c n eps ||A||).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <cblas.h>
#include <lapacke.h>

#include <nlohmann/json.hpp>

#include "householder/tridiagonalize.hpp"
#include "symv/reference.hpp"

using namespace eigsolve;

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::vector<double> random_lower(index_t n, unsigned seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> A(static_cast<size_t>(n * n), 0.0);
  for (index_t j = 0; j < n; ++j)
    for (index_t i = j; i < n; ++i)
      A[i + n * j] = u(g);
  return A;
}

std::vector<index_t> parse_list(const char* s) {
  std::vector<index_t> v;
  std::stringstream ss(s);
  std::string tok;
  while (std::getline(ss, tok, ','))
    v.push_back(std::stoll(tok));
  return v;
}

template <class F>
double best_of(int reps, F&& f) {
  double best = 1e300;
  for (int r = 0; r < reps; ++r) {
    const double t0 = now();
    f();
    best = std::min(best, now() - t0);
  }
  return best;
}

struct TridiagTiming {
  index_t n;
  double ours, lapack, max_eig_err;
};

TridiagTiming bench_d(const Context& ctx, index_t n, int reps) {
  const std::vector<double> A0 = random_lower(n, 42 + unsigned(n));
  std::vector<double> A, d(n), e(n), tau(n), dl(n), el(n), taul(n);
  const double ours = best_of(reps, [&] {
    A = A0;
    tridiagonalize(ctx, n, A.data(), n, d.data(), e.data(), tau.data());
  });
  const double lap = best_of(reps, [&] {
    A = A0;
    LAPACKE_dsytrd(LAPACK_COL_MAJOR, 'L', n, A.data(), n, dl.data(), el.data(), taul.data());
  });
  // Verify: eigenvalues of both tridiagonal forms.
  LAPACKE_dsterf(n, d.data(), e.data());
  LAPACKE_dsterf(n, dl.data(), el.data());
  double err = 0, an = 0;
  for (index_t i = 0; i < n; ++i) {
    err = std::max(err, std::fabs(d[i] - dl[i]));
    an = std::max(an, std::fabs(dl[i]));
  }
  return {n, ours, lap, err / an};
}

double median_of(int reps, const std::function<void()>& f) {
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const double t0 = now();
    f();
    t.push_back(now() - t0);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

/// {ours, OpenBLAS} seconds per call of the SYMV / HEMV (best of reps batches).
template <class T>
std::pair<double, double> bench_hemv(const Context& ctx, index_t n, int reps) {
  const std::vector<double> R0 = random_lower(n, 7), I0 = random_lower(n, 77);
  std::vector<T> A(R0.size()), x(n), y(n);
  for (std::size_t i = 0; i < A.size(); ++i) {
    if constexpr (is_complex_v<T>)
      A[i] = T(R0[i], I0[i]);
    else
      A[i] = T(R0[i]);
  }
  for (index_t i = 0; i < n; ++i) {
    if constexpr (is_complex_v<T>)
      x[i] = T(std::sin(double(i)), std::cos(double(i)));
    else
      x[i] = T(std::sin(double(i)));
  }
  const int it = std::max<int>(3, int(2e8 / double(n * n)));
  const T one(1), zero(0);
  const double to = best_of(reps,
                            [&] {
                              for (int k = 0; k < it; ++k)
                                symv_reference(ctx, n, one, A.data(), n, x.data(), zero, y.data());
                            }) /
                    it;
  const double tb = best_of(reps,
                            [&] {
                              for (int k = 0; k < it; ++k) {
                                if constexpr (std::is_same<T, float>::value)
                                  cblas_ssymv(CblasColMajor, CblasLower, n, 1.0f, A.data(), n,
                                              x.data(), 1, 0.0f, y.data(), 1);
                                else if constexpr (std::is_same<T, double>::value)
                                  cblas_dsymv(CblasColMajor, CblasLower, n, 1.0, A.data(), n,
                                              x.data(), 1, 0.0, y.data(), 1);
                                else if constexpr (std::is_same<T, Complex<float>>::value)
                                  cblas_chemv(CblasColMajor, CblasLower, n, &one, A.data(), n,
                                              x.data(), 1, &zero, y.data(), 1);
                                else
                                  cblas_zhemv(CblasColMajor, CblasLower, n, &one, A.data(), n,
                                              x.data(), 1, &zero, y.data(), 1);
                              }
                            }) /
                    it;
  return {to, tb};
}

/// {ours, LAPACKE} medians for float (ssytrd) or Complex<double> (zhetrd).
template <class T>
std::pair<double, double> bench_sz(const Context& ctx, index_t n, int reps) {
  const std::vector<double> R0 = random_lower(n, 42 + unsigned(n));
  const std::vector<double> I0 = random_lower(n, 4242 + unsigned(n));
  std::vector<T> A0(R0.size());
  for (std::size_t i = 0; i < A0.size(); ++i) {
    if constexpr (is_complex_v<T>)
      A0[i] = T(R0[i], I0[i]);
    else
      A0[i] = T(R0[i]);
  }
  std::vector<T> A, tau(n);
  std::vector<real_t<T>> d(n), e(n);
  const double ours = median_of(reps, [&] {
    A = A0;
    tridiagonalize(ctx, n, A.data(), n, d.data(), e.data(), tau.data());
  });
  const double lap = median_of(reps, [&] {
    A = A0;
    if constexpr (std::is_same<T, Complex<float>>::value)
      LAPACKE_chetrd(LAPACK_COL_MAJOR, 'L', n, reinterpret_cast<lapack_complex_float*>(A.data()), n,
                     d.data(), e.data(), reinterpret_cast<lapack_complex_float*>(tau.data()));
    else if constexpr (is_complex_v<T>)
      LAPACKE_zhetrd(LAPACK_COL_MAJOR, 'L', n, reinterpret_cast<lapack_complex_double*>(A.data()),
                     n, d.data(), e.data(), reinterpret_cast<lapack_complex_double*>(tau.data()));
    else
      LAPACKE_ssytrd(LAPACK_COL_MAJOR, 'L', n, A.data(), n, d.data(), e.data(), tau.data());
  });
  return {ours, lap};
}

double bench_dd(const Context& ctx, index_t n) {
  const std::vector<double> A0 = random_lower(n, 42 + unsigned(n));
  std::vector<dd_real> A(A0.begin(), A0.end()), tau(n);
  std::vector<dd_real> d(n), e(n);
  const double t0 = now();
  tridiagonalize(ctx, n, A.data(), n, d.data(), e.data(), tau.data());
  return now() - t0;
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 2, reps = 3;
  std::vector<index_t> sizes = {512, 1024, 2048}, dd_sizes = {256, 512, 1024};
  std::vector<index_t> sz_sizes = {512, 1024};
  std::string sz_prec = "szc";
  std::vector<index_t> hemv_sizes;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--threads"))
      threads = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--sizes"))
      sizes = parse_list(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--dd-sizes"))
      dd_sizes = parse_list(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--sz-sizes"))
      sz_sizes = parse_list(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--hemv-sizes"))
      hemv_sizes = parse_list(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--sz-prec"))
      sz_prec = argv[i + 1];
    else if (!std::strcmp(argv[i], "--reps"))
      reps = std::atoi(argv[i + 1]);
  }
  openblas_set_num_threads(threads);
  Context ctx;
  ctx.threads = threads;
  std::printf("bench_tridiag: %d threads (ours and OpenBLAS), best of %d\n", threads, reps);

  using Json = nlohmann::ordered_json;
  Json js = {{"bench", "tridiag"},          {"threads", threads},
             {"symv", Json::array()},       {"tridiag_d", Json::array()},
             {"tridiag_sz", Json::array()}, {"tridiag_dd", Json::array()}};
  // SYMV alone: bytes = n^2/2 doubles.
  for (index_t n : sizes) {
    const std::vector<double> A = random_lower(n, 7);
    std::vector<double> x(n, 1.0), y(n, 0.0);
    for (index_t i = 0; i < n; ++i)
      x[i] = std::sin(double(i));
    const int it = std::max<int>(3, int(4e8 / double(n * n)));
    const double to = best_of(reps,
                              [&] {
                                for (int k = 0; k < it; ++k)
                                  symv_reference(ctx, n, 1.0, A.data(), n, x.data(), 0.0, y.data());
                              }) /
                      it;
    const double tb = best_of(reps,
                              [&] {
                                for (int k = 0; k < it; ++k)
                                  cblas_dsymv(CblasColMajor, CblasLower, n, 1.0, A.data(), n,
                                              x.data(), 1, 0.0, y.data(), 1);
                              }) /
                      it;
    const double gb = 4.0 * double(n) * double(n) * 1e-9;
    std::printf(
        "symv   d n=%5lld  ours %8.3f ms %6.1f GB/s   openblas %8.3f ms %6.1f GB/s   "
        "ratio %.2f\n",
        (long long)n, to * 1e3, gb / to, tb * 1e3, gb / tb, to / tb);
    js["symv"].push_back({{"n", n}, {"ours_s", to}, {"openblas_s", tb}});
  }
  for (index_t n : hemv_sizes) {
    // bytes = n^2/2 elements of the lower triangle.
    for (char p : std::string("sdcz")) {
      if (sz_prec.find(p) == std::string::npos) continue;
      const auto t = p == 's'   ? bench_hemv<float>(ctx, n, reps)
                     : p == 'd' ? bench_hemv<double>(ctx, n, reps)
                     : p == 'c' ? bench_hemv<Complex<float>>(ctx, n, reps)
                                : bench_hemv<Complex<double>>(ctx, n, reps);
      const double bytes = p == 's' ? 2.0 : p == 'z' ? 8.0 : 4.0;  // per n^2
      const double gb = bytes * double(n) * double(n) * 1e-9;
      std::printf(
          "%s   %c n=%5lld  ours %8.3f ms %6.1f GB/s   openblas %8.3f ms %6.1f GB/s   "
          "ratio %.2f\n",
          p == 's' || p == 'd' ? "symv" : "hemv", p, (long long)n, t.first * 1e3, gb / t.first,
          t.second * 1e3, gb / t.second, t.first / t.second);
      js["symv"].push_back(
          {{"prec", std::string(1, p)}, {"n", n}, {"ours_s", t.first}, {"openblas_s", t.second}});
    }
  }
  std::vector<TridiagTiming> dt;
  for (index_t n : sizes) {
    TridiagTiming t = bench_d(ctx, n, n >= 2048 ? 1 : reps);
    dt.push_back(t);
    std::printf("sytrd  d n=%5lld  ours %8.3f s   LAPACKE %8.3f s   ratio %.2f   eig diff %.1e\n",
                (long long)n, t.ours, t.lapack, t.ours / t.lapack, t.max_eig_err);
    js["tridiag_d"].push_back({{"n", n},
                               {"ours_s", t.ours},
                               {"lapacke_s", t.lapack},
                               {"ratio", t.ours / t.lapack},
                               {"eig_rel_diff", t.max_eig_err}});
  }
  for (index_t n : sz_sizes) {
    const auto has = [&](char p) { return sz_prec.find(p) != std::string::npos; };
    const std::pair<double, double> none{-1.0, -1.0};
    const auto s = has('s') ? bench_sz<float>(ctx, n, reps) : none;
    const auto z = has('z') ? bench_sz<Complex<double>>(ctx, n, reps) : none;
    const auto c = has('c') ? bench_sz<Complex<float>>(ctx, n, reps) : none;
    if (has('s'))
      std::printf("sytrd  s n=%5lld  ours %8.3f s   ssytrd %8.3f s   ratio %.2f\n", (long long)n,
                  s.first, s.second, s.first / s.second);
    if (has('z'))
      std::printf("hetrd  z n=%5lld  ours %8.3f s   zhetrd %8.3f s   ratio %.2f\n", (long long)n,
                  z.first, z.second, z.first / z.second);
    if (has('c'))
      std::printf("hetrd  c n=%5lld  ours %8.3f s   chetrd %8.3f s   ratio %.2f\n", (long long)n,
                  c.first, c.second, c.first / c.second);
    js["tridiag_sz"].push_back({{"n", n},
                                {"s_ours_s", s.first},
                                {"ssytrd_s", s.second},
                                {"z_ours_s", z.first},
                                {"zhetrd_s", z.second},
                                {"c_ours_s", c.first},
                                {"chetrd_s", c.second}});
  }
  for (index_t n : dd_sizes) {
    const double tdd = bench_dd(ctx, n);
    double td = -1;
    for (const auto& t : dt)
      if (t.n == n) td = t.ours;
    if (td < 0) td = bench_d(ctx, n, 1).ours;
    std::printf("sytrd dd n=%5lld  ours %8.3f s   dd/d %.1f\n", (long long)n, tdd, tdd / td);
    js["tridiag_dd"].push_back({{"n", n}, {"ours_s", tdd}, {"d_s", td}, {"dd_over_d", tdd / td}});
  }
  std::printf("%s\n", js.dump().c_str());
  return 0;
}
