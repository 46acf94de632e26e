// End to end: what the CLI says about odd inputs — values that underflow to zero in the
// chosen precision (a warning, exit 0), and the malformed files and option combinations of
// the CLI audit (one line naming the file, a documented exit code, no partial output).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_util.hpp"

using cli::run;

namespace {

std::string write(const cli::TempDir& dir, const std::string& name, const std::string& text) {
  std::ofstream(dir / name, std::ios::binary) << text;
  return dir / name;
}

int lines(const std::string& s) {
  return static_cast<int>(std::count(s.begin(), s.end(), '\n'));
}

// Lines 4 and 6 hold values that underflow in float; line 5 one that is only subnormal.
const char* kTiny =
    "%%MatrixMarket matrix coordinate real symmetric\n"
    "3 3 5\n"
    "1 1 1\n"
    "2 1 1e-200\n"
    "3 1 1e-40\n"
    "3 2 -2e-60\n"
    "3 3 2\n";

TEST(CliUnderflow, WarnsOnceEvenWhenQuietAndExitsZero) {
  cli::TempDir dir;
  const std::string m = write(dir, "tiny.mtx", kTiny);
  auto r = run(m + " -p s --device cpu -q -o " + (dir / "w.txt") + " --report " + (dir / "r.json"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "eigsolve: warning: " + m +
                       ": 2 nonzero values underflowed to zero in float (the chosen precision s); "
                       "the first at line 4 (entry (2, 1)); --precision d keeps them\n");
  auto rep = nlohmann::json::parse(cli::slurp(dir / "r.json"));
  EXPECT_EQ(rep.value("input_underflows", -1), 2) << rep.dump();
  // Without -q the warning comes before the summary.
  r = run(m + " -p c --device cpu -o " + (dir / "w.txt"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err.rfind("eigsolve: warning: " + m + ": 2 nonzero values", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("in float (the chosen precision c)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--precision z keeps them"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("digest: sha256:"), std::string::npos) << r.err;
  // In double nothing underflows: no warning, no report key.
  r = run(m + " -p d --device cpu -q -o " + (dir / "w.txt") + " --report " + (dir / "r.json"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  rep = nlohmann::json::parse(cli::slurp(dir / "r.json"));
  EXPECT_FALSE(rep.contains("input_underflows")) << rep.dump();
}

TEST(CliUnderflow, DoubleAndDdNameTheirPrecisionWithoutAHint) {
  cli::TempDir dir;
  const std::string m =
      write(dir, "t.mtx", "%%MatrixMarket matrix array real symmetric\n2 2\n1\n1e-400\n1\n");
  for (const char* p : {"d", "dd"}) {
    auto r = run(m + " --device cpu -q -o " + (dir / "w.txt") + " -p " + p);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.err, "eigsolve: warning: " + m + ": 1 nonzero value underflowed to zero in " +
                         (std::string(p) == "d" ? "double" : "dd_real") +
                         " (the chosen precision " + p + "); the first at line 4 (entry (2, 1))\n");
  }
}

TEST(CliUnderflow, NpyNamesTheElement) {
  cli::TempDir dir;
  std::string d = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }";
  while ((10 + d.size() + 1) % 64 != 0)
    d += ' ';
  d += '\n';
  std::string img("\x93NUMPY\x01\x00", 8);
  img += static_cast<char>(d.size());
  img += '\0';
  const double v[4] = {1, 1e-100, 1e-100, 1};
  img += d + std::string(reinterpret_cast<const char*>(v), sizeof v);
  const std::string m = write(dir, "t.npy", img);
  auto r = run(m + " -p s --device cpu -q -o " + (dir / "w.txt"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "eigsolve: warning: " + m +
                       ": 2 nonzero values underflowed to zero in float (the chosen precision s); "
                       "the first is element (1, 2); --precision d keeps them\n");
  EXPECT_EQ(lines(r.err), 1);
}

}  // namespace
