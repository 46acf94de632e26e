// The SYMV tuning space and its table lookup (host logic; runs without a GPU): names round-trip,
// bad names are usage errors, and in a CUDA build the checked-in H200 table answers every sampled
// size with the configuration measured fastest there (the model interpolates between samples).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "core/context.hpp"
#include "core/errors.hpp"
#include "symv/symv_gpu.hpp"

using namespace eigsolve;

TEST(SymvConfig, NamesRoundTripAndAreDistinct) {
  const auto space = symv_config_space();
  EXPECT_EQ(space.size(), 192u);
  std::set<std::string> names;
  for (const SymvConfig& c : space) {
    EXPECT_EQ(parse_symv_config(c.name()), c) << c.name();
    names.insert(c.name());
  }
  EXPECT_EQ(names.size(), space.size());
}

TEST(SymvConfig, BadNamesAreUsageErrors) {
  for (const char* bad : {"", "ticket", "ticket-t3-m4-w-ldg", "ticket-t2-m0-w-ldg",
                          "ticket-t2-m33-w-ldg", "ticket-t2-m4-x-ldg", "ticket-t2-m4-w-foo",
                          "tick-t2-m4-w-ldg", "ticket-t2-m4x-w-ldg", "ticket-t2-m4-w-ldg-extra"})
    EXPECT_THROW(parse_symv_config(bad), UsageError) << bad;
}

TEST(SymvConfig, UnknownArchitectureGetsTheDefault) {
  EXPECT_EQ(symv_select_for("d", 4096, 75), symv_default_config());
  EXPECT_EQ(symv_select_for("d", 0, 90), symv_default_config());
}

TEST(SymvConfig, H200TableAnswersSampledSizesWithTheirBest) {
  if (!cuda_compiled()) GTEST_SKIP() << "SKIPPED: the tables are compiled into CUDA builds only";
  std::ifstream in(std::string(EIGSOLVE_SOURCE_DIR) + "/symv/cuda/tables/sm_90.json");
  ASSERT_TRUE(in) << "symv/cuda/tables/sm_90.json";
  const auto j = nlohmann::json::parse(in);
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
