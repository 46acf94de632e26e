// End to end: the eigsolve binary on the shared real matrices, generated exact-spectrum
// matrices, bad input and bad options.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli_util.hpp"
#include "core/context.hpp"
#include "core/dd_real.hpp"

using cli::matrix;
using cli::run;

namespace {

struct Published {
  const char* file;
  const char* precision;
  double lmin, lmax;  // SOURCES.md 7c (scipy) / 7a (SuiteSparse)
  int count_zero;     // eigenvalues that must be |lambda| <= tol (-1: not checked)
};

// n * eps * ||A|| style tolerance with c = 50, and at least the printed digits of the reference.
double tolerance(double ref, double norm, int n, double eps) {
  return std::max(6e-10 * std::abs(ref), 50.0 * n * eps * norm);
}

class PublishedSpectrum : public ::testing::TestWithParam<Published> {};

TEST_P(PublishedSpectrum, ExtremesMatchTheReference) {
  const Published& p = GetParam();
  cli::TempDir dir;
  auto r = run(matrix(p.file) + " --precision " + p.precision + " -q -o " + (dir / "w.txt"));
  ASSERT_EQ(r.code, 0) << r.err;
  auto w = cli::numbers(cli::slurp(dir / "w.txt"));
  ASSERT_FALSE(w.empty());
  EXPECT_TRUE(std::is_sorted(w.begin(), w.end()));
  const int n = static_cast<int>(w.size());
  const double norm = std::max(std::abs(w.front()), std::abs(w.back()));
  const double eps =
      std::string(p.precision) == "s" || std::string(p.precision) == "c" ? 0x1p-24 : 0x1p-53;
  EXPECT_NEAR(w.front(), p.lmin, tolerance(p.lmin, norm, n, eps)) << p.file;
  EXPECT_NEAR(w.back(), p.lmax, tolerance(p.lmax, norm, n, eps)) << p.file;
  if (p.count_zero >= 0) {
    const double tol = 50.0 * n * eps * norm;
    int zeros = static_cast<int>(
        std::count_if(w.begin(), w.end(), [&](double x) { return std::abs(x) <= tol; }));
    EXPECT_EQ(zeros, p.count_zero) << p.file;
  }
}

INSTANTIATE_TEST_SUITE_P(
    SharedMatrices, PublishedSpectrum,
    ::testing::Values(
        Published{"bcsstk01.mtx", "d", 3.417267563e+03, 3.015179090e+09, 0},
        Published{"bcsstm01.mtx", "d", 0, 200, 24},
        Published{"bcsstk03.mtx", "d", 2.941020464e+04, 1.997344948e+11, 0},
        Published{"LFAT5.mtx", "d", 1.499189348e-01, 2.145218666e+07, -1},
        Published{"LUNDA.mtx", "d", 8.003510932e+01, 2.238540644e+08, 0},
        Published{"lund_b.mtx", "d", 2.474423978e-01, 7.432298557e+03, 0},
        Published{"GD97_b.mtx", "d", -2.043407386e+03, 2.841064458e+03, 3},
        Published{"plat362.mtx", "d", 3.554378999e-12, 7.742794278e-01, -1},
        Published{"494_bus.mtx", "d", 1.242237514e-02, 3.000514176e+04, 0},
        Published{"gr_30_30.mtx", "d", 6.146282393e-02, 1.195905988e+01, 0},
        Published{"1138_bus.mtx", "d", 3.516860008e-03, 3.014879442e+04, 0},
        Published{"Trefethen_20b.mtx", "d", 2.356147016e+00, 7.151239964e+01, 0},
        Published{"can_24.mtx", "d", -2.099500249e+00, 7.335568227e+00, 0},
        Published{"karate.mtx", "d", -4.487229194e+00, 6.725697728e+00, 10},
        Published{"ldbc_undirected_example.mtx", "d", -1.355537929e+00, 1.483896458e+00, -1},
        Published{"full_symmetric_array4.mtx", "d", -1.961393971e+01, 7.109700554e+01, -1},
        Published{"cholmod_fullrsa_array2.mtx", "d", -1.690470120e-01, 9.169047012e+00, -1},
        Published{"lis_testmat0_laplace2d_general.mtx", "d", 1.620281055e-01, 7.837971894e+00, 0},
        Published{"mhd1280b.mtx", "z", 1.4806e-11, 7.032203242e+01, -1},
        Published{"cholmod_c_hermitian3.mtx", "z", 6.613340158e-01, 4.233866598e+01, -1},
        Published{"primme_HA_hermitian245.mtx", "z", -6.675665068e-01, 3.306924124e+00, -1},
        Published{"fmm_array_hermitian3.mtx", "z", -4.358824442e+01, 6.900140643e+01, -1},
        Published{"bcsstk01.mtx", "s", 3.417267563e+03, 3.015179090e+09, -1},
        Published{"gr_30_30.mtx", "s", 6.146282393e-02, 1.195905988e+01, -1},
        Published{"fmm_array_hermitian3.mtx", "c", -4.358824442e+01, 6.900140643e+01, -1},
        Published{"bcsstk01.mtx", "dd", 3.417267563e+03, 3.015179090e+09, 0},
        Published{"Trefethen_20b.mtx", "dd", 2.356147016e+00, 7.151239964e+01, 0},
        Published{"can_24.mtx", "dd", -2.099500249e+00, 7.335568227e+00, 0}),
    [](const auto& info) {
      std::string s = std::string(info.param.file) + "_" + info.param.precision;
      for (char& c : s)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      return s;
    });

TEST(Cli, VersionAndSummaryNameTheDdMaddOfTheBuild) {
  // The two dd madd sums give other dd bits: --version names the build's, and the dd summary line
  // says so in the build with the accurate sum (EIGSOLVE_DD_SLOPPY_MADD=OFF, not the default).
  const auto v = run("--version");
  ASSERT_EQ(v.code, 0);
  EXPECT_NE(v.out.find(std::string("dd madd: ") + eigsolve::dd_madd_name() + ")"),
            std::string::npos)
      << v.out;
  cli::TempDir dir;
  const auto dd = run(matrix("can_24.mtx") + " -p dd -o " + (dir / "w.txt"));
  ASSERT_EQ(dd.code, 0) << dd.err;
  EXPECT_EQ(dd.err.find("precision dd (accurate madd)") != std::string::npos,
            !eigsolve::kDdSloppyMadd)
      << dd.err;
  const auto d = run(matrix("can_24.mtx") + " -p d -o " + (dir / "w.txt"));
  ASSERT_EQ(d.code, 0);
  EXPECT_EQ(d.err.find("madd"), std::string::npos) << d.err;
}

TEST(Cli, SameMatrixAsIntegerAndRealGivesIdenticalEigenvalues) {
  cli::TempDir dir;
  ASSERT_EQ(run(matrix("gr_30_30.mtx") + " -q -o " + (dir / "a.txt")).code, 0);
  ASSERT_EQ(run(matrix("gr_900_900_crg.mtx") + " -q -o " + (dir / "b.txt")).code, 0);
  EXPECT_EQ(cli::slurp(dir / "a.txt"), cli::slurp(dir / "b.txt"));
  EXPECT_EQ(run("compare " + (dir / "a.txt") + " " + (dir / "b.txt")).code, 0);
}

TEST(Cli, BitwiseIdenticalAcrossThreadCountsAndRuns) {
  cli::TempDir dir;
  for (const char* p : {"d", "z", "s", "dd"}) {
    std::string f = std::string(p) == "z" ? "primme_HA_hermitian245.mtx" : "494_bus.mtx";
    if (std::string(p) == "dd") f = "lund_b.mtx";
    auto a = run(matrix(f) + " -q -p " + p + " --threads 1 -o " + (dir / "t1.txt"));
    auto b = run(matrix(f) + " -q -p " + p + " --threads 2 -o " + (dir / "t2.txt"));
    auto c = run(matrix(f) + " -q -p " + p + " --threads 3 -o " + (dir / "t3.txt"));
    ASSERT_EQ(a.code, 0) << a.err;
    ASSERT_EQ(b.code, 0) << b.err;
    ASSERT_EQ(c.code, 0) << c.err;
    EXPECT_EQ(cli::slurp(dir / "t1.txt"), cli::slurp(dir / "t2.txt")) << p;
    EXPECT_EQ(cli::slurp(dir / "t1.txt"), cli::slurp(dir / "t3.txt")) << p;
  }
}

TEST(Cli, EigenvectorsBitwiseIdenticalAcrossThreadCounts) {
  cli::TempDir dir;
  for (const char* p : {"d", "s", "z", "c", "dd"}) {
    std::string f = (std::string(p) == "z" || std::string(p) == "c") ? "primme_HA_hermitian245.mtx"
                                                                     : "494_bus.mtx";
    if (std::string(p) == "dd") f = "bcsstk01.mtx";
    std::string first;
    for (const char* t : {"1", "2", "3"}) {
      auto r = run(matrix(f) + " -q -p " + p + " --threads " + t + " --vectors-output " +
                   (dir / "z.mtx") + " -o " + (dir / "w.txt"));
      ASSERT_EQ(r.code, 0) << r.err;
      const std::string z = cli::slurp(dir / "z.mtx");
      ASSERT_FALSE(z.empty());
      if (first.empty())
        first = z;
      else
        EXPECT_TRUE(z == first) << p << " threads " << t;
    }
  }
  // The non-canonical LAPACK back-transformation: s/d/c/z only.
  auto l = run(matrix("494_bus.mtx") + " -q --back-transform lapack --vectors-output " +
               (dir / "zl.npy") + " -o " + (dir / "w.txt"));
  EXPECT_EQ(l.code, 0) << l.err;
  // (.mtx: a dd .npy path is refused first, as an output that cannot be written.)
  auto dd = run(matrix("bcsstk01.mtx") + " -q -p dd --back-transform lapack --vectors-output " +
                (dir / "zl.mtx") + " -o " + (dir / "w.txt"));
  EXPECT_NE(dd.code, 0);
  EXPECT_NE(dd.err.find("back-transform"), std::string::npos) << dd.err;
  auto bad = run(matrix("bcsstk01.mtx") + " -q --back-transform ormtr -o " + (dir / "w.txt"));
  EXPECT_NE(bad.code, 0);
  // cuSOLVER's ?ormtr runs on the GPU: with --device cpu a usage error before any work (exit
  // 2), never a CPU run; dd has no cuSOLVER form either.
  auto cpu = run(matrix("494_bus.mtx") +
                 " -q --device cpu --back-transform cusolver --vectors -o " + (dir / "wc.txt"));
  EXPECT_EQ(cpu.code, 2) << cpu.err;
  EXPECT_NE(cpu.err.find("--back-transform cusolver needs --device cuda"), std::string::npos)
      << cpu.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "wc.txt"));
  auto ddc = run(matrix("bcsstk01.mtx") + " -q -p dd --back-transform cusolver --vectors -o " +
                 (dir / "wc.txt"));
  EXPECT_EQ(ddc.code, 2) << ddc.err;
  EXPECT_NE(ddc.err.find("back-transform cusolver"), std::string::npos) << ddc.err;
}

TEST(Cli, HadamardExactSpectrumInEveryPrecision) {
  cli::TempDir dir;
  for (bool cplx : {false, true}) {
    std::string A = dir / (cplx ? "hc.mtx" : "h.mtx");
    auto g = run("generate hadamard --n 128 --spectrum clustered " +
                 std::string(cplx ? "--complex " : "") + "-o " + A + " --eigenvalues-output " +
                 (dir / "exact.txt"));
    ASSERT_EQ(g.code, 0) << g.err;
    for (const char* p :
         cplx ? std::vector<const char*>{"c", "z"} : std::vector<const char*>{"s", "d", "dd"}) {
      auto r = run(A + " -q -p " + p + " -o " + (dir / "w.txt"));
      ASSERT_EQ(r.code, 0) << r.err;
      const double eps = (std::string(p) == "s" || std::string(p) == "c") ? 0x1p-24
                         : std::string(p) == "dd"                         ? 0x1p-104
                                                                          : 0x1p-53;
      const double tol = 50.0 * 128 * eps * 100.0;
      char rtol[32];
      std::snprintf(rtol, sizeof rtol, "%.3e", tol / 100.0);
      auto cmp = run("compare " + (dir / "w.txt") + " " + (dir / "exact.txt") + " --rtol " + rtol);
      EXPECT_EQ(cmp.code, 0) << p << (cplx ? " complex\n" : " real\n") << cmp.out;
    }
  }
}

TEST(Cli, ReportHoldsTimingsDigestAndResiduals) {
  cli::TempDir dir;
  auto r = run(matrix("bcsstk01.mtx") + " --vectors --vectors-output " + (dir / "z.mtx") +
               " --report " + (dir / "r.json") + " -o " + (dir / "w.txt"));
  ASSERT_EQ(r.code, 0) << r.err;
  std::string rep = cli::slurp(dir / "r.json");
  EXPECT_NE(rep.find("\"digest\": \"sha256:"), std::string::npos) << rep;
  EXPECT_NE(rep.find("\"tridiagonalize\""), std::string::npos);
  EXPECT_NE(rep.find("\"backward\""), std::string::npos);
  EXPECT_NE(r.err.find("digest: sha256:"), std::string::npos) << r.err;
  EXPECT_TRUE(std::filesystem::exists(dir / "z.mtx"));
  // the digest printed on stderr equals the one in the report
  auto pos = r.err.find("sha256:");
  ASSERT_NE(pos, std::string::npos);
  EXPECT_NE(rep.find(r.err.substr(pos, 7 + 64)), std::string::npos);
}

// --no-residuals: the same values and vectors, byte for byte; no residuals in the summary or
// the report (the summary says they were not computed); a no-op without vectors.
TEST(Cli, NoResidualsSkipsTheCheckOnly) {
  cli::TempDir dir;
  for (const char* p : {"d", "z", "dd"}) {
    const std::string f = std::string(p) == "z" ? "primme_HA_hermitian245.mtx" : "bcsstk01.mtx";
    const std::string base = matrix(f) + " -p " + p + " --vectors-output ";
    auto a =
        run(base + (dir / "za.mtx") + " -o " + (dir / "wa.txt") + " --report " + (dir / "ra.json"));
    auto b = run(base + (dir / "zb.mtx") + " -o " + (dir / "wb.txt") + " --report " +
                 (dir / "rb.json") + " --no-residuals");
    ASSERT_EQ(a.code, 0) << a.err;
    ASSERT_EQ(b.code, 0) << b.err;
    EXPECT_EQ(cli::slurp(dir / "wa.txt"), cli::slurp(dir / "wb.txt")) << p;
    EXPECT_EQ(cli::slurp(dir / "za.mtx"), cli::slurp(dir / "zb.mtx")) << p;
    EXPECT_NE(a.err.find("||AZ - ZL||"), std::string::npos) << a.err;
    EXPECT_EQ(b.err.find("||AZ - ZL||"), std::string::npos) << b.err;
    EXPECT_NE(b.err.find("residuals: not computed (--no-residuals)"), std::string::npos) << b.err;
    const auto ra = nlohmann::json::parse(cli::slurp(dir / "ra.json"));
    const auto rb = nlohmann::json::parse(cli::slurp(dir / "rb.json"));
    EXPECT_TRUE(ra.contains("residuals")) << p;
    EXPECT_FALSE(rb.contains("residuals")) << p;
    EXPECT_EQ(ra["eigenvalues"]["digest"], rb["eigenvalues"]["digest"]) << p;
  }
  auto c = run(matrix("bcsstk01.mtx") + " -q --no-residuals -o " + (dir / "wc.txt"));
  ASSERT_EQ(c.code, 0) << c.err;
  auto d = run(matrix("bcsstk01.mtx") + " -q -o " + (dir / "wd.txt"));
  ASSERT_EQ(d.code, 0) << d.err;
  EXPECT_EQ(cli::slurp(dir / "wc.txt"), cli::slurp(dir / "wd.txt"));
}

TEST(Cli, SubsetsAreSlicesOfTheFullRun) {
  cli::TempDir dir;
  ASSERT_EQ(run(matrix("494_bus.mtx") + " -q -o " + (dir / "all.txt")).code, 0);
  ASSERT_EQ(run(matrix("494_bus.mtx") + " -q --index-range 10:20 -o " + (dir / "sub.txt")).code, 0);
  auto all = cli::numbers(cli::slurp(dir / "all.txt"));
  auto sub = cli::numbers(cli::slurp(dir / "sub.txt"));
  ASSERT_EQ(sub.size(), 11u);
  for (int i = 0; i < 11; ++i)
    EXPECT_EQ(sub[i], all[9 + i]);
  ASSERT_EQ(run(matrix("494_bus.mtx") + " -q --value-range 1:100 -o " + (dir / "v.txt")).code, 0);
  auto v = cli::numbers(cli::slurp(dir / "v.txt"));
  std::vector<double> want;
  for (double x : all)
    if (x > 1 && x <= 100) want.push_back(x);
  EXPECT_EQ(v, want);
}

TEST(Cli, BadInputGivesOneLineFileAndLineAndNoOutput) {
  cli::TempDir dir;
  struct Case {
    const char* file;
    const char* needle;
  } cases[] = {{"west0067.mtx", "symmetric"},
               {"skew_fp64_with_inf.mtx", "skew"},
               {"cholmod_cha_bad_hermitian3.mtx", "diagonal"},
               {"lis_testmat4_array_general50.mtx", "symmetric"},
               {"nist_ex1_crlf_freeformat.mtx", "symmetric"},
               {"bcsstk01_noheader.mtx", "MatrixMarket"}};
  for (const auto& c : cases) {
    auto r = run(matrix(c.file) + " -o " + (dir / "w.txt"));
    EXPECT_EQ(r.code, 3) << c.file << ": " << r.err;
    EXPECT_NE(r.err.find(c.file), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.needle), std::string::npos) << c.file << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "w.txt")) << c.file;
  }
  auto r = run(matrix("mhd1280b.mtx") + " -p d");
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("--precision c or z"), std::string::npos) << r.err;
  EXPECT_EQ(run((dir / "missing.mtx")).code, 3);
}

TEST(Cli, UsageErrorsAndDeviceErrors) {
  EXPECT_EQ(run(matrix("can_24.mtx") + " --precision q").code, 2);
  EXPECT_EQ(run(matrix("can_24.mtx") + " --tridiag-solver nope").code, 2);
  EXPECT_EQ(run(matrix("can_24.mtx") + " --index-range 5:2").code, 2);
  EXPECT_EQ(run(matrix("can_24.mtx") + " --index-range 1:25").code, 2);
  EXPECT_EQ(run(matrix("can_24.mtx") + " --no-such-option").code, 2);
  EXPECT_EQ(run("").code, 2);
  EXPECT_EQ(run(matrix("can_24.mtx") + " -p dd --tridiag-solver stedc").code, 2);
  auto r = run(matrix("can_24.mtx") + " --device cuda");
  EXPECT_EQ(r.code, 5) << r.err;  // never a silent CPU run
  // The GPU subcommands: usage errors first, then the missing device (exit 5) on this machine.
  EXPECT_EQ(run("bench").code, 2);
  EXPECT_EQ(run("bench nothing").code, 2);
  EXPECT_EQ(run("tune eig").code, 2);
  EXPECT_EQ(run("bench symv --sizes 0").code, 2);
  EXPECT_EQ(run("bench symv --sizes 1024,x").code, 2);
  EXPECT_EQ(run("bench symv --timing wall").code, 2);
  EXPECT_EQ(run("tune symv --precision q").code, 2);
  EXPECT_EQ(run("bench eig --runs 0").code, 2);
  EXPECT_EQ(run("bench symv --sizes 1024,,2048").code, 2);  // an empty item, not a shorter list
  EXPECT_EQ(run("bench symv --sizes 1024,").code, 2);
  EXPECT_EQ(run("tune symv --precision s,,d").code, 2);
  EXPECT_EQ(run("bench symv --config ticket-t3-m4-w-ldg").code, 2);
  if (eigsolve::cuda_compiled()) {
    // An output that cannot be written is refused before any device work (exit 6), on a machine
    // with a GPU as on one without: a tune or bench of minutes must not end in a lost write.
    const auto nodir =
        (std::filesystem::temp_directory_path() / "eigsolve-no-such-dir" / "x.json").string();
    auto b = run("bench symv --sizes 64 --runs 1 --json " + nodir);
    EXPECT_EQ(b.code, 6) << b.err;
    EXPECT_NE(b.err.find("eigsolve-no-such-dir"), std::string::npos) << b.err;
    EXPECT_EQ(run("tune symv --sizes 64 --runs 1 -o " + nodir).code, 6);
    EXPECT_EQ(run("bench eig --sizes 64 --runs 1 --json " + nodir).code, 6);
    EXPECT_FALSE(std::filesystem::exists(std::filesystem::path(nodir).parent_path()));
  }
  if (!eigsolve::cuda_compiled() || eigsolve::cuda_device_count() == 0) {
    auto b = run("bench symv --sizes 64 --runs 1");
    EXPECT_EQ(b.code, 5) << b.err;
    EXPECT_EQ(run("bench eig --sizes 64 --runs 1").code, 5);
    EXPECT_EQ(run("tune symv --sizes 64 --runs 1 -o -").code, 5);
    auto d = run("devices");
    EXPECT_EQ(d.code, 5) << d.err;
    EXPECT_NE(d.out.find("--device auto uses the CPU"), std::string::npos) << d.out;
  }
  auto h = run("--help");
  EXPECT_EQ(h.code, 0);
  EXPECT_NE(h.out.find("Exit codes"), std::string::npos);
}

// --reduction two-stage: its own canonical order (close to the one-stage eigenvalues, bitwise
// the same for every thread count), eigenvalues and vectors, on the CPU; auto (the default)
// picks it in d at every order, with and without vectors (the same eigenvalue bits), and
// one-stage in z at this order.
TEST(Cli, TwoStageReduction) {
  cli::TempDir dir;
  const std::string f = matrix("494_bus.mtx");
  auto a = run(f + " --reduction two-stage --threads 1 -o " + (dir / "a.txt") + " --report " +
               (dir / "r.json"));
  ASSERT_EQ(a.code, 0) << a.err;
  EXPECT_NE(a.err.find("reduction: two-stage, band half-width 32"), std::string::npos) << a.err;
  EXPECT_NE(cli::slurp(dir / "r.json").find("\"reduction\": \"two-stage\""), std::string::npos);
  ASSERT_EQ(run(f + " -q -o " + (dir / "auto.txt") + " --report " + (dir / "r1.json")).code, 0);
  EXPECT_NE(cli::slurp(dir / "r1.json").find("\"reduction\": \"two-stage\""), std::string::npos);
  EXPECT_EQ(cli::slurp(dir / "a.txt"), cli::slurp(dir / "auto.txt"));
  ASSERT_EQ(run(f + " -q -o " + (dir / "autov.txt") + " --vectors-output " + (dir / "autov.mtx") +
                " --no-residuals")
                .code,
            0);
  EXPECT_EQ(cli::slurp(dir / "auto.txt"), cli::slurp(dir / "autov.txt"));
  ASSERT_EQ(run(f + " -p z -q -o - --report " + (dir / "rz.json")).code, 0);
  EXPECT_NE(cli::slurp(dir / "rz.json").find("\"reduction\": \"one-stage\""), std::string::npos);
  auto b = run(f + " -q --reduction two-stage --threads 3 -o " + (dir / "b.txt"));
  ASSERT_EQ(b.code, 0) << b.err;
  EXPECT_EQ(cli::slurp(dir / "a.txt"), cli::slurp(dir / "b.txt"));
  ASSERT_EQ(run(f + " -q --reduction one-stage -o " + (dir / "one.txt")).code, 0);
  EXPECT_EQ(run("compare -q --rtol 1e-12 " + (dir / "a.txt") + " " + (dir / "one.txt")).code, 0);
  auto c = run(f + " -q --reduction two-stage --band-width 8 -o " + (dir / "c.txt"));
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_EQ(run("compare -q --rtol 1e-12 " + (dir / "a.txt") + " " + (dir / "c.txt")).code, 0);
  // Vectors: the same eigenvalue bits as without them, vectors bitwise the same for every
  // thread count, small residuals.
  auto v1 = run(f + " --reduction two-stage --threads 1 -o " + (dir / "v1.txt") +
                " --vectors-output " + (dir / "v1.mtx") + " --report " + (dir / "rv.json"));
  ASSERT_EQ(v1.code, 0) << v1.err;
  auto v3 = run(f + " -q --reduction two-stage --threads 3 -o " + (dir / "v3.txt") +
                " --vectors-output " + (dir / "v3.mtx"));
  ASSERT_EQ(v3.code, 0) << v3.err;
  EXPECT_EQ(cli::slurp(dir / "a.txt"), cli::slurp(dir / "v1.txt"));
  EXPECT_EQ(cli::slurp(dir / "v1.mtx"), cli::slurp(dir / "v3.mtx"));
  const auto rv = nlohmann::json::parse(cli::slurp(dir / "rv.json"));
  EXPECT_LT(rv["residuals"]["backward"].get<double>(), 1e-14);
  EXPECT_LT(rv["residuals"]["orthogonality"].get<double>(), 1e-14);
  EXPECT_EQ(run(f + " --reduction two-stage --vectors --back-transform lapack -o -").code, 2);
  EXPECT_EQ(run(f + " --reduction two-stage --vectors --back-transform cusolver -o -").code, 2);
  EXPECT_EQ(run(f + " --reduction two-stage --band-width 0 -o -").code, 2);
  EXPECT_EQ(run(f + " --reduction three-stage -o -").code, 2);
  if (!eigsolve::cuda_compiled() || eigsolve::cuda_device_count() == 0) {
    EXPECT_EQ(run(f + " --reduction two-stage --device cuda -o -").code, 5);
  }
}

TEST(Cli, UnwritableOutputFailsCleanly) {
  cli::TempDir dir;
  auto r = run(matrix("can_24.mtx") + " -o " + (dir / "no/such/dir/w.txt"));
  EXPECT_EQ(r.code, 6) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST(Cli, CompareReportsDifferences) {
  cli::TempDir dir;
  {
    std::ofstream(dir / "a.txt") << "1\n2\n3\n";
    std::ofstream(dir / "b.txt") << "1\n2.0000000000000004\n3\n";
    std::ofstream(dir / "c.txt") << "1\n2\n";
  }
  auto r = run("compare " + (dir / "a.txt") + " " + (dir / "b.txt"));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("ULP distance    1"), std::string::npos) << r.out;
  EXPECT_EQ(run("compare " + (dir / "a.txt") + " " + (dir / "b.txt") + " --rtol 1e-15").code, 0);
  EXPECT_EQ(run("compare " + (dir / "a.txt") + " " + (dir / "c.txt")).code, 1);
  EXPECT_EQ(run("compare " + (dir / "a.txt") + " " + (dir / "a.txt")).code, 0);
  EXPECT_EQ(run("compare " + (dir / "a.txt") + " " + (dir / "missing.txt")).code, 3);
}

}  // namespace

namespace {

TEST(Cli, ZeroAndDiagonalMatricesGiveExactZerosAndFiniteVectors) {
  cli::TempDir dir;
  { std::ofstream(dir / "z5.mtx") << "%%MatrixMarket matrix coordinate real symmetric\n5 5 0\n"; }
  for (const char* p : {"s", "d", "z", "dd"}) {
    auto r = run((dir / "z5.mtx") + " -q -p " + p + " --vectors-output " + (dir / "v.mtx") +
                 " -o " + (dir / "w.txt"));
    ASSERT_EQ(r.code, 0) << p << r.err;
    auto w = cli::numbers(cli::slurp(dir / "w.txt"));
    EXPECT_EQ(w, std::vector<double>(5, 0.0)) << p;
    std::string v = cli::slurp(dir / "v.mtx");
    EXPECT_EQ(v.find("nan"), std::string::npos) << p << v;
  }
  // bcsstm01 is diagonal with 24 exact zeros: they come out as exactly 0.
  ASSERT_EQ(run(matrix("bcsstm01.mtx") + " -q -o " + (dir / "m.txt")).code, 0);
  auto w = cli::numbers(cli::slurp(dir / "m.txt"));
  EXPECT_EQ(std::count(w.begin(), w.end(), 0.0), 24);
}

TEST(Cli, MatricesNearOverflowAreScaledNotNan) {
  cli::TempDir dir;
  {
    // [[a, 0, a], [0, 0, 0], [a, 0, 0]], a = 1e308: eigenvalues a*phi, ~0, -a/phi.
    std::ofstream(dir / "big.mtx")
        << "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n1 1 1e308\n3 1 1e308\n";
  }
  for (const char* p : {"d", "dd"}) {
    auto r = run((dir / "big.mtx") + " -q -p " + p + " -o " + (dir / "w.txt"));
    ASSERT_EQ(r.code, 0) << r.err;
    auto w = cli::numbers(cli::slurp(dir / "w.txt"));
    ASSERT_EQ(w.size(), 3u);
    const double phi = (1.0 + std::sqrt(5.0)) / 2.0;
    EXPECT_NEAR(w[2] / 1e308, phi, 1e-14) << p;
    EXPECT_NEAR(w[0] / 1e308, -1.0 / phi, 1e-14) << p;
    EXPECT_LE(std::abs(w[1]) / 1e308, 1e-14) << p;
  }
}

}  // namespace
