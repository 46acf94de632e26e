// Writers: eigenvalue files round-trip bitwise (float, double, dd), read_eigenvalues errors,
// dense .mtx output reads back bitwise, atomic writes leave nothing behind on failure, and the
// parallel text writers give the same bytes for every thread count.
#include <sys/stat.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <typeinfo>
#include <limits>
#include <random>
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

// The parallel text writers (blocks formatted on several threads, written in order) give the
// bytes of the one-value-at-a-time loop they replaced, for every thread count: header and
// format_real of each value in column-major order, complex as "re im". 600 x 250 values are
// ten blocks of the writer (16384 values each, rounds of 4 blocks a thread: three rounds with
// one thread, two with two); ldz > n checks the layout.
template <class T>
std::string reference_mtx(index_t n, index_t m, const T* z, index_t ldz) {
  std::string s = std::string("%%MatrixMarket matrix array ") +
                  (is_complex_v<T> ? "complex" : "real") + " general\n" + std::to_string(n) + " " +
                  std::to_string(m) + "\n";
  for (index_t j = 0; j < m; ++j) {
    for (index_t i = 0; i < n; ++i) {
      const T& v = z[i + j * ldz];
      if constexpr (is_complex_v<T>) {
        s += format_real(v.re) + " " + format_real(v.im) + "\n";
      } else {
        s += format_real(v) + "\n";
      }
    }
  }
  return s;
}

template <class R>
R writer_value(std::mt19937_64& g) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const int e = static_cast<int>(g() % 64) - 40;
  if constexpr (std::is_same<R, dd_real>::value) {
    if (g() % 97 == 0) return dd_real(0.5);  // exact values (lo = 0) among the rest
    if (g() % 89 == 0) return dd_real(-0.0);
    return (dd_real(u(g)) / dd_real(3.0 + u(g))) * dd_real(std::ldexp(1.0, e));
  } else {
    if (g() % 89 == 0) return R(-0.0);
    return static_cast<R>(u(g) * std::ldexp(1.0, e));
  }
}

template <class T>
void parallel_writer_bytes() {
  const index_t n = 600, m = 250, ldz = 603;
  std::mt19937_64 g(42);
  std::vector<T> z(static_cast<std::size_t>(ldz * m));
  for (T& v : z) {
    const real_t<T> re = writer_value<real_t<T>>(g);
    const real_t<T> im = writer_value<real_t<T>>(g);
    v = make_scalar<T>(re, im);
  }
  const std::string want = reference_mtx(n, m, z.data(), ldz);
  TempDir d;
  for (int threads : {1, 2, 3, 8}) {
    const std::string p = d.file("z" + std::to_string(threads) + ".mtx");
    write_dense(p, n, m, z.data(), ldz, threads);
    ASSERT_EQ(slurp(p), want) << typeid(T).name() << " threads " << threads;
  }
  // Eigenvalues: the first column's real parts.
  std::vector<real_t<T>> w;
  for (index_t i = 0; i < 70000; ++i)
    w.push_back(writer_value<real_t<T>>(g));
  std::string wwant;
  for (const auto& x : w)
    wwant += format_real(x) + "\n";
  for (int threads : {1, 2, 5}) {
    const std::string p = d.file("w" + std::to_string(threads) + ".txt");
    write_eigenvalues(p, w, threads);
    ASSERT_EQ(slurp(p), wwant) << threads;
  }
  EXPECT_EQ(d.count(), 7);  // no temporaries left
}

TEST(Writers, ParallelMtxBytesIndependentOfThreads) {
  parallel_writer_bytes<float>();
  parallel_writer_bytes<double>();
  parallel_writer_bytes<cfloat>();
  parallel_writer_bytes<cdouble>();
  parallel_writer_bytes<dd_real>();
}

TEST(Writers, ParallelWriterEdgeShapes) {
  TempDir d;
  const std::string p = d.file("e.mtx");
  for (index_t n : {0, 1, 7}) {
    for (index_t m : {0, 1, 5}) {
      std::vector<double> z(static_cast<std::size_t>(std::max<index_t>(1, n) * m + 1), 0.25);
      write_dense(p, n, m, z.data(), std::max<index_t>(1, n), 4);
      EXPECT_EQ(slurp(p), reference_mtx(n, m, z.data(), std::max<index_t>(1, n))) << n << " " << m;
    }
  }
  write_eigenvalues(p, std::vector<dd_real>{}, 4);
  EXPECT_EQ(slurp(p), "");
  EXPECT_EQ(d.count(), 1);
}

TEST(Writers, StdoutDash) {
  testing::internal::CaptureStdout();
  write_eigenvalues("-", std::vector<double>{1.5, 2.0});
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "1.5\n2\n");
}

}  // namespace
}  // namespace eigsolve
