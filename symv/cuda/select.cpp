// symv_select: the configuration for (precision, n) on the current device, looked up in the
// checked-in tuning table of its architecture (symv/cuda/tables/sm_XY.json, compiled in).
//
// A table holds, per precision, the median milliseconds of every configuration it measured at
// the sampled sizes. Between (and beyond) sampled sizes the time of each configuration is the
// piecewise-linear interpolation of log(ms) over log(n) (the end segments extended); the
// configuration with the smallest predicted time wins (ties: the first in the table). This is a
// pure function of the table and n: no timing at solve time, and the bits never depend on it.
//
// EIGSOLVE_SYMV_TABLE=FILE: a table written by `eigsolve tune symv -o FILE` is used instead of the
// compiled-in one, on any architecture, for the precisions it holds (a GPU without a checked-in
// table, or a re-tune measured before it is checked in). A file that cannot be read or parsed is
// an error, never a silent fallback.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "symv/cuda/symv_tables.hpp"
#include "symv/symv_gpu.hpp"

namespace eigsolve {
namespace {

struct PrecisionTable {
  std::vector<double> log_n;
  std::vector<SymvConfig> configs;
  std::vector<std::vector<double>> log_ms;  // [config][size]
};

struct ArchTable {
  std::map<std::string, PrecisionTable> by_precision;
};

ArchTable parse_table(const char* text) {
  ArchTable t;
  const auto j = nlohmann::json::parse(text);
  if (!j.contains("precisions")) return t;
  for (const auto& [p, v] : j.at("precisions").items()) {
    PrecisionTable pt;
    for (const auto& n : v.at("sizes"))
      pt.log_n.push_back(std::log(n.get<double>()));
    for (const auto& c : v.at("configs"))
      pt.configs.push_back(parse_symv_config(c.get<std::string>()));
    for (const auto& row : v.at("ms")) {
      std::vector<double> r;
      for (const auto& m : row)
        r.push_back(std::log(m.get<double>()));
      if (r.size() != pt.log_n.size()) throw Error("symv tuning table: ragged ms for " + p);
      pt.log_ms.push_back(r);
    }
    if (pt.log_ms.size() != pt.configs.size() || pt.log_n.empty())
      throw Error("symv tuning table: bad shape for precision " + p);
    t.by_precision[p] = std::move(pt);
  }
  return t;
}

double predict(const std::vector<double>& xs, const std::vector<double>& ys, double x) {
  if (xs.size() == 1) return ys[0];
  std::size_t i = 1;
  while (i + 1 < xs.size() && x > xs[i])
    ++i;
  const double w = (x - xs[i - 1]) / (xs[i] - xs[i - 1]);
  return ys[i - 1] + w * (ys[i] - ys[i - 1]);
}

int current_arch() {
  int dev = 0, major = 0, minor = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) return 0;
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
  return major * 10 + minor;
}

const ArchTable* table_for(int arch) {
  static std::mutex mu;
  static std::map<int, ArchTable> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(arch);
  if (it != cache.end()) return &it->second;
  const char* text = symv_table_text(arch);
  if (!text) return nullptr;
  return &(cache[arch] = parse_table(text));
}

/// The table of EIGSOLVE_SYMV_TABLE, read once (nullptr when the variable is unset or empty).
const ArchTable* env_table() {
  static std::mutex mu;
  static std::string path;
  static ArchTable table;
  static bool loaded = false;
  const char* e = std::getenv("EIGSOLVE_SYMV_TABLE");
  if (!e || !*e) return nullptr;
  std::lock_guard<std::mutex> lock(mu);
  if (loaded && path == e) return &table;
  std::ifstream in(e, std::ios::binary);
  if (!in) throw Error(std::string("EIGSOLVE_SYMV_TABLE: cannot read ") + e);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  try {
    table = parse_table(text.c_str());
  } catch (const nlohmann::json::exception& x) {
    throw Error(std::string("EIGSOLVE_SYMV_TABLE: ") + e + ": not a tuning table (" + x.what() +
                ")");
  }
  path = e;
  loaded = true;
  return &table;
}

}  // namespace

SymvConfig symv_default_config() {
  return SymvConfig{};
}

SymvConfig symv_select_for(const std::string& precision, index_t n, int arch, bool narrow_only) {
  const ArchTable* t = env_table();
  if (!t || !t->by_precision.count(precision)) t = table_for(arch);
  if (!t) return symv_default_config();
  auto it = t->by_precision.find(precision);
  if (it == t->by_precision.end() || n <= 0) return symv_default_config();
  const PrecisionTable& pt = it->second;
  const double x = std::log(double(n));
  bool any_narrow = false;
  for (const SymvConfig& c : pt.configs)
    any_narrow = any_narrow || !c.wide;
  const bool only_n = narrow_only && any_narrow;
  std::size_t best = 0;
  double best_t = 0;
  bool found = false;
  for (std::size_t c = 0; c < pt.configs.size(); ++c) {
    if (only_n && pt.configs[c].wide) continue;
    const double v = predict(pt.log_n, pt.log_ms[c], x);
    if (!found || v < best_t) {
      best = c;
      best_t = v;
      found = true;
    }
  }
  return pt.configs[best];
}

template <class T>
SymvConfig symv_select(index_t n) {
  return symv_select_for(ScalarTraits<T>::name, n, current_arch());
}

template <class T>
SymvConfig symv_select(index_t n, index_t lda) {
  const bool narrow = (std::size_t(lda < 1 ? 1 : lda) * sizeof(T)) % 16 != 0;
  return symv_select_for(ScalarTraits<T>::name, n, current_arch(), narrow);
}

#define EIGSOLVE_INSTANTIATE_SELECT(T)         \
  template SymvConfig symv_select<T>(index_t); \
  template SymvConfig symv_select<T>(index_t, index_t);
EIGSOLVE_FOR_EACH_SCALAR(EIGSOLVE_INSTANTIATE_SELECT)
#undef EIGSOLVE_INSTANTIATE_SELECT

}  // namespace eigsolve
