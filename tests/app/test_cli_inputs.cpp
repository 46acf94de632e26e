// End to end: what the CLI says about odd inputs — values that underflow to zero in the
// chosen precision (a warning, exit 0) — and the findings of a CLI audit: outputs checked
// before the solve, distinct and named; pipes and FIFOs as input; compare and generate edge
// cases (one line naming the file, a documented exit code, nothing written on failure).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_util.hpp"
#include "tests/common/npy_image.hpp"

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
  const double v[4] = {1, 1e-100, 1e-100, 1};
  const std::string img =
      eigsolve::test_util::npy_image("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }",
                                     std::string(reinterpret_cast<const char*>(v), sizeof v));
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

// ---------------------------------------------------------------------------------------------
// Outputs of one run: all or nothing where they are regular files
// ---------------------------------------------------------------------------------------------

/// Runs `eigsolve ARGS` in a shell whose file size limit is `blocks` 512-byte blocks, with
/// SIGXFSZ ignored: a write past the limit then fails with EFBIG ("file too large"), a
/// deterministic write failure after the checks that needs no privileges and no device.
cli::Result run_with_file_size_limit(const cli::TempDir& dir, int blocks, const std::string& args) {
  const std::string out = dir / "stdout.log", err = dir / "stderr.log";
  const std::string script =
      "trap '' XFSZ; ulimit -f " + std::to_string(blocks) + "; exec " + cli::bin() + " " + args;
  const int st = std::system(("sh -c \"" + script + "\" >" + out + " 2>" + err).c_str());
  cli::Result r;
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  r.out = cli::slurp(out);
  r.err = cli::slurp(err);
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return r;
}

// -o and --report fit under the limit, the eigenvectors (~12 kB of text) do not: before, the
// eigenvalue file had already been renamed into place when the vectors failed. Now every old
// file stays as it was and no temporary is left.
TEST(CliOutputs, AFailingLaterOutputLeavesEveryFileAsItWas) {
  cli::TempDir dir;
  const std::string w = write(dir, "w.txt", "old eigenvalues\n");
  const std::string z = write(dir, "z.mtx", "old vectors\n");
  const std::string rep = write(dir, "r.json", "old report\n");
  auto r = run_with_file_size_limit(
      dir, 4, matrix_arg() + " -q -o " + w + " --vectors-output " + z + " --report " + rep);
  EXPECT_EQ(r.code, 6) << r.err;
  EXPECT_NE(r.err.find("file too large"), std::string::npos) << r.err;
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_EQ(cli::slurp(w), "old eigenvalues\n");
  EXPECT_EQ(cli::slurp(z), "old vectors\n");
  EXPECT_EQ(cli::slurp(rep), "old report\n");
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir.path()))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"r.json", "w.txt", "z.mtx"}));

  // New paths: none of them is created.
  r = run_with_file_size_limit(dir, 4,
                               matrix_arg() + " -q -o " + (dir / "w2.txt") + " --vectors-output " +
                                   (dir / "z2.mtx") + " --report " + (dir / "r2.json"));
  EXPECT_EQ(r.code, 6) << r.err;
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 3);

  // Without the limit all three are replaced, and they are what a plain run writes.
  r = run(matrix_arg() + " -q -o " + w + " --vectors-output " + z + " --report " + rep);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(cli::slurp(w), run(matrix_arg() + " -q").out);
  EXPECT_EQ(cli::slurp(z).substr(0, 14), "%%MatrixMarket");
  EXPECT_NE(cli::slurp(rep).find("\"digest\""), std::string::npos);
}

// A stream cannot be staged: it is written after the regular files are complete (still
// unrenamed), so a regular file that fails leaves standard output empty.
TEST(CliOutputs, StreamsAreWrittenAfterTheFilesAreStaged) {
  cli::TempDir dir;
  const std::string z = write(dir, "z.mtx", "old vectors\n");
  auto r = run_with_file_size_limit(dir, 4, matrix_arg() + " -q --vectors-output " + z);
  EXPECT_EQ(r.code, 6) << r.err;
  EXPECT_EQ(r.out, "") << "standard output received the eigenvalues of a failed run";
  EXPECT_EQ(cli::slurp(z), "old vectors\n");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 1);
}

/// A character device like /dev/full (1, 7) made in `dir` (false when mknod is not permitted):
/// a stream output that fails with ENOSPC, without touching the real /dev.
bool make_full_device(const std::string& path) {
  return ::mknod(path.c_str(), S_IFCHR | 0600, makedev(1, 7)) == 0;
}

// A stream that fails after the regular files are staged: they are removed, not renamed.
TEST(CliOutputs, AFailingStreamLeavesTheFilesAsTheyWere) {
  cli::TempDir dir;
  if (!make_full_device(dir / "full")) GTEST_SKIP() << "mknod not permitted here";
  const std::string w = write(dir, "w.txt", "old eigenvalues\n");
  const std::string z = write(dir, "z.npy", "old vectors\n");
  auto r =
      run(matrix_arg() + " -q -o " + w + " --vectors-output " + z + " --report " + (dir / "full"));
  EXPECT_EQ(r.code, 6) << r.err;
  EXPECT_NE(r.err.find("no space left on device"), std::string::npos) << r.err;
  EXPECT_EQ(cli::slurp(w), "old eigenvalues\n");
  EXPECT_TRUE(cli::slurp(z) == "old vectors\n");  // (no binary .npy in a failure message)
  struct stat st {};
  ASSERT_EQ(::lstat((dir / "full").c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "the device node was replaced";
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 3);
}

// generate's two outputs likewise: the matrix is not left behind when the spectrum fails.
TEST(CliOutputs, GenerateIsAllOrNothingToo) {
  cli::TempDir dir;
  if (!make_full_device(dir / "full")) GTEST_SKIP() << "mknod not permitted here";
  for (const std::string name : {"m.mtx", "m.npy"}) {
    const std::string m = write(dir, name, "old matrix\n");
    auto r = run("generate kac --n 6 -o " + m + " --eigenvalues-output " + (dir / "full"));
    EXPECT_EQ(r.code, 6) << name << ": " << r.err;
    EXPECT_NE(r.err.find("no space left on device"), std::string::npos) << r.err;
    EXPECT_EQ(cli::slurp(m), "old matrix\n") << name;
    std::filesystem::remove(m);
    r = run("generate kac --n 6 -o " + m + " --eigenvalues-output " + (dir / "full"));
    EXPECT_EQ(r.code, 6) << r.err;
    EXPECT_FALSE(std::filesystem::exists(m)) << name;
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 1);
  }
}

// ---------------------------------------------------------------------------------------------
// generate: .npy for every kind, one stdout
// ---------------------------------------------------------------------------------------------

// Every kind honours a .npy name, in any case (the rule of --vectors-output); before,
// laplace1d, kac and wilkinson wrote Matrix Market text to it, and hadamard/random matched
// only ".npy" in lower case. The .npy holds the matrix the .mtx holds.
TEST(CliGenerate, EveryKindWritesNpyForANpyName) {
  cli::TempDir dir;
  for (const std::string kind : {"laplace1d", "kac", "wilkinson", "hadamard", "random"}) {
    const std::string mtx = dir / (kind + ".mtx");
    auto r = run("generate " + kind + " --n 8 -o " + mtx);
    ASSERT_EQ(r.code, 0) << kind << ": " << r.err;
    const std::string want = run(mtx + " --device cpu -q").out;
    ASSERT_FALSE(want.empty()) << kind;
    for (const std::string ext : {".npy", ".NPY", ".Npy"}) {
      const std::string npy = dir / (kind + "-x" + ext);
      r = run("generate " + kind + " --n 8 -o " + npy);
      ASSERT_EQ(r.code, 0) << kind << ext << ": " << r.err;
      EXPECT_EQ(cli::slurp(npy).substr(0, 6), "\x93NUMPY") << kind << ext;
      r = run(npy + " --device cpu -q");
      EXPECT_EQ(r.code, 0) << kind << ext << ": " << r.err;
      EXPECT_EQ(r.out, want) << kind << ext;
    }
  }
}

// Two outputs on standard output would interleave: the solve's clash rule, before anything is
// written.
TEST(CliGenerate, TwoOutputsOnStandardOutputAreRefused) {
  for (const std::string args :
       {"-o - --eigenvalues-output -", "-o /dev/stdout --eigenvalues-output -",
        "-o - --eigenvalues-output /dev/fd/1"}) {
    auto r = run("generate kac --n 4 " + args);
    EXPECT_EQ(r.code, 2) << args << ": " << r.err;
    EXPECT_NE(r.err.find("-o and --eigenvalues-output both write to standard output"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_EQ(r.out, "") << args;
  }
  // One of them on stdout is fine.
  cli::TempDir dir;
  auto r = run("generate kac --n 4 -o - --eigenvalues-output " + (dir / "e.txt"));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, 14), "%%MatrixMarket");
  EXPECT_EQ(cli::slurp(dir / "e.txt"), "-3\n-1\n1\n3\n");
}

}  // namespace
