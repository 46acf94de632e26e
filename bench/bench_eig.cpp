// bench_eig: the full eigenvalue solve (eigensolve<double>, bisection) against LAPACKE_dsyevd on
// the same matrix in the same process. Prints per-stage times, the ratio and one JSON line per
// case. Usage: bench_eig [threads=2] [n ...]   (default n = 512 1024 2048; vectors at 1024)
//        bench_eig values P [threads=2] [reps=5] [n ...]   (P = s, d, c or z; default n = 2048
//        4096): eigenvalues only, per repetition ?syevd/?heevd('N') (LAPACKE) then eigensolve<P>
//        (bisection), interleaved; medians of the whole solves and of our tridiagonalization.
//        bench_eig vectors [threads=2] [reps=5] [n ...]   (default n = 2048): with eigenvectors,
//        per repetition dsyevd('V'), eigensolve with the canonical back-transformation and with
//        ?ormtr (BackTransformMethod::lapack), interleaved; medians, and whether the canonical
//        eigenvectors were bitwise equal over the repetitions. The default reduction (`auto`):
//        since session 47 the two-stage one for the canonical run in d, the one-stage one for
//        ?ormtr (the only one it applies to), so the two Z differ by rounding, not bits.
#include <lapacke.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
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

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

/// With vectors: dsyevd('V') vs ours (canonical back-transformation) vs ours with ?ormtr, reps
/// interleaved repetitions; medians of the whole solves and of the back-transformation alone.
void run_vectors_case(index_t n, int threads, int reps) {
  const auto A0 = random_symmetric(n);
  std::vector<double> t_lapack, t_ours, t_ormtr, bt_ours, bt_ormtr;
  std::vector<double> z_first;
  bool same = true;
  double zdiff = 0;
  for (int rep = 0; rep < reps; ++rep) {
    auto B = A0;
    std::vector<double> wl(n);
    auto t0 = Clock::now();
    LAPACKE_dsyevd(LAPACK_COL_MAJOR, 'V', 'L', n, B.ptr(), n, wl.data());
    t_lapack.push_back(seconds(t0));
    for (auto m :
         {eigsolve::BackTransformMethod::canonical, eigsolve::BackTransformMethod::lapack}) {
      auto A = A0;
      eigsolve::Context ctx;
      ctx.threads = threads;
      eigsolve::SolveOptions opt;
      opt.vectors = true;
      opt.back_transform = m;
      t0 = Clock::now();
      auto r = eigsolve::eigensolve(ctx, A, opt);
      const double t = seconds(t0);
      if (m == eigsolve::BackTransformMethod::canonical) {
        t_ours.push_back(t);
        bt_ours.push_back(r.times.back_transform);
        if (z_first.empty())
          z_first = r.z;
        else
          same = same && std::memcmp(z_first.data(), r.z.data(), r.z.size() * sizeof(double)) == 0;
      } else {
        t_ormtr.push_back(t);
        bt_ormtr.push_back(r.times.back_transform);
        for (std::size_t k = 0; k < r.z.size(); ++k)
          zdiff = std::max(zdiff, std::fabs(r.z[k] - z_first[k]));
      }
    }
  }
  const double ml = median(t_lapack), mo = median(t_ours), mr = median(t_ormtr);
  std::printf(
      "vectors n=%5lld threads=%d reps=%d  median: dsyevd('V') %.3f s  ours %.3f s (back %.3f s) "
      "ratio %.2f  ours+ormtr %.3f s (back %.3f s) ratio %.2f  canonical Z bitwise equal over "
      "reps: %s  max|Z_canonical - Z_ormtr| %.1e\n",
      static_cast<long long>(n), threads, reps, ml, mo, median(bt_ours), mo / ml, mr,
      median(bt_ormtr), mr / ml, same ? "yes" : "NO", zdiff);
  const nlohmann::ordered_json js = {{"bench", "eig"},
                                     {"n", static_cast<long long>(n)},
                                     {"vectors", true},
                                     {"threads", threads},
                                     {"reps", reps},
                                     {"ours_s", mo},
                                     {"back_transform_s", median(bt_ours)},
                                     {"dsyevd_s", ml},
                                     {"ratio", mo / ml},
                                     {"ours_ormtr_s", mr},
                                     {"back_transform_ormtr_s", median(bt_ormtr)},
                                     {"ratio_ormtr", mr / ml},
                                     {"ours_all_s", t_ours},
                                     {"dsyevd_all_s", t_lapack},
                                     {"bitwise_over_reps", same}};
  std::printf("%s\n", js.dump().c_str());
  std::fflush(stdout);
}

/// Values only, one precision: reps interleaved repetitions of ?syevd/?heevd('N') and ours.
template <class T>
void run_values_case(const char* p, index_t n, int threads, int reps) {
  using R = eigsolve::real_t<T>;
  eigsolve::HostMatrix<T> A0(n);
  std::uint64_t s = 12345;
  auto next = [&s] {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(s >> 11) * 0x1p-52 - 1.0;
  };
  for (index_t j = 0; j < n; ++j)
    for (index_t i = j; i < n; ++i) {
      if constexpr (eigsolve::is_complex_v<T>) {
        const R re = R(next()), im = i == j ? R(0) : R(next());
        A0(i, j) = T(re, im);
        A0(j, i) = T(re, -im);
      } else {
        A0(i, j) = A0(j, i) = T(next());
      }
    }
  std::vector<double> t_lapack, t_ours, t_tri;
  double err = 0, wmax = 0;
  for (int rep = 0; rep < reps; ++rep) {
    auto B = A0;
    std::vector<R> wl(n);
    auto t0 = Clock::now();
    int info = 0;
    if constexpr (std::is_same<T, float>::value)
      info = LAPACKE_ssyevd(LAPACK_COL_MAJOR, 'N', 'L', n, B.ptr(), n, wl.data());
    else if constexpr (std::is_same<T, double>::value)
      info = LAPACKE_dsyevd(LAPACK_COL_MAJOR, 'N', 'L', n, B.ptr(), n, wl.data());
    else if constexpr (std::is_same<T, eigsolve::Complex<float>>::value)
      info = LAPACKE_cheevd(LAPACK_COL_MAJOR, 'N', 'L', n,
                            reinterpret_cast<lapack_complex_float*>(B.ptr()), n, wl.data());
    else
      info = LAPACKE_zheevd(LAPACK_COL_MAJOR, 'N', 'L', n,
                            reinterpret_cast<lapack_complex_double*>(B.ptr()), n, wl.data());
    t_lapack.push_back(seconds(t0));
    if (info != 0) std::fprintf(stderr, "?syevd/?heevd info = %d\n", info);
    auto A = A0;
    eigsolve::Context ctx;
    ctx.threads = threads;
    eigsolve::SolveOptions opt;
    t0 = Clock::now();
    auto r = eigsolve::eigensolve(ctx, A, opt);
    t_ours.push_back(seconds(t0));
    t_tri.push_back(r.times.tridiagonalize);
    for (index_t k = 0; k < n; ++k) {
      err = std::max(err, double(std::fabs(r.w[k] - wl[k])));
      wmax = std::max(wmax, double(std::fabs(wl[k])));
    }
  }
  const double ml = median(t_lapack), mo = median(t_ours);
  const double u = std::is_same<R, float>::value ? 0x1p-24 : 0x1p-53;
  const double rel = err / (wmax * double(n) * u);
  std::printf(
      "values %s n=%5lld threads=%d reps=%d  median: ?syevd/?heevd('N') %.3f s  ours %.3f s "
      "(tridiag %.3f s)  ratio %.2f  max|dw|/(n u ||A||) = %.2f\n",
      p, static_cast<long long>(n), threads, reps, ml, mo, median(t_tri), mo / ml, rel);
  const nlohmann::ordered_json js = {{"bench", "eig_values"},
                                     {"precision", p},
                                     {"n", static_cast<long long>(n)},
                                     {"threads", threads},
                                     {"reps", reps},
                                     {"ours_s", mo},
                                     {"tridiagonalize_s", median(t_tri)},
                                     {"lapacke_s", ml},
                                     {"ratio", mo / ml},
                                     {"ours_all_s", t_ours},
                                     {"lapacke_all_s", t_lapack}};
  std::printf("%s\n", js.dump().c_str());
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 2 && std::string(argv[1]) == "values") {
    const std::string p = argv[2];
    const int threads = argc > 3 ? std::atoi(argv[3]) : 2;
    const int reps = argc > 4 ? std::atoi(argv[4]) : 5;
    openblas_set_num_threads(threads);
    std::vector<index_t> sizes;
    for (int i = 5; i < argc; ++i)
      sizes.push_back(std::atoll(argv[i]));
    if (sizes.empty()) sizes = {2048, 4096};
    for (index_t n : sizes) {
      if (p == "s")
        run_values_case<float>("s", n, threads, reps);
      else if (p == "d")
        run_values_case<double>("d", n, threads, reps);
      else if (p == "c")
        run_values_case<eigsolve::Complex<float>>("c", n, threads, reps);
      else if (p == "z")
        run_values_case<eigsolve::Complex<double>>("z", n, threads, reps);
      else
        std::fprintf(stderr, "bench_eig values: precision must be s, d, c or z\n");
    }
    return 0;
  }
  if (argc > 1 && std::string(argv[1]) == "vectors") {
    const int threads = argc > 2 ? std::atoi(argv[2]) : 2;
    const int reps = argc > 3 ? std::atoi(argv[3]) : 5;
    openblas_set_num_threads(threads);
    std::vector<index_t> sizes;
    for (int i = 4; i < argc; ++i)
      sizes.push_back(std::atoll(argv[i]));
    if (sizes.empty()) sizes = {2048};
    for (index_t n : sizes)
      run_vectors_case(n, threads, reps);
    return 0;
  }
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
