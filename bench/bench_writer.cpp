// bench_writer: time of the result writers (write_dense .mtx for dd and double, and
// write_eigenvalues for dd) on reproducible eigenvector-like data.
//
// Usage: bench_writer [n=2048] [threads=0] [repeats=1] [dir=/tmp]
// threads: omp_set_num_threads(threads) before writing (0: leave the default); the writers take
// their thread count from omp_get_max_threads(). Prints one line per case on stderr and one JSON
// object on stdout, with an FNV-1a hash of every file so that runs (builds, thread counts) can be
// compared byte for byte.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <omp.h>

#include <nlohmann/json.hpp>

#include "io/matrix_io.hpp"

using eigsolve::dd_real;
using eigsolve::index_t;

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::uint64_t fnv1a(const std::string& path, std::size_t& bytes) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  const std::string d = s.str();
  bytes = d.size();
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : d) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// Entries like those of unit eigenvectors: |x| mostly around 1/sqrt(n), a full-length lo.
std::vector<dd_real> make_dd(std::size_t count, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<dd_real> v(count);
  for (auto& x : v)
    x = (dd_real(u(gen)) / dd_real(3.0 + u(gen))) * dd_real(std::ldexp(1.0, -int(gen() % 12)));
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  const index_t n = argc > 1 ? std::atoll(argv[1]) : 2048;
  const int threads = argc > 2 ? std::atoi(argv[2]) : 0;
  const int repeats = argc > 3 ? std::atoi(argv[3]) : 1;
  const std::string dir = argc > 4 ? argv[4] : "/tmp";
  if (threads > 0) omp_set_num_threads(threads);
  const std::string tag = std::to_string(::getpid());
  const std::vector<dd_real> zdd = make_dd(static_cast<std::size_t>(n * n), 1);
  std::vector<double> zd(zdd.size());
  for (std::size_t k = 0; k < zd.size(); ++k)
    zd[k] = zdd[k].hi;
  const std::vector<dd_real> wdd(zdd.begin(), zdd.begin() + n);

  nlohmann::ordered_json js = {{"bench", "writer"},
                               {"n", static_cast<long long>(n)},
                               {"max_threads", omp_get_max_threads()},
                               {"results", nlohmann::ordered_json::array()}};
  auto run = [&](const char* kind, auto&& write) {
    const std::string path = dir + "/bench_writer_" + kind + "_" + tag + ".txt";
    double best = 1e300;
    for (int r = 0; r < repeats; ++r) {
      const double t0 = now();
      write(path);
      best = std::min(best, now() - t0);
    }
    std::size_t bytes = 0;
    const std::uint64_t h = fnv1a(path, bytes);
    std::remove(path.c_str());
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    std::fprintf(stderr, "%-8s n=%lld threads=%d  %.1f MB  %.3f s  %.1f MB/s  fnv1a %s\n", kind,
                 static_cast<long long>(n), omp_get_max_threads(), bytes / 1e6, best,
                 bytes / 1e6 / best, hex);
    js["results"].push_back({{"kind", kind},
                             {"bytes", bytes},
                             {"seconds", best},
                             {"mb_per_s", bytes / 1e6 / best},
                             {"fnv1a", hex}});
  };
  run("dd_mtx", [&](const std::string& p) { eigsolve::write_dense(p, n, n, zdd.data(), n); });
  run("d_mtx", [&](const std::string& p) { eigsolve::write_dense(p, n, n, zd.data(), n); });
  run("dd_eig", [&](const std::string& p) { eigsolve::write_eigenvalues(p, wdd); });
  std::printf("%s\n", js.dump().c_str());
  return 0;
}
