// Every shared matrix file of tests/data/matrices (SOURCES.md): accepted ones give the right
// size, entries and an exactly symmetric/Hermitian dense matrix; rejected ones give the right
// message and line.
#include <fstream>
#include <regex>
#include <sstream>

#include "io_test_util.hpp"

namespace eigsolve {
namespace {

using iotest::data_path;
using iotest::expect_input_error;

template <class T>
void expect_full_symmetric(const HostMatrix<T>& a) {
  for (index_t j = 0; j < a.n; ++j) {
    EXPECT_EQ(imag_part(a(j, j)), real_t<T>(0));
    for (index_t i = j + 1; i < a.n; ++i) {
      ASSERT_TRUE(a(i, j) == conj(a(j, i))) << "(" << i << ", " << j << ")";
    }
  }
}

template <class T>
double trace(const HostMatrix<T>& a) {
  double t = 0;
  for (index_t j = 0; j < a.n; ++j)
    t += to_double(real_part(a(j, j)));
  return t;
}

template <class T>
HostMatrix<T> read_ok(const std::string& name, index_t n) {
  MatrixFileInfo info;
  HostMatrix<T> a = read_matrix<T>(data_path(name), &info);
  EXPECT_EQ(a.n, n) << name;
  EXPECT_EQ(info.rows, n);
  MatrixFileInfo probe = probe_matrix_file(data_path(name));
  EXPECT_EQ(probe.rows, n);
  EXPECT_EQ(probe.format, info.format);
  EXPECT_EQ(probe.field, info.field);
  EXPECT_EQ(probe.symmetry, info.symmetry);
  EXPECT_EQ(probe.entries, info.entries);
  expect_full_symmetric(a);
  return a;
}

// --- 1. real symmetric coordinate ---

TEST(MatrixFiles, Bcsstk01) {
  auto a = read_ok<double>("bcsstk01.mtx", 48);
  EXPECT_EQ(a(0, 0), 2.8322685185200e+06);
  EXPECT_EQ(a(4, 0), 1.0e6);
  EXPECT_EQ(a(0, 4), 1.0e6);
  EXPECT_EQ(a(6, 0), -3.3333333333300e+03);
  EXPECT_NEAR(trace(a), 3.243307622e+10, 1e1);
  MatrixFileInfo info = probe_matrix_file(data_path("bcsstk01.mtx"));
  EXPECT_EQ(info.format, "coordinate");
  EXPECT_EQ(info.field, "real");
  EXPECT_EQ(info.symmetry, "symmetric");
  EXPECT_EQ(info.entries, 224);
}

TEST(MatrixFiles, Bcsstm01DiagonalWithExplicitZeros) {
  auto a = read_ok<double>("bcsstm01.mtx", 48);
  int zeros = 0, hundreds = 0, two_hundreds = 0;
  for (index_t i = 0; i < 48; ++i) {
    zeros += a(i, i) == 0.0;
    hundreds += a(i, i) == 100.0;
    two_hundreds += a(i, i) == 200.0;
    for (index_t j = 0; j < 48; ++j)
      if (i != j) {
        ASSERT_EQ(a(i, j), 0.0);
      }
  }
  EXPECT_EQ(zeros, 24);
  EXPECT_EQ(hundreds, 12);
  EXPECT_EQ(two_hundreds, 12);
}

TEST(MatrixFiles, Bcsstk03ShortValues) {
  auto a = read_ok<double>("bcsstk03.mtx", 112);
  EXPECT_EQ(a(0, 0), 296965303.256);
  EXPECT_EQ(a(0, 3), 4507339372.82);
}

TEST(MatrixFiles, SmallerRealSymmetric) {
  auto l = read_ok<double>("LFAT5.mtx", 14);
  EXPECT_EQ(l(0, 0), 1.57088);
  EXPECT_EQ(l(3, 0), -94.2528);
  EXPECT_EQ(l(13, 13), 1.57088);
  EXPECT_EQ(l(13, 12), .78544);
  auto lu = read_ok<double>("LUNDA.mtx", 147);
  EXPECT_EQ(lu(0, 0), 7.5e7);
  EXPECT_EQ(lu(1, 0), 9.6153881e5);
  auto lb = read_ok<double>("lund_b.mtx", 147);
  EXPECT_EQ(lb(0, 0), 7.6530615e2);
  EXPECT_EQ(lb(0, 1), -2.806123e2);
  auto p = read_ok<double>("plat362.mtx", 362);
  EXPECT_EQ(p(0, 0), 6.5164552064407e-02);
  EXPECT_EQ(p(361, 361), 1.1577667975623e-01);
  auto b4 = read_ok<double>("494_bus.mtx", 494);
  EXPECT_EQ(b4(0, 0), 2220.874);
  EXPECT_EQ(b4(15, 0), -9.960159);
  auto b11 = read_ok<double>("1138_bus.mtx", 1138);
  EXPECT_EQ(b11(0, 0), 1474.779);
  EXPECT_EQ(b11(0, 4), -9.017133);
}

TEST(MatrixFiles, GD97bEmptyLastRow) {
  auto a = read_ok<double>("GD97_b.mtx", 47);
  EXPECT_EQ(a(1, 0), 59.0);
  EXPECT_EQ(a(45, 43), 1356.59);
  for (index_t i = 0; i < 47; ++i) {
    EXPECT_EQ(a(i, i), 0.0);
    EXPECT_EQ(a(46, i), 0.0);
  }
}

TEST(MatrixFiles, LargerRealSymmetric) {
  auto a = read_ok<double>("bcsstk13.mtx", 2003);
  EXPECT_EQ(a(0, 0), 277281165.183);
  EXPECT_EQ(a(1, 0), 3101923.80092);
  EXPECT_EQ(a(2002, 2002), 5552681.3139);
  auto z = read_ok<double>("zenios.mtx", 2873);
  EXPECT_EQ(z(2872, 2872), 0.0);
}

// --- 2. integer and pattern; the same matrix as integer and real ---

TEST(MatrixFiles, Gr3030IntegerEqualsReal) {
  auto gi = read_ok<double>("gr_30_30.mtx", 900);
  auto gr = read_ok<double>("gr_900_900_crg.mtx", 900);
  EXPECT_EQ(gi(0, 0), 8.0);
  EXPECT_EQ(gi(1, 0), -1.0);
  EXPECT_EQ(trace(gi), 7200.0);
  EXPECT_TRUE(gi.data == gr.data);
  auto gf = read_ok<float>("gr_30_30.mtx", 900);
  EXPECT_EQ(gf(0, 0), 8.0f);
  auto gz = read_ok<cdouble>("gr_30_30.mtx", 900);
  EXPECT_EQ(gz(1, 0), cdouble(-1.0, 0.0));
  auto gd = read_ok<dd_real>("gr_30_30.mtx", 900);
  EXPECT_EQ(gd(1, 0), dd_real(-1.0));
}

TEST(MatrixFiles, Trefethen20b) {
  auto a = read_ok<double>("Trefethen_20b.mtx", 19);
  EXPECT_EQ(a(0, 0), 3.0);
  EXPECT_EQ(a(1, 0), 1.0);
  EXPECT_EQ(trace(a), 637.0);
}

TEST(MatrixFiles, PatternFilesAreOnes) {
  auto c = read_ok<double>("can_24.mtx", 24);
  EXPECT_EQ(c(0, 0), 1.0);
  EXPECT_EQ(c(5, 0), 1.0);
  EXPECT_EQ(c(0, 5), 1.0);
  EXPECT_EQ(trace(c), 24.0);
  auto k = read_ok<double>("karate.mtx", 34);
  EXPECT_EQ(k(1, 0), 1.0);
  EXPECT_EQ(k(2, 0), 1.0);
  EXPECT_EQ(trace(k), 0.0);
  double sum = 0;
  for (double x : k.data)
    sum += x;
  EXPECT_EQ(sum, 2 * 78.0);
}

// --- 3. complex Hermitian ---

TEST(MatrixFiles, Mhd1280b) {
  auto a = read_ok<cdouble>("mhd1280b.mtx", 1280);
  EXPECT_EQ(a(0, 0), cdouble(2.0, 0.0));
  EXPECT_EQ(a(1, 1), cdouble(.252505826, 0.0));
  EXPECT_EQ(a(3, 1), cdouble(.000144380768, -1.11464849e-18));
  EXPECT_EQ(a(1, 3), cdouble(.000144380768, 1.11464849e-18));
  auto c = read_ok<cfloat>("mhd1280b.mtx", 1280);
  EXPECT_EQ(c(3, 1), cfloat(.000144380768f, -1.11464849e-18f));
}

TEST(MatrixFiles, CholmodHermitian3) {
  auto a = read_ok<cdouble>("cholmod_c_hermitian3.mtx", 3);
  EXPECT_EQ(a(2, 0), cdouble(2.0, -1.0));
  EXPECT_EQ(a(0, 2), cdouble(2.0, 1.0));
  EXPECT_EQ(a(2, 1), cdouble(3.0, 0.0));
  EXPECT_EQ(trace(a), 44.0);
}

TEST(MatrixFiles, PrimmeHaBothTrianglesAgree) {
  auto a = read_ok<cdouble>("primme_HA_hermitian245.mtx", 245);
  EXPECT_EQ(a(0, 0), cdouble(-0.3953537081598879, 0.0));
  EXPECT_EQ(a(1, 0), cdouble(2.261565420532726e-17, -2.467162276944792e-17));
  EXPECT_EQ(a(0, 1), cdouble(2.261565420532726e-17, 2.467162276944792e-17));
  EXPECT_EQ(a(3, 0), cdouble(-0.08139377814503078, -0.0145903448618455));
}

TEST(MatrixFiles, ComplexFileWithRealPrecisionIsRejected) {
  expect_input_error([] { read_matrix<double>(data_path("mhd1280b.mtx")); }, 1,
                     "use --precision c or z");
  expect_input_error([] { read_matrix<float>(data_path("fmm_array_hermitian3.mtx")); }, 1,
                     "use --precision c or z");
  expect_input_error([] { read_matrix<dd_real>(data_path("cholmod_c_hermitian3.mtx")); }, 1,
                     "use --precision c or z");
}

TEST(MatrixFiles, BadHermitianDiagonalRejected) {
  expect_input_error([] { read_matrix<cdouble>(data_path("cholmod_cha_bad_hermitian3.mtx")); }, 6,
                     "diagonal entry (2, 2)");
  expect_input_error([] { read_matrix<cfloat>(data_path("cholmod_cha_bad_hermitian3.mtx")); }, 6,
                     "is not real");
}

// --- 4. dense array ---

TEST(MatrixFiles, FullSymmetricArray4) {
  auto a = read_ok<double>("full_symmetric_array4.mtx", 4);
  EXPECT_EQ(a(0, 0), 10.762188911437988);
  EXPECT_EQ(a(1, 0), 18.18952178955078);
  EXPECT_EQ(a(3, 0), 22.269603729248047);
  EXPECT_EQ(a(1, 1), 7.084949970245361);
  EXPECT_EQ(a(0, 1), 18.18952178955078);
  EXPECT_EQ(a(3, 3), 3.9635860919952393);
  EXPECT_EQ(probe_matrix_file(data_path("full_symmetric_array4.mtx")).format, "array");
}

TEST(MatrixFiles, CholmodFullrsaArrayWithCommentsBetweenValues) {
  auto a = read_ok<double>("cholmod_fullrsa_array2.mtx", 2);
  EXPECT_EQ(a(0, 0), 1.3);
  EXPECT_EQ(a(1, 0), 3.4);
  EXPECT_EQ(a(0, 1), 3.4);
  EXPECT_EQ(a(1, 1), 7.7);
}

TEST(MatrixFiles, FmmArrayHermitian3) {
  auto a = read_ok<cdouble>("fmm_array_hermitian3.mtx", 3);
  EXPECT_EQ(a(0, 0), cdouble(1, 0));
  EXPECT_EQ(a(1, 0), cdouble(22, 1));
  EXPECT_EQ(a(0, 1), cdouble(22, -1));
  EXPECT_EQ(a(2, 0), cdouble(33, 1));
  EXPECT_EQ(a(1, 1), cdouble(2, 0));
  EXPECT_EQ(a(2, 1), cdouble(44, 1));
  EXPECT_EQ(a(2, 2), cdouble(3, 0));
}

// The line named by a non-symmetry message holds one of the two entries it names.
void expect_line_names_entry(const std::string& file, bool array) {
  try {
    read_matrix<double>(data_path(file));
    ADD_FAILURE() << file << " should be rejected";
  } catch (const InputError& e) {
    const std::string msg = e.message();
    EXPECT_NE(msg.find("not symmetric"), std::string::npos) << e.what();
    std::smatch m;
    ASSERT_TRUE(std::regex_search(msg, m, std::regex(R"(A\((\d+), (\d+)\))"))) << msg;
    const long i = std::stol(m[1]), j = std::stol(m[2]);
    std::ifstream f(data_path(file));
    std::string line;
    for (std::int64_t k = 0; k < e.line(); ++k)
      std::getline(f, line);
    if (array) {
      // Column-major: the later of (i, j) and (j, i) is value number max(..) after the header.
      EXPECT_FALSE(line.empty() || line[0] == '%') << line;
    } else {
      std::istringstream s(line);
      long r = 0, c = 0;
      s >> r >> c;
      EXPECT_TRUE((r == i && c == j) || (r == j && c == i)) << e.what() << " | " << line;
    }
  }
}

TEST(MatrixFiles, NonSymmetricArrayGeneralRejected) {
  // A(2,1) (line 6) differs from A(1,2) (value 51, line 55); the later one is reported.
  expect_input_error([] { read_matrix<double>(data_path("lis_testmat4_array_general50.mtx")); }, 55,
                     "the matrix is not symmetric: A(2, 1)");
  expect_line_names_entry("lis_testmat4_array_general50.mtx", true);
}

// --- 5. general and other non-symmetric headers ---

TEST(MatrixFiles, West0067Rejected) {
  expect_line_names_entry("west0067.mtx", false);
}

TEST(MatrixFiles, SymmetricGeneralLaplacianAccepted) {
  auto a = read_ok<double>("lis_testmat0_laplace2d_general.mtx", 100);
  EXPECT_EQ(probe_matrix_file(data_path("lis_testmat0_laplace2d_general.mtx")).symmetry, "general");
  for (index_t i = 0; i < 100; ++i)
    EXPECT_EQ(a(i, i), 4.0);
  EXPECT_EQ(a(1, 0), -1.0);
  EXPECT_EQ(a(10, 0), -1.0);
  EXPECT_EQ(a(2, 0), 0.0);
}

TEST(MatrixFiles, SkewSymmetricWithInfRejected) {
  expect_input_error([] { read_matrix<double>(data_path("skew_fp64_with_inf.mtx")); }, 1,
                     "skew-symmetric matrices are not supported");
  expect_input_error([] { probe_matrix_file(data_path("skew_fp64_with_inf.mtx")); }, 1,
                     "skew-symmetric");
}

// --- 6. odd formatting ---

TEST(MatrixFiles, Lfat5Hypersparse) {
  auto h = read_ok<double>("LFAT5_hypersparse.mtx", 2000);
  auto l = read_ok<double>("LFAT5.mtx", 14);
  for (index_t j = 0; j < 14; ++j)
    for (index_t i = 0; i < 14; ++i)
      ASSERT_EQ(h(i, j), l(i, j));
  for (index_t i = 14; i < 2000; ++i)
    ASSERT_EQ(h(i, i), 0.0);
}

TEST(MatrixFiles, LdbcDoublePercentComment) {
  auto a = read_ok<double>("ldbc_undirected_example.mtx", 9);
  EXPECT_EQ(a(1, 0), 0.9);
  EXPECT_EQ(a(0, 1), 0.9);
  EXPECT_EQ(a(7, 5), 0.36);
  EXPECT_EQ(trace(a), 0.0);
}

TEST(MatrixFiles, NistCrlfGeneralRejectedAsNonSymmetric) {
  // Parses (CRLF, mixed case, blank lines) and then fails the symmetry check: the entry
  // "1 4 6" (line 34) has no (4, 1) counterpart.
  expect_input_error([] { read_matrix<double>(data_path("nist_ex1_crlf_freeformat.mtx")); }, 34,
                     "the matrix is not symmetric: A(4, 1) = 0 but A(1, 4) = 6");
  expect_line_names_entry("nist_ex1_crlf_freeformat.mtx", false);
  MatrixFileInfo info = probe_matrix_file(data_path("nist_ex1_crlf_freeformat.mtx"));
  EXPECT_EQ(info.format, "coordinate");
  EXPECT_EQ(info.symmetry, "general");
  EXPECT_EQ(info.rows, 5);
  EXPECT_EQ(info.entries, 8);
}

TEST(MatrixFiles, NoHeaderRejected) {
  expect_input_error([] { read_matrix<double>(data_path("bcsstk01_noheader.mtx")); }, 1,
                     "%%MatrixMarket banner is missing");
  expect_input_error([] { probe_matrix_file(data_path("bcsstk01_noheader.mtx")); }, 1,
                     "%%MatrixMarket banner is missing");
}

}  // namespace
}  // namespace eigsolve
