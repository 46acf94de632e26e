// End to end: what the CLI says about odd inputs — values that underflow to zero in the
// chosen precision (a warning, exit 0) — and the findings of a CLI audit: outputs checked
// before the solve, distinct and named; pipes and FIFOs as input; compare and generate edge
// cases (one line naming the file, a documented exit code, nothing written on failure).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_util.hpp"

using cli::run;

namespace {

std::string write(const cli::TempDir& dir, const std::string& name, const std::string& text) {
  std::ofstream(dir / name, std::ios::binary) << text;
  return dir / name;
}

std::string matrix_arg() {
  return cli::matrix("can_24.mtx") + " --device cpu";
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

// ---------------------------------------------------------------------------------------------
// CLI audit
// ---------------------------------------------------------------------------------------------

// Every output is checked before the matrix is read: a bad one fails at once and nothing is
// written (before, the eigenvalue file was written and then the report failed, exit 6).
TEST(CliAudit, OutputsAreCheckedBeforeTheSolve) {
  cli::TempDir dir;
  auto r = run(matrix_arg() + " -o " + (dir / "w.txt") + " --report " + (dir / "no/r.json"));
  EXPECT_EQ(r.code, 6) << r.err;
  EXPECT_NE(r.err.find("no/r.json"), std::string::npos) << r.err;
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "w.txt"));
  r = run(matrix_arg() + " -p dd -o " + (dir / "w.txt") + " --vectors-output " + (dir / "z.npy"));
  EXPECT_EQ(r.code, 6) << r.err;
  EXPECT_NE(r.err.find("no double-double type"), std::string::npos) << r.err;
  r = run(matrix_arg() + " -o " + dir.path());
  EXPECT_EQ(r.code, 6) << r.err;
  EXPECT_NE(r.err.find("is a directory"), std::string::npos) << r.err;
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

// Two outputs on one file (the later silently replaced the earlier) or both on stdout
// (interleaved) are usage errors; so is an empty file name (it meant stdout, or no report).
TEST(CliAudit, OutputsMustBeDistinctAndNamed) {
  cli::TempDir dir;
  const std::string w = dir / "w.txt";
  const std::vector<std::string> bad = {" -o " + w + " --report " + dir.path() + "/./w.txt",
                                        " -o " + w + " --vectors-output " + w,
                                        " --report -",
                                        " --vectors-output /dev/stdout",
                                        " -o -  --report -",
                                        " -o ''",
                                        " --report ''",
                                        " --vectors-output ''"};
  for (const std::string& args : bad) {
    auto r = run(matrix_arg() + " -q" + args);
    EXPECT_EQ(r.code, 2) << args << ": " << r.err;
    EXPECT_EQ(lines(r.err), 1) << r.err;
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
  auto r = run(matrix_arg() + " -q -o " + w + " --report -");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\"digest\""), std::string::npos);
}

TEST(CliAudit, IndexRangeMessageHasNoBogusOrder) {
  auto r = run(matrix_arg() + " --index-range 0:3");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "eigsolve: error: --index-range '0:3': need 1 <= FROM <= TO\n");
  r = run(matrix_arg() + " --index-range 1:30");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("<= n = 24"), std::string::npos) << r.err;
}

// A pipe or FIFO cannot be read twice: the header probe used to eat its first bytes (a
// "banner is missing" error) or, for a FIFO, wait forever for a second writer.
TEST(CliAudit, PipesFifosAndStdinAreRead) {
  cli::TempDir dir;
  auto direct = run(matrix_arg() + " -q");
  ASSERT_EQ(direct.code, 0) << direct.err;
  auto shell = [&](const std::string& cmd) {
    const std::string out = dir / "out.txt", err = dir / "err.txt";
    int st = std::system(("timeout 60 sh -c '" + cmd + "' >" + out + " 2>" + err).c_str());
    cli::Result r;
    r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    r.out = cli::slurp(out);
    r.err = cli::slurp(err);
    return r;
  };
  const std::string e = cli::bin() + " --device cpu", m = cli::matrix("can_24.mtx");
  const std::vector<std::string> cmds = {
      "cat " + m + " | " + e + " - -q", "cat " + m + " | " + e + " /dev/stdin -q",
      "mkfifo " + (dir / "f") + " && (cat " + m + " > " + (dir / "f") + " &) && " + e + " " +
          (dir / "f") + " -q"};
  for (const std::string& cmd : cmds) {
    auto r = shell(cmd);
    EXPECT_EQ(r.code, 0) << cmd << ": " << r.err;
    EXPECT_EQ(r.out, direct.out) << cmd;
  }
  // Garbage on a pipe is rejected after its first bytes, as from a file.
  auto r = shell("yes | " + e + " - -q");
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("banner is missing"), std::string::npos) << r.err;
}

TEST(CliAudit, CompareChecksBothFilesAndComparesBits) {
  cli::TempDir dir;
  const std::string bad = write(dir, "bad.txt", "1\nx\n");
  auto r = run("compare " + bad + " " + bad);  // byte-identical, still not eigenvalues
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_NE(r.err.find("bad.txt:2"), std::string::npos) << r.err;
  // -0 and +0 are not bitwise identical.
  const std::string mz = write(dir, "mz.txt", "-0\n1\n"), z = write(dir, "z.txt", "0\n1\n");
  r = run("compare " + mz + " " + z);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("only in the sign of a zero"), std::string::npos) << r.out;
  EXPECT_EQ(run("compare " + mz + " " + z + " --rtol 0").code, 0);
  // "-" is standard input (once).
  const std::string one = write(dir, "one.txt", "1.0\n");
  r = run("compare - " + one + " < " + write(dir, "one2.txt", "1\n"));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("hold the same 1 value (formatting differs)"), std::string::npos) << r.out;
  EXPECT_EQ(run("compare - - < " + one).code, 2);
  r = run("compare " + dir.path() + " " + one);
  EXPECT_EQ(r.code, 3) << r.out;
}

TEST(CliAudit, GenerateRefusesBeforeWriting) {
  cli::TempDir dir;
  const std::string m = dir / "m.mtx";
  struct Case {
    std::string args;
    int code;
    const char* needle;
  } cases[] = {
      {"random --n 4 --eigenvalues-output " + (dir / "e.txt"), 2, "no closed-form spectrum"},
      {"kac --n 4 --eigenvalues-output " + dir.path() + "/./m.mtx", 2, "the same file"},
      {"kac --n 4 --eigenvalues-output " + (dir / "no/e.txt"), 6, "no/e.txt"},
      {"kac --n 4 --spectrum wide", 2, "--spectrum applies to hadamard only"},
      {"hadamard --n 4 --seed 3", 2, "--seed applies to random only"},
      {"random --n 99999999999", 7, "out of memory"},
  };
  for (const Case& c : cases) {
    auto r = run("generate " + c.args + " -o " + m);
    EXPECT_EQ(r.code, c.code) << c.args << ": " << r.err;
    EXPECT_NE(r.err.find(c.needle), std::string::npos) << c.args << ": " << r.err;
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_TRUE(std::filesystem::is_empty(dir.path())) << c.args;
  }
}

}  // namespace
