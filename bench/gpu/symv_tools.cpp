// `eigsolve bench symv` and `eigsolve tune symv`: options, the printed table, the JSON.
#include "bench/gpu/tools.hpp"

#include <boost/program_options.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "bench/gpu/gpu_bench.hpp"
#include "core/dd_real.hpp"
#include "core/errors.hpp"
#include "io/matrix_io.hpp"
#include "symv/symv_gpu.hpp"

namespace po = boost::program_options;

namespace eigsolve {
namespace {

/// The comma-separated items of an option's value; an empty item ("1024,,2048", a trailing comma)
/// is a usage error naming the option, not a silently shorter list.
std::vector<std::string> split(const std::string& s, const char* option) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string p; std::getline(ss, p, ',');) {
    if (p.empty()) throw UsageError(std::string(option) + ": empty item in '" + s + "'");
    out.push_back(p);
  }
  if (!s.empty() && s.back() == ',')
    throw UsageError(std::string(option) + ": empty item in '" + s + "'");
  return out;
}

/// An output named on the command line is checked before any device work (a tune or a bench
/// runs for minutes; a folder that does not exist must not cost them): OutputError, exit code 6.
void check_output(const std::string& path) {
  if (!path.empty()) check_output_path(path);
}

std::vector<Precision> parse_precisions(const std::string& s) {
  std::vector<Precision> out;
  if (s == "all") return {Precision::s, Precision::d, Precision::c, Precision::z, Precision::dd};
  for (const auto& p : split(s, "--precision"))
    out.push_back(parse_precision(p));
  if (out.empty()) throw UsageError("--precision: empty list");
  return out;
}

std::vector<index_t> parse_sizes(const std::string& s) {
  std::vector<index_t> out;
  for (const auto& p : split(s, "--sizes")) {
    std::size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(p, &used);
    } catch (const std::logic_error&) {
      used = 0;
    }
    if (used != p.size() || v < 1 || v > 200000)
      throw UsageError("--sizes: '" + p + "' is not an order in 1..200000");
    out.push_back(v);
  }
  if (out.empty()) throw UsageError("--sizes: empty list");
  return out;
}

std::string today() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&t));
  return buf;
}

double gbs(Precision p, index_t n, double ms) {
  const double elem =
      dispatch(p, [](auto tag) { return double(sizeof(typename decltype(tag)::type)); });
  return ms > 0 ? double(n) * double(n) / 2.0 * elem / (ms * 1e-3) / 1e9 : 0;
}

/// Parses the options of a GPU subcommand into desc's variables; with --help prints `usage`
/// and desc, and returns true (the caller then exits 0).
bool parse_or_help(int argc, char** argv, const po::options_description& desc, const char* usage) {
  po::variables_map vm;
  po::store(po::parse_command_line(argc, argv, desc), vm);
  if (vm.count("help")) {
    std::cout << usage << desc;
    return true;
  }
  po::notify(vm);
  return false;
}

SymvConfig with_variant(SymvConfig c, SymvVariant v) {
  c.variant = v;
  return c;
}

}  // namespace

int main_bench_symv(int argc, char** argv) {
  std::string precisions = "all", sizes = "1024,2048,4096,8192,16384,32768", json, config;
  std::string timing = "device";
  int runs = 20, sweep_samples = 64;
  long long check_cpu_max = 16384, lda_pad = 0;
  po::options_description desc("bench symv options");
  desc.add_options()("help,h", "show this help")(
      "precision,p", po::value(&precisions)->default_value(precisions), "s,d,c,z,dd or all")(
      "sizes", po::value(&sizes)->default_value(sizes), "orders n, comma separated")(
      "runs", po::value(&runs)->default_value(runs), "timed calls per implementation")(
      "json", po::value(&json), "write the records as JSON")(
      "config", po::value(&config), "measure this configuration instead of the tuned one")(
      "sweep-samples", po::value(&sweep_samples)->default_value(sweep_samples),
      "trailing orders sampled for the tridiagonalization schedule (0: skip it)")(
      "check-cpu-max", po::value(&check_cpu_max)->default_value(check_cpu_max),
      "compare with the CPU reference up to this n")(
      "lda-pad", po::value(&lda_pad)->default_value(lda_pad),
      "leading dimension n + this (ours and cuBLAS alike; the sweep's matrix too)")(
      "timing", po::value(&timing)->default_value(timing),
      "device: the device's work alone (the stream held while a call is enqueued); host: also "
      "the host's enqueueing of the call's first kernel (the measure before session 64)");
  if (parse_or_help(
          argc, argv, desc,
          "Usage: eigsolve bench symv [options]\n"
          "Our SYMV/HEMV (tuned, ticket, two-pass) against cuBLAS ?symv/?hemv (default and\n"
          "CUBLAS_ATOMICS_ALLOWED) in the same process: median ms, GB/s over n^2/2\n"
          "elements, distinct results over the runs, bitwise equality with the CPU. Each\n"
          "size's buffers are filled and rewritten on the device for 100 ms before timing.\n\n"))
    return kExitOk;
  if (runs < 1) throw UsageError("--runs must be >= 1");
  if (lda_pad < 0) throw UsageError("--lda-pad must be >= 0");
  if (timing != "device" && timing != "host")
    throw UsageError("--timing must be device or host, not '" + timing + "'");
  set_symv_bench_device_timing(timing == "device");
  const auto ps = parse_precisions(precisions);
  const auto ns = parse_sizes(sizes);
  if (!config.empty()) parse_symv_config(config);
  check_output(json);
  const std::string gpu = gpu_description();
  nlohmann::ordered_json records = nlohmann::ordered_json::array();
  nlohmann::ordered_json sweeps = nlohmann::ordered_json::array();
  std::printf("# %s\n%-3s %6s %-17s %-22s %9s %8s %7s %5s %4s\n", gpu.c_str(), "p", "n", "impl",
              "config", "ms", "GB/s", "x cuBLAS", "dist", "cpu");
  for (Precision p : ps) {
    for (index_t n : ns) {
      SymvConfig tuned = dispatch(
          p, [&](auto tag) { return symv_select<typename decltype(tag)::type>(n, n + lda_pad); });
      if (!config.empty()) tuned = parse_symv_config(config);
      std::vector<std::pair<std::string, SymvConfig>> ours = {
          {"eigsolve-tuned", tuned},
          {"eigsolve-ticket", with_variant(tuned, SymvVariant::ticket)},
          {"eigsolve-twopass", with_variant(tuned, SymvVariant::twopass)}};
      const auto res = bench_symv_size(p, n, runs, n <= check_cpu_max, ours, true, lda_pad);
      double cublas_ms = 0;
      for (const auto& r : res)
        if (r.impl == "cublas") cublas_ms = r.ms;
      for (const auto& r : res) {
        const double g = gbs(p, n, r.ms);
        std::printf("%-3s %6lld %-17s %-22s %9.4f %8.0f %7.2f %5d %4s\n", precision_name(p),
                    static_cast<long long>(n), r.impl.c_str(), r.config.c_str(), r.ms, g,
                    cublas_ms > 0 ? cublas_ms / r.ms : 0.0, r.distinct,
                    r.bitwise_cpu < 0 ? "-" : (r.bitwise_cpu ? "yes" : "NO"));
        nlohmann::ordered_json j = {{"precision", precision_name(p)},
                                    {"n", static_cast<long long>(n)},
                                    {"impl", r.impl},
                                    {"ms", r.ms},
                                    {"gbs", g},
                                    {"runs", r.runs},
                                    {"distinct", r.distinct}};
        if (r.bitwise_cpu < 0)
          j["bitwise_cpu"] = nullptr;
        else
          j["bitwise_cpu"] = r.bitwise_cpu == 1;
        if (!r.config.empty()) j["config"] = r.config;
        if (cublas_ms > 0) j["ratio_cublas"] = cublas_ms / r.ms;
        records.push_back(j);
      }
      std::fflush(stdout);
    }
    if (sweep_samples > 0) {
      for (index_t n : ns) {
        if (n < 1024) continue;
        const double elem =
            dispatch(p, [](auto tag) { return double(sizeof(typename decltype(tag)::type)); });
        // Bytes of the sweep: sum over k of k^2/2 elements, at the 4300 GB/s of gpu.md.
        const double bytes = double(n) * double(n) * double(n) / 6.0 * elem;
        const double floor_ms = bytes / 4300e9 * 1e3;
        for (std::string impl : {"eigsolve-tuned", "cublas"}) {
          if (impl == "cublas" && p == Precision::dd) continue;
          const double ms = sweep_symv(p, n, impl, sweep_samples, 5, lda_pad);
          std::printf("sweep %-3s n=%6lld %-15s %10.1f ms  floor %8.1f ms  (%.2fx floor)\n",
                      precision_name(p), static_cast<long long>(n), impl.c_str(), ms, floor_ms,
                      ms / floor_ms);
          sweeps.push_back({{"precision", precision_name(p)},
                            {"n", static_cast<long long>(n)},
                            {"impl", impl},
                            {"ms", ms},
                            {"floor_ms", floor_ms},
                            {"samples", sweep_samples}});
        }
        std::fflush(stdout);
      }
    }
  }
  if (!json.empty()) {
    nlohmann::ordered_json top = {
        {"gpu", gpu},         {"date", today()},
        {"bench", "symv"},    {"gbs_measure", "n^2/2 elements of the scalar per call"},
        {"timing", timing},   {"dd_madd", dd_madd_name()},
        {"records", records}, {"sweeps", sweeps}};
    if (lda_pad > 0) top["lda_pad"] = lda_pad;  // lda = n + lda_pad (absent: lda = n)
    write_file_atomic(json, top.dump(1) + "\n");
  }
  return kExitOk;
}

int main_tune_symv(int argc, char** argv) {
  std::string precisions = "all", sizes = "1024,2048,4096,8192,16384,32768", output = "-";
  int runs = 7;
  po::options_description desc("tune symv options");
  desc.add_options()("help,h", "show this help")(
      "precision,p", po::value(&precisions)->default_value(precisions), "s,d,c,z,dd or all")(
      "sizes", po::value(&sizes)->default_value(sizes), "sampled orders n, comma separated")(
      "runs", po::value(&runs)->default_value(runs),
      "timed calls per configuration at n >= 8192; below, runs x (8192/n)^2 of them, at most "
      "max(runs, 31)")("output,o", po::value(&output)->default_value(output),
                       "the table (JSON; symv/cuda/tables/sm_XY.json is the checked-in one)");
  if (parse_or_help(
          argc, argv, desc,
          "Usage: eigsolve tune symv [options]\n"
          "Times every configuration of the SYMV tuning space at the sampled orders on the\n"
          "current GPU and writes the table symv_select interpolates (log ms over log n).\n"
          "EIGSOLVE_SYMV_TABLE=FILE makes every later run use that file's table (for its\n"
          "precisions) instead of the compiled-in one; no configuration changes a bit.\n\n"))
    return kExitOk;
  if (runs < 1) throw UsageError("--runs must be >= 1");
  const auto ps = parse_precisions(precisions);
  auto ns = parse_sizes(sizes);
  std::sort(ns.begin(), ns.end());
  ns.erase(std::unique(ns.begin(), ns.end()), ns.end());
  check_output(output);
  const std::string gpu = gpu_description();
  // How the calls are taken (the table's note); a malformed diagnostic variable fails here.
  const std::string method = symv_tune_method();
  nlohmann::ordered_json precs = nlohmann::ordered_json::object();
  // Calls of 10-60 us (n < 8192) vary by more than the configurations differ: a median of a
  // few of them picked noise (session 21, bench/NOTES.md), so small orders get more calls.
  auto runs_at = [&](index_t n) {
    if (n >= 8192) return runs;
    const double scaled = double(runs) * (8192.0 / double(n)) * (8192.0 / double(n));
    return std::max(runs, int(std::min(scaled, 31.0)));
  };
  nlohmann::ordered_json runs_json = nlohmann::ordered_json::array();
  for (index_t n : ns)
    runs_json.push_back(runs_at(n));
  for (Precision p : ps) {
    const auto space = symv_tune_space(precision_name(p));
    std::vector<std::vector<double>> by_size;
    for (index_t n : ns) {
      by_size.push_back(tune_symv_size(p, n, space, runs_at(n)));
      std::size_t best = 0;
      for (std::size_t c = 1; c < space.size(); ++c)
        if (by_size.back()[c] < by_size.back()[best]) best = c;
      std::fprintf(stderr, "tune %-3s n=%6lld best %-22s %9.4f ms %8.0f GB/s\n", precision_name(p),
                   static_cast<long long>(n), space[best].name().c_str(), by_size.back()[best],
                   gbs(p, n, by_size.back()[best]));
    }
    nlohmann::ordered_json cfgs = nlohmann::ordered_json::array(),
                           ms = nlohmann::ordered_json::array(),
                           best = nlohmann::ordered_json::array();
    for (std::size_t c = 0; c < space.size(); ++c) {
      cfgs.push_back(space[c].name());
      nlohmann::ordered_json row = nlohmann::ordered_json::array();
      for (std::size_t s = 0; s < ns.size(); ++s)
        row.push_back(by_size[s][c]);
      ms.push_back(row);
    }
    for (std::size_t s = 0; s < ns.size(); ++s) {
      std::size_t b = 0;
      for (std::size_t c = 1; c < space.size(); ++c)
        if (by_size[s][c] < by_size[s][b]) b = c;
      best.push_back({{"n", static_cast<long long>(ns[s])},
                      {"config", space[b].name()},
                      {"ms", by_size[s][b]},
                      {"gbs", gbs(p, ns[s], by_size[s][b])}});
    }
    nlohmann::ordered_json sz = nlohmann::ordered_json::array();
    for (index_t n : ns)
      sz.push_back(static_cast<long long>(n));
    precs[precision_name(p)] = {
        {"sizes", sz}, {"runs", runs_json}, {"best", best}, {"configs", cfgs}, {"ms", ms}};
  }
  nlohmann::ordered_json top = {
      {"gpu", gpu},
      {"date", today()},
      {"dd_madd", dd_madd_name()},
      {"note",
       "median ms of each configuration (rows) at each sampled n (columns), precisions.*.runs "
       "calls each (" +
           method + "), inputs rotated through 256 MiB; written by eigsolve tune symv"},
      {"timing", "device"},
      {"precisions", precs}};
  write_file_atomic(output, top.dump(1) + "\n");
  return kExitOk;
}

int main_bench_eig(int argc, char** argv) {
  std::string precisions = "d", sizes = "1024,2048,4096", json;
  int runs = 3, band = 32;
  bool vectors = false;
  long long check_cpu_max = 2048;
  long long host_input_max = 16384;
  std::string api = "auto", reduction = "auto";
  po::options_description desc("bench eig options");
  desc.add_options()("help,h", "show this help")(
      "precision,p", po::value(&precisions)->default_value(precisions), "s,d,c,z,dd or all")(
      "sizes", po::value(&sizes)->default_value(sizes), "orders n, comma separated")(
      "runs", po::value(&runs)->default_value(runs), "timed runs per implementation")(
      "vectors", po::bool_switch(&vectors), "eigenvectors too")("json", po::value(&json),
                                                                "write the records as JSON")(
      "check-cpu-max", po::value(&check_cpu_max)->default_value(check_cpu_max),
      "run the CPU backend and compare bitwise up to this n")(
      "host-input-max", po::value(&host_input_max)->default_value(host_input_max),
      "also time one solve from host memory (upload included) up to this n")(
      "cusolver-api", po::value(&api)->default_value(api),
      "auto (Xsyevd above n = 16384), x (cusolverDnXsyevd, deterministic mode), legacy or "
      "none (ours only: no cuSOLVER run, no ratio)")(
      "reduction", po::value(&reduction)->default_value(reduction),
      "ours with the reduction the CLI picks (auto, the default), one-stage or two-stage; the "
      "records say which was used")(
      "band-width", po::value(&band)->default_value(band),
      "the two-stage reduction's band half-width, as the CLI's option (its own bits; the "
      "two-stage records give it as `band_width`, as the CLI's report does)");
  if (parse_or_help(
          argc, argv, desc,
          "Usage: eigsolve bench eig [options]\n"
          "Our eigenvalue solve on the GPU against cuSOLVER ?syevd/?heevd on the same random\n"
          "Hermitian matrix in the same process: median seconds, ratio, distinct results\n"
          "over the runs, bitwise equality with the CPU backend.\n\n"))
    return kExitOk;
  if (runs < 1) throw UsageError("--runs must be >= 1");
  if (band < 1 || band > 1024) throw UsageError("--band-width must be in 1..1024");
  const Reduction red = parse_reduction(reduction);
  const auto ps = parse_precisions(precisions);
  const auto ns = parse_sizes(sizes);
  check_output(json);
  const std::string gpu = gpu_description();
  nlohmann::ordered_json records = nlohmann::ordered_json::array();
  std::printf("# %s\n%-3s %6s %-8s %-9s %10s %9s %5s %4s %10s %9s\n", gpu.c_str(), "p", "n",
              "vectors", "impl", "seconds", "x cuSOLVER", "dist", "cpu", "host-in s", "rel diff");
  for (Precision p : ps) {
    for (index_t n : ns) {
      const auto res = bench_eig_size(p, n, runs, vectors, n <= check_cpu_max, n <= host_input_max,
                                      api, red, band);
      double vendor = 0;
      for (const auto& r : res)
        if (r.impl == "cusolver") vendor = r.seconds;
      for (const auto& r : res) {
        std::printf("%-3s %6lld %-8s %-9s %10.4f %9.2f %5d %4s %10.4f %9.1e\n", precision_name(p),
                    static_cast<long long>(n), vectors ? "yes" : "no", r.impl.c_str(), r.seconds,
                    vendor > 0 ? vendor / r.seconds : 0.0, r.distinct,
                    r.bitwise_cpu < 0 ? "-" : (r.bitwise_cpu ? "yes" : "NO"), r.seconds_host_input,
                    r.rel_diff_vendor);
        nlohmann::ordered_json j = {{"precision", precision_name(p)},
                                    {"n", static_cast<long long>(n)},
                                    {"vectors", vectors},
                                    {"impl", r.impl},
                                    {"seconds", r.seconds},
                                    {"runs", r.runs},
                                    {"distinct", r.distinct}};
        if (r.impl == "eigsolve") {
          const Reduction used = resolve_reduction(red, n, p, vectors);
          j["reduction"] = reduction_name(used);
          if (used == Reduction::two_stage) j["band_width"] = band;
        }
        if (r.bitwise_cpu < 0)
          j["bitwise_cpu"] = nullptr;
        else
          j["bitwise_cpu"] = r.bitwise_cpu == 1;
        if (vendor > 0) j["speedup_vs_cusolver"] = vendor / r.seconds;
        if (r.seconds_host_input >= 0) {
          j["seconds_host_input"] = r.seconds_host_input;
          j["host_input_bitwise"] = r.host_input_same;
        }
        if (!r.api.empty()) j["cusolver_api"] = r.api;
        if (r.rel_diff_vendor >= 0) j["max_rel_diff_vs_cusolver"] = r.rel_diff_vendor;
        records.push_back(j);
      }
      std::fflush(stdout);
    }
  }
  if (!json.empty()) {
    nlohmann::ordered_json top = {{"gpu", gpu},
                                  {"date", today()},
                                  {"bench", "eig"},
                                  {"dd_madd", dd_madd_name()},
                                  {"records", records}};
    write_file_atomic(json, top.dump(1) + "\n");
  }
  return kExitOk;
}

}  // namespace eigsolve
