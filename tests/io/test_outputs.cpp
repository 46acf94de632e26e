// Outputs that are not plain files: FIFOs, symbolic links, folders, devices, the process's own
// descriptors, a full disk and a failing close. The tests never touch the real /dev nodes: they
// use their own FIFOs and links, device nodes made with mknod in a temporary folder (skipped
// when not permitted), a small tmpfs (skipped when mount is not permitted) and substituted
// write/close calls (io_detail::output_syscalls).
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "io/io_detail.hpp"
#include "io_test_util.hpp"

namespace eigsolve {
namespace {

using iotest::TempDir;

std::string slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

/// Runs f, expects an OutputError whose message contains `needle`.
template <class F>
void expect_output_error(F&& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "expected OutputError containing '" << needle << "'";
  } catch (const OutputError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    EXPECT_EQ(e.exit_code(), kExitOutput);
  }
}

mode_t mode_of(const std::string& p) {
  struct stat st {};
  if (::lstat(p.c_str(), &st) != 0) return 0;
  return st.st_mode;
}

/// Substitutes the output write/close for the lifetime of the object.
class SyscallSwap {
 public:
  SyscallSwap(decltype(io_detail::OutputSyscalls::write) w,
              decltype(io_detail::OutputSyscalls::close) c)
      : saved_(io_detail::output_syscalls()) {
    if (w) io_detail::output_syscalls().write = w;
    if (c) io_detail::output_syscalls().close = c;
  }
  ~SyscallSwap() { io_detail::output_syscalls() = saved_; }

 private:
  io_detail::OutputSyscalls saved_;
};

std::size_t g_disk_left = 0;
ssize_t small_disk_write(int fd, const void* p, std::size_t n) {  // ENOSPC past g_disk_left
  if (g_disk_left == 0) {
    errno = ENOSPC;
    return -1;
  }
  std::size_t k = n < g_disk_left ? n : g_disk_left;
  ssize_t r = ::write(fd, p, k);
  if (r > 0) g_disk_left -= static_cast<std::size_t>(r);
  return r;
}
int failing_close(int fd) {
  ::close(fd);
  errno = EIO;
  return -1;
}

std::vector<double> many_values(int count) {
  std::vector<double> w;
  for (int k = 0; k < count; ++k)
    w.push_back(1.0 / (k + 3.0));
  return w;
}

TEST(Outputs, FifoIsWrittenInPlace) {
  TempDir d;
  const std::string fifo = d.file("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] { got = slurp(fifo); });
  write_eigenvalues(fifo, std::vector<double>{1.5, -2.0, 0.25});
  reader.join();
  EXPECT_EQ(got, "1.5\n-2\n0.25\n");
  EXPECT_TRUE(S_ISFIFO(mode_of(fifo)));
  EXPECT_EQ(d.count(), 1);  // no temporary beside it
}

TEST(Outputs, SymlinkIsFollowedNotReplaced) {
  TempDir d;
  ::mkdir(d.file("real").c_str(), 0755);
  const std::string target = d.write("real/out.txt", "old\n");
  const std::string link = d.file("link.txt");
  ASSERT_EQ(::symlink("real/out.txt", link.c_str()), 0);  // relative link
  write_eigenvalues(link, std::vector<double>{2.0});
  EXPECT_TRUE(S_ISLNK(mode_of(link)));
  EXPECT_EQ(slurp(target), "2\n");
  EXPECT_EQ(d.count(), 2);
  EXPECT_EQ(std::system(("test $(ls -A '" + d.file("real") + "' | wc -l) = 1").c_str()), 0);

  // A chain of links, the last one absolute.
  const std::string link2 = d.file("link2.txt");
  ASSERT_EQ(::symlink(link.c_str(), link2.c_str()), 0);
  write_file_atomic(link2, "chain\n");
  EXPECT_TRUE(S_ISLNK(mode_of(link2)));
  EXPECT_EQ(slurp(target), "chain\n");

  // A dangling link creates its target.
  const std::string dangling = d.file("dangling.txt");
  ASSERT_EQ(::symlink("real/new.txt", dangling.c_str()), 0);
  write_file_atomic(dangling, "new\n");
  EXPECT_TRUE(S_ISLNK(mode_of(dangling)));
  EXPECT_EQ(slurp(d.file("real/new.txt")), "new\n");

  // A loop is an error, and the links stay.
  ASSERT_EQ(::symlink("loop_b", d.file("loop_a").c_str()), 0);
  ASSERT_EQ(::symlink("loop_a", d.file("loop_b").c_str()), 0);
  expect_output_error([&] { write_file_atomic(d.file("loop_a"), "x"); }, "symbolic links");
  EXPECT_TRUE(S_ISLNK(mode_of(d.file("loop_a"))));
}

TEST(Outputs, DirectoryIsRefused) {
  TempDir d;
  ::mkdir(d.file("sub").c_str(), 0755);
  expect_output_error([&] { write_eigenvalues(d.file("sub"), std::vector<double>{1.0}); },
                      "is a directory");
  ASSERT_EQ(::symlink("sub", d.file("sublink").c_str()), 0);
  expect_output_error([&] { write_file_atomic(d.file("sublink"), "x"); }, "is a directory");
  EXPECT_TRUE(S_ISDIR(mode_of(d.file("sub"))));
  EXPECT_EQ(d.count(), 2);
  EXPECT_EQ(std::system(("test -z \"$(ls -A '" + d.file("sub") + "')\"").c_str()), 0);
}

TEST(Outputs, ExistingFileKeepsItsMode) {
  TempDir d;
  const std::string p = d.write("o.txt", "old\n");
  ::chmod(p.c_str(), 0640);
  write_file_atomic(p, "new\n");
  EXPECT_EQ(mode_of(p) & 07777, 0640u);
  EXPECT_EQ(slurp(p), "new\n");
}

TEST(Outputs, DiskFullLeavesNothingAndKeepsTheOldFile) {
  TempDir d;
  const std::string p = d.write("w.txt", "previous result\n");
  {
    SyscallSwap swap(&small_disk_write, nullptr);
    g_disk_left = 1000;
    expect_output_error([&] { write_eigenvalues(p, many_values(50000)); },
                        "no space left on device");
    g_disk_left = 0;
    expect_output_error([&] { write_dense(d.file("z.npy"), 2, 1, many_values(2).data(), 2); },
                        "no space left");
  }
  EXPECT_EQ(slurp(p), "previous result\n");
  EXPECT_EQ(d.count(), 1);
}

TEST(Outputs, FailingCloseIsAnError) {
  TempDir d;
  {
    SyscallSwap swap(nullptr, &failing_close);
    expect_output_error([&] { write_file_atomic(d.file("o.txt"), "x\n"); },
                        "write failed on close");
  }
  EXPECT_EQ(d.count(), 0);
}

TEST(Outputs, OwnDescriptorsKeepOffsetAndAppendMode) {
  TempDir d;
  const std::string log = d.write("log.txt", "line 1\n");
  int fd = ::open(log.c_str(), O_WRONLY | O_APPEND);
  ASSERT_GE(fd, 0);
  write_file_atomic("/dev/fd/" + std::to_string(fd), "line 2\n");
  write_file_atomic("/proc/self/fd/" + std::to_string(fd), "line 3\n");
  ::close(fd);
  EXPECT_EQ(slurp(log), "line 1\nline 2\nline 3\n");
  EXPECT_EQ(d.count(), 1);
  // A link to a descriptor path, as /dev/stdout is.
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  const std::string link = d.file("mystdout");
  ASSERT_EQ(::symlink(("/proc/self/fd/" + std::to_string(p[1])).c_str(), link.c_str()), 0);
  write_file_atomic(link, "through the pipe\n");
  ::close(p[1]);
  char buf[64] = {};
  EXPECT_EQ(::read(p[0], buf, sizeof buf - 1), 17);
  EXPECT_STREQ(buf, "through the pipe\n");
  ::close(p[0]);
  expect_output_error([&] { write_file_atomic("/dev/fd/987", "x"); }, "file descriptor 987");
}

TEST(Outputs, OwnDeviceNodes) {
  TempDir d;
  const std::string full = d.file("full"), null = d.file("null"), blk = d.file("blk");
  if (::mknod(full.c_str(), S_IFCHR | 0600, makedev(1, 7)) != 0) {
    GTEST_SKIP() << "mknod not permitted here: " << std::strerror(errno);
  }
  ASSERT_EQ(::mknod(null.c_str(), S_IFCHR | 0600, makedev(1, 3)), 0);
  ASSERT_EQ(::mknod(blk.c_str(), S_IFBLK | 0600, makedev(7, 0)), 0);
  expect_output_error([&] { write_eigenvalues(full, std::vector<double>{1.0}); },
                      "no space left on device");
  write_eigenvalues(null, many_values(1000));
  write_dense(null, 2, 1, many_values(2).data(), 2);
  expect_output_error([&] { write_file_atomic(blk, "x"); }, "block device");
  EXPECT_TRUE(S_ISCHR(mode_of(full)));
  EXPECT_TRUE(S_ISCHR(mode_of(null)));
  EXPECT_TRUE(S_ISBLK(mode_of(blk)));
  EXPECT_EQ(d.count(), 3);
  // Through a symbolic link as well.
  ASSERT_EQ(::symlink("full", d.file("fulllink").c_str()), 0);
  expect_output_error([&] { write_file_atomic(d.file("fulllink"), "x"); }, "no space left");
  EXPECT_TRUE(S_ISCHR(mode_of(full)));
  EXPECT_TRUE(S_ISLNK(mode_of(d.file("fulllink"))));
}

TEST(Outputs, SmallTmpfsFillsUp) {
  TempDir d;
  const std::string mnt = d.file("mnt");
  ::mkdir(mnt.c_str(), 0755);
  if (::mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=64k") != 0) {
    GTEST_SKIP() << "mount not permitted here: " << std::strerror(errno);
  }
  const std::string p = mnt + "/w.txt";
  expect_output_error([&] { write_eigenvalues(p, many_values(40000)); }, "no space left");
  const int left = std::system(("test -z \"$(ls -A '" + mnt + "')\"").c_str());
  write_eigenvalues(p, many_values(10));  // a small one still fits
  const std::string small = slurp(p);
  ::umount(mnt.c_str());
  EXPECT_EQ(left, 0) << "a partial output was left on the full disk";
  EXPECT_EQ(small.substr(0, 6), "0.3333");
}

// The outputs of one run (OutputSet): regular files go to temporaries, and only publish()
// renames them, after every output is complete; a failure before that leaves every old file
// as it was and no temporary.
TEST(OutputSet, AFailingLaterOutputLeavesTheEarlierOnesAsTheyWere) {
  TempDir d;
  const std::string a = d.write("a.txt", "old a\n"), b = d.write("b.npy", "old b\n");
  {
    SyscallSwap swap(&small_disk_write, nullptr);
    g_disk_left = std::size_t(1) << 20;
    OutputSet outs;
    const std::vector<double> w = many_values(100), z = many_values(4);
    outs.eigenvalues(a, w);
    EXPECT_EQ(slurp(a), "old a\n");  // staged, not renamed
    EXPECT_EQ(d.count(), 3);         // a's temporary beside it
    g_disk_left = 0;
    expect_output_error([&] { outs.dense(b, 2, 2, z.data(), 2); }, "no space left on device");
  }
  EXPECT_EQ(slurp(a), "old a\n");
  EXPECT_EQ(slurp(b), "old b\n");
  EXPECT_EQ(d.count(), 2);
}

TEST(OutputSet, PublishRenamesEveryOutputAndKeepsModes) {
  TempDir d;
  const std::string a = d.write("a.txt", "old a\n");
  ::chmod(a.c_str(), 0640);
  const std::vector<double> w = {1.5, -2.0};
  const std::vector<float> z = {1.0f, 2.0f};
  OutputSet outs;
  outs.eigenvalues(a, w);
  outs.dense(d.file("Z.NPY"), 2, 1, z.data(), 2);
  outs.text(d.file("r.json"), "{}\n");
  EXPECT_EQ(slurp(a), "old a\n");
  EXPECT_FALSE(std::ifstream(d.file("r.json")).good());
  outs.publish();
  EXPECT_EQ(slurp(a), "1.5\n-2\n");
  EXPECT_EQ(mode_of(a) & 07777, 0640u);
  EXPECT_EQ(slurp(d.file("Z.NPY")).substr(0, 6), "\x93NUMPY");  // .npy in any case
  EXPECT_EQ(slurp(d.file("r.json")), "{}\n");
  EXPECT_EQ(d.count(), 3);
  expect_output_error([&] { outs.text(d.file("late.txt"), "x"); }, "after publish");
}

// Every target is checked before the first rename: one replaced by a folder in the meantime
// stops them all.
TEST(OutputSet, PublishChecksEveryTargetBeforeRenamingAny) {
  TempDir d;
  const std::string a = d.write("a.txt", "old a\n"), b = d.write("b.txt", "old b\n");
  {
    OutputSet outs;
    outs.text(a, "new a\n");
    outs.text(b, "new b\n");
    ASSERT_EQ(::unlink(b.c_str()), 0);
    ASSERT_EQ(::mkdir(b.c_str(), 0755), 0);
    expect_output_error([&] { outs.publish(); }, "replaced by something other than a file");
  }
  EXPECT_EQ(slurp(a), "old a\n");
  EXPECT_TRUE(S_ISDIR(mode_of(b)));
  EXPECT_EQ(d.count(), 2);
}

// A stream cannot be staged: it is written by write_streams() (or publish()), after the regular
// files added before and after it are complete.
TEST(OutputSet, StreamsAreWrittenWhenAsked) {
  TempDir d;
  const std::string log = d.write("log.txt", "line 1\n");
  int fd = ::open(log.c_str(), O_WRONLY | O_APPEND);
  ASSERT_GE(fd, 0);
  EXPECT_TRUE(is_stream_output("/proc/self/fd/" + std::to_string(fd)));
  EXPECT_TRUE(is_stream_output("-"));
  EXPECT_FALSE(is_stream_output(log));
  EXPECT_FALSE(is_stream_output(d.file("new.txt")));
  {
    OutputSet outs;
    outs.text("/proc/self/fd/" + std::to_string(fd), "line 2\n");
    outs.text(d.file("f.txt"), "file\n");
    EXPECT_EQ(slurp(log), "line 1\n");
    outs.write_streams();
    EXPECT_EQ(slurp(log), "line 1\nline 2\n");
    outs.text("/dev/fd/" + std::to_string(fd), "line 3\n");
    outs.publish();
  }
  ::close(fd);
  EXPECT_EQ(slurp(log), "line 1\nline 2\nline 3\n");
  EXPECT_EQ(slurp(d.file("f.txt")), "file\n");
  EXPECT_EQ(d.count(), 2);
}

}  // namespace
}  // namespace eigsolve
