// The chunked (parallel) coordinate parser gives the same matrix and the same first error
// (message and line) as the serial reader, for every thread count and chunk cut.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <omp.h>

#include "io/io_detail.hpp"
#include "io_test_util.hpp"

namespace eigsolve {
namespace {

using iotest::TempDir;

class ChunkedCoordinate : public ::testing::Test {
 protected:
  void SetUp() override {
    saved_ = io_detail::coordinate_parallel_bytes();
    saved_block_ = io_detail::coordinate_block_bytes();
  }
  void TearDown() override {
    io_detail::coordinate_parallel_bytes() = saved_;
    io_detail::coordinate_block_bytes() = saved_block_;
    omp_set_num_threads(omp_get_num_procs());
  }

  // A coordinate file of an n x n matrix: lower triangle (symmetric/hermitian) or both
  // triangles (general), with comments, blank lines, CRLF and trailing blanks between entries,
  // some upper-triangle mirrors and duplicates (summed). `edit` replaces entry lines by index
  // ("" deletes one); `announce` overrides the entry count of the size line (-1: exact).
  static std::string text(int n, const std::string& field, const std::string& sym,
                          const std::map<int, std::string>& edit = {}, long announce = -1) {
    const bool general = sym == "general";
    std::vector<std::string> lines;
    auto value = [&](int i, int j) {
      const int a = std::max(i, j), b = std::min(i, j);
      if (field == "pattern") return std::string();
      if (field == "integer") return " " + std::to_string(a * 100 + b - 50);
      std::string re = " " + std::to_string(a * 1000 + b) + ".25e-1";
      if (field != "complex") return re;
      if (i == j) return re + " 0";
      const int im = (i > j ? 1 : -1) * (a + 2 * b + 1);
      return re + " " + (sym == "symmetric" ? std::string("0") : std::to_string(im) + ".5");
    };
    for (int j = 0; j < n; ++j) {
      for (int i = general ? 0 : j; i < n; ++i) {
        if (((i + j) * 3 + i * j) % 5 == 1 && i != j) continue;  // sparse, symmetric
        // Duplicates (summed: the value doubles) are symmetric in (i, j), so the files stay
        // valid: in general files both (i, j) and (j, i) repeat, in symmetric files the mirror
        // repeats with its entry.
        const int copies = (i + j) % 17 == 0 ? 2 : 1;
        for (int c = 0; c < copies; ++c)
          lines.push_back(std::to_string(i + 1) + " " + std::to_string(j + 1) + value(i, j));
        if (!general && i != j && (i + j) % 13 == 0) {  // the mirror, equal
          for (int c = 0; c < copies; ++c)
            lines.push_back(std::to_string(j + 1) + " " + std::to_string(i + 1) + value(j, i));
        }
      }
    }
    for (const auto& [k, s] : edit) {
      if (k < static_cast<int>(lines.size())) {
        lines[static_cast<std::size_t>(k)] = s;
      } else {
        lines.push_back(s);
      }
    }
    long count = 0;
    std::string body;
    for (std::size_t k = 0; k < lines.size(); ++k) {
      if (lines[k].empty()) continue;
      ++count;
      if (k % 9 == 4) body += "% comment 1 2 3\n";
      if (k % 23 == 7) body += "   \n";
      body += (k % 5 == 0 ? "  " : "") + lines[k];
      body += k % 4 == 0 ? "\r\n" : (k % 11 == 0 ? " \t\n" : "\n");
    }
    return "%%MatrixMarket matrix coordinate " + field + " " + sym + "\n% header comment\n" +
           std::to_string(n) + " " + std::to_string(n) + " " +
           std::to_string(announce >= 0 ? announce : count) + "\n" + body;
  }

  // "ok" and the matrix, or the full error text and line.
  template <class T>
  static std::string outcome(const std::string& path, std::vector<T>* data) {
    try {
      MatrixFileInfo info;
      HostMatrix<T> a = read_matrix<T>(path, &info);
      *data = a.data;
      return info.duplicates > 0 ? "ok" : "ok, but no duplicates";
    } catch (const InputError& e) {
      return std::string(e.what()) + " @" + std::to_string(e.line());
    }
  }

  // Serial reference, then chunked over 1, 2, 3, 5, 8 threads: identical outcome and matrix.
  // Returns the reference outcome.
  template <class T>
  std::string check_same(const std::string& content) {
    TempDir d;
    const std::string p = d.write("m.mtx", content);
    io_detail::coordinate_parallel_bytes() = std::size_t(1) << 60;  // serial
    std::vector<T> ref;
    const std::string want = outcome<T>(p, &ref);
    io_detail::coordinate_parallel_bytes() = 1;  // chunked whenever threads > 1
    for (std::size_t block : {std::size_t(4) << 20, std::size_t(700)}) {
      io_detail::coordinate_block_bytes() = block;  // one round, or many rounds
      for (int t : {1, 2, 3, 5, 8}) {
        omp_set_num_threads(t);
        std::vector<T> got;
        EXPECT_EQ(outcome<T>(p, &got), want) << t << " threads, block " << block;
        if (want == "ok") {
          EXPECT_TRUE(got == ref) << t << " threads, block " << block;
        }
      }
    }
    omp_set_num_threads(omp_get_num_procs());
    return want;
  }

  std::size_t saved_ = 0;
  std::size_t saved_block_ = 0;
};

TEST_F(ChunkedCoordinate, SameMatrixForEveryThreadCount) {
  for (const char* sym : {"symmetric", "general"}) {
    for (const char* field : {"real", "integer", "pattern"}) {
      const std::string t = text(40, field, sym);
      EXPECT_EQ(check_same<double>(t), "ok") << field << " " << sym;
      EXPECT_EQ(check_same<float>(t), "ok") << field << " " << sym;
      EXPECT_EQ(check_same<dd_real>(t), "ok") << field << " " << sym;
      EXPECT_EQ(check_same<Complex<double>>(t), "ok") << field << " " << sym;
    }
  }
  for (const char* sym : {"hermitian", "symmetric"}) {
    const std::string t = text(30, "complex", sym);
    EXPECT_EQ(check_same<Complex<double>>(t), "ok") << sym;
    EXPECT_EQ(check_same<Complex<float>>(t), "ok") << sym;
  }
  // The values land where the serial reader puts them (spot check of the generator).
  TempDir d;
  io_detail::coordinate_parallel_bytes() = 1;
  omp_set_num_threads(3);
  HostMatrix<double> a = read_matrix<double>(d.write("a.mtx", text(40, "real", "symmetric")));
  EXPECT_EQ(a(39, 0), 39000.25e-1);
  EXPECT_EQ(a(0, 39), 39000.25e-1);
  EXPECT_EQ(a(5, 5), 5005.25e-1);
}

TEST_F(ChunkedCoordinate, FirstErrorInFileOrder) {
  const int n = 40;
  for (const char* sym : {"symmetric", "general"}) {
    const int size = static_cast<int>(text(n, "real", sym).size() / 20);  // ~lines
    const int late = size * 9 / 10, early = size / 10, mid = size / 2;
    struct Case {
      std::map<int, std::string> edit;
      long announce;
      const char* needle;
    };
    const std::vector<Case> cases = {
        // an overflowing sum of duplicates early beats a bad number late
        {{{early, "3 3 1e308"}, {early + 1, "3 3 1e308"}, {late, "9 2 1.5x"}}, -1, "overflows"},
        {{{late, "9 2 1.5x"}}, -1, "'1.5x' is not a number"},
        {{{mid, "41 2 1"}}, -1, "out of range"},
        {{{mid, "2 0 1"}, {late, "9 2 nan"}}, -1, "out of range"},
        {{{late, "9 2"}}, -1, "fields"},
        {{{late, "9 2 1e999"}}, -1, "overflows"},
        {{}, 100000, "truncated"},
        {{}, late, "extra data"},
        // the count is reached before the malformed line: "extra data", as serially
        {{{late, "oops"}}, late, "extra data"},
        {{{late + 1, "oops"}}, late, "extra data"},
        {{{late - 1, "oops"}}, late, "1 field"},
    };
    for (std::size_t c = 0; c < cases.size(); ++c) {
      const std::string t = text(n, "real", sym, cases[c].edit, cases[c].announce);
      const std::string got = check_same<double>(t);
      EXPECT_NE(got.find(cases[c].needle), std::string::npos)
          << sym << " case " << c << ": " << got;
      check_same<dd_real>(t);
      check_same<float>(t);
    }
    // A truncated file (cut inside a line, late).
    const std::string t = text(n, "real", sym);
    const std::string cut = check_same<double>(t.substr(0, t.size() * 4 / 5 + 3));
    EXPECT_NE(cut, "ok");
  }
  // Appended last: both triangles disagree; a general file that is not symmetric.
  EXPECT_NE(
      check_same<double>(text(n, "real", "symmetric", {{100000, "2 40 5"}})).find("not symmetric"),
      std::string::npos);
  EXPECT_NE(
      check_same<double>(text(n, "real", "general", {{100000, "3 1 5"}})).find("not symmetric"),
      std::string::npos);
  // Complex: a non-real Hermitian diagonal early, a bad imaginary part late.
  EXPECT_NE(check_same<Complex<double>>(
                text(30, "complex", "hermitian", {{40, "2 2 1 1"}, {300, "9 2 1 x"}}))
                .find("not real"),
            std::string::npos);
  EXPECT_NE(
      check_same<Complex<double>>(text(30, "complex", "hermitian", {{300, "9 2 1 x"}})).find("'x'"),
      std::string::npos);
}

}  // namespace
}  // namespace eigsolve
