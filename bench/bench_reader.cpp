// bench_reader: throughput of read_matrix<double> on large generated Matrix Market files.
//
// Usage: bench_reader [n_array=4096] [n_coordinate=2048] [repeats=3] [dir=/tmp]
// Writes a random symmetric `array real symmetric` file (lower triangle, shortest round-trip
// digits) and a `coordinate real general` file holding both triangles of a random symmetric
// matrix, times read_matrix<double> (best of `repeats`), verifies every value against the
// generator, and prints one JSON object on stdout (human-readable lines on stderr).
#include <unistd.h>

#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <omp.h>

#include <nlohmann/json.hpp>

#include "io/matrix_io.hpp"

using eigsolve::index_t;

namespace {

struct Result {
  std::string kind;
  index_t n = 0;
  std::size_t bytes = 0;
  double seconds = 0;
  double cpu_seconds = 0;
  bool ok = false;
};

double cpu_now() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Symmetric matrix with reproducible random entries (lower triangle generated, mirrored).
std::vector<double> make_matrix(index_t n, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> a(static_cast<std::size_t>(n * n));
  for (index_t j = 0; j < n; ++j) {
    for (index_t i = j; i < n; ++i) {
      double x = u(gen) * std::ldexp(1.0, static_cast<int>(gen() % 40) - 20);
      a[i + j * n] = x;
      a[j + i * n] = x;
    }
  }
  return a;
}

std::size_t write_file(const std::string& path, const std::string& s) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) {
    std::perror(path.c_str());
    std::exit(1);
  }
  std::fwrite(s.data(), 1, s.size(), f);
  std::fclose(f);
  return s.size();
}

Result bench(const std::string& kind, const std::string& path, index_t n,
             const std::vector<double>& ref, int repeats, std::size_t bytes) {
  Result r;
  r.kind = kind;
  r.n = n;
  r.bytes = bytes;
  r.seconds = 1e300;
  r.cpu_seconds = 1e300;
  eigsolve::HostMatrix<double> a;
  for (int k = 0; k < repeats; ++k) {
    a = eigsolve::HostMatrix<double>();
    const double t0 = now(), c0 = cpu_now();
    a = eigsolve::read_matrix<double>(path);
    r.seconds = std::min(r.seconds, now() - t0);
    r.cpu_seconds = std::min(r.cpu_seconds, cpu_now() - c0);
  }
  r.ok = a.n == n && a.data == ref;
  std::fprintf(
      stderr, "%-10s n=%lld  %.1f MB  wall %.3f s = %.1f MB/s  cpu %.3f s = %.1f MB/cpu-s  %s\n",
      kind.c_str(), static_cast<long long>(n), bytes / 1e6, r.seconds, bytes / 1e6 / r.seconds,
      r.cpu_seconds, bytes / 1e6 / r.cpu_seconds, r.ok ? "verified" : "MISMATCH");
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  const index_t n_array = argc > 1 ? std::atoll(argv[1]) : 4096;
  const index_t n_coord = argc > 2 ? std::atoll(argv[2]) : 2048;
  const int repeats = argc > 3 ? std::atoi(argv[3]) : 3;
  const std::string dir = argc > 4 ? argv[4] : "/tmp";
  const std::string tag = std::to_string(::getpid());
  std::vector<Result> results;

  {
    std::vector<double> a = make_matrix(n_array, 1);
    std::string s = "%%MatrixMarket matrix array real symmetric\n" + std::to_string(n_array) + " " +
                    std::to_string(n_array) + "\n";
    for (index_t j = 0; j < n_array; ++j)
      for (index_t i = j; i < n_array; ++i)
        s += eigsolve::format_real(a[i + j * n_array]) + "\n";
    const std::string path = dir + "/bench_reader_array_" + tag + ".mtx";
    const std::size_t bytes = write_file(path, s);
    s.clear();
    s.shrink_to_fit();
    results.push_back(bench("array", path, n_array, a, repeats, bytes));
    std::remove(path.c_str());
  }
  {
    std::vector<double> a = make_matrix(n_coord, 2);
    std::string s = "%%MatrixMarket matrix coordinate real general\n" + std::to_string(n_coord) +
                    " " + std::to_string(n_coord) + " " + std::to_string(n_coord * n_coord) + "\n";
    for (index_t j = 0; j < n_coord; ++j)
      for (index_t i = 0; i < n_coord; ++i)
        s += std::to_string(i + 1) + " " + std::to_string(j + 1) + " " +
             eigsolve::format_real(a[i + j * n_coord]) + "\n";
    const std::string path = dir + "/bench_reader_coordinate_" + tag + ".mtx";
    const std::size_t bytes = write_file(path, s);
    s.clear();
    s.shrink_to_fit();
    results.push_back(bench("coordinate", path, n_coord, a, repeats, bytes));
    std::remove(path.c_str());
  }

  bool ok = true;
  nlohmann::ordered_json js = {{"bench", "reader"},
                               {"max_threads", omp_get_max_threads()},
                               {"results", nlohmann::ordered_json::array()}};
  for (const Result& r : results) {
    ok = ok && r.ok;
    js["results"].push_back({{"format", r.kind},
                             {"n", static_cast<long long>(r.n)},
                             {"bytes", r.bytes},
                             {"seconds", r.seconds},
                             {"mb_per_s", r.bytes / 1e6 / r.seconds},
                             {"cpu_seconds", r.cpu_seconds},
                             {"mb_per_cpu_s", r.bytes / 1e6 / r.cpu_seconds},
                             {"verified", r.ok}});
  }
  std::printf("%s\n", js.dump().c_str());
  return ok ? 0 : 1;
}
