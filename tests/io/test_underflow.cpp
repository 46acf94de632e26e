// Nonzero input values that become exactly zero in the chosen precision are counted (real and
// imaginary parts apart) and the first one in file order is located (MatrixFileInfo::
// underflows): Matrix Market coordinate and array bodies (serial and chunked), .npy files.
// A value that only becomes subnormal, and a zero written in any form, does not count.
#include <omp.h>

#include <cstring>
#include <string>
#include <vector>

#include "io/io_detail.hpp"
#include "io_test_util.hpp"
#include "tests/common/npy_image.hpp"

namespace eigsolve {
namespace {

using iotest::TempDir;

struct Seen {
  index_t count;
  std::int64_t line;
  index_t row, col;
};

template <class T>
Seen underflows_of(const std::string& path) {
  MatrixFileInfo info;
  read_matrix<T>(path, &info);
  return {info.underflows, info.underflow_line, info.underflow_row, info.underflow_col};
}

template <class T>
void expect_seen(const std::string& path, Seen want, const char* what) {
  Seen got = underflows_of<T>(path);
  EXPECT_EQ(got.count, want.count) << what;
  EXPECT_EQ(got.line, want.line) << what;
  EXPECT_EQ(got.row, want.row) << what;
  EXPECT_EQ(got.col, want.col) << what;
}

// Lines: 1 banner, 2 size, 3.. entries. Line 4 holds the first value that underflows in float
// (1e-200), line 5 one that is only subnormal in float (1e-40), line 6 one that underflows in
// every precision (1e-400, also in dd), then zeros written in several forms (not counted) and
// more float underflows in forms the general path parses ('+', 'D' exponent, blanks, CRLF).
const std::string kCoordReal =
    "%%MatrixMarket matrix coordinate real symmetric\n"
    "4 4 10\n"
    "1 1 1\n"
    "2 1 1e-200\n"
    "3 1 1e-40\n"
    "4 1 -1e-400\n"
    "2 2 0\n"
    "3 2 -0.0e-500\n"
    "4 2 0e5\n"
    "3 3 +2.5e-100\n"
    "  4 3 -3D-90 \r\n"
    "4 4 1\n";

TEST(Underflow, CoordinateReal) {
  TempDir d;
  const std::string p = d.write("c.mtx", kCoordReal);
  expect_seen<float>(p, {4, 4, 2, 1}, "float");
  expect_seen<cfloat>(p, {4, 4, 2, 1}, "complex float");
  expect_seen<double>(p, {1, 6, 4, 1}, "double");
  expect_seen<cdouble>(p, {1, 6, 4, 1}, "complex double");
  expect_seen<dd_real>(p, {1, 6, 4, 1}, "dd");
  // The subnormal one keeps its value.
  HostMatrix<float> a = read_matrix<float>(p);
  EXPECT_EQ(a(2, 0), 1e-40f);
  EXPECT_EQ(a(1, 0), 0.0f);
}

TEST(Underflow, NothingToCount) {
  TempDir d;
  // Integer and pattern fields never underflow; plain zeros and normal values do not count.
  const std::string ints = d.write("i.mtx",
                                   "%%MatrixMarket matrix coordinate integer symmetric\n"
                                   "2 2 3\n1 1 -7\n2 1 0\n2 2 123456789\n");
  const std::string pat = d.write("p.mtx",
                                  "%%MatrixMarket matrix coordinate pattern symmetric\n"
                                  "2 2 2\n1 1\n2 1\n");
  const std::string zeros = d.write("z.mtx",
                                    "%%MatrixMarket matrix array real general\n"
                                    "2 2\n0\n-0.\n.0e-999\n0.000e+7\n");
  for (const std::string& p : {ints, pat, zeros}) {
    expect_seen<float>(p, {0, 0, 0, 0}, p.c_str());
    expect_seen<double>(p, {0, 0, 0, 0}, p.c_str());
    expect_seen<dd_real>(p, {0, 0, 0, 0}, p.c_str());
  }
}

TEST(Underflow, CoordinateComplex) {
  TempDir d;
  // Line 4: the imaginary part underflows in float; line 5: both parts (2 more); line 6: the
  // imaginary part is only subnormal; line 8: the real part underflows in double too.
  const std::string p = d.write("h.mtx",
                                "%%MatrixMarket matrix coordinate complex hermitian\n"
                                "3 3 6\n"
                                "1 1 1 0\n"
                                "2 1 1 1e-50\n"
                                "3 1 1e-60 -1e-70\n"
                                "3 2 1 1e-41\n"
                                "2 2 2 0\n"
                                "3 3 1e-330 0\n");
  expect_seen<cfloat>(p, {4, 4, 2, 1}, "complex float");
  expect_seen<cdouble>(p, {1, 8, 3, 3}, "complex double");
}

TEST(Underflow, ArrayRealAndComplex) {
  TempDir d;
  // Symmetric array: values in column order of the lower triangle; line 4 is (1, 1).
  const std::string s = d.write("s.mtx",
                                "%%MatrixMarket matrix array real symmetric\n"
                                "% a comment\n"
                                "3 3\n"
                                "1\n"         // 4: (1, 1)
                                "1e-39\n"     // 5: (2, 1) subnormal in float
                                "0\n"         // 6: (3, 1)
                                "2\n"         // 7: (2, 2)
                                "-1e-90\n"    // 8: (3, 2)
                                "1e-999\n");  // 9: (3, 3)
  expect_seen<float>(s, {2, 8, 3, 2}, "float");
  expect_seen<double>(s, {1, 9, 3, 3}, "double");
  expect_seen<dd_real>(s, {1, 9, 3, 3}, "dd");
  // General array: column-major, both triangles count.
  const std::string g = d.write("g.mtx",
                                "%%MatrixMarket matrix array real general\n"
                                "2 2\n1\n1e-60\n1e-60\n1\n");
  expect_seen<float>(g, {2, 4, 2, 1}, "general float");
  expect_seen<double>(g, {0, 0, 0, 0}, "general double");
  const std::string c = d.write("c.mtx",
                                "%%MatrixMarket matrix array complex hermitian\n"
                                "2 2\n1 0\n1e-50 1e-50\n3 0\n");
  expect_seen<cfloat>(c, {2, 4, 2, 1}, "complex float");
  expect_seen<cdouble>(c, {0, 0, 0, 0}, "complex double");
}

// A file of n x n with one float underflow at every 7th value: the chunked parsers give the
// serial count and the first one's line, whatever the thread count and the chunk cuts.
class UnderflowChunked : public ::testing::Test {
 protected:
  void SetUp() override {
    array_ = io_detail::array_parallel_bytes();
    coord_ = io_detail::coordinate_parallel_bytes();
    block_ = io_detail::coordinate_block_bytes();
  }
  void TearDown() override {
    io_detail::array_parallel_bytes() = array_;
    io_detail::coordinate_parallel_bytes() = coord_;
    io_detail::coordinate_block_bytes() = block_;
    omp_set_num_threads(omp_get_num_procs());
  }
  std::size_t array_ = 0, coord_ = 0, block_ = 0;
};

TEST_F(UnderflowChunked, SameCountAndFirstForEveryThreadCount) {
  const int n = 40;
  std::string arr = "%%MatrixMarket matrix array real symmetric\n" + std::to_string(n) + " " +
                    std::to_string(n) + "\n";
  std::string coo = "%%MatrixMarket matrix coordinate real symmetric\n" + std::to_string(n) + " " +
                    std::to_string(n) + " " + std::to_string(n * (n + 1) / 2) + "\n";
  index_t want = 0;
  int k = 0;
  for (int j = 0; j < n; ++j) {
    for (int i = j; i < n; ++i, ++k) {
      const bool tiny = k % 7 == 5;
      want += tiny;
      const std::string v = tiny ? "-4.5e-" + std::to_string(50 + k % 200) : std::to_string(k + 1);
      arr += v + "\n";
      coo += std::to_string(i + 1) + " " + std::to_string(j + 1) + " " + v + "\n";
    }
  }
  TempDir d;
  const std::string pa = d.write("a.mtx", arr), pc = d.write("c.mtx", coo);
  // Value 5 (0-based) is (6, 1), on line 3 + 5 = 8.
  for (int t : {1, 2, 3, 5}) {
    omp_set_num_threads(t);
    io_detail::array_parallel_bytes() = 1;
    io_detail::coordinate_parallel_bytes() = 1;
    for (std::size_t block : {std::size_t(4) << 20, std::size_t(300)}) {
      io_detail::coordinate_block_bytes() = block;
      expect_seen<float>(pa, {want, 8, 6, 1}, "array");
      expect_seen<float>(pc, {want, 8, 6, 1}, "coordinate");
      expect_seen<double>(pc, {0, 0, 0, 0}, "coordinate double");
    }
  }
}

// .npy image: version 1.0 header + raw data.
std::string npy(const std::string& descr, bool fortran, int n, const void* data,
                std::size_t bytes) {
  return test_util::npy_image(
      "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
          ", 'shape': (" + std::to_string(n) + ", " + std::to_string(n) + "), }",
      std::string(static_cast<const char*>(data), bytes));
}

TEST(Underflow, NpyFloat64ToFloat) {
  TempDir d;
  // Symmetric 3 x 3: (2, 1) = (1, 2) = 1e-200 (two values), (3, 3) = 1e-40 (subnormal in
  // float: not counted), (3, 1) = (1, 3) = 0 and -0 (not counted), (3, 2) = (2, 3) = -1e-50.
  const double v[9] = {1, 1e-200, 0, 1e-200, 2, -1e-50, -0.0, -1e-50, 1e-40};
  for (bool fortran : {false, true}) {
    const std::string p = d.write(fortran ? "f.npy" : "c.npy", npy("<f8", fortran, 3, v, 72));
    // The first in the file's order: (1, 2) in C order, (2, 1) in Fortran order.
    expect_seen<float>(p, {4, 0, fortran ? 2 : 1, fortran ? 1 : 2}, "float");
    expect_seen<cfloat>(p, {4, 0, fortran ? 2 : 1, fortran ? 1 : 2}, "complex float");
    expect_seen<double>(p, {0, 0, 0, 0}, "double");
    expect_seen<dd_real>(p, {0, 0, 0, 0}, "dd");
    HostMatrix<float> a = read_matrix<float>(p);
    EXPECT_EQ(a(2, 2), static_cast<float>(1e-40));
  }
}

TEST(Underflow, NpyComplex128ToComplexFloat) {
  TempDir d;
  // Hermitian 2 x 2, C order: (1, 2) = 1 + 1e-60 i, (2, 1) = 1 - 1e-60 i (two imaginary
  // parts), diagonal 1e-70 + 0i at (2, 2) (one real part).
  const double v[8] = {1, 0, 1, 1e-60, 1, -1e-60, 1e-70, 0};
  const std::string p = d.write("h.npy", npy("<c16", false, 2, v, 64));
  expect_seen<cfloat>(p, {3, 0, 1, 2}, "complex float");
  expect_seen<cdouble>(p, {0, 0, 0, 0}, "complex double");
  // float32 data never underflows in any precision.
  const float f[4] = {1, 1e-40f, 1e-40f, 1};
  const std::string q = d.write("f.npy", npy("<f4", false, 2, f, 16));
  expect_seen<float>(q, {0, 0, 0, 0}, "f4 float");
}

}  // namespace
}  // namespace eigsolve
