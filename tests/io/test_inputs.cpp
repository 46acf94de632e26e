// Hostile inputs: headers that promise more than the file holds (rejected before any
// allocation), matrices larger than the machine, empty, unreadable and compressed files, and
// error messages that stay one printable line whatever bytes the file holds.
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

#include "io/io_detail.hpp"
#include "io_test_util.hpp"
#include "tests/common/npy_image.hpp"

namespace eigsolve {
namespace {

using iotest::expect_input_error;
using iotest::TempDir;

/// Lowers io_detail::matrix_memory_limit() for the lifetime of the object: a reader that
/// allocated before checking the header against the file would throw OutOfMemory instead of
/// the expected InputError.
class MemoryLimit {
 public:
  explicit MemoryLimit(std::uint64_t bytes) : saved_(io_detail::matrix_memory_limit()) {
    io_detail::matrix_memory_limit() = bytes;
  }
  ~MemoryLimit() { io_detail::matrix_memory_limit() = saved_; }

 private:
  std::uint64_t saved_;
};

std::string npy_file(const std::string& shape, std::size_t data_bytes) {
  return test_util::npy_image("{'descr': '<f8', 'fortran_order': False, 'shape': " + shape + ", }",
                              std::string(data_bytes, '\0'));
}

TEST(HostileInputs, NpyShapeLargerThanTheFile) {
  MemoryLimit limit(1 << 20);
  TempDir d;
  std::string p = d.write("big.npy", npy_file("(100000, 100000)", 40));
  expect_input_error([&] { read_matrix<double>(p); }, 0,
                     "declares a 100000 x 100000 '<f8' array of 80000000000 bytes, but the file "
                     "holds only 40 bytes of data");
  p = d.write("huge.npy", npy_file("(9000000000000, 9000000000000)", 8));
  expect_input_error([&] { read_matrix<float>(p); }, 0,
                     "6.48e+26 bytes, but the file holds only 8");
  p = d.write("short.npy", npy_file("(3, 3)", 71));
  expect_input_error([&] { read_matrix<double>(p); }, 0, "holds only 71 bytes");
}

TEST(HostileInputs, ArraySizeLineLargerThanTheFile) {
  MemoryLimit limit(1 << 20);
  expect_input_error(
      [] {
        TempDir d;
        read_matrix<double>(
            d.write("a.mtx", "%%MatrixMarket matrix array real general\n100000000 100000000\n1\n"));
      },
      2,
      "announces a 100000000 x 100000000 array (10000000000000000 values) but only 2 bytes "
      "follow it: the file cannot hold them");
  iotest::expect_rejected("%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n", 2,
                          "(6 values) but only 4 bytes follow it");
  // Enough bytes but too few values is the usual truncation message.
  iotest::expect_rejected("%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n   \n", 4,
                          "the file ends after 2 of the 3 values");
}

// A coordinate size line that announces more entries than the file has room for (4 bytes
// each, "i j\n") is rejected before the matrix is allocated: "40000 40000 99999999999"
// followed by one entry used to allocate 12.8 GB first (and took minutes).
TEST(HostileInputs, CoordinateSizeLineLargerThanTheFile) {
  MemoryLimit limit(1 << 20);  // the 40000 x 40000 matrix would be an OutOfMemory
  iotest::expect_rejected(
      "%%MatrixMarket matrix coordinate real symmetric\n40000 40000 99999999999\n1 1 5\n", 2,
      "the size line announces 99999999999 entries but only 6 bytes follow it");
  iotest::expect_rejected("%%MatrixMarket matrix coordinate pattern symmetric\n2 2 3\n1 1\n2 2", 2,
                          "announces 3 entries but only 7 bytes");
  // One entry, one byte, one value: singular words.
  iotest::expect_rejected("%%MatrixMarket matrix coordinate real symmetric\n1 1 1\n", 2,
                          "the size line announces 1 entry but only 0 bytes follow it");
  iotest::expect_rejected("%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n1", 2,
                          "announces 2 entries but only 1 byte follows it");
  iotest::expect_rejected("%%MatrixMarket matrix array real general\n1 1\n", 2,
                          "announces a 1 x 1 array (1 value) but only 0 bytes follow it");
  iotest::expect_rejected("%%MatrixMarket matrix coordinate real symmetric\n1 1 1\n   ", 2,
                          "the file ends after 0 of the 1 entry announced by the size line");
  iotest::expect_rejected("%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n1 1 1\n2 2 1\n",
                          4, "(the size line, line 2, announces 1 entry)");
  // Exactly enough room (the last line without its '\n'): the usual truncation check.
  iotest::expect_rejected(
      "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 3\n1 1\n2 2\n   ", 4,
      "the file ends after 2 of the 3 entries");
  TempDir d;
  HostMatrix<double> a = read_matrix<double>(
      d.write("p.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n2 2 2\n1 1\n2 2"));
  EXPECT_EQ(a(1, 1), 1.0);
}

TEST(HostileInputs, NpyExtraByteMessage) {
  TempDir d;
  std::string h = "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1), }";
  while ((10 + h.size() + 1) % 64 != 0)
    h += ' ';
  h += '\n';
  std::string img("\x93NUMPY\x01\x00", 8);
  img += static_cast<char>(h.size());
  img += '\0';
  img += h + std::string(8, '\0') + "x";
  const std::string p = d.write("x.npy", img);
  expect_input_error([&] { read_matrix<double>(p); }, 0,
                     "extra data after the .npy array: 1 byte more than");
}

TEST(HostileInputs, MatrixLargerThanMemoryIsOutOfMemory) {
  MemoryLimit limit(1 << 20);  // 1 MiB: a 1000 x 1000 double matrix (8 MB) does not fit
  TempDir d;
  const std::string p =
      d.write("c.mtx", "%%MatrixMarket matrix coordinate real symmetric\n1000 1000 1\n1 1 2\n");
  try {
    read_matrix<double>(p);
    ADD_FAILURE() << "expected OutOfMemory";
  } catch (const OutOfMemory& e) {
    EXPECT_EQ(e.exit_code(), kExitMemory);
    EXPECT_NE(std::string(e.what()).find("8000000 bytes requested"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("1048576 bytes of memory"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_matrix<float>(d.write("s.mtx",
                                       "%%MatrixMarket matrix coordinate real symmetric\n"
                                       "300 300 1\n1 1 2\n"))
                .n,
            300);  // 360 KB fits
}

TEST(HostileInputs, EmptyFiles) {
  TempDir d;
  expect_input_error([&] { read_matrix<double>(d.write("e.mtx", "")); }, 0, "the file is empty");
  expect_input_error([&] { probe_matrix_file(d.write("e2.mtx", "")); }, 0, "the file is empty");
  expect_input_error([&] { read_matrix<double>(d.write("b.mtx", "\n  \n\t\n")); }, 0,
                     "the file is empty");
  expect_input_error([&] { read_matrix<double>(d.write("e.npy", "")); }, 0, "the file is empty");
}

TEST(HostileInputs, UnreadableFile) {
  TempDir d;
  const std::string p = d.write("secret.mtx", "%%MatrixMarket matrix array real general\n1 1\n1\n");
  ::chmod(p.c_str(), 0);
  if (::geteuid() != 0) {
    expect_input_error([&] { probe_matrix_file(p); }, 0, "cannot open the file: Permission denied");
    expect_input_error([&] { read_matrix<double>(p); }, 0, "Permission denied");
    return;
  }
  // Root reads anything: check as an unprivileged user in a child process.
  ::chmod(d.path().c_str(), 0755);
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    int code = 2;
    if (::setgid(65534) == 0 && ::setuid(65534) == 0) {
      try {
        read_matrix<double>(p);
        code = 3;
      } catch (const InputError& e) {
        code =
            (e.line() == 0 && std::string(e.message()) == "cannot open the file: Permission denied")
                ? 0
                : 4;
      } catch (...) {
        code = 5;
      }
    }
    ::_exit(code);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 2) GTEST_SKIP() << "cannot drop privileges here";
  EXPECT_EQ(WEXITSTATUS(status), 0) << "child status " << WEXITSTATUS(status);
}

TEST(HostileInputs, CompressedFilesAreRejected) {
  TempDir d;
  const std::string text = "%%MatrixMarket matrix array real general\n1 1\n1\n";
  const std::string plain = d.write("m.mtx", text);
  const std::string gz = d.file("m.mtx.gz");
  ASSERT_EQ(std::system(("gzip -c '" + plain + "' > '" + gz + "'").c_str()), 0);
  expect_input_error([&] { read_matrix<double>(gz); }, 0,
                     "the file is gzip-compressed; eigsolve reads uncompressed Matrix Market or "
                     ".npy files only: gunzip -k FILE");
  expect_input_error([&] { probe_matrix_file(gz); }, 0, "gzip-compressed");
  expect_input_error([&] { read_matrix<double>(d.write("m.bz2", "BZh91AY&SY")); }, 0,
                     "bzip2-compressed");
  expect_input_error(
      [&] {
        read_matrix<double>(d.write("m.xz", std::string("\xfd"
                                                        "7zXZ\0",
                                                        6)));
      },
      0, "xz-compressed");
  expect_input_error([&] { read_matrix<double>(d.write("m.zst", "\x28\xb5\x2f\xfd")); }, 0,
                     "zstd-compressed");
}

TEST(HostileInputs, MessagesAreOnePrintableLine) {
  TempDir d;
  const std::string p = d.write("bin.mtx", std::string("\x01\x02%%Matrix\x7f\xff\r\x1b[2J\n", 17));
  try {
    read_matrix<double>(p);
    ADD_FAILURE() << "expected InputError";
  } catch (const InputError& e) {
    const std::string m = e.what();
    for (char c : m) {
      const unsigned char u = static_cast<unsigned char>(c);
      EXPECT_TRUE(u >= 0x20 && u < 0x7f) << "byte " << int(u) << " in: " << m;
    }
    EXPECT_NE(m.find("found '\\x01\\x02%%Matrix\\x7f\\xff\\x0d\\x1b[2J'"), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace eigsolve
