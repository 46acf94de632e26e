// Every finding of the fuzz targets (tests/fuzz, scripts/fuzz.sh) as a regression test, with the
// (minimized) input inline. See docs/formats.md, "Fuzzing".
#include <omp.h>

#include "app/range_options.hpp"
#include "io/io_detail.hpp"
#include "io_test_util.hpp"
#include "tests/common/npy_image.hpp"

namespace eigsolve {
namespace {

using iotest::expect_input_error;
using iotest::TempDir;

// fuzz_matrix_market: an array file followed by many more lines than its size line announces
// (here: another Matrix Market file pasted after it). The chunked parser gave chunks that start
// past the last value positions beyond the matrix and wrote there (heap overflow, ASan).
TEST(FuzzRegressions, ArrayExtraLinesInLaterChunks) {
  const std::size_t saved = io_detail::array_parallel_bytes();
  io_detail::array_parallel_bytes() = 1;
  std::string text = "%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n";
  for (int k = 0; k < 20000; ++k)
    text += k % 3 == 0 ? "%%MatrixMarket matrix coordinate real symmetric\n" : "7\n";
  TempDir d;
  const std::string p = d.write("a.mtx", text);
  for (int t : {1, 2, 3, 8}) {
    omp_set_num_threads(t);
    expect_input_error([&] { read_matrix<double>(p); }, 7, "extra data after the last entry");
    expect_input_error([&] { read_matrix<cdouble>(p); }, 7, "extra data after the last entry");
  }
  omp_set_num_threads(omp_get_num_procs());
  io_detail::array_parallel_bytes() = saved;
}

std::string npy_text(const std::string& dict, std::size_t data_bytes) {
  return test_util::npy_image(dict, std::string(data_bytes, '\0'));
}

// fuzz_npy: header dicts NumPy would not read (Python's literal_eval) were accepted.
TEST(FuzzRegressions, NpyHeaderIsOneDictLiteral) {
  TempDir d;
  auto rejected = [&](const std::string& dict, const std::string& needle) {
    const std::string p = d.write("m.npy", npy_text(dict, 32));
    expect_input_error([&] { read_matrix<double>(p); }, 0, needle);
  };
  // Found: a ',' after the closing '}' (in the padding).
  rejected("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }   ,",
           "unexpected text after the closing '}'");
  rejected("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), } x", "after the closing");
  // Same family: a missing ',' between items, a shape with a leading zero.
  rejected("{'descr': '<f8' 'fortran_order': False, 'shape': (2, 2), }", "expected ',' or '}'");
  rejected("{'descr': '<f8', 'fortran_order': False, 'shape': (02, 2), }", "bad shape");
  // Still accepted: no trailing comma, double quotes, a trailing comma in the shape.
  const std::string ok = d.write(
      "ok.npy", npy_text("{\"descr\": '<f8', 'fortran_order': True, 'shape': (2, 2,)}", 32));
  EXPECT_EQ(read_matrix<double>(ok).n, 2);
}

// fuzz_range_options: an index range with bytes after a '\0' ("2\0z:4") was read as 2:4, and a
// TO beyond 2^63 saturated to INT64_MAX and passed the check against n = INT64_MAX.
TEST(FuzzRegressions, RangeOptionsReadTheWholeText) {
  EXPECT_THROW(parse_subset(std::string("2\0\0\0\0z:4", 9), "", 10), UsageError);
  EXPECT_THROW(parse_subset("", std::string("1\0x:2", 5), 10), UsageError);
  EXPECT_THROW(parse_subset("8:4222222222222222222222222222", "", INT64_MAX), UsageError);
  try {
    parse_subset("1:99999999999999999999", "", INT64_MAX);
    ADD_FAILURE();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("is out of range"), std::string::npos) << e.what();
  }
  // Messages are one printable line whatever the option holds.
  try {
    parse_subset("1\n:\x1b[2J", "", 10);
    ADD_FAILURE();
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "--index-range: '1\\x0a' is not an integer");
  }
  const Subset s = parse_subset(" +2:4", "", 10);
  EXPECT_EQ(s.il, 1);
  EXPECT_EQ(s.iu, 3);
  const Subset v = parse_subset("", "-1.5:2e3", 10);
  EXPECT_EQ(v.vl, -1.5);
  EXPECT_EQ(v.vu, 2000.0);
}

}  // namespace
}  // namespace eigsolve
