// Writers: eigenvalue files round-trip bitwise (float, double, dd), read_eigenvalues errors,
// dense .mtx output reads back bitwise, and atomic writes leave nothing behind on failure.
#include <sys/stat.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "io_test_util.hpp"

namespace eigsolve {
namespace {

using iotest::expect_input_error;
using iotest::TempDir;

std::string slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

template <class R>
std::vector<R> tricky_values() {
  using L = std::numeric_limits<R>;
  std::vector<R> v = {R(-1) / R(3), R(-0.0), R(0),        L::denorm_min(), L::min(),
                      R(1) / R(10), R(1),    R(2) / R(3), L::max(),        -L::max()};
  for (int k = 1; k < 200; ++k)
    v.push_back(std::sqrt(R(k)) * std::pow(R(10), R(k % 40 - 20)));
  return v;
}

template <class R>
void eigenvalue_round_trip() {
  TempDir d;
  const std::vector<R> w = tricky_values<R>();
  const std::string p = d.file("w.txt");
  write_eigenvalues(p, w);
  const std::vector<R> back = read_eigenvalues<R>(p);
  ASSERT_EQ(back.size(), w.size());
  for (std::size_t k = 0; k < w.size(); ++k) {
    EXPECT_EQ(std::memcmp(&back[k], &w[k], sizeof(R)), 0) << k << " " << format_real(w[k]);
  }
  EXPECT_EQ(d.count(), 1);  // no temporary left
}

TEST(Writers, EigenvaluesRoundTripFloatDouble) {
  eigenvalue_round_trip<float>();
  eigenvalue_round_trip<double>();
}

TEST(Writers, FormatRealIsShortest) {
  EXPECT_EQ(format_real(0.1), "0.1");
  EXPECT_EQ(format_real(0.1f), "0.1");
  EXPECT_EQ(format_real(-2.5), "-2.5");
  EXPECT_EQ(format_real(1e300), "1e+300");
  EXPECT_EQ(format_real(dd_real(0.5)).substr(0, 3), "5.0");
}

TEST(Writers, EigenvaluesRoundTripDd) {
  std::vector<dd_real> w;
  dd_real third = dd_real(1.0) / dd_real(3.0);
  w.push_back(third);
  w.push_back(-third);
  w.push_back(dd_real(0.0));
  w.push_back(dd_real(1.0) + dd_real(0x1p-80));
  w.push_back(sqrt_(dd_real(2.0)) * dd_real(1e200));
  w.push_back(dd_real(1.0) / dd_real(7e-150));
  for (int k = 1; k < 50; ++k)
    w.push_back(sqrt_(dd_real(k)) / dd_real(k * 1000.0 + 1));
  TempDir d;
  const std::string p = d.file("w.txt");
  write_eigenvalues(p, w);
  const std::vector<dd_real> back = read_eigenvalues<dd_real>(p);
  ASSERT_EQ(back.size(), w.size());
  for (std::size_t k = 0; k < w.size(); ++k) {
    EXPECT_EQ(back[k].hi, w[k].hi) << k;
    EXPECT_EQ(back[k].lo, w[k].lo) << k << " " << format_real(w[k]);
  }
}

TEST(Writers, ReadEigenvaluesErrors) {
  TempDir d;
  std::string p = d.write("a.txt", "1\n% comment\n# comment\n\n2.5\n3 4\n");
  expect_input_error([&] { read_eigenvalues<double>(p); }, 6, "one eigenvalue per line");
  p = d.write("b.txt", "1\n\n  x1\n");
  expect_input_error([&] { read_eigenvalues<double>(p); }, 3, "eigenvalue 'x1' is not a number");
  p = d.write("c.txt", "1\r\n+2\r\n-3.5e1\r\n");
  std::vector<double> w = read_eigenvalues<double>(p);
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(w[1], 2.0);
  EXPECT_EQ(w[2], -35.0);
  p = d.write("d.txt", "1e400\n");
  expect_input_error([&] { read_eigenvalues<double>(p); }, 1, "out of range");
  expect_input_error([&] { read_eigenvalues<float>(d.file("missing.txt")); }, 0, "cannot open");
}

template <class T>
void dense_mtx_round_trip() {
  const index_t n = 4;
  std::vector<T> a(n * n);
  for (index_t j = 0; j < n; ++j) {
    for (index_t i = j; i < n; ++i) {
      real_t<T> x = real_t<T>(1) / real_t<T>(double(3 + i + 2 * j));
      real_t<T> y = i == j ? real_t<T>(0) : real_t<T>(1) / real_t<T>(double(7 + i));
      a[i + j * n] = make_scalar<T>(x, y);
      a[j + i * n] = conj(make_scalar<T>(x, y));
    }
  }
  TempDir d;
  const std::string p = d.file("z.mtx");
  write_dense(p, n, n, a.data(), n);
  MatrixFileInfo info;
  HostMatrix<T> b = read_matrix<T>(p, &info);
  EXPECT_EQ(info.format, "array");
  EXPECT_EQ(info.field, is_complex_v<T> ? "complex" : "real");
  EXPECT_EQ(info.symmetry, "general");
  for (index_t k = 0; k < n * n; ++k)
    ASSERT_TRUE(b.data[k] == a[k]) << k;
  EXPECT_EQ(d.count(), 1);
}

TEST(Writers, DenseMtxRoundTripEveryScalar) {
  dense_mtx_round_trip<float>();
  dense_mtx_round_trip<double>();
  dense_mtx_round_trip<cfloat>();
  dense_mtx_round_trip<cdouble>();
  dense_mtx_round_trip<dd_real>();
}

TEST(Writers, DenseMtxLayoutWithLeadingDimension) {
  TempDir d;
  const double z[6] = {1, 2, -1, 3, 4, -1};  // 2 x 2 with ldz = 3
  const std::string p = d.file("z.mtx");
  write_dense(p, 2, 2, z, 3);
  EXPECT_EQ(slurp(p), "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n");
  EXPECT_THROW(write_dense(p, 2, 2, z, 1), DimensionError);
}

TEST(Writers, AtomicWriteFailuresLeaveNothing) {
  TempDir d;
  const std::string missing = d.path() + "/no/such/dir/out.txt";
  EXPECT_THROW(write_file_atomic(missing, "x"), OutputError);
  EXPECT_THROW(write_eigenvalues(missing, std::vector<double>{1.0}), OutputError);
  EXPECT_EQ(d.count(), 0);
  // The target is a folder: the rename fails, the temporary is removed.
  ::mkdir(d.file("sub").c_str(), 0755);
  EXPECT_THROW(write_file_atomic(d.file("sub"), "x"), OutputError);
  EXPECT_EQ(d.count(), 1);
  EXPECT_EQ(std::system(("test -z \"$(ls -A '" + d.file("sub") + "')\"").c_str()), 0);
  EXPECT_THROW(write_file_atomic("", "x"), OutputError);
}

TEST(Writers, AtomicWriteReplacesWholeFile) {
  TempDir d;
  const std::string p = d.file("o.txt");
  write_file_atomic(p, "a much longer old content\n");
  write_file_atomic(p, "new\n");
  EXPECT_EQ(slurp(p), "new\n");
  EXPECT_EQ(d.count(), 1);
  struct stat st {};
  ASSERT_EQ(::stat(p.c_str(), &st), 0);
  EXPECT_NE(st.st_mode & S_IRUSR, 0u);
}

TEST(Writers, StdoutDash) {
  testing::internal::CaptureStdout();
  write_eigenvalues("-", std::vector<double>{1.5, 2.0});
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "1.5\n2\n");
}

}  // namespace
}  // namespace eigsolve
