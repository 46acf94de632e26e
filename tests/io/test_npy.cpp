// NumPy .npy: reading every supported dtype in C and Fortran order, versions 1.0/2.0,
// detection by magic bytes, rejections, and write_dense round trips.
#include <cstring>
#include <vector>

#include "io_test_util.hpp"

namespace eigsolve {
namespace {

using iotest::expect_input_error;
using iotest::TempDir;

// A .npy file image: header (version major.0) + raw little-endian data.
std::string npy_image(const std::string& dict, const void* data, std::size_t bytes, int major = 1) {
  std::string d = dict;
  const std::size_t pre = major == 1 ? 10 : 12;
  while ((pre + d.size() + 1) % 64 != 0)
    d += ' ';
  d += '\n';
  std::string out("\x93NUMPY", 6);
  out += static_cast<char>(major);
  out += '\0';
  const std::size_t hlen = d.size();
  for (std::size_t k = 0; k < (major == 1 ? 2u : 4u); ++k) {
    out += static_cast<char>((hlen >> (8 * k)) & 0xff);
  }
  out += d;
  out.append(static_cast<const char*>(data), bytes);
  return out;
}

std::string dict(const std::string& descr, bool fortran, const std::string& shape) {
  return "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
         ", 'shape': " + shape + ", }";
}

// A symmetric (Hermitian) 3 x 3 test matrix: A(i,j) = 10*max(i,j) + min(i,j) (+ i*(i-j)).
template <class S>
std::vector<S> full_matrix(bool cplx, bool fortran) {
  const int n = 3;
  std::vector<S> v(static_cast<std::size_t>(n * n * (cplx ? 2 : 1)));
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const int k = fortran ? i + j * n : i * n + j;
      const S re = static_cast<S>(10 * std::max(i, j) + std::min(i, j)) + S(0.5);
      const S im = static_cast<S>(i - j) * S(0.25);
      if (cplx) {
        v[2 * k] = re;
        v[2 * k + 1] = im;
      } else {
        v[k] = re;
      }
    }
  }
  return v;
}

template <class T, class S>
void check_dtype(const std::string& descr, bool cplx) {
  for (bool fortran : {false, true}) {
    for (int major : {1, 2}) {
      TempDir d;
      auto v = full_matrix<S>(cplx, fortran);
      // No .npy extension: detection is by the magic bytes.
      std::string p = d.write("matrix.dat", npy_image(dict(descr, fortran, "(3, 3)"), v.data(),
                                                      v.size() * sizeof(S), major));
      MatrixFileInfo info;
      HostMatrix<T> a = read_matrix<T>(p, &info);
      EXPECT_EQ(info.format, "npy");
      EXPECT_EQ(info.field, cplx ? "complex" : "real");
      EXPECT_EQ(info.rows, 3);
      MatrixFileInfo probe = probe_matrix_file(p);
      EXPECT_EQ(probe.format, "npy");
      EXPECT_EQ(probe.rows, 3);
      ASSERT_EQ(a.n, 3);
      for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
          const double re = 10 * std::max(i, j) + std::min(i, j) + 0.5;
          const double im = cplx ? (i - j) * 0.25 : 0.0;
          EXPECT_EQ(to_double(real_part(a(i, j))), re) << descr << " " << i << "," << j;
          EXPECT_EQ(to_double(imag_part(a(i, j))), im) << descr << " " << i << "," << j;
        }
      }
    }
  }
}

TEST(Npy, ReadsEveryDtypeAndOrder) {
  check_dtype<float, float>("<f4", false);
  check_dtype<double, float>("<f4", false);
  check_dtype<double, double>("<f8", false);
  check_dtype<float, double>("<f8", false);
  check_dtype<dd_real, double>("<f8", false);
  check_dtype<cfloat, float>("<c8", true);
  check_dtype<cdouble, float>("<c8", true);
  check_dtype<cdouble, double>("<c16", true);
  check_dtype<cdouble, double>("<f8", false);  // real data, complex precision
}

TEST(Npy, Rejections) {
  TempDir d;
  double v[4] = {1, 2, 2, 1};
  double ns[4] = {1, 2, 3, 1};
  auto rej = [&](const std::string& name, const std::string& image, const std::string& needle) {
    std::string p = d.write(name, image);
    expect_input_error([&] { read_matrix<double>(p); }, 0, needle);
  };
  rej("a.npy", npy_image(dict("<i8", false, "(2, 2)"), v, 32), "unsupported .npy dtype '<i8'");
  rej("b.npy", npy_image(dict(">f8", false, "(2, 2)"), v, 32), "big-endian");
  rej("c.npy", npy_image(dict("<f8", false, "(4,)"), v, 32), "shape (4,)");
  rej("d.npy", npy_image(dict("<f8", false, "(1, 2, 2)"), v, 32), "must be 2-D");
  rej("e.npy", npy_image(dict("<f8", false, "(1, 4)"), v, 32), "not square");
  rej("f.npy", npy_image(dict("<f8", false, "(2, 2)"), v, 24), "truncated");
  rej("g.npy", npy_image(dict("<f8", false, "(2, 2)"), v, 32) + "x", "extra data");
  rej("h.npy", npy_image(dict("<f8", false, "(2, 2)"), ns, 32), "not symmetric: A(2, 1) = 3");
  rej("i.npy", npy_image(dict("<c16", false, "(1, 1)"), v, 16), "use --precision c or z");
  rej("j.npy", std::string("\x93NUMPY\x01", 7), "truncated .npy header");
  rej("k.npy", npy_image("{'descr': '<f8', 'shape': (2, 2)}", v, 32), "lacks");
  rej("l.npy", npy_image(dict("<f8", false, "(2, 2)"), v, 32, 4), "version 4.0");
  double bad[4] = {1, 2, 2, std::numeric_limits<double>::quiet_NaN()};
  rej("m.npy", npy_image(dict("<f8", false, "(2, 2)"), bad, 32), "element (2, 2) is not finite");
  double hdiag[2] = {1, 0.5};
  std::string p = d.write("n.npy", npy_image(dict("<c16", false, "(1, 1)"), hdiag, 16));
  expect_input_error([&] { read_matrix<cdouble>(p); }, 0, "is not real");
  double huge[1] = {1e300};
  p = d.write("o.npy", npy_image(dict("<f8", false, "(1, 1)"), huge, 8));
  expect_input_error([&] { read_matrix<float>(p); }, 0, "overflows float");
}

template <class T>
void round_trip(const std::vector<T>& a, index_t n) {
  TempDir d;
  std::string p = d.file("out.npy");
  write_dense(p, n, n, a.data(), n);
  HostMatrix<T> b = read_matrix<T>(p);
  ASSERT_EQ(b.n, n);
  for (index_t k = 0; k < n * n; ++k)
    ASSERT_TRUE(b.data[k] == a[k]) << k;
  EXPECT_EQ(d.count(), 1);
}

TEST(Npy, WriteDenseRoundTrips) {
  const index_t n = 5;
  std::vector<float> f(n * n);
  std::vector<double> g(n * n);
  std::vector<cfloat> c(n * n);
  std::vector<cdouble> z(n * n);
  for (index_t j = 0; j < n; ++j) {
    for (index_t i = 0; i < n; ++i) {
      const double x = 1.0 / (1 + i + j) + (i == j ? 3 : 0);
      const double y = i == j ? 0.0 : (i > j ? 1.0 : -1.0) / 3.0 * (i + 1) * (j + 1);
      f[i + j * n] = static_cast<float>(x);
      g[i + j * n] = x;
      c[i + j * n] = cfloat(static_cast<float>(x), static_cast<float>(y));
      z[i + j * n] = cdouble(x, y);
    }
  }
  round_trip(f, n);
  round_trip(g, n);
  round_trip(c, n);
  round_trip(z, n);
}

TEST(Npy, WriterHeaderIsAligned) {
  TempDir d;
  double v[6] = {1, 2, 3, 4, 5, 6};
  std::string p = d.file("r.npy");
  write_dense(p, 2, 3, v, 2);  // rectangular output is fine for the writer
  std::ifstream f(p, std::ios::binary);
  std::string s((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  ASSERT_GE(s.size(), 10u);
  const std::size_t hlen =
      static_cast<unsigned char>(s[8]) | (static_cast<unsigned char>(s[9]) << 8);
  EXPECT_EQ((10 + hlen) % 64, 0u);
  EXPECT_EQ(s.size(), 10 + hlen + 48);
  EXPECT_NE(s.find("'fortran_order': True"), std::string::npos);
  EXPECT_NE(s.find("'shape': (2, 3)"), std::string::npos);
  double back[6];
  std::memcpy(back, s.data() + 10 + hlen, 48);
  for (int k = 0; k < 6; ++k)
    EXPECT_EQ(back[k], v[k]);
}

TEST(Npy, DdIsNotWritableAsNpy) {
  TempDir d;
  dd_real v[1] = {dd_real(1.0)};
  EXPECT_THROW(write_dense(d.file("x.npy"), 1, 1, v, 1), OutputError);
  EXPECT_EQ(d.count(), 0);
}

}  // namespace
}  // namespace eigsolve
