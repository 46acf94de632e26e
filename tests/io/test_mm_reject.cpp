// Matrix Market: each rejection with its message and line, and the formatting that is
// accepted (case, CRLF, blank lines, comments, whitespace, signs, exponents, rounding).
#include <cmath>
#include <limits>
#include <vector>

#include <omp.h>

#include "io/io_detail.hpp"
#include "io_test_util.hpp"

namespace eigsolve {
namespace {

using iotest::expect_input_error;
using iotest::expect_rejected;
using iotest::TempDir;

const std::string kCoord = "%%MatrixMarket matrix coordinate real symmetric\n";
const std::string kGeneral = "%%MatrixMarket matrix coordinate real general\n";
const std::string kHerm = "%%MatrixMarket matrix coordinate complex hermitian\n";

template <class T = double>
HostMatrix<T> read_text(const std::string& text) {
  TempDir d;
  return read_matrix<T>(d.write("m.mtx", text));
}

// --- banner ---

TEST(MatrixMarketReject, MissingBanner) {
  expect_rejected("3 3 1\n1 1 1\n", 1, "%%MatrixMarket banner is missing");
  expect_rejected("% a comment first\n" + kCoord + "1 1 1\n1 1 1\n", 1,
                  "%%MatrixMarket banner is missing");
}

TEST(MatrixMarketReject, EmptyFile) {
  expect_rejected("", 0, "empty");
  expect_rejected("\n  \n", 0, "empty");
}

TEST(MatrixMarketReject, MissingFile) {
  expect_input_error([] { read_matrix<double>("/nonexistent/x.mtx"); }, 0, "cannot open");
}

TEST(MatrixMarketReject, BadBanner) {
  expect_rejected("%%MatrixMarket matrix coordinate real\n1 1 1\n1 1 1\n", 1, "expected 4 words");
  expect_rejected("%%MatrixMarket vector coordinate real general\n1 1 1\n1 1 1\n", 1,
                  "object 'vector'");
  expect_rejected("%%MatrixMarket matrix sparse real general\n1 1 1\n1 1 1\n", 1,
                  "format 'sparse'");
  expect_rejected("%%MatrixMarket matrix coordinate double general\n1 1 1\n1 1 1\n", 1,
                  "field 'double'");
  expect_rejected("%%MatrixMarket matrix coordinate real lower\n1 1 1\n1 1 1\n", 1,
                  "symmetry 'lower'");
  expect_rejected("%%MatrixMarket matrix array pattern general\n1 1\n1\n", 1,
                  "cannot be 'pattern'");
}

TEST(MatrixMarketReject, SkewSymmetric) {
  expect_rejected("%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 3\n", 1,
                  "skew-symmetric matrices are not supported");
  expect_rejected("%%MatrixMarket matrix array real Skew-Symmetric\n2 2\n3\n", 1, "skew-symmetric");
}

// --- size line ---

TEST(MatrixMarketReject, BadSizeLine) {
  expect_rejected(kCoord + "% c\n", 2, "size line is missing");
  expect_rejected(kCoord + "% c\n3 3\n", 3, "bad size line");
  expect_rejected(kCoord + "3 3 1 1\n", 2, "bad size line");
  expect_rejected(kCoord + "3 x 1\n1 1 1\n", 2, "'x' is not a non-negative integer");
  expect_rejected(kCoord + "3 3 -1\n", 2, "not a non-negative integer");
  expect_rejected("%%MatrixMarket matrix array real general\n2 2 4\n1\n2\n2\n1\n", 2,
                  "bad size line");
}

TEST(MatrixMarketReject, NonSquare) {
  expect_rejected(kGeneral + "2 3 1\n1 1 1\n", 2, "2 x 3, not square");
  expect_rejected("%%MatrixMarket matrix array real general\n3 2\n1\n2\n3\n4\n5\n6\n", 2,
                  "not square");
}

// --- entries ---

TEST(MatrixMarketReject, Truncated) {
  expect_rejected(kCoord + "3 3 3\n1 1 1\n2 2 1\n\n", 4, "ends after 2 of the 3 entries");
  expect_rejected("%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n", 4,
                  "ends after 2 of the 3 values");
  expect_rejected(kCoord + "3 3 3\n", 2, "truncated");
}

TEST(MatrixMarketReject, ExtraData) {
  expect_rejected(kCoord + "3 3 1\n1 1 1\n% ok\n2 2 1\n", 5, "extra data after the last entry");
  expect_rejected("%%MatrixMarket matrix array real symmetric\n1 1\n1\n\n2\n", 5, "extra data");
}

TEST(MatrixMarketReject, IndexOutOfRange) {
  expect_rejected(kCoord + "3 3 2\n1 1 1\n4 1 1\n", 4, "row index 4 is out of range 1..3");
  expect_rejected(kCoord + "3 3 1\n1 0 1\n", 3, "column index 0 is out of range");
  expect_rejected(kCoord + "3 3 1\n1.5 1 1\n", 3, "bad row index '1.5'");
}

TEST(MatrixMarketReject, WrongTokenCount) {
  expect_rejected(kCoord + "3 3 1\n1 1\n", 3, "entry line has 2 fields, expected 3");
  expect_rejected(kCoord + "3 3 1\n1 1 1 0\n", 3, "has 4 fields");
  expect_rejected<cdouble>(kHerm + "3 3 1\n1 1 1\n", 3, "expected 4");
  expect_rejected("%%MatrixMarket matrix coordinate pattern symmetric\n3 3 1\n1 1 1\n", 3,
                  "expected 2");
  expect_rejected("%%MatrixMarket matrix array real symmetric\n1 1\n1 2\n", 3,
                  "one value per line");
}

TEST(MatrixMarketReject, UnparsableNumbers) {
  expect_rejected(kCoord + "2 2 1\n1 1 1.2.3\n", 3, "value '1.2.3' is not a number");
  expect_rejected(kCoord + "2 2 1\n1 1 abc\n", 3, "is not a number");
  expect_rejected(kCoord + "2 2 1\n1 1 1e\n", 3, "is not a number");
  expect_rejected(kCoord + "2 2 1\n1 1 +-1\n", 3, "is not a number");
  expect_rejected(kCoord + "2 2 1\n1 1 0x10\n", 3, "is not a number");
  expect_rejected("%%MatrixMarket matrix coordinate integer symmetric\n2 2 1\n1 1 1.5\n", 3,
                  "is not an integer");
  expect_rejected(
      "%%MatrixMarket matrix coordinate integer symmetric\n2 2 1\n1 1 99999999999999999999\n", 3,
      "does not fit in 64 bits");
}

TEST(MatrixMarketReject, NanAndInf) {
  expect_rejected(kCoord + "2 2 2\n1 1 1\n2 1 inf\n", 4, "not finite");
  expect_rejected(kCoord + "2 2 1\n1 1 -NaN\n", 3, "not finite");
  expect_rejected<cdouble>(kHerm + "2 2 1\n2 1 1 Infinity\n", 3, "not finite");
  expect_rejected("%%MatrixMarket matrix array real general\n1 1\nnan\n", 3, "not finite");
}

TEST(MatrixMarketReject, Overflow) {
  expect_rejected(kCoord + "2 2 1\n1 1 1e400\n", 3, "overflows double");
  expect_rejected<float>(kCoord + "2 2 1\n1 1 1e39\n", 3, "overflows float");
  expect_rejected<dd_real>(kCoord + "2 2 1\n1 1 -1e309\n", 3, "overflows dd_real");
}

TEST(MatrixMarketReject, ComplexWithRealPrecision) {
  expect_rejected<double>(kHerm + "1 1 1\n1 1 1 0\n", 1, "use --precision c or z");
  expect_rejected<float>("%%MatrixMarket matrix array complex general\n1 1\n1 0\n", 1,
                         "use --precision c or z");
}

TEST(MatrixMarketReject, NonRealHermitianDiagonal) {
  expect_rejected<cdouble>(kHerm + "2 2 2\n1 1 1 0\n2 2 1 0.5\n", 4,
                           "diagonal entry (2, 2) = (1, 0.5) is not real");
  expect_rejected<cdouble>("%%MatrixMarket matrix array complex hermitian\n1 1\n1 1e-300\n", 3,
                           "is not real");
  // A general complex file: the diagonal must be real too.
  expect_rejected<cdouble>("%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 2 1\n", 3,
                           "is not real");
}

TEST(MatrixMarketReject, ComplexSymmetricNonReal) {
  expect_rejected<cdouble>(
      "%%MatrixMarket matrix coordinate complex symmetric\n2 2 2\n1 1 1 0\n2 1 1 1\n", 4,
      "complex symmetric");
  auto a = read_text<cdouble>(
      "%%MatrixMarket matrix coordinate complex symmetric\n2 2 2\n1 1 1 0\n2 1 3 0\n");
  EXPECT_EQ(a(0, 1), cdouble(3, 0));
}

TEST(MatrixMarketReject, NonSymmetricGeneral) {
  // Entry only at (1, 2): its missing mirror counts as zero.
  expect_rejected(kGeneral + "2 2 2\n1 1 1\n1 2 5\n", 4,
                  "not symmetric: A(2, 1) = 0 but A(1, 2) = 5");
  expect_rejected(kGeneral + "2 2 3\n2 1 5\n1 1 1\n1 2 4\n", 5, "not symmetric");
  expect_rejected("%%MatrixMarket matrix coordinate pattern general\n2 2 1\n2 1\n", 3,
                  "not symmetric");
  expect_rejected("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", 5,
                  "not symmetric: A(2, 1) = 2 but A(1, 2) = 3");
  expect_rejected<cdouble>(
      "%%MatrixMarket matrix coordinate complex general\n2 2 2\n2 1 1 1\n1 2 1 1\n", 4,
      "not Hermitian");
}

TEST(MatrixMarketReject, BothTrianglesDisagree) {
  expect_rejected(kCoord + "2 2 2\n2 1 1\n1 2 2\n", 4, "not symmetric: the file stores both");
  // Hermitian: the upper entry must be the conjugate of the lower one.
  expect_rejected<cdouble>(kHerm + "2 2 2\n2 1 1 1\n1 2 1 1\n", 4, "not Hermitian");
  auto a = read_text<cdouble>(kHerm + "2 2 2\n2 1 1 1\n1 2 1 -1\n");
  EXPECT_EQ(a(1, 0), cdouble(1, 1));
  EXPECT_EQ(a(0, 1), cdouble(1, -1));
}

// Repeated (i, j) entries of one triangle are summed in file order (SciPy, MATLAB sparse(),
// Julia and CSparse do the same); both triangles of a symmetric file must still agree.
TEST(MatrixMarketDuplicates, SummedInFileOrder) {
  TempDir d;
  MatrixFileInfo info;
  auto a = read_matrix<double>(d.write("a.mtx", kCoord + "2 2 3\n2 1 1\n2 1 2\n1 1 4\n"), &info);
  EXPECT_EQ(a(1, 0), 3.0);
  EXPECT_EQ(a(0, 1), 3.0);
  EXPECT_EQ(a(0, 0), 4.0);
  EXPECT_EQ(info.duplicates, 1);
  // File order fixes the bits: (1e16 + 1) + -1e16 = 0, 1e16 + (1 + -1e16) would be 2.
  a = read_matrix<double>(d.write("b.mtx", kCoord + "1 1 3\n1 1 1e16\n1 1 1\n1 1 -1e16\n"), &info);
  EXPECT_EQ(a(0, 0), 0.0);
  EXPECT_EQ(info.duplicates, 2);
  // Identical duplicates are summed too.
  auto b = read_text(kCoord + "2 2 3\n2 1 1.5\n2 1 1.5\n2 2 1\n");
  EXPECT_EQ(b(1, 0), 3.0);
  // General files: each (i, j) summed, then the exact symmetry check.
  b = read_text(kGeneral + "2 2 4\n2 1 1\n1 2 0.5\n2 1 1\n1 2 1.5\n");
  EXPECT_EQ(b(1, 0), 2.0);
  EXPECT_EQ(b(0, 1), 2.0);
  expect_rejected(kGeneral + "2 2 3\n2 1 1\n1 2 1\n2 1 3\n", 5, "not symmetric: A(2, 1) = 4");
  // Pattern: every entry is 1, so a repeated one is 2.
  auto c = read_text("%%MatrixMarket matrix coordinate pattern symmetric\n2 2 3\n2 1\n2 1\n1 1\n");
  EXPECT_EQ(c(1, 0), 2.0);
  // Hermitian: upper entries are summed, then conjugated into the lower triangle.
  auto h = read_text<cdouble>(kHerm + "2 2 3\n1 2 1 1\n1 2 2 -3\n2 2 5 0\n");
  EXPECT_EQ(h(1, 0), cdouble(3, 2));
  EXPECT_EQ(h(0, 1), cdouble(3, -2));
  // A Hermitian diagonal entry must be real in every copy.
  expect_rejected<cdouble>(kHerm + "1 1 2\n1 1 1 1\n1 1 1 -1\n", 3, "is not real");
}

TEST(MatrixMarketDuplicates, BothTrianglesCompareTheirSums) {
  // Lower 1 + 2, upper 3: agree.
  auto a = read_text(kCoord + "2 2 3\n2 1 1\n2 1 2\n1 2 3\n");
  EXPECT_EQ(a(1, 0), 3.0);
  EXPECT_EQ(a(0, 1), 3.0);
  // Both triangles stored once each (primme_HA_hermitian245.mtx does this): not summed.
  a = read_text(kCoord + "2 2 2\n2 1 1.5\n1 2 1.5\n");
  EXPECT_EQ(a(1, 0), 1.5);
  // Lower 1 + 1, upper 1: disagree, reported at the last line naming the pair.
  expect_rejected(kCoord + "2 2 3\n2 1 1\n1 2 1\n2 1 1\n", 5,
                  "the file stores both triangles and A(1, 2) = 1 but A(2, 1) = 2");
  // The first of two agreeing triangles is kept (they may differ in the sign of a zero).
  a = read_text(kCoord + "2 2 2\n1 2 -0\n2 1 0\n");
  EXPECT_TRUE(std::signbit(a(1, 0)));
  a = read_text(kCoord + "2 2 2\n2 1 0\n1 2 -0\n");
  EXPECT_FALSE(std::signbit(a(1, 0)));
}

TEST(MatrixMarketDuplicates, OverflowingSumIsRejected) {
  expect_rejected(kCoord + "2 2 3\n1 1 1e308\n2 2 1\n1 1 1e308\n", 5,
                  "duplicate entry (1, 1): the sum of 1e+308 (the entries before) "
                  "and 1e+308 overflows double");
  expect_rejected<float>(kCoord + "1 1 2\n1 1 3e38\n1 1 3e38\n", 4, "overflows float");
}

// --- accepted formatting ---

TEST(MatrixMarketAccept, FormattingVariants) {
  const std::string text =
      "\xEF\xBB\xBF  %%matrixmarket MATRIX Coordinate REAL Symmetric  \r\n"
      "% comment\r\n"
      "\r\n"
      "  3\t3   4  \r\n"
      "1 1 +1.5\r\n"
      "\r\n"
      "% comment between entries\r\n"
      "  2 1 -2.5D+01  \r\n"
      "3 3 .25\r\n"
      "3 2 1E-3";  // no final newline
  auto a = read_text(text);
  ASSERT_EQ(a.n, 3);
  EXPECT_EQ(a(0, 0), 1.5);
  EXPECT_EQ(a(1, 0), -25.0);
  EXPECT_EQ(a(0, 1), -25.0);
  EXPECT_EQ(a(2, 2), 0.25);
  EXPECT_EQ(a(2, 1), 1e-3);
  EXPECT_EQ(a(1, 2), 1e-3);
  EXPECT_EQ(a(1, 1), 0.0);
}

TEST(MatrixMarketAccept, ZeroSizedAndExplicitZeroGeneral) {
  EXPECT_EQ(read_text(kCoord + "0 0 0\n").n, 0);
  auto a = read_text(kGeneral + "2 2 2\n1 2 0\n2 2 7\n");  // (1,2) = 0 has a zero mirror
  EXPECT_EQ(a(1, 1), 7.0);
}

TEST(MatrixMarketAccept, CorrectRoundingPerType) {
  // Just above the float halfway point 1 + 2^-24: a double-then-float conversion would round
  // to 1.0f (double rounding); direct parsing gives 1 + 2^-23.
  auto f = read_text<float>(kCoord + "1 1 1\n1 1 1.0000000596046448\n");
  EXPECT_EQ(f(0, 0), 1.0f + 0x1p-23f);
  auto d = read_text<double>(kCoord + "1 1 1\n1 1 0.1\n");
  EXPECT_EQ(d(0, 0), 0.1);
  // Underflow rounds (subnormal or zero) instead of failing.
  auto u = read_text<double>(kCoord + "2 2 2\n1 1 4e-320\n2 2 1e-400\n");
  EXPECT_EQ(u(0, 0), 4e-320);
  EXPECT_EQ(u(1, 1), 0.0);
  // Integers beyond 2^53 round once to the nearest double; dd holds them exactly.
  const std::string big =
      "%%MatrixMarket matrix coordinate integer symmetric\n1 1 1\n1 1 9007199254740993\n";
  EXPECT_EQ(read_text<double>(big)(0, 0), 9007199254740992.0);
  dd_real x = read_text<dd_real>(big)(0, 0);
  EXPECT_EQ(x.hi, 9007199254740992.0);
  EXPECT_EQ(x.lo, 1.0);
}

TEST(MatrixMarketAccept, RealDataIntoComplexAndDd) {
  auto z = read_text<cdouble>(kCoord + "2 2 2\n2 1 3\n2 2 1\n");
  EXPECT_EQ(z(1, 0), cdouble(3, 0));
  EXPECT_EQ(z(0, 1), cdouble(3, 0));
  auto q = read_text<dd_real>(kCoord + "2 2 2\n2 1 3\n2 2 0.5\n");
  EXPECT_EQ(q(0, 1), dd_real(3.0));
  EXPECT_EQ(q(1, 1), dd_real(0.5));
}

TEST(MatrixMarketAccept, SymmetricArrayRoundTripLayout) {
  auto a = read_text("%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n3\n4\n5\n6\n");
  // Lower triangle column by column: (1,1)=1 (2,1)=2 (3,1)=3 (2,2)=4 (3,2)=5 (3,3)=6.
  EXPECT_EQ(a(2, 0), 3.0);
  EXPECT_EQ(a(0, 2), 3.0);
  EXPECT_EQ(a(2, 1), 5.0);
  EXPECT_EQ(a(2, 2), 6.0);
}

}  // namespace
}  // namespace eigsolve

namespace eigsolve {
namespace {

// The chunked (parallel) array parser gives the same matrix and the same first error for
// every thread count, with chunk cuts falling on comments, blank lines and CRLF.
class ChunkedArray : public ::testing::Test {
 protected:
  void SetUp() override {
    saved_ = io_detail::array_parallel_bytes();
    io_detail::array_parallel_bytes() = 1;
  }
  void TearDown() override { io_detail::array_parallel_bytes() = saved_; }

  static std::string text(int n, bool symmetric, int bad_at = -1, int extra = 0) {
    std::string s = std::string("%%MatrixMarket matrix array real ") +
                    (symmetric ? "symmetric" : "general") + "\r\n" + std::to_string(n) + " " +
                    std::to_string(n) + "\n";
    int k = 0;
    for (int j = 0; j < n; ++j) {
      for (int i = symmetric ? j : 0; i < n; ++i, ++k) {
        if (k % 7 == 3) s += "% comment\n\n";
        s += k == bad_at ? "1.5x" : std::to_string(std::max(i, j) * 1000 + std::min(i, j)) + ".25";
        s += k % 5 == 0 ? "\r\n" : (k % 11 == 0 ? "  \n" : "\n");
      }
    }
    for (int e = 0; e < extra; ++e)
      s += "7\n";
    return s;
  }

  template <class F>
  static std::string error_of(F&& f) {
    try {
      f();
    } catch (const InputError& e) {
      return e.what();
    }
    return "no error";
  }

  std::size_t saved_ = 0;
};

TEST_F(ChunkedArray, SameResultForEveryThreadCount) {
  const int n = 60;
  for (bool sym : {true, false}) {
    iotest::TempDir d;
    const std::string p = d.write("a.mtx", text(n, sym));
    omp_set_num_threads(1);
    HostMatrix<double> ref = read_matrix<double>(p);
    for (int t : {2, 3, 8}) {
      omp_set_num_threads(t);
      HostMatrix<double> a = read_matrix<double>(p);
      EXPECT_TRUE(a.data == ref.data) << t;
    }
    EXPECT_EQ(ref(n - 1, 0), (n - 1) * 1000 + 0.25);
    EXPECT_EQ(ref(0, n - 1), (n - 1) * 1000 + 0.25);
    // Errors: a bad value late in the file, extra data, truncation.
    const std::string bad = d.write("b.mtx", text(n, sym, sym ? 1500 : 3000));
    const std::string more = d.write("c.mtx", text(n, sym, -1, 2));
    std::string t0 = text(n, sym);
    const std::string cut = d.write("d.mtx", t0.substr(0, t0.size() * 2 / 3));
    std::vector<std::string> first;
    for (int t : {1, 2, 5}) {
      omp_set_num_threads(t);
      std::vector<std::string> msgs = {error_of([&] { read_matrix<double>(bad); }),
                                       error_of([&] { read_matrix<double>(more); }),
                                       error_of([&] { read_matrix<double>(cut); })};
      if (first.empty()) first = msgs;
      EXPECT_EQ(msgs, first) << t;
    }
    EXPECT_NE(first[0].find("'1.5x' is not a number"), std::string::npos) << first[0];
    EXPECT_NE(first[1].find("extra data"), std::string::npos) << first[1];
    EXPECT_NE(first[2].find("truncated"), std::string::npos) << first[2];
  }
  omp_set_num_threads(omp_get_num_procs());
}

}  // namespace
}  // namespace eigsolve
