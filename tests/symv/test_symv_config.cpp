// The SYMV tuning space and its table lookup (host logic; runs without a GPU): names round-trip,
// bad names are usage errors, and in a CUDA build the checked-in H200 table answers every sampled
// size with the configuration measured fastest there (the model interpolates between samples).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "core/context.hpp"
#include "core/errors.hpp"
#include "symv/symm_gpu.hpp"
#include "symv/symv_gpu.hpp"

using namespace eigsolve;

TEST(SymvConfig, NamesRoundTripAndAreDistinct) {
  const auto space = symv_config_space();
  EXPECT_EQ(space.size(), 240u);
  std::set<std::string> names;
  for (const SymvConfig& c : space) {
    EXPECT_EQ(parse_symv_config(c.name()), c) << c.name();
    names.insert(c.name());
  }
  EXPECT_EQ(names.size(), space.size());
}

/// The tuner's spaces: s and d replace each two-pass 16-byte ldg/cs configuration (30 of them) by
/// its -e1 and -e8 forms; c, z and dd search the plain space. Every name round-trips.
TEST(SymvConfig, TuneSpacesCarryTheEarlyColumnsForSAndD) {
  for (const char* p : {"s", "d", "c", "z", "dd"}) {
    const auto space = symv_tune_space(p);
    const bool sd = std::string(p) == "s" || std::string(p) == "d";
    EXPECT_EQ(space.size(), sd ? 270u : 240u) << p;
    std::set<std::string> names;
    int e1 = 0, e8 = 0;
    for (const SymvConfig& c : space) {
      EXPECT_EQ(parse_symv_config(c.name()), c) << c.name();
      names.insert(c.name());
      const bool plain16 = c.variant == SymvVariant::twopass && c.wide &&
                           (c.load == SymvLoad::ldg || c.load == SymvLoad::cs);
      EXPECT_EQ(c.early != 0, sd && plain16) << p << " " << c.name();
      e1 += c.early == 1;
      e8 += c.early == 8;
    }
    EXPECT_EQ(names.size(), space.size()) << p;
    EXPECT_EQ(e1, sd ? 30 : 0) << p;
    EXPECT_EQ(e8, sd ? 30 : 0) << p;
  }
  const SymvConfig c = parse_symv_config("twopass-t4-m16-w-cs-e8");
  EXPECT_EQ(c.early, 8);
  EXPECT_EQ(c.tiles_per_block, 4);
  EXPECT_EQ(c.load, SymvLoad::cs);
  EXPECT_EQ(parse_symv_config("twopass-t1-m32-w-ldg-e1").early, 1);
  EXPECT_EQ(parse_symv_config("twopass-t1-m32-w-ldg").early, 0);
  EXPECT_EQ(parse_symv_config("twopass-t1-m32-w-ldg").name(), "twopass-t1-m32-w-ldg");
  EXPECT_FALSE(parse_symv_config("twopass-t1-m32-w-ldg-e8") ==
               parse_symv_config("twopass-t1-m32-w-ldg"));
}

TEST(SymvConfig, BadNamesAreUsageErrors) {
  for (const char* bad :
       {"", "ticket", "ticket-t3-m4-w-ldg", "ticket-t2-m0-w-ldg", "ticket-t2-m65-w-ldg",
        "ticket-t2-m4-x-ldg", "ticket-t2-m4-w-foo", "tick-t2-m4-w-ldg", "ticket-t2-m4x-w-ldg",
        "ticket-t2-m4-w-ldg-extra", "twopass-t4-m16-w-cs-e", "twopass-t4-m16-w-cs-e2",
        "twopass-t4-m16-w-cs-e0", "twopass-t4-m16-w-cs-e8-e8", "twopass-t4-m16-w-cs-8",
        "twopass-t4-m16-w-cs-e8x"})
    EXPECT_THROW(parse_symv_config(bad), UsageError) << bad;
}

TEST(SymvConfig, UnknownArchitectureGetsTheDefault) {
  EXPECT_EQ(symv_select_for("d", 4096, 75), symv_default_config());
  EXPECT_EQ(symv_select_for("d", 0, 90), symv_default_config());
}

/// The checked-in H200 table (symv/cuda/tables/sm_90.json), parsed; null when it cannot be read.
nlohmann::json h200_table() {
  std::ifstream in(std::string(EIGSOLVE_SOURCE_DIR) + "/symv/cuda/tables/sm_90.json");
  return in ? nlohmann::json::parse(in) : nlohmann::json();
}

TEST(SymvConfig, H200TableAnswersSampledSizesWithTheirBest) {
  if (!cuda_compiled()) GTEST_SKIP() << "SKIPPED: the tables are compiled into CUDA builds only";
  const nlohmann::json j = h200_table();
  ASSERT_FALSE(j.is_null()) << "symv/cuda/tables/sm_90.json";
  int checked = 0;
  for (const auto& [p, v] : j.at("precisions").items()) {
    for (const auto& b : v.at("best")) {
      const index_t n = b.at("n").get<index_t>();
      EXPECT_EQ(symv_select_for(p, n, 90).name(), b.at("config").get<std::string>())
          << p << " n=" << n;
      ++checked;
    }
  }
  EXPECT_GT(checked, 0);
}

/// narrow_only (a leading dimension that keeps columns off 16-byte lines, symv_select<T>(n, lda)):
/// at every sampled size the lookup answers the fastest `n` configuration the table measured; a
/// table with no `n` configuration answers its overall best.
TEST(SymvConfig, NarrowOnlyPicksTheFastestNarrowConfiguration) {
  if (!cuda_compiled()) GTEST_SKIP() << "SKIPPED: the tables are compiled into CUDA builds only";
  const nlohmann::json j = h200_table();
  ASSERT_FALSE(j.is_null()) << "symv/cuda/tables/sm_90.json";
  int checked = 0;
  for (const auto& [p, v] : j.at("precisions").items()) {
    const auto& configs = v.at("configs");
    const auto& ms = v.at("ms");
    const auto& sizes = v.at("sizes");
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      std::string best;
      double best_ms = 0;
      for (std::size_t c = 0; c < configs.size(); ++c) {
        const std::string name = configs[c].get<std::string>();
        if (parse_symv_config(name).wide) continue;
        const double t = ms[c][i].get<double>();
        if (best.empty() || t < best_ms) {
          best = name;
          best_ms = t;
        }
      }
      ASSERT_FALSE(best.empty()) << p;
      const index_t n = sizes[i].get<index_t>();
      const SymvConfig got = symv_select_for(p, n, 90, true);
      EXPECT_FALSE(got.wide) << p << " n=" << n;
      EXPECT_EQ(got.name(), best) << p << " n=" << n;
      ++checked;
    }
  }
  EXPECT_GT(checked, 0);
  const std::string path = ::testing::TempDir() + "eigsolve_symv_table_wide.json";
  {
    std::ofstream out(path);  // only w configurations
    out << R"({"precisions": {"d": {"sizes": [1000, 10000],
              "configs": ["ticket-t1-m8-w-ldg", "twopass-t2-m4-w-cg"],
              "ms": [[2.0, 5.0], [1.0, 9.0]]}}})";
  }
  ASSERT_EQ(setenv("EIGSOLVE_SYMV_TABLE", path.c_str(), 1), 0);
  EXPECT_EQ(symv_select_for("d", 1000, 90, true).name(), "twopass-t2-m4-w-cg");
  unsetenv("EIGSOLVE_SYMV_TABLE");
  std::remove(path.c_str());
}

/// EIGSOLVE_SYMV_TABLE=FILE: the file's precisions replace the compiled-in table's, on any
/// architecture; the others keep it; an unreadable or malformed file is an error.
TEST(SymvConfig, TableFileFromTheEnvironment) {
  if (!cuda_compiled())
    GTEST_SKIP() << "SKIPPED: the table lookup is compiled into CUDA builds only";
  const std::string path = ::testing::TempDir() + "eigsolve_symv_table.json";
  {
    std::ofstream out(path);
    // two configurations at two sizes: the second is faster at 1000, the first at 10000
    out << R"({"precisions": {"d": {"sizes": [1000, 10000],
              "configs": ["ticket-t1-m8-w-ldg", "twopass-t2-m4-n-cg"],
              "ms": [[2.0, 5.0], [1.0, 9.0]]}}})";
  }
  const SymvConfig compiled_s = symv_select_for("s", 4096, 90);
  ASSERT_EQ(setenv("EIGSOLVE_SYMV_TABLE", path.c_str(), 1), 0);
  EXPECT_EQ(symv_select_for("d", 1000, 90).name(), "twopass-t2-m4-n-cg");
  EXPECT_EQ(symv_select_for("d", 10000, 75).name(), "ticket-t1-m8-w-ldg");
  EXPECT_EQ(symv_select_for("s", 4096, 90), compiled_s);
  const std::string bad = ::testing::TempDir() + "eigsolve_symv_table_bad.json";
  {
    std::ofstream out(bad);  // cut short
    out << "{\"precisions\": {\"d\": {\"sizes\": [1000], \"configs\": [\"ticket-t1-m8-w-ldg\"]";
  }
  ASSERT_EQ(setenv("EIGSOLVE_SYMV_TABLE", bad.c_str(), 1), 0);
  EXPECT_THROW(symv_select_for("d", 1000, 90), Error);
  const std::string missing = ::testing::TempDir() + "eigsolve_no_such_table.json";
  ASSERT_EQ(setenv("EIGSOLVE_SYMV_TABLE", missing.c_str(), 1), 0);
  EXPECT_THROW(symv_select_for("d", 1000, 90), Error);
  unsetenv("EIGSOLVE_SYMV_TABLE");
  std::remove(path.c_str());
  std::remove(bad.c_str());
}

/// EIGSOLVE_SYMM_CONFIG=<index> forces the SYMM's configuration (same bits); a value that is not
/// an index of this precision's space is a usage error, never a silent return to the table's
/// pick. Host logic: the override is read before any device query.
TEST(SymmConfig, IndexFromTheEnvironment) {
  if (!cuda_compiled()) GTEST_SKIP() << "SKIPPED: the SYMM configurations are CUDA builds only";
  const int n = symm_config_count<double>();
  ASSERT_GT(n, 1);
  ASSERT_EQ(setenv("EIGSOLVE_SYMM_CONFIG", "0", 1), 0);
  EXPECT_EQ(symm_select<double>(4096, 32), 0);
  const std::string last = std::to_string(n - 1);
  ASSERT_EQ(setenv("EIGSOLVE_SYMM_CONFIG", last.c_str(), 1), 0);
  EXPECT_EQ(symm_select<double>(4096, 32), n - 1);
  for (const std::string& bad : {std::to_string(n), std::string("-1"), std::string("x"),
                                 std::string("2x"), std::string("99999999999999999999")}) {
    ASSERT_EQ(setenv("EIGSOLVE_SYMM_CONFIG", bad.c_str(), 1), 0);
    EXPECT_THROW(symm_select<double>(4096, 32), UsageError) << bad;
  }
  ASSERT_EQ(setenv("EIGSOLVE_SYMM_CONFIG", std::to_string(symm_config_count<float>()).c_str(), 1),
            0);
  EXPECT_THROW(symm_select<float>(4096, 32), UsageError);
  unsetenv("EIGSOLVE_SYMM_CONFIG");
}
